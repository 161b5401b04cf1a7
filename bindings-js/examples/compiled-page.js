// A page's policies, compiled when it is built (retryplan/rollup in the bundler's plugins).
import { Dependency, Policy, retryFetch } from 'retryplan';
import checkoutForm from './checkout.policy.json?retryplan';
import shopForm from './shop.dependency.json?retryplan=dependency';

const checkout = Policy.fromCompiled(checkoutForm);
const shop = Dependency.fromCompiled(shopForm);

export const placeOrder = (order) =>
  retryFetch('/api/orders', { method: 'POST', body: JSON.stringify(order) }, { policy: checkout, dependency: shop });
export const limits = {
  maxAttempts: checkout.maxAttempts,
  totalTimeoutMs: checkout.totalTimeoutMs,
  retrySlots: shop.retrySlots?.capacity,
};
