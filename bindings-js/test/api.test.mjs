// The representational rules of the binding (not in the shared vectors): how JS
// values cross, how errors look, what the helpers do without a network.
import { test } from 'node:test';
import vm from 'node:vm';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CircuitBreaker,
  RetrySlots,
  Dependency,
  Operation,
  Outcome,
  Policy,
  RetryBudget,
  RetryCharge,
  outcomeFromHttp,
  redeliver,
  RetryplanError,
  Stats,
  admit,
  encodeGrpcTimeout,
  parseGrpcPushback,
  parseRetryAfter,
  profileNames,
} from 'retryplan/tools';
import * as lean from 'retryplan';
import * as tools from 'retryplan/tools';
import { throwsCode } from './assertions.mjs';
import { SHARED, sharedModules } from '../tools-entry.mjs';
import { HANDLE } from '../lib/objects.js';
import { decisionOf } from '../lib/records.js';
import { WIRE } from '../lib/generated/wire.js';
import { _operationOutcome } from '../wasm/retryplan_js.js';

test('shared modules, the generated ones too, import only shared modules: never the wasm', () => {
  const shared = sharedModules(new URL('../lib/', import.meta.url));
  for (const name of ['failures.js', 'generated/wire.js', 'generated/decisions.js', 'generated/outcomes.js'])
    assert.ok(shared.has(name), name);
  // A generated module that reaches the wasm would hold one entry's wasm state in both: refused.
  const lib = new URL(`file://${mkdtempSync(join(tmpdir(), 'retryplan-shared-'))}/`);
  mkdirSync(new URL('generated/', lib));
  for (const name of SHARED) writeFileSync(new URL(name, lib), '');
  writeFileSync(new URL('generated/wire.js', lib), "import { x } from '../convert.js';\n");
  assert.ok(sharedModules(lib).has('generated/wire.js'));
  writeFileSync(new URL('generated/decisions.js', lib), "import { y } from '../wasm/retryplan_js.js';\n");
  assert.throws(
    () => sharedModules(lib),
    /lib\/generated\/decisions\.js is shared by both entries but imports \.\.\/wasm\/retryplan_js\.js/,
  );
  rmSync(lib, { recursive: true });
});

test('two entries: the default one for a checkout page, the tools a superset with its own wasm', () => {
  assert.deepEqual(Object.keys(lean).sort(), [
    'BreakerPermit',
    'CircuitBreaker',
    'ConcurrencyLimit',
    'Dependency',
    'Driver',
    'GUIDANCE_HEADERS',
    'GaveUpError',
    'IDEMPOTENCY_KEY_HEADER',
    'IncomingContext',
    'Operation',
    'OperationFailedError',
    'Outcome',
    'Policy',
    'REQUEST_ID_HEADER',
    'ReconcileRequiredError',
    'RestartRequiredError',
    'RetryBudget',
    'RetryCharge',
    'RetrySlot',
    'RetrySlots',
    'RetryplanError',
    'Stats',
    'currentIncoming',
    'failureOf',
    'instrumentOpenTelemetry',
    'outcomeFromHttp',
    'parseRateLimit',
    'parseRateLimitReset',
    'parseRetryAfter',
    'parseRetryAfterMsHeader',
    'profileNames',
    'propagation',
    'requestName',
    'retryFetch',
    'run',
    'uninstrumentOpenTelemetry',
    'wasmTrapped',
  ]);
  assert.deepEqual(
    Object.keys(tools)
      .filter((name) => !(name in lean))
      .sort(),
    [
      'ServiceConfig',
      'admit',
      'awsErrorCodeFromResponse',
      'awsStandard2026Dependency',
      'awsStandardDependency',
      'compileDependency',
      'compilePolicy',
      'compiledFromBase64',
      'compiledToBase64',
      'encodeGrpcTimeout',
      'encodeGrpcTimeoutNs',
      'parseGrpcPushback',
      'parseGrpcTimeout',
      'parseGrpcTimeoutNs',
      'parseHttpDate',
      'policyFromUrllib3',
      'redeliver',
      'remainingBudgetMs',
      'remainingMs',
    ],
  );
  for (const tool of ['fromJson']) assert.equal(lean.Policy[tool], undefined, tool);
  for (const tool of ['toConfig', 'toJson', 'explain', 'classify', 'backoffCeilingsMs'])
    assert.equal(lean.Policy.prototype[tool], undefined, tool);
  assert.equal(lean.Dependency.fromJson, undefined);
  // Compiled forms: written by the tools, read by both.
  for (const api of [lean, tools])
    for (const type of [api.Policy, api.Dependency]) assert.equal(typeof type.fromCompiled, 'function');
  assert.equal(lean.Dependency.prototype.snapshot, undefined);
  assert.equal(lean.RetryBudget.prototype.snapshot, undefined);
  assert.equal(lean.Stats.prototype.record, undefined);
  // The wasm objects are each entry's own; the error classes and the failure table are shared.
  assert.notEqual(lean.Policy, tools.Policy);
  for (const shared of ['RetryplanError', 'OperationFailedError', 'GaveUpError', 'failureOf'])
    assert.equal(lean[shared], tools[shared], shared);
  const fromTools = throwsCode(() => tools.Policy.fromJson('{"max_attempts": 0}'), 'config_violations');
  assert.ok(fromTools instanceof lean.RetryplanError);
  assert.deepEqual(new lean.Stats().toJSON(), new tools.Stats().toJSON());
});

const checkout = () =>
  Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 800,
    attemptTimeout: { fixedMs: 200 },
    responseReserveMs: 50,
    minimumUsefulAttemptMs: 200,
    backoff: { kind: 'exponential', baseMs: 50, multiplier: 2, capMs: 400 },
    jitter: { kind: 'none' },
    idempotency: 'keyed',
  });

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
    remainingMs: 700,
    hedge: false,
  });
  assert.deepEqual(operation.poll(100), { type: 'await_outcome', running: 1, untilMs: 250 });
  const unavailable = { type: 'http_status', status: 503 };
  assert.deepEqual(operation.onOutcome(250, 1, unavailable), {
    type: 'wait',
    retry: 0,
    delayMs: 50,
    untilMs: 300,
    remainingMs: 500,
  });
  assert.equal(operation.nextWakeupMs(), 300);
  assert.equal(operation.poll(300).attempt, 2);
  const ending = operation.onOutcome(500, 2, unavailable);
  assert.deepEqual(ending, {
    type: 'gave_up',
    reason: 'deadline_insufficient',
    attempts: 2,
    remainingMs: 250,
    refusedDelayMs: 100,
    abortAttempts: [],
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
  for (const bad of [1.5, -1, 2 ** 53, NaN])
    throwsCode(() => new Operation(policy, 0, { seed: bad }), 'invalid_argument');
  throwsCode(() => new Operation(policy, 0, { seed: 1, idempotencyKey: 'has space' }), 'invalid_argument');
  throwsCode(() => new Operation(policy, 0, { seed: 1, idempotencyKey: 42 }), 'invalid_argument');
});

test('a caller deadline shortens the operation', () => {
  const operation = new Operation(checkout(), 0, { seed: 1, deadlineMs: 400 });
  assert.equal(operation.deadlineMs, 400);
  assert.equal(operation.remainingMs(100), 250);
});

test('the old names of the total timeout are read for one release', () => {
  const policy = Policy.fromConfig({ totalBudgetMs: 2000 });
  assert.equal(policy.totalTimeoutMs, 2000);
  assert.equal(policy.totalBudgetMs, 2000);
  assert.equal(policy.toConfig().totalTimeoutMs, 2000);
  assert.equal(Policy.fromJson('{"total_budget_ms": 2000}').totalTimeoutMs, 2000);
  let both;
  try {
    Policy.fromConfig({ totalTimeoutMs: 2000, totalBudgetMs: 2000 });
  } catch (error) {
    both = error;
  }
  assert.ok(both instanceof RetryplanError, 'giving both is refused');
  assert.equal(both.field, 'total_budget_ms');
  assert.match(both.message, /both `total_timeout_ms` and its old name `total_budget_ms`/);
  const operation = new Operation(policy, 0, { seed: 1 });
  assert.equal(operation.remainingBudgetMs(100), operation.remainingMs(100));
  assert.equal(tools.remainingBudgetMs(800, 500, 50), tools.remainingMs(800, 500, 50));
});

test('outcomes of every type cross; malformed ones are invalid_argument and change nothing', () => {
  const policy = Policy.fromConfig({ jitter: { kind: 'none' }, maxAttempts: 10, totalTimeoutMs: 100000 });
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

test("an operation's status word outside 100..=599 is refused by the wasm (65736 is not 200 cut to 16 bits)", () => {
  const operation = new lean.Operation(lean.Policy.fromConfig({ jitter: { kind: 'none' }, maxAttempts: 3 }), 0, {
    seed: 1,
  });
  const start = operation.poll(0);
  const status = (word) =>
    decisionOf(
      _operationOutcome(operation[HANDLE], 10, start.attempt, WIRE.OUTCOME.http_status, word, WIRE.NONE, undefined),
    );
  for (const word of [65736, 65535, 65536 + 503, 600, 99, 0, -1]) {
    const error = throwsCode(() => status(word), 'invalid_argument');
    assert.equal(error.field, 'status', String(word));
    assert.match(error.message, new RegExp(`got ${word}$`));
  }
  assert.equal(status(503).type, 'wait'); // nothing changed on a refusal: the attempt is still running
});

test('onOutcome: the fast path names the field it refuses; a refused outcome changes nothing', () => {
  const operation = new lean.Operation(
    lean.Policy.fromConfig({ jitter: { kind: 'none' }, maxAttempts: 40, totalTimeoutMs: 10_000_000 }),
    0,
    { seed: 11 },
  );
  const start = operation.poll(0);
  assert.equal(
    throwsCode(() => operation.onOutcome(0, start.attempt, { type: 'http_status', status: 1.5 }), 'invalid_argument')
      .field,
    'status',
  );
  assert.equal(
    throwsCode(
      () => operation.onOutcome(0, start.attempt, { type: 'http_status', status: 503, retryAfterMs: -5 }),
      'invalid_argument',
    ).field,
    'retryAfterMs',
  );
  assert.equal(
    throwsCode(() => operation.onOutcome(0, start.attempt, { type: 'transport', failure: 'reset' }), 'invalid_argument')
      .field,
    'failure',
  );
  const attemptError = throwsCode(
    () => operation.onOutcome(0, start.attempt + 1, { type: 'success' }),
    'attempt_not_running',
  );
  assert.deepEqual(
    [attemptError.blame, attemptError.attempt, attemptError.running],
    ['caller', start.attempt + 1, [start.attempt]],
  );
  const success = operation.onOutcome(1, start.attempt, { type: 'success' });
  assert.deepEqual(success, { type: 'succeeded', attempts: start.attempt, winner: start.attempt, abortAttempts: [] });
  throwsCode(() => operation.onOutcome(2, start.attempt, { type: 'success' }), 'operation_ended');
});

test('policy errors list every violation with its field; JSON errors name the path', () => {
  const error = throwsCode(
    () => Policy.fromConfig({ maxAttempts: 0, backoff: { baseMs: 200, capMs: 100 } }),
    'config_violations',
  );
  assert.equal(error.config, 'policy');
  assert.deepEqual(
    error.violations.map((v) => v.field),
    ['max_attempts', 'backoff.cap_ms'],
  );
  assert.equal(error.violations[1].message, 'backoff.cap_ms (100) must be >= backoff.base_ms (200)');
  assert.equal(
    throwsCode(() => Policy.fromConfig({ backoff: { baseMs: -5 } }), 'invalid_config').field,
    'backoff.base_ms',
  );
  assert.match(
    throwsCode(() => Policy.fromConfig({ maxAttemps: 3 }), 'invalid_config').message,
    /unknown field `maxAttemps` \(did you mean `maxAttempts`\?\)/,
  );
  throwsCode(() => Policy.fromJson('{"max_attempts": 3} {}'), 'invalid_config');
  // A JS number cannot tell 3 from 3.0, so every language accepts a whole number spelt either way.
  assert.equal(Policy.fromJson('{"max_attempts": 3.0}').maxAttempts, 3);
  assert.equal(throwsCode(() => Policy.fromJson('{"max_attempts": 3.5}'), 'invalid_config').field, 'max_attempts');
  const profileError = throwsCode(() => Policy.profile('nope'), 'unknown_profile');
  assert.deepEqual(
    [profileError.blame, profileError.profile, profileError.known],
    ['configuration', 'nope', profileNames()],
  );
  // Anything but plain data is refused by the core's reader, naming the field.
  assert.equal(throwsCode(() => Policy.fromConfig(1n), 'invalid_config').field, '');
  assert.equal(
    throwsCode(() => Policy.fromConfig({ backoff: { baseMs: 5n } }), 'invalid_config').field,
    'backoff.base_ms',
  );
  // Plain data only: a Date or a class instance would lose or change fields through JSON.stringify.
  assert.equal(throwsCode(() => Policy.fromConfig({ backoff: new Date() }), 'invalid_config').field, 'backoff');
  assert.equal(
    throwsCode(() => Policy.fromConfig({ backoff: new (class Backoff {})() }), 'invalid_config').field,
    'backoff',
  );
  assert.equal(
    throwsCode(() => Policy.fromConfig({ backoff: { multiplier: NaN } }), 'invalid_config').field,
    'backoff.multiplier',
  );
  assert.equal(
    throwsCode(() => Policy.fromConfig({ totalTimeoutMs: Infinity }), 'invalid_config').field,
    'total_timeout_ms',
  );
  // ...but plain objects of every kind: null-prototype, another realm's, and Maps with string keys.
  const bare = Object.assign(Object.create(null), { maxAttempts: 4 });
  assert.equal(Policy.fromConfig(bare).maxAttempts, 4);
  assert.equal(Policy.fromConfig(vm.runInNewContext('({ maxAttempts: 5, backoff: { baseMs: 7 } })')).maxAttempts, 5);
  assert.equal(Policy.fromConfig(new Map([['maxAttempts', 6]])).maxAttempts, 6);
  assert.equal(throwsCode(() => Policy.fromConfig(new Map([[1, 6]])), 'invalid_config').field, '');
  assert.equal(
    throwsCode(() => Policy.fromConfig({ retryOn: { httpStatuses: [503, '504'] } }), 'invalid_config').field,
    'retry_on.http_statuses[1]',
  );
  const cyclic = { backoff: {} };
  cyclic.backoff.again = cyclic;
  assert.equal(throwsCode(() => Policy.fromConfig(cyclic), 'invalid_config').field, 'backoff.again');
  // Many paths back to the top are refused at the first one (reading them all would take forever).
  let shared = {};
  for (let level = 0; level < 30; level += 1) shared = { a: shared, b: shared };
  assert.match(throwsCode(() => Policy.fromConfig({ backoff: shared }), 'invalid_config').field, /^backoff(\.a)+$/);
  const twice = {};
  twice.a = twice;
  twice.b = twice;
  assert.equal(throwsCode(() => Policy.fromConfig(twice), 'invalid_config').field, 'a');
  // Properties that are undefined are left out, as JSON.stringify does.
  assert.equal(Policy.fromConfig({ maxAttempts: undefined }).maxAttempts, Policy.fromConfig({}).maxAttempts);
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
  assert.equal(policy.totalTimeoutMs, 800);
  assert.deepEqual(policy.backoffCeilingsMs(5), [50, 100, 200, 400, 400]);
  assert.ok(Array.isArray(policy.backoffCeilingsMs(0)));
  assert.deepEqual(policy.classify({ type: 'http_status', status: 502 }), { class: 'retryable', ambiguous: true });
  const timeline = Policy.fromJson(
    '{"max_attempts": 3, "total_timeout_ms": 2000, "attempt_timeout": {"fixed_ms": 1000}, "response_reserve_ms": 0, "jitter": {"kind": "none"}}',
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
  stats.record({ type: 'gave_up', reason: 'cancelled', attempts: 1, remainingMs: 0 });
  const counters = JSON.parse(JSON.stringify(stats));
  assert.equal(counters.operations, 1);
  assert.equal(counters.succeeded, 1);
  assert.equal(counters.gaveUp.cancelled, 1);
  throwsCode(() => stats.record({ type: 'gave_up', reason: 'bored', attempts: 1, remainingMs: 0 }), 'invalid_argument');
  stats.record({ type: 'await_outcome', running: 2, untilMs: 9 });
  // `inFlight`, the old name of `running`, is read for one release (deprecated); giving neither is refused.
  stats.record({ type: 'await_outcome', inFlight: 2, untilMs: 9 });
  throwsCode(() => stats.record({ type: 'await_outcome', untilMs: 9 }), 'invalid_argument');
  throwsCode(() => stats.record({ type: 'await_outcome', inFlight: 'two', untilMs: 9 }), 'invalid_argument');
});

test("stats read a decision object by the core's one reader: what an operation returns, refusals naming the field", () => {
  const stats = new Stats();
  const operation = new Operation(checkout(), 0, { seed: 1 });
  const start = operation.poll(0);
  const wait = operation.onOutcome(10, 1, { type: 'http_status', status: 503, retryAfterMs: 20 });
  assert.equal(wait.type, 'wait');
  for (const decision of [start, wait, operation.poll(wait.untilMs), operation.cancel(wait.untilMs + 1)])
    stats.record(decision);
  assert.equal(stats.toJSON().gaveUp.cancelled, 1);
  // Optional fields absent or null, a whole number spelt as a float: as the core reads any data.
  stats.record({ type: 'wait', retry: 0, delayMs: 5, untilMs: 9, retryAfterMs: null, remainingMs: 7 });
  stats.record({ type: 'succeeded', attempts: 2, winner: 1, abortAttempts: [2] });
  const refused = (decision, field, words) => {
    const error = throwsCode(() => stats.record(decision), 'invalid_argument');
    assert.equal(error.field, field, error.message);
    assert.match(error.message, words);
  };
  refused(
    { ...start, requestId: 'xyz' },
    'request_id',
    /expected a request id of 16 hex digits, found the string "xyz"/,
  );
  refused({ ...start, attempt: -1 }, 'attempt', /expected a whole number from 0 to 4294967295, found the number -1/);
  refused({ ...start, hedge: undefined }, 'hedge', /missing field `hedge`/);
  // The message names the keys as the object spells them (camelCase here); `.field` is the core's snake_case name.
  const { timeoutMs, ...untimed } = start;
  refused(untimed, 'timeout_ms', /^invalid argument `timeoutMs`: missing field `timeoutMs`$/);
  refused(
    { type: 'start_attempt', attempt: 1, hedge: false },
    'timeout_ms',
    /^invalid argument `timeoutMs`: missing field `timeoutMs`$/,
  );
  refused(
    { type: 'start_attempt', attempt: 1, timeout_ms: 5 },
    'abort_at_ms',
    /^invalid argument `abort_at_ms`: missing field `abort_at_ms`$/,
  );
  refused({ ...start, hedge: 'no' }, 'hedge', /expected true or false/);
  refused({ ...wait, type: 'waiting' }, 'type', /unknown variant `waiting`, expected one of `start_attempt`, `wait`/);
  refused({ ...wait, delayMs: 1.5 }, 'delay_ms', /expected a whole number of milliseconds/);
  refused(
    { ...wait, retryAfterMS: 1 },
    'decision',
    /^invalid argument `decision`: unknown field `retryAfterMS` \(did you mean `retryAfterMs`\?\), expected one of `type`, `retry`, `delayMs`, /,
  );
  refused(
    { type: 'wait', retry: 0, delay_ms: 5, until_ms: 9, remaining_ms: 7, retry_after_m_s: 1 },
    'decision',
    /unknown field `retry_after_m_s` \(did you mean `retry_after_ms`\?\), expected one of `type`, `retry`, `delay_ms`, /,
  );
  refused({ type: 'gave_up', reason: 'bored', attempts: 1, remainingMs: 0 }, 'reason', /unknown variant `bored`/);
  refused(
    { type: 'reconcile', attempts: 1, remainingMs: 0, abortAttempts: [1, 129] },
    'abort_attempts',
    /abort_attempts\[1\] \(129\) must be a whole number in 1..=128/,
  );
  refused(
    { type: 'await_outcome', running: 1, inFlight: 1, untilMs: 9 },
    'in_flight',
    /both `running` and its old name `in_flight`/,
  );
  refused(null, 'decision', /expected an object, found null/);
  // What is not plain data is refused as the argument it is, not as a configuration.
  refused({ ...start, attempt: 1n }, 'attempt', /expected plain data .*, found a bigint/);
  refused(
    { ...start, timeoutMs: 1n },
    'timeout_ms',
    /^invalid argument `timeoutMs`: expected plain data .*, found a bigint$/,
  );
  refused(undefined, '', /expected plain data .*, found undefined/);
});

test('Outcome.fromHttp: the core reads Retry-After and retry-after-ms; saturates at 2^53-1; malformed is no guidance', () => {
  assert.equal(Outcome.fromHttp, outcomeFromHttp);
  assert.deepEqual(Outcome.fromHttp(503, '2', null, 0), { type: 'http_status', status: 503, retryAfterMs: 2000 });
  assert.deepEqual(Outcome.fromHttp(503, '2', '150', 0), { type: 'http_status', status: 503, retryAfterMs: 150 });
  assert.deepEqual(Outcome.fromHttp(503, '2', 'oops', 0), { type: 'http_status', status: 503, retryAfterMs: 2000 });
  assert.deepEqual(Outcome.fromHttp(503, 'soon', undefined, 0), { type: 'http_status', status: 503 });
  assert.deepEqual(Outcome.fromHttp(200, null, null, 0), { type: 'http_status', status: 200 });
  assert.equal(Outcome.fromHttp(503, '99999999999999999999999', null, 0).retryAfterMs, Number.MAX_SAFE_INTEGER);
  assert.equal(Outcome.fromHttp(503, 'Fri, 31 Dec 9999 23:59:59 GMT', null, 0).retryAfterMs, 253402300799000);
  throwsCode(() => Outcome.fromHttp(503.5, null, null, 0), 'invalid_argument');
  throwsCode(() => Outcome.fromHttp(503, '1', null, -1), 'invalid_argument');
  // Fed to an operation, the saturated value is clamped by the policy like any other.
  const policy = Policy.fromConfig({ jitter: { kind: 'none' }, serverGuidance: { capMs: 5000, aboveCap: 'clamp' } });
  const operation = new Operation(policy, 0, { seed: 1 });
  operation.poll(0);
  assert.equal(
    operation.onOutcome(10, 1, Outcome.fromHttp(503, '99999999999999999999999', null, 0)).retryAfterMs,
    5000,
  );
});

test('hedging: hedge flags, the winner and the attempts to abort, as numbers', () => {
  const policy = Policy.fromConfig({
    maxAttempts: 3,
    attemptTimeout: { fixedMs: 1000 },
    jitter: { kind: 'none' },
    hedging: { delayMs: 100, maxHedgedAttempts: 2 },
  });
  assert.deepEqual(policy.toConfig().hedging, { delayMs: 100, maxHedgedAttempts: 2 });
  const operation = new Operation(policy, 0, { seed: 3 });
  assert.equal(operation.poll(0).hedge, false);
  assert.deepEqual(operation.poll(50), { type: 'await_outcome', running: 1, untilMs: 100 });
  const hedge = operation.poll(100);
  assert.equal(hedge.type, 'start_attempt');
  assert.equal(hedge.attempt, 2);
  assert.equal(hedge.hedge, true);
  assert.equal(operation.poll(200).attempt, 3);
  assert.deepEqual(operation.runningAttempts, [1, 2, 3]);
  assert.equal(operation.requestId(2), hedge.requestId);
  assert.equal(operation.startedAtMs, 0);
  const ending = operation.onOutcome(250, 2, { type: 'success' });
  assert.deepEqual(ending, { type: 'succeeded', attempts: 3, winner: 2, abortAttempts: [1, 3] });
  assert.deepEqual(operation.runningAttempts, []);
  const stats = new Stats();
  stats.record({ ...hedge });
  stats.record(ending);
  assert.equal(stats.toJSON().hedges, 1);
  const total = new Stats();
  total.merge(stats);
  total.merge(stats);
  assert.equal(total.toJSON().hedges, 2);
  assert.equal(total.toJSON().succeeded, 2);
  throwsCode(() => stats.record({ ...ending, abortAttempts: [0] }), 'invalid_argument');
  throwsCode(() => stats.record({ ...hedge, hedge: undefined }), 'invalid_argument');
  throwsCode(
    () => Policy.fromConfig({ idempotency: 'unsafe', hedging: { delayMs: 1, maxHedgedAttempts: 1 } }),
    'config_violations',
  );
});

test('Dependency: shared controls from JSON or camelCase objects, handles on the same state, refusals as reasons', () => {
  const config = {
    budget: { kind: 'token_bucket', maxTokens: 4, tokenRatio: 0.5 },
    breaker: { trip: { kind: 'consecutive', failures: 3 }, openMs: 1000, halfOpenProbes: 1 },
    retrySlots: 5,
  };
  const dependency = Dependency.fromConfig(config);
  const same = Dependency.fromJson(
    '{"budget": {"kind": "token_bucket", "max_tokens": 4, "token_ratio": 0.5}, "breaker": {"trip": {"kind": "consecutive", "failures": 3}, "open_ms": 1000, "half_open_probes": 1}, "retry_slots": 5}',
  );
  assert.deepEqual(dependency.snapshot(0), same.snapshot(0));
  assert.deepEqual(dependency.snapshot(0), {
    budget: { kind: 'token_bucket', tokensMilli: 4000, maxTokensMilli: 4000, retriesAllowed: true },
    breaker: {
      state: 'closed',
      consecutiveFailures: 0,
      windowResults: 0,
      windowFailures: 0,
      openUntilMs: 0,
      probesRunning: 0,
    },
    retrySlotsInUse: 0,
  });
  assert.equal(Dependency.fromConfig({}).budget, undefined);
  assert.deepEqual(Dependency.fromConfig({}).snapshot(5), { budget: null, breaker: null, retrySlotsInUse: null });

  // An operation shares the dependency; the caller's handle stays usable.
  const policy = Policy.fromConfig({
    maxAttempts: 5,
    jitter: { kind: 'none' },
    backoff: { kind: 'constant', baseMs: 10, capMs: 10 },
  });
  const operation = new Operation(policy, 0, { seed: 1, dependency });
  operation.poll(0);
  const wait = operation.onOutcome(10, 1, { type: 'http_status', status: 503 });
  assert.equal(wait.type, 'wait');
  assert.equal(dependency.snapshot(10).budget.tokensMilli, 3000); // 3 of 4, above half: the retry may come
  dependency.budget.onFailure(15); // another caller's failure during the wait: 2 of 4, not above half
  assert.deepEqual(operation.poll(20), {
    type: 'gave_up',
    reason: 'budget_exhausted',
    attempts: 1,
    remainingMs: 9930,
    abortAttempts: [],
  });
  throwsCode(() => new Operation(policy, 0, { seed: 1, dependency: {} }), 'invalid_argument');

  const error = throwsCode(
    () => Dependency.fromConfig({ budget: { kind: 'token_bucket', maxTokens: 0, tokenRatio: 0.5 } }),
    'config_violations',
  );
  assert.deepEqual([error.config, error.violations.map((v) => v.field)], ['dependency', ['budget.max_tokens']]);
  assert.equal(
    throwsCode(() => Dependency.fromJson('{"breaker": {"open_ms": 1}}'), 'invalid_config').field,
    'breaker.trip',
  );
});

test('RetryBudget, CircuitBreaker and RetrySlots on their own; permits are opaque objects', () => {
  const quota = new RetryBudget({
    kind: 'quota',
    capacity: 10,
    retryCost: 5,
    timeoutRetryCost: 10,
    successIncrement: 1,
  });
  const charge = quota.tryRetry(0, true);
  assert.ok(charge instanceof RetryCharge);
  assert.equal(charge.cost, 10);
  assert.equal(quota.tryRetry(1), undefined);
  quota.onSuccess(2, charge);
  throwsCode(() => quota.onSuccess(2, charge), 'invalid_argument');
  quota.onSuccess(2);
  assert.deepEqual(quota.snapshot(3), { kind: 'quota', available: 10, capacity: 10 });
  const error = throwsCode(
    () => new RetryBudget({ kind: 'ratio', retryRatio: 2, minRetriesPerSecond: 0, windowMs: 0 }),
    'config_violations',
  );
  assert.deepEqual([error.config, error.violations.map((v) => v.field)], ['budget', ['retry_ratio', 'window_ms']]);
  assert.equal(
    error.message,
    'invalid budget configuration: retry_ratio (2) must be a number in [0, 1]; window_ms (0) must be a whole number in 1..=9007199254740991',
  );
  assert.equal(throwsCode(() => new RetryBudget({ kind: 'nope' }), 'invalid_config').field, 'kind');

  const breaker = new CircuitBreaker({ trip: { kind: 'consecutive', failures: 1 }, openMs: 100, halfOpenProbes: 1 });
  const permit = breaker.tryAcquire(0);
  assert.equal(permit.probe, false);
  breaker.onFailure(1, permit);
  throwsCode(() => breaker.onFailure(1, permit), 'invalid_argument');
  assert.equal(breaker.tryAcquire(50), undefined);
  assert.equal(breaker.snapshot(50).state, 'open');
  const probe = breaker.tryAcquire(101);
  assert.equal(probe.probe, true);
  breaker.release(probe);
  breaker.onSuccess(102, breaker.tryAcquire(102));
  assert.equal(breaker.snapshot(103).state, 'closed');
  assert.throws(() => breaker.onSuccess(104, { probe: false }));

  const slots = new RetrySlots(1);
  const slot = slots.tryAcquire();
  assert.ok(slot instanceof tools.RetrySlot);
  assert.equal(slots.tryAcquire(), undefined);
  assert.equal(slots.inUse, 1);
  slots.release(slot);
  throwsCode(() => slots.release(slot), 'invalid_argument');
  assert.equal(slots.inUse, 0);
  assert.equal(slots.capacity, 1);
  throwsCode(() => new RetrySlots(-1), 'invalid_argument');

  // The old names, kept for one release: the class, and the key the reader takes for retrySlots (not both).
  assert.equal(lean.ConcurrencyLimit, lean.RetrySlots);
  assert.equal(tools.ConcurrencyLimit, RetrySlots);
  assert.equal(Dependency.fromConfig({ maxConcurrentRetries: 2 }).retrySlots.capacity, 2);
  let both;
  try {
    Dependency.fromConfig({ retrySlots: 2, maxConcurrentRetries: 2 });
  } catch (error) {
    both = error;
  }
  assert.ok(both instanceof RetryplanError, 'giving both is refused');
  assert.equal(both.field, 'max_concurrent_retries');
  assert.match(both.message, /both `retry_slots` and its old name `max_concurrent_retries`/);
});

test('redeliver: a stateless decision for queue workers', () => {
  const policy = Policy.fromConfig({
    maxAttempts: 5,
    totalTimeoutMs: 3600000,
    redelivery: { delaysMs: [5000, 30000], maxAgeMs: 3600000 },
  });
  const failed = { type: 'http_status', status: 503 };
  assert.deepEqual(redeliver(policy, 2, 0, 10000, failed), {
    type: 'redeliver_after',
    delayMs: 30000,
    redeliverAtMs: 40000,
  });
  assert.deepEqual(redeliver(policy, 5, 0, 10000, failed), { type: 'dead_letter', reason: 'attempts_exhausted' });
  assert.deepEqual(redeliver(policy, 1, 0, 10, { type: 'success' }), { type: 'acknowledge' });
  throwsCode(() => redeliver(policy, 0, 0, 10, failed), 'invalid_argument');
});

test('every runtime export is declared in lib/index.d.ts', async () => {
  const { readFileSync } = await import('node:fs');
  const types = readFileSync(new URL('../lib/index.d.ts', import.meta.url), 'utf8');
  const api = await import('retryplan');
  const missing = Object.keys(api).filter(
    (name) => !new RegExp(`export (function|class|const) ${name}\\b`).test(types),
  );
  assert.deepEqual(missing, []);
});

test('a broken rule names the configuration it broke, its paths from it (config_violations, .config)', () => {
  const zeroTokens = { kind: 'token_bucket', maxTokens: 0, tokenRatio: 0.5 };
  for (const [config, fields, start, call] of [
    ['policy', ['max_attempts'], 'invalid policy: ', () => Policy.fromConfig({ maxAttempts: 0 })],
    [
      'dependency',
      ['budget.max_tokens'],
      'invalid dependency configuration: ',
      () => Dependency.fromConfig({ budget: zeroTokens }),
    ],
    ['budget', ['max_tokens'], 'invalid budget configuration: ', () => new RetryBudget(zeroTokens)],
    [
      'breaker',
      ['open_ms'],
      'invalid breaker configuration: ',
      () => new CircuitBreaker({ trip: { kind: 'consecutive', failures: 1 }, openMs: 0, halfOpenProbes: 1 }),
    ],
    [
      'service_config',
      ['retryThrottling.maxTokens'],
      'invalid gRPC service configuration: ',
      () => tools.ServiceConfig.fromConfig({ retryThrottling: { maxTokens: 0, tokenRatio: 0.1 } }),
    ],
  ]) {
    const error = throwsCode(call, 'config_violations');
    assert.deepEqual(
      [error.config, error.violations.map((v) => v.field), error.blame],
      [config, fields, 'configuration'],
    );
    assert.ok(error.message.startsWith(start), error.message);
  }
});

test('a reading error names the configuration it read (invalid_config, .config)', () => {
  const words = { service_config: 'gRPC service' };
  for (const [config, field, call] of [
    ['policy', 'max_attemps', () => Policy.fromConfig({ maxAttemps: 3 })],
    ['policy', 'backoff', () => Policy.fromConfig({ backoff: new Date() })],
    ['policy', '', () => Policy.fromConfig(1n)],
    ['dependency', 'budget.kind', () => Dependency.fromConfig({ budget: { kind: 'leaky' } })],
    ['dependency', 'breaker', () => Dependency.fromConfig({ breaker: new Date() })],
    ['dependency', '', () => Dependency.fromJson('[')],
    ['budget', 'kind', () => new RetryBudget({ kind: 'nope' })],
    ['breaker', 'trip', () => new CircuitBreaker({ openMs: 1, halfOpenProbes: 1 })],
    ['service_config', 'methodConfig', () => tools.ServiceConfig.fromConfig({ methodConfig: {} })],
    ['service_config', 'methodConfig', () => tools.ServiceConfig.fromConfig({ methodConfig: new Date() })],
    ['service_config', '', () => tools.ServiceConfig.fromJson('{')],
  ]) {
    const error = throwsCode(call, 'invalid_config');
    assert.deepEqual([error.config, error.field, error.blame], [config, field, 'configuration']);
    // The message names the field as the object wrote it (camelCase keys: see bad-input.test.mjs);
    // an error of the whole text (not JSON) names no field, nor an empty one.
    const written = field === 'max_attemps' ? 'maxAttemps' : field;
    const at = written ? ` at \`${written}\`` : '';
    assert.ok(error.message.startsWith(`invalid ${words[config] ?? config} configuration${at}: `), error.message);
  }
});
