// The representational rules of the binding (not in the shared vectors): how JS
// values cross, how errors look, what the helpers do without a network.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Operation,
  Policy,
  RetryplanError,
  Stats,
  admit,
  encodeGrpcTimeout,
  parseGrpcPushback,
  parseRetryAfter,
  profileNames,
  run,
} from 'retryplan';

const checkout = () =>
  Policy.fromConfig({
    maxAttempts: 3,
    totalBudgetMs: 800,
    attemptTimeout: { fixedMs: 200 },
    responseReserveMs: 50,
    minimumUsefulAttemptMs: 200,
    backoff: { kind: 'exponential', baseMs: 50, multiplier: 2, capMs: 400 },
    jitter: { kind: 'none' },
    idempotency: 'keyed',
  });

function throwsCode(call, code) {
  let caught;
  try {
    call();
  } catch (error) {
    caught = error;
  }
  assert.ok(caught instanceof RetryplanError, `expected a RetryplanError, got ${caught}`);
  assert.ok(caught instanceof Error);
  assert.equal(caught.name, 'RetryplanError');
  assert.equal(caught.code, code);
  assert.equal(typeof caught.message, 'string');
  assert.ok(caught.stack.includes('RetryplanError'));
  return caught;
}

test('the 800 ms checkout, decision by decision, as plain camelCase objects', () => {
  const operation = new Operation(checkout(), 0, { seed: 1, idempotencyKey: 'order-5001' });
  assert.equal(operation.idempotencyKey, 'order-5001');
  assert.equal(operation.deadlineMs, 800);
  assert.deepEqual(operation.poll(50), {
    type: 'start_attempt',
    attempt: 1,
    timeoutMs: 200,
    abortAtMs: 250,
    requestId: '92c2a5665ff07619',
    remainingBudgetMs: 700,
  });
  assert.deepEqual(operation.poll(100), { type: 'await_outcome', inFlight: 1, untilMs: 250 });
  const unavailable = { type: 'http_status', status: 503 };
  assert.deepEqual(operation.onOutcome(250, 1, unavailable), {
    type: 'wait',
    retry: 0,
    delayMs: 50,
    untilMs: 300,
    remainingBudgetMs: 500,
  });
  assert.equal(operation.nextWakeupMs(), 300);
  assert.equal(operation.poll(300).attempt, 2);
  const ending = operation.onOutcome(500, 2, unavailable);
  assert.deepEqual(ending, {
    type: 'gave_up',
    reason: 'deadline_insufficient',
    attempts: 2,
    remainingBudgetMs: 250,
    refusedDelayMs: 100,
  });
  assert.equal(operation.isEnded, true);
  assert.equal(operation.nextWakeupMs(), undefined);
  throwsCode(() => operation.poll(600), 'operation_ended');
});

test('times are floored; NaN, infinities, negatives and unsafe integers are invalid_argument', () => {
  const operation = new Operation(checkout(), 0.9, { seed: 1 });
  assert.equal(operation.poll(50.99).abortAtMs, 250);
  for (const bad of [NaN, Infinity, -Infinity, -1, -0.5, 2 ** 53, Number.MAX_VALUE]) {
    const error = throwsCode(() => operation.poll(bad), 'invalid_argument');
    assert.equal(error.field, 'nowMs');
  }
  assert.equal(operation.poll(Number.MAX_SAFE_INTEGER).type, 'await_outcome');
  throwsCode(() => new Operation(checkout(), -1, { seed: 1 }), 'invalid_argument');
  throwsCode(() => operation.onOutcome(60, 1.5, { type: 'success' }), 'invalid_argument');
});

test('seeds are optional; given seeds are whole numbers <= 2^53-1', () => {
  const policy = checkout();
  const a = new Operation(policy, 0);
  const b = new Operation(policy, 0, {});
  assert.match(a.idempotencyKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.notEqual(a.idempotencyKey, b.idempotencyKey);
  const seeded = (seed) => new Operation(policy, 0, { seed }).idempotencyKey;
  assert.equal(seeded(Number.MAX_SAFE_INTEGER), seeded(Number.MAX_SAFE_INTEGER));
  for (const bad of [1.5, -1, 2 ** 53, NaN]) throwsCode(() => new Operation(policy, 0, { seed: bad }), 'invalid_argument');
  throwsCode(() => new Operation(policy, 0, { seed: 1, idempotencyKey: 'has space' }), 'invalid_argument');
  throwsCode(() => new Operation(policy, 0, { seed: 1, idempotencyKey: 42 }), 'invalid_argument');
});

test('a caller deadline shortens the operation', () => {
  const operation = new Operation(checkout(), 0, { seed: 1, deadlineMs: 400 });
  assert.equal(operation.deadlineMs, 400);
  assert.equal(operation.remainingBudgetMs(100), 250);
});

test('outcomes of every type cross; malformed ones are invalid_argument and change nothing', () => {
  const policy = Policy.fromConfig({ jitter: { kind: 'none' }, maxAttempts: 10, totalBudgetMs: 100000 });
  const outcomes = [
    { type: 'http_status', status: 503, retryAfterMs: 1000 },
    { type: 'grpc_status', code: 'unavailable', pushback: { retryAfterMs: 300 } },
    { type: 'grpc_status', code: 'unavailable' },
    { type: 'transport', failure: 'not_sent' },
    { type: 'application', verdict: 'retryable' },
  ];
  const operation = new Operation(policy, 0, { seed: 3 });
  let now = 0;
  for (const outcome of outcomes) {
    const start = operation.poll(now);
    assert.equal(start.type, 'start_attempt');
    for (const bad of [
      { type: 'nope' },
      { type: 'http_status' },
      { type: 'http_status', status: '503' },
      { type: 'http_status', status: 42 },
      { type: 'http_status', status: 503, retryAfterMs: -1 },
      { type: 'grpc_status', code: 'UNAVAILABLE' },
      { type: 'grpc_status', code: 'unavailable', pushback: 'soon' },
      { type: 'transport', failure: 'reset' },
      { type: 'application', verdict: 'maybe' },
      null,
      'success',
    ]) {
      throwsCode(() => operation.onOutcome(now, start.attempt, bad), 'invalid_argument');
    }
    const wait = operation.onOutcome(now + 10, start.attempt, outcome);
    assert.equal(wait.type, 'wait', JSON.stringify(outcome));
    now = wait.untilMs;
  }
  throwsCode(() => operation.onOutcome(now, 5, { type: 'success' }), 'attempt_not_running');
});

test('policy errors list every violation with its field; JSON errors name the path', () => {
  const error = throwsCode(
    () => Policy.fromConfig({ maxAttempts: 0, backoff: { baseMs: 200, capMs: 100 } }),
    'invalid_policy',
  );
  assert.deepEqual(
    error.violations.map((v) => v.field),
    ['max_attempts', 'backoff.cap_ms'],
  );
  assert.equal(error.violations[1].message, 'backoff.cap_ms (100) must be >= backoff.base_ms (200)');
  assert.equal(throwsCode(() => Policy.fromConfig({ backoff: { baseMs: -5 } }), 'invalid_policy_json').field, 'backoff.base_ms');
  assert.match(throwsCode(() => Policy.fromConfig({ maxAttemps: 3 }), 'invalid_policy_json').message, /max_attemps/);
  throwsCode(() => Policy.fromJson('{"max_attempts": 3} {}'), 'invalid_policy_json');
  throwsCode(() => Policy.fromJson('{"max_attempts": 3.0}'), 'invalid_policy_json');
  throwsCode(() => Policy.profile('nope'), 'unknown_profile');
  throwsCode(() => Policy.fromConfig(1n), 'invalid_argument');
});

test('policies round-trip and expose their configuration', () => {
  for (const name of profileNames()) {
    const policy = Policy.profile(name);
    const again = Policy.fromConfig(policy.toConfig());
    assert.deepEqual(again.toConfig(), policy.toConfig());
    assert.deepEqual(Policy.fromJson(policy.toJson()).toConfig(), policy.toConfig());
  }
  const policy = Policy.profile('checkout');
  assert.equal(policy.maxAttempts, 3);
  assert.equal(policy.totalBudgetMs, 800);
  assert.deepEqual(policy.backoffCeilingsMs(5), [50, 100, 200, 400, 400]);
  assert.ok(Array.isArray(policy.backoffCeilingsMs(0)));
  assert.deepEqual(policy.classify({ type: 'http_status', status: 502 }), { class: 'retryable', ambiguous: true });
  const timeline = Policy.fromJson(
    '{"max_attempts": 3, "total_budget_ms": 2000, "attempt_timeout": {"fixed_ms": 1000}, "response_reserve_ms": 0, "jitter": {"kind": "none"}}',
  ).explain();
  assert.equal(timeline.unboundedWorstCaseMs, 3300);
  assert.equal(timeline.attemptsThatFit, 2);
  assert.equal(timeline.warnings[0].type, 'attempts_do_not_fit');
  assert.equal(timeline.ending.type, 'gave_up');
});

test('header helpers and admission', () => {
  assert.equal(parseRetryAfter('120', 0), 120000);
  assert.equal(parseRetryAfter('Sun, 06 Nov 1994 08:49:37 GMT', 784111777000 - 30000), 30000);
  assert.equal(throwsCode(() => parseRetryAfter('12abc', 0), 'invalid_header').field, 'retry-after');
  assert.deepEqual(parseGrpcPushback('100'), { retryAfterMs: 100 });
  assert.equal(parseGrpcPushback('-1'), 'do_not_retry');
  assert.equal(encodeGrpcTimeout(1500), '1500m');
  assert.deepEqual(admit(1000, 700, 0, 150), { type: 'admit', remainingMs: 300 });
});

test('stats count decisions as returned', () => {
  const stats = new Stats();
  const operation = new Operation(checkout(), 0, { seed: 1 });
  let decision = operation.poll(0);
  stats.record(decision);
  decision = operation.onOutcome(200, 1, { type: 'success' });
  stats.record(decision);
  stats.record({ type: 'gave_up', reason: 'cancelled', attempts: 1, remainingBudgetMs: 0 });
  const counters = JSON.parse(JSON.stringify(stats));
  assert.equal(counters.operations, 1);
  assert.equal(counters.succeeded, 1);
  assert.equal(counters.gaveUp.cancelled, 1);
  throwsCode(() => stats.record({ type: 'gave_up', reason: 'bored', attempts: 1, remainingBudgetMs: 0 }), 'invalid_argument');
});

test('run: attempts, waits and the ending come from the core; the loop only sleeps and calls', async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 3,
    totalBudgetMs: 5000,
    backoff: { kind: 'constant', baseMs: 5, capMs: 5 },
    jitter: { kind: 'none' },
    idempotency: 'keyed',
  });
  const seen = [];
  const result = await run(
    policy,
    (context) => {
      seen.push(context);
      return context.attempt < 3 ? { outcome: { type: 'http_status', status: 503 } } : { outcome: { type: 'success' }, value: 'ok' };
    },
    { seed: 7 },
  );
  assert.deepEqual(result.decision, { type: 'succeeded', attempts: 3 });
  assert.equal(result.value, 'ok');
  assert.equal(new Set(seen.map((c) => c.idempotencyKey)).size, 1);
  assert.equal(new Set(seen.map((c) => c.requestId)).size, 3);
  assert.equal(result.idempotencyKey, seen[0].idempotencyKey);
});

test('run: an attempt that overruns its timeout is aborted and reported as timed_out', async () => {
  const policy = Policy.fromConfig({ maxAttempts: 2, attemptTimeout: { fixedMs: 30 }, minimumUsefulAttemptMs: 10, jitter: { kind: 'none' } });
  const signals = [];
  const result = await run(
    policy,
    ({ signal }) => {
      signals.push(signal);
      return new Promise(() => {});
    },
    { seed: 1 },
  );
  assert.deepEqual(result.decision, { type: 'gave_up', reason: 'attempts_exhausted', attempts: 2, remainingBudgetMs: result.decision.remainingBudgetMs });
  assert.ok(signals.every((signal) => signal.aborted && signal.reason.name === 'TimeoutError'));
});

test('run: the caller aborting cancels the operation; an attempt that throws is a bug and rethrows', async () => {
  const controller = new AbortController();
  const policy = Policy.fromConfig({ maxAttempts: 5, backoff: { kind: 'constant', baseMs: 1000, capMs: 1000 }, jitter: { kind: 'none' } });
  const pending = run(policy, () => ({ outcome: { type: 'http_status', status: 503 } }), { seed: 1, signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  const result = await pending;
  assert.equal(result.decision.type, 'gave_up');
  assert.equal(result.decision.reason, 'cancelled');
  await assert.rejects(
    run(policy, () => {
      throw new TypeError('boom');
    }),
    TypeError,
  );
  await assert.rejects(run(policy, () => undefined), (error) => error instanceof RetryplanError && error.code === 'invalid_argument');
});

test('onHttpResponse reads the raw Retry-After in the core: huge, malformed and absent headers', () => {
  const policy = Policy.fromConfig({ jitter: { kind: 'none' }, serverGuidance: { capMs: 5000, aboveCap: 'clamp' } });
  const operation = () => {
    const op = new Operation(policy, 0, { seed: 1 });
    op.poll(0);
    return op;
  };
  assert.equal(operation().onHttpResponse(10, 1, 503, '99999999999999999999999', 0).serverDelayMs, 5000);
  assert.equal(operation().onHttpResponse(10, 1, 503, '2', 0).serverDelayMs, 2000);
  assert.equal(operation().onHttpResponse(10, 1, 503, 'soon', 0).serverDelayMs, undefined);
  assert.equal(operation().onHttpResponse(10, 1, 503, null, 0).serverDelayMs, undefined);
  assert.equal(operation().onHttpResponse(10, 1, 200, undefined, 0).type, 'succeeded');
  throwsCode(() => operation().onHttpResponse(10, 1, 503.5, null, 0), 'invalid_argument');
});
