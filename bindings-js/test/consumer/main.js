// A tiny page that imports the package by name, bundled by Vite with the plugin (its policy compiled when built).
import { Operation, Policy, profileNames } from 'retryplan';
import checkoutForm from './checkout.policy.json?retryplan';

const operation = new Operation(Policy.fromCompiled(checkoutForm), 0, { seed: 1, idempotencyKey: 'order-5001' });
// The browser runtime reads no configuration: a built-in profile is refused, naming what to do instead.
let profile;
try {
  Policy.profile('checkout');
} catch (error) {
  profile = { code: error.code, field: error.field, blame: error.blame };
}
window.__result = { profiles: profileNames(), first: operation.poll(50), profile };
