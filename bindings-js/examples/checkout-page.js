// The checkout page: its policy compiled when the page is built (retryplan/rollup in the bundler's plugins).
import { Policy, retryFetch } from 'retryplan';
import checkoutForm from './checkout.policy.json?retryplan';

const checkout = Policy.fromCompiled(checkoutForm);

/** Places an order; resolves to the winner's response, or rejects with the typed ending (GaveUpError, ...). */
export async function placeOrder(order) {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
  const { decision, response } = await retryFetch('/api/orders', init, { policy: checkout });
  if (decision.type === 'succeeded') return response.json();
  throw new Error(`checkout failed: ${decision.type} ${response.status}`);
}
