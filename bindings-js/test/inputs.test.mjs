// What bad input gets (issue 16, the JS findings): every argument of the
// wrong type, a string the wasm cannot hold as text, a key repeated in JSON,
// or data large enough to exhaust wasm memory is a RetryplanError naming the
// argument or field. Nothing is coerced, replaced or allowed to trap.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CircuitBreaker,
  RetrySlots,
  Dependency,
  Driver,
  Operation,
  Outcome,
  Policy,
  RetryBudget,
  admit,
  encodeGrpcTimeout,
  parseGrpcPushback,
  parseGrpcTimeout,
  parseRetryAfter,
  parseRetryAfterMsHeader,
  redeliver,
  remainingMs,
  run,
  wasmTrapped,
} from 'retryplan/tools';
import * as lean from 'retryplan';
import { rejection, throwsCode } from './assertions.mjs';

const refused = (call, code = 'invalid_argument') => throwsCode(call, code);

const policy = Policy.fromConfig({ jitter: { kind: 'none' } });

test('a time is a number: null, strings, booleans and undefined are refused, never read as 0 or 1', () => {
  const operation = new Operation(policy, 0, { seed: 1 });
  const driver = new Driver(policy, 0, { seed: 1 });
  const budget = new RetryBudget({
    kind: 'quota',
    capacity: 10,
    retryCost: 5,
    timeoutRetryCost: 10,
    successIncrement: 1,
  });
  const breaker = new CircuitBreaker({ trip: { kind: 'consecutive', failures: 1 }, openMs: 100, halfOpenProbes: 1 });
  for (const bad of [null, '0', '', true, undefined, [], {}, 0n]) {
    const calls = {
      nowMs: [
        () => operation.poll(bad),
        () => operation.cancel(bad),
        () => operation.remainingMs(bad),
        () => operation.onOutcome(bad, 1, { type: 'success' }),
        () => new Operation(policy, bad, { seed: 1 }),
        () => driver.pollAction(bad),
        () => driver.handleResult(bad, 1, { type: 'success' }),
        () => driver.handleCancel(bad),
        () => new Driver(policy, bad),
        () => budget.onRequest(bad),
        () => breaker.tryAcquire(bad),
        () => Dependency.fromConfig({}).snapshot(bad),
        () => remainingMs(0, bad, 0),
        () => admit(0, bad, 0, 0),
      ],
      nowUnixMs: [
        () => parseRetryAfter('1', bad),
        () => Outcome.fromHttp(503, null, null, bad),
        () => Outcome.fromHttpResponse(503, new Headers(), bad),
      ],
      attempt: [
        () => operation.onOutcome(0, bad, { type: 'success' }),
        () => driver.handleResult(0, bad, { type: 'success' }),
        () => operation.requestId(bad),
      ],
      timeoutMs: [() => encodeGrpcTimeout(bad)],
      deadlineMs: [() => remainingMs(bad, 0, 0)],
      capacity: [() => new RetrySlots(bad)],
      retries: [() => policy.backoffCeilingsMs(bad)],
      status: [() => Outcome.fromHttp(bad, null, null, 0)],
      attempts: [() => redeliver(policy, bad, 0, 0, { type: 'success' })],
    };
    for (const [field, list] of Object.entries(calls)) {
      for (const call of list) {
        if (bad === undefined && field === 'attempts') continue;
        const error = refused(call);
        assert.equal(error.field, field, `${String(bad)}: ${call}`);
        assert.match(error.message, /must be a number/);
      }
    }
  }
  // An optional argument may be left out (undefined or null), never coerced.
  assert.equal(policy.explain(undefined, null).firstAttemptAtMs, 0);
  assert.equal(refused(() => policy.explain('100')).field, 'deadlineMs');
  assert.equal(refused(() => budget.tryRetry(0, 'yes')).field, 'afterTimeout');
  assert.equal(budget.tryRetry(0, null).cost, 5);
});

test('a string is a string: numbers, null and objects are a RetryplanError naming the argument, not a TypeError', () => {
  const required = {
    name: (bad) => Policy.profile(bad),
    json: (bad) => Policy.fromJson(bad),
    value: (bad) => parseRetryAfter(bad, 0),
    failure: (bad) => Outcome.fromFailure(bad),
  };
  const optional = {
    retryAfter: (bad) => Outcome.fromHttp(503, bad, null, 0),
    idempotencyKey: (bad) => new Operation(policy, 0, { seed: 1, idempotencyKey: bad }),
    method: (bad) => new Driver(policy, 0, { method: bad }),
  };
  const others = [
    () => Dependency.fromJson(7),
    () => parseRetryAfterMsHeader(7),
    () => parseGrpcPushback(7),
    () => parseGrpcTimeout(7),
  ];
  for (const bad of [42, {}, ['read'], true, Symbol('read'), null, undefined]) {
    const absent = bad === null || bad === undefined; // an optional string may be left out
    for (const [field, call] of Object.entries(absent ? required : { ...required, ...optional })) {
      const error = refused(() => call(bad));
      assert.equal(error.field, field, `${String(bad)}: ${call}`);
      assert.match(error.message, /must be a string/);
    }
  }
  for (const call of others) assert.match(refused(call).message, /must be a string, got a number/);
});

test("an Outcome that is not an object is refused as `outcome` by every reader, the hooks' answers too", async () => {
  const words = (kind) => `invalid argument \`outcome\`: expected an object with \`type\`, got ${kind}`;
  const check = (error, kind, label) => {
    assert.equal(error.code, 'invalid_argument', label);
    assert.deepEqual([error.field, error.message], ['outcome', words(kind)], label);
  };
  for (const [bad, kind] of [
    ['success', 'a string'],
    [1, 'a number'],
    [null, 'null'],
  ]) {
    const operation = new Operation(policy, 0, { seed: 1 });
    operation.poll(0);
    const driver = new Driver(policy, 0, { seed: 1 });
    driver.pollAction(0);
    const leanOperation = new lean.Operation(lean.Policy.fromConfig({}), 0, { seed: 1 });
    leanOperation.poll(0);
    const calls = {
      'Operation#onOutcome': () => operation.onOutcome(1, 1, bad),
      'lean Operation#onOutcome': () => leanOperation.onOutcome(1, 1, bad),
      'Driver#handleResult': () => driver.handleResult(1, 1, bad),
      'Policy#classify': () => policy.classify(bad),
      redeliver: () => redeliver(policy, 1, 0, 0, bad),
    };
    for (const [label, call] of Object.entries(calls)) check(refused(call), kind, `${label}(${String(bad)})`);
    // The helpers' hooks: what outcomeOfError and outcomeOfResult answer (nothing, null or undefined, is no outcome).
    if (bad === null) continue;
    const quick = Policy.fromConfig({ maxAttempts: 2, jitter: { kind: 'none' }, backoff: { baseMs: 1, capMs: 1 } });
    const thrown = () => {
      throw new Error('x');
    };
    check(await rejection(run(quick, thrown, { outcomeOfError: () => bad })), kind, 'outcomeOfError');
    check(await rejection(run(quick, () => 1, { outcomeOfResult: () => bad })), kind, 'outcomeOfResult');
  }
});

test("a constructor's or method's options that are not an object name the argument as its docs spell it, and the first field they list", () => {
  const driver = new Driver(policy, 0, { seed: 1 });
  driver.pollAction(0);
  const cases = [
    [() => new Operation(policy, 0, 5), 'options', 'seed', 'a number'],
    [() => new Driver(policy, 0, 'seeded'), 'options', 'seed', 'a string'],
    [() => new lean.Operation(lean.Policy.fromConfig({}), 0, true), 'options', 'seed', 'a boolean'],
    // handleResult(nowMs, attempt, outcome, holding?: Holding): `holding` ({token, held}), not `options`.
    [() => driver.handleResult(1, 1, { type: 'success' }, 7), 'holding', 'token', 'a number'],
    // handleResponse(nowMs, attempt, status, headers, options?: {token?, nowUnixMs?}).
    [() => driver.handleResponse(1, 1, 200, () => null, 7), 'options', 'token', 'a number'],
  ];
  for (const [call, field, first, kind] of cases) {
    const error = refused(call);
    assert.deepEqual(
      [error.field, error.message],
      [field, `invalid argument \`${field}\`: expected an object with \`${first}\`, got ${kind}`],
      String(call),
    );
  }
});

test('a lone surrogate is refused as a typed error naming the field, never silently replaced', () => {
  const lone = 'safe\ud800';
  const cases = [
    [() => Policy.fromConfig({ idempotency: lone }), 'invalid_config', 'idempotency'],
    [() => Policy.fromJson('{"idempotency": "safe\\ud800"}'), 'invalid_config', 'idempotency'],
    [() => Policy.fromConfig(new Map([['max\udc00Attempts', 3]])), 'invalid_config', ''],
    [() => Policy.fromJson(`{"jitter": {"kind": "none"}} ${'\ud800'}`), 'invalid_argument', 'json'],
    [() => Policy.profile('read\udfff'), 'invalid_argument', 'name'],
    [
      () => new Operation(policy, 0, { seed: 1, idempotencyKey: `order-${'\ud83d'}` }),
      'invalid_argument',
      'idempotencyKey',
    ],
    [() => parseRetryAfter('1\ud800', 0), 'invalid_argument', 'value'],
    [() => policy.classify({ type: 'application', verdict: `retryable${'\ud800'}` }), 'invalid_argument', 'verdict'],
  ];
  for (const [call, code, field] of cases) {
    const error = refused(call, code);
    assert.equal(error.field, field, error.message);
    assert.match(error.message, /lone surrogate/, error.message);
  }
  // A pair (an astral character) is text: refused only for what it is.
  assert.match(refused(() => Policy.profile('read\ud83d\ude00'), 'unknown_profile').message, /read😀/);
});

test('Policy.fromJson and Dependency.fromJson refuse a repeated key, naming it, as Rust, Python and Kotlin do', () => {
  const top = refused(() => Policy.fromJson('{"max_attempts": 2, "max_attempts": 5}'), 'invalid_config');
  assert.equal(top.field, 'max_attempts');
  assert.match(top.message, /duplicate field `max_attempts`/);
  assert.equal(
    refused(() => Policy.fromJson('{"backoff": {"base_ms": 10, "cap_ms": 100, "base_ms": 20}}'), 'invalid_config')
      .field,
    'backoff.base_ms',
  );
  // Keys spelt differently in the text are still the same key.
  assert.equal(
    refused(() => Policy.fromJson('{"jitter": {"kind": "none", "\\u006bind": "full"}}'), 'invalid_config').field,
    'jitter.kind',
  );
  assert.equal(
    refused(() => Dependency.fromJson('{"retry_slots": 1, "retry_slots": 2}'), 'invalid_config').field,
    'retry_slots',
  );
  // The same name in different objects is not a repeat; syntax errors are still JSON.parse's.
  assert.equal(Policy.fromJson('{"backoff": {"kind": "constant"}, "jitter": {"kind": "none"}}').maxAttempts, 3);
  assert.equal(refused(() => Policy.fromJson('{"max_attempts": 2,}'), 'invalid_config').field, '');
  assert.match(
    refused(() => Policy.fromJson(`${'['.repeat(100)}${']'.repeat(100)}`), 'invalid_config').message,
    /nested more than/,
  );
});

test('inputs are bounded so that none can exhaust wasm memory: a huge string or configuration is refused, the object stays usable', () => {
  const huge = 'x'.repeat(2 ** 29 - 24); // the longest string V8 makes: 512 MB
  const dependency = Dependency.fromConfig({ retrySlots: 1 });
  const retrying = Policy.fromConfig({
    maxAttempts: 3,
    jitter: { kind: 'none' },
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  });
  const first = new Operation(retrying, 0, { seed: 1, dependency });
  first.poll(0);
  assert.equal(first.onOutcome(1, 1, { type: 'http_status', status: 503 }).attempt, 2, 'the retry holds the one slot');
  const error = refused(() => first.onOutcome(2, 2, { type: 'application', verdict: huge }));
  assert.equal(error.field, 'verdict');
  assert.match(error.message, /at most 1048576 characters/);
  assert.ok(error.message.length < 200, 'the value is not copied into the message');
  // The object is usable, and gives its slot back when it ends.
  assert.equal(first.onOutcome(3, 2, { type: 'success' }).type, 'succeeded');
  const second = new Operation(retrying, 10, { seed: 2, dependency });
  second.poll(10);
  assert.equal(
    second.onOutcome(11, 1, { type: 'http_status', status: 503 }).type,
    'start_attempt',
    'not no_retry_slot: no slot leaked',
  );
  const driver = new Driver(retrying, 0, { seed: 3 });
  driver.pollAction(0);
  assert.equal(refused(() => driver.handleResult(1, 1, { type: 'transport', failure: huge })).field, 'failure');
  assert.equal(refused(() => Policy.fromJson(huge)).field, 'json');
  assert.equal(refused(() => Policy.fromConfig({ idempotency: huge }), 'invalid_config').field, 'idempotency');
  assert.equal(driver.handleResult(2, 1, { type: 'success' }), 'accepted');
  // A configuration that repeats one list in itself, read value by value, would grow without bound.
  const row = new Array(1000).fill(503);
  const wide = refused(
    () => Policy.fromConfig({ retryOn: { httpStatuses: new Array(1000).fill(row) } }),
    'invalid_config',
  );
  assert.match(wide.message, /more than 100000 values/);
  assert.equal(wasmTrapped(), false);
});
