// A TypeScript consumer of the tools entry (retryplan/tools), checked with tsc --strict.
import {
  Dependency,
  Operation,
  Outcome as Outcomes,
  Policy,
  RetryplanError,
  ServiceConfig,
  redeliver,
  type Class,
  type DependencySnapshot,
  type Redelivery,
  type Timeline,
} from 'retryplan/tools';
import { RetryplanError as SameError } from 'retryplan';

const policy: Policy = Policy.fromJson('{"max_attempts": 3, "hedging": {"delay_ms": 50, "max_hedged_attempts": 1}}');
const timeline: Timeline = policy.explain(1000);
const klass: Class = policy.classify({ type: 'http_status', status: 503 });
const redelivery: Redelivery = redeliver(policy, 1, 0, 0, Outcomes.fromHttp(503, '2', null, Date.now()));
export const summary = `${timeline.attemptsThatFit} ${klass.class} ${redelivery.type} ${policy.toJson().length}`;

const dependency = Dependency.fromJson('{"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}');
const snapshot: DependencySnapshot = dependency.snapshot(0);
export const tokens: number | undefined =
  snapshot.budget?.kind === 'token_bucket' ? snapshot.budget.tokensMilli : undefined;
export const budgetState = dependency.budget?.snapshot(0);
new Operation(policy, 0, { dependency }).free();

const service = ServiceConfig.fromConfig({ methodConfig: [] });
export const methods = service.methods.length;

try {
  Policy.fromJson('{"max_attempts": 0}');
} catch (error) {
  // One error class for both entries.
  if (error instanceof RetryplanError && error instanceof SameError) console.log(error.code, error.violations);
}

// A timeline's ending is the core's data: an empty abortAttempts is left out.
const ending = Policy.profile('read').explain().ending;
export function abortedOf(): number[] {
  if (ending.type !== 'gave_up') return [];
  // @ts-expect-error: a give-up's abortAttempts may be absent here (an operation's always has one)
  return ending.abortAttempts;
}
export const endingAborts: number[] = ending.abortAttempts ?? [];
