// A page's TypeScript against the lean browser runtime (`retryplan/lean`, which the bundler plugin's
// `runtime: 'lean'` resolves `retryplan` to): its types (browser-lean/lib/browser.d.ts) say what it does not
// carry, the shared controls among it.
/// <reference types="retryplan/imports" />
import { Dependency, GaveUpError, Policy, RetrySlots, retryFetch, run } from 'retryplan/lean';
import checkoutForm from './checkout.policy.json?retryplan';

const checkout = Policy.fromCompiled(checkoutForm);
export const placed = retryFetch('/api/orders', { method: 'POST' }, { policy: checkout });
// @ts-expect-error: Dependency.fromCompiled is not in the lean runtime (its result is `NotCarried`)
export const budget = Dependency.fromCompiled(checkoutForm).budget;
const cart = { policy: checkout, dependency: Dependency.fromCompiled(checkoutForm) };
// @ts-expect-error: nor may its result be passed on as a dependency (a `never` would pass)
export const guarded = retryFetch('/api/cart', {}, cart);
// @ts-expect-error: nor is Policy.fromConfig, as in the browser runtime
export const read: number = Policy.fromConfig({ maxAttempts: 3 }).maxAttempts;
/** `new RetrySlots` is marked deprecated (it throws `unsupported`); a constructor cannot return `never`. */
export const made = (): RetrySlots => new RetrySlots(2);
/** run() reads a value with `outcomeOfResult` here too; the ending carries the last one. */
export const counted = run(checkout, () => 0, {
  outcomeOfResult: (count: number) => (count === 0 ? { type: 'application', verdict: 'retryable' } : null),
}).catch((error: unknown) => (error instanceof GaveUpError ? error.lastValue : undefined));
// @ts-expect-error: nor OpenTelemetry, as in the browser runtime
export { instrumentOpenTelemetry, uninstrumentOpenTelemetry } from 'retryplan/lean';
