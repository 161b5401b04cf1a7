// retryFetch against a real local HTTP server (127.0.0.1 only) that answers 503
// with Retry-After, stalls, resets connections, or refuses them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import {
  GaveUpError,
  OperationFailedError,
  Policy,
  ReconcileRequiredError,
  RetryplanError,
  Stats,
  retryFetch,
} from 'retryplan';
import { rejection } from './assertions.mjs';
import { scriptedServer } from './scripted-server.mjs';

// Each path scripts its answers by attempt: a list of actions, the last repeating.
const scripts = {
  '/busy-then-ok': ['busy1', 'ok'],
  '/stall-then-ok': ['stall', 'ok'],
  '/reset-then-ok': ['reset', 'ok'],
  '/reset': ['reset'],
  '/orders?cart=41': ['reset'],
  '/not-found': ['404'],
  '/stall': ['stall'],
  '/busy-long': ['busy3600'],
  '/busy-garbled': ['busy-garbled', 'ok'],
  '/busy-forever': ['busy-huge'],
  '/busy-ms-then-ok': ['busy-ms', 'ok'],
  '/hedge-stall-then-ok': ['stall', 'ok'],
  '/read-ok': ['ok'],
  '/caller-key': ['busy1', 'ok'],
  '/signal': ['stall'],
  '/post-500': ['500'],
  '/post-reset-then-ok': ['reset', 'ok'],
  '/weird-then-ok': ['999', 'ok'],
  '/slow-503-then-ok': ['busy-slow-body', 'ok'],
  '/observed': ['busy0', 'ok'],
  '/never': ['ok'],
  '/stream-busy': ['busy0'],
  '/stream-ok': ['ok'],
};
let server;
let base;
let seen;

before(async () => {
  server = await scriptedServer(
    (url) => scripts[url] ?? ['404'],
    (action, response, request, entry) => {
      entry.closedEarly = false;
      response.on('close', () => (entry.closedEarly = !response.writableFinished));
      if (action === 'ok') return response.writeHead(200, { 'content-type': 'text/plain' }).end('done');
      if (action === '404') return response.writeHead(404).end('no such thing');
      if (action === 'busy1') return response.writeHead(503, { 'retry-after': '1' }).end('busy');
      if (action === 'busy3600') return response.writeHead(503, { 'retry-after': '3600' }).end('busy');
      if (action === 'busy-huge')
        return response.writeHead(503, { 'retry-after': '99999999999999999999999' }).end('busy');
      if (action === 'busy-garbled') return response.writeHead(503, { 'retry-after': 'soon-ish' }).end('busy');
      if (action === 'busy-ms')
        return response.writeHead(503, { 'retry-after': '3', 'retry-after-ms': '150' }).end('busy');
      if (action === 'busy0') return response.writeHead(503, { 'retry-after': '0' }).end('busy');
      if (action === '500') return response.writeHead(500).end('oops');
      if (action === '999') return response.writeHead(999).end('weird');
      if (action === 'busy-slow-body') {
        // A long error body that would take 2 s: the client cancels it once a newer result is accepted.
        response.writeHead(503, { 'retry-after': '0', 'content-length': '40' });
        const timer = setInterval(() => response.write('x'), 50);
        response.on('close', () => clearInterval(timer));
        return;
      }
      if (action === 'reset') return request.socket.destroy();
      // 'stall': never answer; the socket is destroyed when the server closes.
    },
  );
  ({ base, seen } = server);
});

after(() => server.close());

const policy = (config = {}) =>
  Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 5000,
    attemptTimeout: { fixedMs: 300 },
    minimumUsefulAttemptMs: 50,
    backoff: { kind: 'constant', baseMs: 10, capMs: 10 },
    jitter: { kind: 'none' },
    idempotency: 'keyed',
    ...config,
  });

test('503 with Retry-After: waits at least that long, same idempotency key, fresh request ids, body resent', async () => {
  const started = performance.now();
  const result = await retryFetch(`${base}/busy-then-ok`, { method: 'POST', body: 'order=5001' }, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(result.decision.attempts, 2);
  assert.ok(performance.now() - started >= 1000, 'honoured Retry-After: 1');
  assert.equal(await result.response.text(), 'done');
  const log = seen.get('/busy-then-ok');
  assert.equal(log.length, 2);
  assert.equal(log[0].headers['idempotency-key'], result.idempotencyKey);
  assert.equal(log[1].headers['idempotency-key'], result.idempotencyKey);
  assert.match(log[0].headers['x-request-id'], /^[0-9a-f]{16}$/);
  assert.notEqual(log[0].headers['x-request-id'], log[1].headers['x-request-id']);
  assert.deepEqual(
    log.map((entry) => entry.body),
    ['order=5001', 'order=5001'],
  );
});

test('a stalled attempt is aborted at its timeout and retried', async () => {
  const result = await retryFetch(`${base}/stall-then-ok`, {}, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(result.decision.attempts, 2);
  assert.equal(result.response.status, 200);
});

test('a reset connection is retried for a keyed write, and reconciled for an unsafe one (rejects: no response)', async () => {
  const keyed = await retryFetch(`${base}/reset-then-ok`, { method: 'POST', body: 'x' }, { policy: policy() });
  assert.equal(keyed.decision.type, 'succeeded');
  const unsafe = await rejection(
    retryFetch(`${base}/reset`, { method: 'POST', body: 'x' }, { policy: policy({ idempotency: 'unsafe' }) }),
  );
  assert.ok(unsafe instanceof ReconcileRequiredError && unsafe instanceof OperationFailedError);
  assert.equal(unsafe.attempts, 1);
  assert.ok(unsafe.cause instanceof TypeError, 'the fetch error');
  assert.deepEqual(unsafe.lastOutcome, { type: 'transport', failure: 'connection_lost' });
  assert.equal(seen.get('/reset').length, 1);
});

test("an ending names the request by its method and URL (port and query kept, fragment dropped), in the core's words", async () => {
  const url = `${base}/orders?cart=41#summary`;
  const error = await rejection(
    retryFetch(
      url,
      { method: 'POST', body: 'x' },
      { policy: policy({ idempotency: 'unsafe' }), idempotencyKey: 'order-5001' },
    ),
  );
  assert.ok(error instanceof ReconcileRequiredError);
  assert.equal(
    error.message,
    `retryplan: POST ${base}/orders?cart=41: the write may have happened; do not repeat it blindly: look it up (reconcile it) by its idempotency key "order-5001"`,
  );
  assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
});

test('a refused connection was never sent: even an unsafe write is retried, then gives up', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const error = await rejection(
    retryFetch(
      `http://127.0.0.1:${port}/`,
      { method: 'POST', body: 'x' },
      { policy: policy({ idempotency: 'unsafe' }) },
    ),
  );
  assert.ok(error instanceof GaveUpError);
  assert.equal(error.reason, 'attempts_exhausted');
  assert.equal(error.attempts, 3);
  assert.equal(
    error.message,
    `retryplan: POST http://127.0.0.1:${port}/: gave up after 3 attempts: attempts_exhausted`,
  );
  assert.deepEqual(error.lastOutcome, { type: 'transport', failure: 'not_sent' });
});

test('a POST under a safe policy runs as unsafe: a 500 is never repeated; it carries an Idempotency-Key and rejects with reconcile', async () => {
  const read = policy({ idempotency: 'safe' });
  const error = await rejection(retryFetch(`${base}/post-500`, { method: 'POST', body: 'order 1' }, { policy: read }));
  assert.ok(error instanceof ReconcileRequiredError);
  assert.deepEqual(error.lastOutcome, { type: 'http_status', status: 500 });
  const log = seen.get('/post-500');
  assert.equal(log.length, 1);
  assert.equal(log[0].headers['idempotency-key'], error.idempotencyKey);
  // The caller says this POST may be repeated: retried after a reset.
  const retried = await retryFetch(
    `${base}/post-reset-then-ok`,
    { method: 'POST', body: 'x' },
    { policy: read, idempotent: true },
  );
  assert.equal(retried.decision.type, 'succeeded');
  assert.equal(
    seen.get('/post-reset-then-ok')[0].headers['idempotency-key'],
    undefined,
    'an idempotent request needs no key',
  );
});

test("an invalid request is the caller's mistake: rethrown unchanged, nothing sent, never connection_lost", async () => {
  for (const [input, init] of [
    ['/never', {}],
    ['http://[bad', {}],
    [`${base}/never`, { headers: { 'x-bad': 'a\nb' } }],
    [`${base}/never`, { method: 'GE T' }],
  ]) {
    const error = await rejection(retryFetch(input, init, { policy: policy() }));
    assert.ok(error instanceof TypeError, `${input}: ${error}`);
    assert.ok(!(error instanceof OperationFailedError) && !(error instanceof RetryplanError));
  }
  assert.equal(seen.get('/never'), undefined);
});

test('an outcomeOfError that calls a thrown error a success is refused by the core, naming it, the error as the cause', async () => {
  // retryFetch resolved with `response: undefined`, which its type does not allow; Python's helpers crashed.
  for (const success of [{ type: 'success' }, { type: 'http_status', status: 200 }]) {
    const weird = new Error('weird');
    const error = await rejection(
      retryFetch(
        `${base}/never`,
        {},
        {
          policy: policy(),
          fetch: async () => {
            throw weird;
          },
          outcomeOfError: () => success,
        },
      ),
    );
    assert.ok(error instanceof RetryplanError, `${error}`);
    assert.equal(error.code, 'invalid_argument');
    assert.equal(error.field, 'outcome_of_error');
    assert.match(error.message, /answered a success for a thrown error/);
    assert.equal(error.cause, weird, success.type);
  }
});

test("a status outside 100..=599 is the server's fault: retried as connection_lost, never invalid_argument", async () => {
  const result = await retryFetch(`${base}/weird-then-ok`, {}, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(result.response.status, 200);
  assert.equal(seen.get('/weird-then-ok').length, 2);
});

test("a failed response's body is cancelled as soon as a newer result is accepted", async () => {
  const result = await retryFetch(`${base}/slow-503-then-ok`, {}, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
  const log = seen.get('/slow-503-then-ok');
  for (let waited = 0; !log[0].closedEarly && waited < 1500; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(log[0].closedEarly, true, 'the 503 body was cancelled, not read to its end');
});

test('onDecision and stats: each decision as the core makes it, counted in the core', async () => {
  const events = [];
  const stats = new Stats();
  const result = await retryFetch(
    `${base}/observed`,
    {},
    { policy: policy(), onDecision: (event) => events.push(event), stats },
  );
  assert.equal(result.decision.type, 'succeeded');
  assert.deepEqual(
    events.map((event) => event.decision.type),
    ['start_attempt', 'wait', 'start_attempt', 'succeeded'],
  );
  assert.deepEqual(events[1].after, { attempt: 1, outcome: { type: 'http_status', status: 503, retryAfterMs: 0 } });
  assert.deepEqual([stats.toJSON().attempts, stats.toJSON().succeeded], [2, 1]);
});

test('a non-retryable status ends at once and hands back the response', async () => {
  const result = await retryFetch(`${base}/not-found`, {}, { policy: policy(), requestIdHeader: null });
  assert.equal(result.decision.reason, 'not_retryable');
  assert.equal(result.response.status, 404);
  assert.equal(await result.response.text(), 'no such thing');
  assert.equal(seen.get('/not-found').at(-1).headers['x-request-id'], undefined);
});

test('Retry-After longer than the time left gives up now, without sleeping', async () => {
  const started = performance.now();
  const result = await retryFetch(`${base}/busy-long`, {}, { policy: policy({ serverGuidance: { capMs: 10000000 } }) });
  assert.equal(result.decision.reason, 'retry_after_exceeds_deadline');
  assert.equal(result.decision.refusedDelayMs, 3600000);
  assert.ok(performance.now() - started < 1000);
  assert.equal(result.response.status, 503);
});

test('a malformed Retry-After carries no guidance', async () => {
  const result = await retryFetch(`${base}/busy-garbled`, {}, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
});

test("aborting the caller signal cancels the operation: rejects with the signal's reason", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const stats = new Stats();
  const error = await rejection(
    retryFetch(`${base}/stall`, {}, { policy: policy(), signal: controller.signal, stats }),
  );
  assert.equal(error, controller.signal.reason);
  assert.equal(stats.toJSON().gaveUp.cancelled, 1, 'the driver gave up cancelled first');
});

test('a stream body is sent once: where the core would retry, it gives up body_not_replayable with the response', async () => {
  const body = new ReadableStream({
    start: (controller) => {
      controller.enqueue(new TextEncoder().encode('once'));
      controller.close();
    },
  });
  const stats = new Stats();
  const result = await retryFetch(
    `${base}/stream-busy`,
    { method: 'PUT', body, duplex: 'half' },
    { policy: policy(), stats },
  );
  assert.deepEqual(
    [result.decision.type, result.decision.reason, result.decision.attempts],
    ['gave_up', 'body_not_replayable', 1],
  );
  assert.equal(result.response.status, 503, 'an HTTP helper hands back the last response');
  assert.equal(await result.response.text(), 'busy');
  assert.deepEqual(
    seen.get('/stream-busy').map((entry) => entry.body),
    ['once'],
    'one request reached the server, with the body',
  );
  assert.equal(stats.toJSON().gaveUp.bodyNotReplayable, 1);
});

test('a stream body that succeeds at once is untouched by being one-shot', async () => {
  const body = new ReadableStream({
    start: (controller) => {
      controller.enqueue(new TextEncoder().encode('once'));
      controller.close();
    },
  });
  const result = await retryFetch(`${base}/stream-ok`, { method: 'PUT', body, duplex: 'half' }, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(await result.response.text(), 'done');
  assert.deepEqual(
    seen.get('/stream-ok').map((entry) => entry.body),
    ['once'],
  );
});

test('a Retry-After beyond any JS number still gives a decision, not an exception', async () => {
  const result = await retryFetch(`${base}/busy-forever`, {}, { policy: policy() });
  assert.equal(result.decision.reason, 'retry_after_above_cap');
  assert.equal(result.decision.attempts, 1);
});

test('retry-after-ms wins over Retry-After (the core reads both raw headers)', async () => {
  const started = performance.now();
  const result = await retryFetch(`${base}/busy-ms-then-ok`, {}, { policy: policy() });
  const elapsed = performance.now() - started;
  assert.equal(result.decision.type, 'succeeded');
  assert.ok(elapsed >= 150 && elapsed < 2500, `waited ${elapsed} ms for retry-after-ms: 150`);
});

test('hedging: each attempt has its own AbortController; the loser is aborted when the hedge wins', async () => {
  const hedged = policy({ attemptTimeout: { fixedMs: 3000 }, hedging: { delayMs: 50, maxHedgedAttempts: 1 } });
  const started = performance.now();
  const result = await retryFetch(`${base}/hedge-stall-then-ok`, {}, { policy: hedged });
  assert.deepEqual(result.decision, { type: 'succeeded', attempts: 2, winner: 2, abortAttempts: [1] });
  assert.equal(await result.response.text(), 'done');
  assert.ok(performance.now() - started < 2000, 'did not wait for the stalled attempt');
  const log = seen.get('/hedge-stall-then-ok');
  assert.equal(log.length, 2);
  assert.equal(log[0].headers['idempotency-key'], log[1].headers['idempotency-key']);
  assert.notEqual(log[0].headers['x-request-id'], log[1].headers['x-request-id']);
  for (let waited = 0; !log[0].closedEarly && waited < 2000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(log[0].closedEarly, true, 'the stalled attempt was aborted');
});

test('a safe read sends no Idempotency-Key (policy.sendsIdempotencyKey is false)', async () => {
  const read = policy({ idempotency: 'safe' });
  assert.equal(read.sendsIdempotencyKey, false);
  const result = await retryFetch(`${base}/read-ok`, {}, { policy: read });
  assert.equal(result.decision.type, 'succeeded');
  const log = seen.get('/read-ok');
  assert.equal(log[0].headers['idempotency-key'], undefined);
  assert.match(log[0].headers['x-request-id'], /^[0-9a-f]{16}$/);
});

test("the caller's own Idempotency-Key is kept as the operation's key on every attempt", async () => {
  const result = await retryFetch(
    `${base}/caller-key`,
    { method: 'POST', body: 'x', headers: { 'Idempotency-Key': 'order-5001' } },
    { policy: policy() },
  );
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(result.idempotencyKey, 'order-5001');
  assert.deepEqual(
    seen.get('/caller-key').map((entry) => entry.headers['idempotency-key']),
    ['order-5001', 'order-5001'],
  );
});

test('init.signal cancels the operation like options.signal', async () => {
  const controller = new AbortController();
  const reason = new Error('user left');
  setTimeout(() => controller.abort(reason), 100);
  const error = await rejection(
    retryFetch(
      `${base}/signal`,
      { signal: controller.signal },
      { policy: policy({ attemptTimeout: { fixedMs: 3000 } }) },
    ),
  );
  assert.equal(error, reason);
});

test('retryFetch: a response whose reading throws is never an ending last value; its body is cancelled', async () => {
  const unreadable = new SyntaxError('headers unreadable');
  const cancelled = [];
  const fetch = async () => ({
    status: 503,
    headers: {
      get() {
        throw unreadable;
      },
    },
    body: { cancel: async () => cancelled.push('body') },
  });
  const policy = Policy.fromConfig({
    maxAttempts: 2,
    jitter: { kind: 'none' },
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  });
  const error = await rejection(retryFetch('http://127.0.0.1:9/x', {}, { policy, fetch }));
  assert.ok(error instanceof GaveUpError);
  assert.equal(error.cause, unreadable);
  assert.equal(error.lastValue, undefined);
  assert.deepEqual(cancelled, ['body', 'body']); // the first released by the driver, the last by the ending
});
