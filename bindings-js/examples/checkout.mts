import { GaveUpError, Policy, ReconcileRequiredError, retryFetch } from 'retryplan';

// The `checkout` profile, the same in every language: 800 ms for the whole checkout, 3 attempts of at
// most 200 ms, keyed writes. Or Policy.fromConfig({...}), or Policy.fromJson(text) from 'retryplan/tools'.
const checkout = Policy.profile('checkout');

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
