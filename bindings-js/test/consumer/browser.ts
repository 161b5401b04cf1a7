// A page's TypeScript under the `browser` condition ("customConditions": ["browser"]): the types of the
// browser runtime (browser/lib/browser.d.ts) say what it does not carry.
/// <reference types="retryplan/imports" />
import { type IncomingContext, Policy, RetryplanError, retryFetch } from 'retryplan';
import checkoutForm from './checkout.policy.json?retryplan';

const checkout = Policy.fromCompiled(checkoutForm);
export const placed = retryFetch('/api/orders', { method: 'POST' }, { policy: checkout });
export const limit: number = checkout.maxAttempts;
export const isOurs = (error: unknown): boolean => error instanceof RetryplanError && error.code === 'unsupported';
// @ts-expect-error: Policy.fromConfig is not in the browser runtime (its result is `NotCarried`)
export const read: number = Policy.fromConfig({ maxAttempts: 3 }).maxAttempts;
// @ts-expect-error: nor is Policy.profile
export const profiled: number = Policy.profile('checkout').totalTimeoutMs;
// @ts-expect-error: and passing its result on as a policy is a type error too (a `never` would pass)
export const passedOn = retryFetch('/api/orders', { method: 'POST' }, { policy: Policy.profile('checkout') });
// @ts-expect-error: nor is the server side of propagation (a page serves no request): no middleware,
export { propagation } from 'retryplan';
// @ts-expect-error: no ambient incoming context,
export { currentIncoming } from 'retryplan';
// @ts-expect-error: and no IncomingContext for a driver to start from (it is `never`)
export const served: IncomingContext = {};
// @ts-expect-error: nor OpenTelemetry (lib/otel.js is Node's and the tools')
export { instrumentOpenTelemetry } from 'retryplan';
// @ts-expect-error: nor its undoing
export { uninstrumentOpenTelemetry } from 'retryplan';
