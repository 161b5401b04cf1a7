// The checkout page with the shop's shared controls (a retry budget and a circuit breaker), compiled when the page is built.
import { Dependency, Policy, retryFetch } from 'retryplan';
import checkoutForm from './checkout.policy.json?retryplan';
import shopForm from './shop.dependency.json?retryplan=dependency';

const checkout = Policy.fromCompiled(checkoutForm);
const shop = Dependency.fromCompiled(shopForm);

/** Places an order; every call to the shop shares its budget and breaker. */
export async function placeOrder(order) {
  const init = { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(order) };
  const { decision, response } = await retryFetch('/api/orders', init, { policy: checkout, dependency: shop });
  if (decision.type === 'succeeded') return response.json();
  throw new Error(`checkout failed: ${decision.type} ${response.status}`);
}
