// The Driver as users and helpers call it, the failure vocabulary and its one
// table, HTTP responses read through a header lookup, and the header names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  Driver,
  Dependency,
  GUIDANCE_HEADERS,
  IDEMPOTENCY_KEY_HEADER,
  Outcome,
  Policy,
  REQUEST_ID_HEADER,
  Stats,
  failureOf,
} from 'retryplan';
import { newDriver } from '../lib/driver.js';
import { throwsCode as errorOf } from './assertions.mjs';
import { decided } from '../lib/convert.js';
import { read, words } from '../lib/outcomes.js';
import { NAMES, WIRE, exchange } from '../lib/wire.js';
import { MAX_CAUSE_DEPTH } from '../lib/generated/wire.js';
import { decisionOf as decisionFromRecord } from '../lib/generated/decisions.js';
import { pollAction } from '../lib/records.js';
import { _driverResultOf, _free, _wireRefusal } from '../wasm/retryplan_js.js';

const policy = (config = {}) =>
  Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 5000,
    attemptTimeout: { fixedMs: 300 },
    responseReserveMs: 0,
    minimumUsefulAttemptMs: 50,
    jitter: { kind: 'none' },
    ...config,
  });

test('the driver hands out one action at a time and counts a hung attempt as timed out itself', () => {
  const stats = new Stats();
  const driver = new Driver(policy(), 0, { seed: 7, stats, recordEvents: true });
  const start = driver.pollAction(0);
  assert.deepEqual(start, {
    type: 'start_attempt',
    attempt: 1,
    timeoutMs: 300,
    abortAtMs: 300,
    requestId: 'a3953908a4c14ed9',
    remainingMs: 5000,
    hedge: false,
    sendIdempotencyKey: false,
  });
  assert.deepEqual(driver.pollAction(100), { type: 'sleep', untilMs: 300 });
  assert.deepEqual(driver.pollAction(300), { type: 'abort_attempt', attempt: 1, reason: 'timed_out' });
  assert.deepEqual(driver.pollAction(300), { type: 'sleep', untilMs: 400 });
  assert.equal(
    driver.handleResult(310, 1, { type: 'success' }),
    'discarded',
    'a late answer is ignored, never an error',
  );
  assert.equal(driver.pollAction(400).attempt, 2);
  assert.equal(driver.handleResult(450, 2, { type: 'success' }), 'accepted');
  const finish = driver.pollAction(450);
  assert.deepEqual(finish, {
    type: 'finish',
    decision: { type: 'succeeded', attempts: 2, winner: 2, abortAttempts: [] },
    lastResult: { attempt: 2, outcome: { type: 'success' } },
  });
  assert.equal(driver.isEnded, true);
  assert.equal(driver.attemptsStarted, 2);
  assert.equal(driver.deadlineMs, 5000);
  const events = [];
  for (let event; (event = driver.pollEvent()) !== undefined; ) events.push(event);
  assert.deepEqual(
    events.map((event) => event.decision.type),
    ['start_attempt', 'wait', 'start_attempt', 'succeeded'],
  );
  assert.deepEqual(events[1].after, { attempt: 1, outcome: { type: 'transport', failure: 'timed_out' } });
  assert.equal(stats.toJSON().succeeded, 1);
  driver.handleCancel(500); // after the end: nothing happens
  assert.deepEqual(driver.pollAction(500), finish);
  const misuse = errorOf(() => driver.handleResult(500, 9, { type: 'success' }));
  assert.equal(misuse.code, 'attempt_not_running');
});

test("the wire: an outcome the host hands in as numbers gets the object path's receipt and next action", () => {
  const outcomes = [
    { type: 'success' },
    { type: 'transport', failure: 'not_sent' },
    { type: 'application', verdict: 'retryable' },
    { type: 'application', verdict: 'not_retryable' },
    { type: 'cancelled' },
  ];
  for (const outcome of outcomes) {
    assert.ok(read(outcome), JSON.stringify(outcome));
    const wire = newDriver(policy(), 0, { seed: 3 });
    const typed = newDriver(policy(), 0, { seed: 3 });
    assert.equal(
      exchange(wire, WIRE.INPUT.poll, 0, -1, -1, -1, -1, -1, -1)[WIRE.OUT.action_kind],
      WIRE.ACTION.start_attempt,
    );
    pollAction(typed, 0);
    const out = exchange(wire, WIRE.INPUT.result, 10, 1, 1, WIRE.HELD.error, words.kind, words.code, words.delay);
    assert.equal(decided(_driverResultOf(typed, 10, 1, outcome, 1, 1)), out[WIRE.OUT.receipt], JSON.stringify(outcome)); // a receipt crosses as its number
    const next = pollAction(typed, 10);
    const kind = Object.keys(WIRE.ACTION).find((name) => WIRE.ACTION[name] === out[WIRE.OUT.action_kind]);
    assert.equal(kind, next.type, JSON.stringify(outcome));
    if (next.type === 'finish') {
      assert.equal(NAMES.endingKinds[out[WIRE.OUT.ending] & ~WIRE.ENDING_RETURNS], next.decision.type);
      assert.equal(out[WIRE.OUT.token], next.result?.token ?? WIRE.NONE);
      assert.equal((out[WIRE.OUT.ending] & WIRE.ENDING_RETURNS) !== 0, next.result?.returned ?? false);
    }
    _free(wire);
    _free(typed);
  }
  // A record the core refuses is thrown as its error, naming the word; nothing changes.
  const driver = newDriver(policy(), 0, { seed: 3 });
  const refused = errorOf(() => exchange(driver, WIRE.INPUT.result, 10, 1, 1, WIRE.HELD.value, 99, 0, -1));
  assert.deepEqual([refused.code, refused.field], ['invalid_argument', 'outcome_kind']);
  assert.equal(_wireRefusal(), undefined, 'taken once');
  // A word that is no whole number is refused by its field's name, never truncated (an unknown failure name's NaN index).
  for (const [words, field] of [
    [[WIRE.INPUT.result, 10, 1, 1, 0, WIRE.OUTCOME.failure, NaN, -1], 'outcome_code'],
    [[WIRE.INPUT.poll, 0.5, -1, -1, -1, -1, -1, -1], 'now_ms'],
  ]) {
    const word = errorOf(() => exchange(driver, ...words));
    assert.deepEqual([word.code, word.field], ['invalid_argument', field]);
  }
  assert.equal(
    exchange(driver, WIRE.INPUT.poll, 0, -1, -1, -1, -1, -1, -1)[WIRE.OUT.attempt],
    1,
    'the driver is unchanged: attempt 1 starts',
  );
  _free(driver);
});

test('handleResult: an outcome is read and validated by the object path, held under a token when given', () => {
  const answer = (call) => {
    try {
      return call();
    } catch (error) {
      return { code: error.code, field: error.field };
    }
  };
  const cases = [
    [{ type: 'http_status', status: 42 }, undefined, { code: 'invalid_argument', field: 'status' }],
    [
      { type: 'http_status', status: 503, retryAfterMs: -1 },
      undefined,
      { code: 'invalid_argument', field: 'retryAfterMs' },
    ],
    [{ type: 'transport', failure: 'reset' }, undefined, { code: 'invalid_argument', field: 'failure' }],
    [{ type: 'success' }, { token: 4 }, 'accepted'],
    [{ type: 'success' }, { token: 4, held: 'error' }, 'accepted'],
    [{ type: 'success' }, { token: -2 }, { code: 'invalid_argument', field: 'token' }],
    [{ type: 'success' }, { token: 1.5 }, { code: 'invalid_argument', field: 'token' }],
    [{ type: 'success' }, { token: 4, held: 'response' }, { code: 'invalid_argument', field: 'held' }],
    [{ type: 'success' }, { held: 'error' }, { code: 'invalid_argument', field: 'held' }],
  ];
  for (const [outcome, holding, expected] of cases) {
    const driver = new Driver(policy(), 0, { seed: 3 });
    driver.pollAction(0);
    assert.deepEqual(
      answer(() => driver.handleResult(10, 1, outcome, holding)),
      expected,
      JSON.stringify([outcome, holding]),
    );
    driver.free();
  }
  const held = new Driver(policy(), 0, { seed: 3 });
  held.pollAction(0);
  held.handleResult(10, 1, { type: 'success' }, { token: 4 });
  assert.deepEqual(held.pollAction(10).result, { token: 4, returned: true });
  held.free();
  // A freed driver is refused, by the class and by its handle.
  const driver = new Driver(policy(), 0, { seed: 1 });
  driver.free();
  driver.free();
  assert.equal(errorOf(() => driver.pollAction(0)).field, 'driver');
  const handle = newDriver(policy(), 0, { seed: 1 });
  _free(handle);
  assert.equal(errorOf(() => pollAction(handle, 0)).field, 'driver');
});

test('the method is an input: a POST is never repeated after it may have been processed, unless the caller says so', () => {
  const lost = { type: 'transport', failure: 'connection_lost' };
  const post = new Driver(policy(), 0, { seed: 7, method: 'POST' });
  assert.equal(post.pollAction(0).sendIdempotencyKey, true, 'carries a key to reconcile by');
  post.handleResult(10, 1, lost);
  assert.equal(post.pollAction(10).decision.type, 'reconcile');
  const idempotent = new Driver(policy(), 0, { seed: 7, method: 'POST', idempotent: true });
  assert.equal(idempotent.pollAction(0).sendIdempotencyKey, false);
  idempotent.handleResult(10, 1, lost);
  assert.equal(idempotent.pollAction(10).type, 'sleep');
  assert.equal(errorOf(() => new Driver(policy(), 0, { method: 'GE T' })).field, 'method');
  assert.equal(errorOf(() => new Driver(policy(), 0, { idempotent: true })).field, 'idempotent');
  assert.equal(errorOf(() => new Driver(policy(), 0, { method: 'GET', idempotent: 'yes' })).field, 'idempotent');
});

test('handleResponse: a 503 got through a redirect (redirected: true) may hide a processed POST, so it reconciles', () => {
  const post = new Driver(policy(), 0, { seed: 7, method: 'POST' });
  post.pollAction(0);
  assert.equal(
    post.handleResponse(10, 1, 503, () => undefined, { redirected: true }),
    'accepted',
  );
  assert.equal(post.pollAction(10).decision.type, 'reconcile');
  // The same 503 without the redirect was not processed: retried.
  const direct = new Driver(policy(), 0, { seed: 7, method: 'POST' });
  direct.pollAction(0);
  direct.handleResponse(10, 1, 503, () => undefined, { redirected: false });
  assert.equal(direct.pollAction(10).type, 'sleep');
  // Anything but a boolean is the caller's mistake, named.
  assert.equal(
    errorOf(() => direct.handleResponse(10, 1, 503, () => undefined, { redirected: 1 })).field,
    'redirected',
  );
  post.free();
  direct.free();
});

test('a sequential host is refused a hedging policy (unsupported, field hedging) unless it opts out of hedges', () => {
  const hedging = policy({ hedging: { delayMs: 50, maxHedgedAttempts: 1 } });
  const refused = errorOf(() => new Driver(hedging, 0, { concurrency: 'sequential' }));
  assert.deepEqual([refused.code, refused.field], ['unsupported', 'hedging']);
  // Its rule, as Python and Kotlin give it (`rule` was set for invalid_argument only).
  assert.match(refused.rule, /^this helper runs one attempt at a time and cannot hedge/);
  const without = new Driver(hedging, 0, { seed: 1, concurrency: 'sequential_without_hedging' });
  without.pollAction(0);
  assert.deepEqual(without.pollAction(100), { type: 'sleep', untilMs: 300 }, 'no hedge at 50 ms');
  assert.equal(errorOf(() => new Driver(hedging, 0, { concurrency: 'parallel' })).field, 'concurrency');
  assert.equal(new Driver(hedging, 0, { seed: 1 }).pollAction(0).hedge, false);
});

test("a dependency and stats given to a driver stay usable; the stats count every driver's decisions", () => {
  const dependency = Dependency.fromConfig({ retrySlots: 1 });
  const stats = new Stats();
  for (const seed of [1, 2]) {
    const driver = new Driver(policy(), 0, { seed, dependency, stats });
    driver.pollAction(0);
    driver.handleResult(5, 1, { type: 'success' });
    driver.pollAction(5);
    driver.free();
  }
  assert.deepEqual([stats.toJSON().operations, stats.toJSON().succeeded], [2, 2]);
  assert.equal(dependency.retrySlots.inUse, 0);
  assert.equal(errorOf(() => new Driver(policy(), 0, { stats: {} })).field, 'stats');
});

test('Outcome.fromHttpResponse: the core reads the guidance headers through a lookup; a status outside 100..=599 is malformed', () => {
  assert.deepEqual(GUIDANCE_HEADERS, [
    'retry-after-ms',
    'x-ms-retry-after-ms',
    'x-amz-retry-after',
    'retry-after',
    'age',
    'ratelimit',
    'ratelimit-policy',
    'ratelimit-reset',
    'ratelimit-remaining',
    'x-ratelimit-reset',
    'x-ratelimit-remaining',
    'x-amzn-errortype',
  ]);
  assert.ok(Object.isFrozen(GUIDANCE_HEADERS));
  assert.deepEqual([IDEMPOTENCY_KEY_HEADER, REQUEST_ID_HEADER], ['Idempotency-Key', 'X-Request-Id']);
  const headers = new Headers({ 'Retry-After': '2', 'x-ms-retry-after-ms': '250' });
  assert.deepEqual(Outcome.fromHttpResponse(503, headers, 0), { type: 'http_status', status: 503, retryAfterMs: 250 });
  assert.deepEqual(
    Outcome.fromHttpResponse(503, (name) => (name === 'retry-after' ? '2' : null), 0),
    { type: 'http_status', status: 503, retryAfterMs: 2000 },
  );
  assert.deepEqual(Outcome.fromHttpResponse(429, new Map([['retry-after-ms', 'soon']]), 0), {
    type: 'http_status',
    status: 429,
  });
  const amz = new Headers({ 'Retry-After': '2', 'x-amz-retry-after': '1500' });
  assert.deepEqual(Outcome.fromHttpResponse(500, amz, 0), { type: 'http_status', status: 500, retryAfterMs: 1500 });
  const malformed = { type: 'transport', failure: 'connection_lost' };
  for (const status of [0, 99, 600, 999, 70000])
    assert.deepEqual(Outcome.fromHttpResponse(status, new Headers(), 0), malformed, String(status));
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503.5, new Headers(), 0)).field, 'status');
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, 'retry-after: 1', 0)).field, 'headers');
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, () => 5, 0)).field, 'headers');
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, new Headers(), null)).field, 'nowUnixMs');
  const thrown = new Error('lookup failed');
  assert.throws(
    () =>
      Outcome.fromHttpResponse(
        503,
        () => {
          throw thrown;
        },
        0,
      ),
    (error) => error === thrown,
  );
});

test('Outcome.fromHttpResponse: the last argument is the reading or {reading, policy}; a policy reads as its helpers do', () => {
  const urllib3 = Policy.fromConfig({ serverGuidance: { headers: 'retry_after' } });
  const headers = new Headers({ 'retry-after-ms': '2500', 'retry-after': '1' });
  const wait = (ms) => ({ type: 'http_status', status: 503, retryAfterMs: ms });
  assert.deepEqual(Outcome.fromHttpResponse(503, headers, 0, { policy: urllib3 }), wait(1000));
  assert.deepEqual(Outcome.fromHttpResponse(503, headers, 0, { reading: 'lenient' }), wait(2500));
  assert.deepEqual(Outcome.fromHttpResponse(503, headers, 0, 'lenient'), wait(2500));
  assert.deepEqual(Outcome.fromHttpResponse(503, headers, 0, {}), wait(2500));
  // The refusals: both at once (the core's), a misspelt option, a policy that is none, a policy given bare.
  assert.equal(
    errorOf(() => Outcome.fromHttpResponse(503, headers, 0, { reading: 'strict', policy: urllib3 })).field,
    'reading',
  );
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, headers, 0, { polcy: urllib3 })).field, 'polcy');
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, headers, 0, { policy: {} })).field, 'policy');
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, headers, 0, urllib3)).field, 'options');
  assert.equal(errorOf(() => Outcome.fromHttpResponse(503, headers, 0, 7)).field, 'reading');
  urllib3.free();
});

test('Outcome.fromFailure: what each failure of the vocabulary means to the engine', () => {
  const notSent = [
    'dns_lookup_failed',
    'connection_refused',
    'unreachable',
    'connect_timeout',
    'tls_handshake_failed',
    'pool_timeout',
  ];
  for (const failure of notSent)
    assert.deepEqual(Outcome.fromFailure(failure), { type: 'transport', failure: 'not_sent' });
  for (const failure of ['write_failed', 'connection_lost', 'body_broken', 'malformed_response']) {
    assert.deepEqual(Outcome.fromFailure(failure), { type: 'transport', failure: 'connection_lost' });
  }
  for (const failure of ['read_timeout', 'attempt_timed_out'])
    assert.deepEqual(Outcome.fromFailure(failure), { type: 'transport', failure: 'timed_out' });
  assert.deepEqual(Outcome.fromFailure('cancelled'), { type: 'cancelled' });
  assert.equal(errorOf(() => Outcome.fromFailure('reset')).field, 'failure');
});

test('failureOf: the one table from platform errors to the vocabulary; anything else is left to the hook', () => {
  const coded = (code, extra = {}) => Object.assign(new Error(code), { code, ...extra });
  const fetchError = (cause) => new TypeError('fetch failed', { cause });
  const cases = [
    [fetchError(coded('ECONNREFUSED')), 'connection_refused'],
    [fetchError(coded('ENOTFOUND')), 'dns_lookup_failed'],
    [fetchError(coded('EAI_AGAIN')), 'dns_lookup_failed'],
    [fetchError(coded('UND_ERR_CONNECT_TIMEOUT')), 'connect_timeout'],
    [fetchError(coded('ECONNRESET')), 'connection_lost'],
    [fetchError(coded('UND_ERR_SOCKET')), 'connection_lost'],
    [fetchError(coded('EPIPE')), 'write_failed'],
    [fetchError(coded('EHOSTUNREACH')), 'unreachable'],
    [fetchError(coded('CERT_HAS_EXPIRED')), 'tls_handshake_failed'],
    [fetchError(coded('UND_ERR_HEADERS_TIMEOUT')), 'read_timeout'],
    [fetchError(coded('ETIMEDOUT', { syscall: 'connect' })), 'connect_timeout'],
    [fetchError(coded('ETIMEDOUT', { syscall: 'read' })), 'read_timeout'],
    [fetchError(coded('HPE_INVALID_STATUS')), 'malformed_response'],
    [fetchError(new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')])), 'connection_refused'],
    [new TypeError('wrapped twice', { cause: fetchError(coded('ENOTFOUND')) }), 'dns_lookup_failed'],
    [coded('ECONNRESET'), 'connection_lost'],
    [new DOMException('stop', 'AbortError'), 'cancelled'],
    [new DOMException('late', 'TimeoutError'), 'attempt_timed_out'],
    [coded('ABORT_ERR'), 'cancelled'],
  ];
  for (const [error, failure] of cases)
    assert.equal(failureOf(error), failure, `${error.message} ${error.cause?.code ?? ''}`);
  for (const other of [
    new Error('no'),
    new TypeError('x is not a function'),
    fetchError(coded('SOMETHING_NEW')),
    'a string',
    null,
    undefined,
    42,
    { code: 7 },
  ]) {
    assert.equal(failureOf(other), undefined, String(other));
  }
});

test("the generated decision reader: give-up reasons by the core's names, an unknown kind thrown (a version mismatch)", () => {
  const w = new Array(Object.keys(WIRE.DECISION).length).fill(WIRE.NONE);
  w[WIRE.DECISION.decision_kind] = NAMES.decisionKinds.indexOf('gave_up');
  NAMES.giveUpReasons.forEach((reason, at) => {
    w[WIRE.DECISION.reason] = at;
    assert.equal(decisionFromRecord(w).reason, reason);
  });
  w[WIRE.DECISION.decision_kind] = NAMES.decisionKinds.length;
  assert.throws(
    () => decisionFromRecord(w),
    new RegExp(`decision kind ${NAMES.decisionKinds.length}, which this host does not know`),
  );
});

test("failureOf looks through the core's MAX_CAUSE_DEPTH errors below the one caught, as every language does", () => {
  const source = readFileSync(new URL('../../core/src/outcomes/failure.rs', import.meta.url), 'utf8');
  const written = source.match(/pub const MAX_CAUSE_DEPTH: usize = (\d+);/);
  assert.ok(written !== null);
  assert.equal(MAX_CAUSE_DEPTH, Number(written[1]));
  /** A fetch error over `depth - 1` errors the table does not know, then a refused connection. */
  const wrapped = (depth) => {
    let inner = Object.assign(new Error('refused'), { code: 'ECONNREFUSED' });
    for (let at = 1; at < depth; at += 1) inner = new Error('wrapper', { cause: inner });
    return new TypeError('fetch failed', { cause: inner });
  };
  assert.equal(failureOf(wrapped(MAX_CAUSE_DEPTH)), 'connection_refused');
  assert.equal(failureOf(wrapped(MAX_CAUSE_DEPTH + 1)), undefined);
});

test('handleResponse: a Retry-After date is read against the wall clock, Date.now() unless `nowUnixMs` is given', () => {
  // It was read against 0 (1970) when left out: a date 2 s ahead was 57 years, and the operation gave up.
  const inTwoSeconds = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000).toUTCString();
  const headers = (name) => (name === 'retry-after' ? inTwoSeconds : undefined);
  const driver = new Driver(policy(), 0, { seed: 7 });
  driver.pollAction(0);
  assert.equal(driver.handleResponse(10, 1, 503, headers), 'accepted');
  const wait = driver.pollAction(10);
  assert.equal(wait.type, 'sleep');
  assert.ok(wait.untilMs > 10 && wait.untilMs <= 10 + 3000, `a wait of about 2 s, got ${wait.untilMs}`);
  // Given, it is the clock the date is read against.
  const given = new Driver(policy(), 0, { seed: 7 });
  given.pollAction(0);
  const epochPlus3s = (name) => (name === 'retry-after' ? 'Thu, 01 Jan 1970 00:00:03 GMT' : undefined);
  given.handleResponse(10, 1, 503, epochPlus3s, { nowUnixMs: 1000 });
  assert.deepEqual(given.pollAction(10), { type: 'sleep', untilMs: 2010 });
  driver.free();
  given.free();
});

test("handleResponse: any integer status is handed to the core as it is (-1, 0, 70000 are malformed responses, the server's fault)", () => {
  for (const status of [-1, 0, 99, 600, 70000, 2 ** 53 - 1, -(2 ** 53 - 1)]) {
    const stats = new Stats();
    const driver = new Driver(policy(), 0, { seed: 7, stats, recordEvents: true, returnsResponses: true });
    driver.pollAction(0);
    assert.equal(
      driver.handleResponse(30, 1, status, () => undefined, { token: 1 }),
      'accepted',
      String(status),
    );
    assert.deepEqual(driver.pollAction(30), { type: 'sleep', untilMs: 130 }, String(status));
    const events = [];
    for (let event; (event = driver.pollEvent()) !== undefined; ) events.push(event);
    assert.deepEqual(
      events[1].after,
      { attempt: 1, outcome: { type: 'transport', failure: 'connection_lost' } },
      String(status),
    );
    assert.deepEqual(
      Outcome.fromHttpResponse(status, () => undefined, 0),
      { type: 'transport', failure: 'connection_lost' },
    );
    driver.free();
  }
  // The status is a number the platform gave: anything else is the caller's mistake, named.
  const driver = new Driver(policy(), 0, { seed: 7 });
  driver.pollAction(0);
  for (const status of [503.5, '503', NaN, 2 ** 53])
    assert.equal(errorOf(() => driver.handleResponse(30, 1, status, () => undefined)).field, 'status');
  // A response that reads fine: its guidance headers by name, held under its token and returned by an HTTP host at the end.
  const http = new Driver(policy({ maxAttempts: 1 }), 0, { seed: 7, returnsResponses: true });
  const { abortAtMs } = http.pollAction(0);
  assert.equal(
    http.handleResponse(30, 1, 503, new Headers({ 'Retry-After-Ms': '250' }), { token: 9, nowUnixMs: 0 }),
    'accepted',
  );
  // A failed response returned at the end is readable until its attempt's abort time.
  const finish = http.pollAction(30);
  assert.deepEqual(
    [finish.decision.reason, finish.lastResult.outcome, finish.result],
    [
      'attempts_exhausted',
      { type: 'http_status', status: 503, retryAfterMs: 250 },
      { token: 9, returned: true, readableUntilMs: abortAtMs },
    ],
  );
  driver.free();
  http.free();
});
