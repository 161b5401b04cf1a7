// A TypeScript consumer of the packed package, checked with tsc --strict.
import {
  CircuitBreaker,
  Dependency,
  Driver,
  GaveUpError,
  GUIDANCE_HEADERS,
  OperationFailedError,
  ReconcileRequiredError,
  Operation,
  Outcome as Outcomes,
  RestartRequiredError,
  parseRateLimit,
  Policy,
  RetryBudget,
  type RetrySlots,
  ConcurrencyLimit,
  RetryplanError,
  retryFetch,
  run,
  type AboveCap,
  type Action,
  type BreakerPermit,
  type ConfigKind,
  type DecisionEvent,
  type Failure,
  type GiveUpReason,
  type GuidanceMode,
  type Decision,
  type Ending,
  type Outcome,
  type PolicyConfig,
  type Receipt,
} from 'retryplan';

const config: PolicyConfig = {
  maxAttempts: 3,
  totalTimeoutMs: 800,
  attemptTimeout: { fixedMs: 200 },
  backoff: { kind: 'exponential', baseMs: 50, multiplier: 2, capMs: 400 },
  jitter: { kind: 'full' },
  idempotency: 'keyed',
};
const policy: Policy = Policy.fromConfig(config);
// The unions a configuration's values take are exported with it (generated/names.d.ts).
const aboveCap: AboveCap = 'give_up';
const mode: GuidanceMode = 'a6';
export const guided: PolicyConfig = { ...config, serverGuidance: { aboveCap, mode } };

function describe(decision: Decision): string {
  switch (decision.type) {
    case 'start_attempt':
      return `attempt ${decision.attempt} for ${decision.timeoutMs} ms as ${decision.requestId}`;
    case 'wait':
      return `wait ${decision.delayMs} ms${decision.retryAfterMs === undefined ? '' : ' (server asked)'}`;
    case 'await_outcome':
      return `await until ${decision.untilMs}`;
    case 'succeeded':
      return `done after ${decision.attempts}, won by ${decision.winner}, abort ${decision.abortAttempts.join(',')}`;
    case 'gave_up': {
      const reason: GiveUpReason = decision.reason;
      return `gave up: ${reason}${reason === 'budget_exhausted' ? ' (budget)' : ''}`;
    }
    case 'reconcile':
      return `reconcile with ${decision.remainingMs} ms left`;
    case 'restart':
      return `restart before ${decision.deadlineMs}`;
  }
}

const dependency: Dependency = Dependency.fromConfig({
  budget: { kind: 'ratio', retryRatio: 0.05, minRetriesPerSecond: 10, windowMs: 10000 },
  breaker: { trip: { kind: 'consecutive', failures: 5 }, openMs: 5000, halfOpenProbes: 1 },
  retrySlots: 20,
});
const slotsInUse: number | undefined = dependency.retrySlots?.inUse;
// The old name of RetrySlots (deprecated, kept for one release) is the same class and type.
const old: ConcurrencyLimit = new ConcurrencyLimit(2);
const slots: RetrySlots = old;
if (slots.capacity !== 2) throw new Error('ConcurrencyLimit is RetrySlots');
const budget = new RetryBudget({
  kind: 'quota',
  capacity: 10,
  retryCost: 5,
  timeoutRetryCost: 10,
  successIncrement: 1,
});
budget.onSuccess(0, budget.tryRetry(0, true));
const breaker = new CircuitBreaker({
  trip: { kind: 'ratio', failureRatio: 0.5, minimumThroughput: 10, windowMs: 1000 },
  openMs: 100,
  halfOpenProbes: 1,
});
const permit: BreakerPermit | undefined = breaker.tryAcquire(0);
if (permit && !permit.probe) breaker.onFailure(1, permit);
const hedged = Policy.fromConfig({ ...config, hedging: { delayMs: 50, maxHedgedAttempts: 1 } });
const http = Outcomes.fromHttp(503, '2', null, Date.now());
describe({ type: 'await_outcome', running: slotsInUse ?? 0, untilMs: http.retryAfterMs ?? hedged.maxAttempts });

const operation = new Operation(policy, performance.now(), { seed: 42, dependency });
const first = operation.poll(performance.now());
const outcome: Outcome = { type: 'http_status', status: 503, retryAfterMs: 100 };
if (first.type === 'start_attempt') describe(operation.onOutcome(performance.now(), first.attempt, outcome));

try {
  Policy.fromConfig({ maxAttempts: 0 });
} catch (error) {
  if (error instanceof RetryplanError && error.code === 'config_violations') {
    const config: ConfigKind | undefined = error.config;
    const fields: string[] = (error.violations ?? []).map((violation) => `${config}: ${violation.field}`);
    describe({ type: 'succeeded', attempts: fields.length, winner: 1, abortAttempts: [] });
  }
}

export async function checkout(body: string): Promise<Ending> {
  try {
    const result = await retryFetch('/api/checkout', { method: 'POST', body }, { policy, idempotent: false });
    // The result narrows on the decision; a response is always there.
    if (result.decision.type === 'succeeded') await result.response.json();
    else if (result.decision.type === 'gave_up') console.log(result.decision.reason, result.response.status);
    const doubled: number = await run(policy, ({ attempt, hedge }) => (hedge ? 0 : attempt * 2), {
      dependency,
      onDiscard: (value: number) => void value,
      outcomeOfError: (error) =>
        error instanceof TypeError ? { type: 'application', verdict: 'retryable' } : undefined,
      onDecision: (event: DecisionEvent) => void event.decision.type,
    });
    // A value can be a failure too: the hook gets the attempt's type; the ending carries the last one.
    const reply: { status: number } = await run(policy, () => ({ status: 503 }), {
      outcomeOfResult: (value: { status: number }) =>
        value.status >= 500 ? { type: 'http_status', status: value.status } : undefined,
    });
    return doubled > reply.status ? result.decision : result.decision;
  } catch (error) {
    if (error instanceof OperationFailedError && error.lastValue !== undefined) console.log(error.lastValue);
    if (error instanceof ReconcileRequiredError) return error.decision;
    if (error instanceof GaveUpError) {
      const reason: GiveUpReason = error.reason;
      describe({ type: 'succeeded', attempts: error.attempts, winner: reason.length, abortAttempts: [] });
    }
    if (error instanceof OperationFailedError) return error.decision;
    throw error;
  }
}

export function drive(failure: Failure): Action {
  const driver = new Driver(policy, performance.now(), {
    method: 'GET',
    concurrency: 'sequential',
    recordEvents: true,
  });
  const action = driver.pollAction(performance.now());
  if (action.type === 'start_attempt' && action.sendIdempotencyKey)
    driver.handleResult(performance.now(), action.attempt, Outcomes.fromFailure(failure));
  const headers = new Headers();
  const read: Outcome = Outcomes.fromHttpResponse(503, headers, Date.now());
  describe({
    type: 'await_outcome',
    running: GUIDANCE_HEADERS.length + (read.type === 'http_status' ? 0 : 1),
    untilMs: 0,
  });
  return action;
}

/** A host that holds results by token: what the driver says to drop, return or raise. */
export function driveHeld(response: Response): number | undefined {
  const driver = new Driver(policy, 0, { method: 'PUT', oneShotBody: true, returnsResponses: true });
  const action = driver.pollAction(0);
  if (action.type !== 'start_attempt') return undefined;
  const receipt: Receipt = driver.handleResponse(1, action.attempt, response.status, response.headers, {
    token: action.attempt,
    nowUnixMs: Date.now(),
  });
  if (receipt === 'discarded') return undefined;
  driver.handleResult(2, action.attempt, { type: 'success' }, { token: 7, held: 'error' });
  const next = driver.pollAction(2);
  if (next.type === 'release') return next.token;
  if (next.type === 'finish') return next.result?.returned ? next.result.token : undefined;
  return undefined;
}

// Names the schema enumerates are literal unions.
export const everyLayer: PolicyConfig = { propagation: { retryLayer: 'every', readHeaders: ['grpc', 'retryplan'] } };
// @ts-expect-error: retryLayer is `outermost` or `every`
export const sometimes: PolicyConfig = { propagation: { retryLayer: 'sometimes' } };
// @ts-expect-error: readHeaders are the header families grpc, envoy and retryplan
export const b3: PolicyConfig = { propagation: { readHeaders: ['b3'] } };

// A RateLimit field that asks for no wait reads as undefined (never null).
export const rateLimitWait: number | undefined = parseRateLimit('"default";r=5;t=30');

// Test fakes make the errors the entries throw, with the arguments the classes take.
export const misuse = new RetryplanError('invalid_argument', 'invalid argument `nowMs`');
// @ts-expect-error: a RetryplanError's first argument is its code, not its message
export const worded = new RetryplanError('something went wrong');
export const gaveUp = new GaveUpError(
  { type: 'gave_up', reason: 'attempts_exhausted', attempts: 3, remainingMs: 0, abortAttempts: [] },
  'key-1',
  { type: 'http_status', status: 503 },
);
export const restart = new RestartRequiredError(
  { type: 'restart', attempts: 1, deadlineMs: 900, remainingMs: 100, abortAttempts: [] },
  'key-2',
);
// @ts-expect-error: a GaveUpError is made from its give-up, not from a message
export const gaveUpWorded = new GaveUpError('gave up');
