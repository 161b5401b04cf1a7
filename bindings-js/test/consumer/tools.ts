// A TypeScript consumer of the tools entry (retryplan/tools), checked with tsc --strict.
import {
  Dependency,
  Driver,
  IncomingContext,
  Operation,
  Outcome as Outcomes,
  Policy,
  RetryplanError,
  ServiceConfig,
  Stats,
  compilePolicy,
  redeliver,
  retryFetch,
  run,
  type Class,
  type DependencySnapshot,
  type PolicyConfig,
  type Redelivery,
  type Timeline,
} from 'retryplan/tools';
import {
  RetryplanError as SameError,
  Operation as DefaultOperation,
  Policy as DefaultPolicy,
  run as defaultRun,
} from 'retryplan';

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

// Each entry's objects are its own (another entry's functions throw "must be a Policy"): the types do not mix them.
export function mixed(config: PolicyConfig): void {
  const tools = Policy.profile('read');
  const plain = DefaultPolicy.profile('read');
  // @ts-expect-error: the default entry's run refuses a Policy of the tools
  void defaultRun(tools, () => 0);
  // @ts-expect-error: and the tools' run a Policy of the default entry
  void run(plain, () => 0);
  // @ts-expect-error: the default entry's Operation refuses a Dependency of the tools
  new DefaultOperation(plain, 0, { dependency: Dependency.fromConfig({ retrySlots: 2 }) }).free();
  // @ts-expect-error: a Policy is not plain data: compilePolicy refuses the default entry's
  compilePolicy(plain);
  // @ts-expect-error: nor does fromConfig read a Policy
  Policy.fromConfig(tools);
  // This entry's objects go together, and a configuration object, typed or not, is plain data.
  void run(tools, () => 0, { dependency: Dependency.fromConfig({ retrySlots: 2 }), stats: new Stats() });
  const stats = new Stats();
  stats.merge(new Stats());
  new Driver(tools, 0, { stats, incoming: IncomingContext.read(tools, {}) }).free();
  void retryFetch('/', null, { policy: tools, stats });
  compilePolicy(tools);
  compilePolicy(config);
  compilePolicy({ maxAttempts: 3 });
  const timeline: Timeline = Policy.fromConfig(config).explain();
  void timeline;
}
