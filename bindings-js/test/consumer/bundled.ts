// A page whose policies the bundler plugin compiled (retryplan/rollup), as TypeScript sees it.
/// <reference types="retryplan/imports" />
import retryplan from 'retryplan/rollup';
import { Dependency, Policy } from 'retryplan';
import checkoutForm from './checkout.policy.json?retryplan';
import explicitForm from './checkout.policy.json?retryplan=policy';
import shopForm from './shop.dependency.json?retryplan=dependency';

export const plugin: { name: 'retryplan' } = retryplan();
export const policies: Policy[] = [Policy.fromCompiled(checkoutForm), Policy.fromCompiled(explicitForm)];
export const shop: Dependency = Dependency.fromCompiled(shopForm);
// @ts-expect-error: a form is bytes, not a configuration
export const wrong: { maxAttempts: number } = checkoutForm;
