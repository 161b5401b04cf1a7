import { GaveUpError, Policy, ReconcileRequiredError, retryFetch } from 'retryplan';

// Or Policy.fromJson(text), from 'retryplan/tools', for a policy file in the shared snake_case schema.
const checkout = Policy.fromConfig({
  maxAttempts: 3,
  totalBudgetMs: 800,
  attemptTimeout: { fixedMs: 200 },
  responseReserveMs: 50,
  minimumUsefulAttemptMs: 200,
  backoff: { kind: 'exponential', baseMs: 50, multiplier: 2, capMs: 400 },
  jitter: { kind: 'full' },
  idempotency: 'keyed',
});

/** Places an order with the shop at `shop`, an absolute URL such as `https://shop.example`. */
export async function placeOrder(shop: string, order: object): Promise<unknown> {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
  try {
    const { decision, response } = await retryFetch(`${shop}/api/orders`, init, { policy: checkout });
    if (decision.type === 'succeeded') return await response.json(); // the winner's response
    throw new Error(`checkout failed: ${decision.type} ${response.status}`); // gave_up (e.g. a 404) or restart (a 409), with the last response
  } catch (error) {
    if (error instanceof ReconcileRequiredError) return lookUpOrder(shop, error.idempotencyKey); // the write may have happened
    if (error instanceof GaveUpError) console.warn(error.reason, error.cause); // no response at all
    throw error;
  }
}

/** Whether an order whose request may have been processed exists, asked by its idempotency key. */
async function lookUpOrder(shop: string, idempotencyKey: string): Promise<unknown> {
  const response = await fetch(`${shop}/api/orders?idempotency_key=${encodeURIComponent(idempotencyKey)}`);
  return response.json();
}
