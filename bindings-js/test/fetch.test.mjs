// retryFetch against a real local HTTP server (127.0.0.1 only) that answers 503
// with Retry-After, stalls, resets connections, or refuses them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { Policy, RetryplanError, retryFetch } from 'retryplan';

// Each path scripts its answers by attempt: a list of actions, the last repeating.
const scripts = {
  '/busy-then-ok': ['busy1', 'ok'],
  '/stall-then-ok': ['stall', 'ok'],
  '/reset-then-ok': ['reset', 'ok'],
  '/reset': ['reset'],
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
};
const seen = new Map();
const sockets = new Set();
let server;
let base;

before(async () => {
  server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const log = seen.get(request.url) ?? [];
      seen.set(request.url, log);
      const entry = { headers: request.headers, body: Buffer.concat(chunks).toString(), closedEarly: false };
      log.push(entry);
      response.on('close', () => (entry.closedEarly = !response.writableFinished));
      const script = scripts[request.url] ?? ['404'];
      const action = script[Math.min(log.length, script.length) - 1];
      if (action === 'ok') return response.writeHead(200, { 'content-type': 'text/plain' }).end('done');
      if (action === '404') return response.writeHead(404).end('no such thing');
      if (action === 'busy1') return response.writeHead(503, { 'retry-after': '1' }).end('busy');
      if (action === 'busy3600') return response.writeHead(503, { 'retry-after': '3600' }).end('busy');
      if (action === 'busy-huge') return response.writeHead(503, { 'retry-after': '99999999999999999999999' }).end('busy');
      if (action === 'busy-garbled') return response.writeHead(503, { 'retry-after': 'soon-ish' }).end('busy');
      if (action === 'busy-ms') return response.writeHead(503, { 'retry-after': '3', 'retry-after-ms': '150' }).end('busy');
      if (action === 'reset') return request.socket.destroy();
      // 'stall': never answer; the socket is destroyed when the server closes.
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${server.address().port}`;
});

after(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const policy = (config = {}) =>
  Policy.fromConfig({
    maxAttempts: 3,
    totalBudgetMs: 5000,
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
  assert.deepEqual(log.map((entry) => entry.body), ['order=5001', 'order=5001']);
});

test('a stalled attempt is aborted at its timeout and retried', async () => {
  const result = await retryFetch(`${base}/stall-then-ok`, {}, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(result.decision.attempts, 2);
  assert.equal(result.response.status, 200);
});

test('a reset connection is retried for a keyed write, and reconciled for an unsafe one', async () => {
  const keyed = await retryFetch(`${base}/reset-then-ok`, { method: 'POST', body: 'x' }, { policy: policy() });
  assert.equal(keyed.decision.type, 'succeeded');
  const unsafe = await retryFetch(`${base}/reset`, { method: 'POST', body: 'x' }, { policy: policy({ idempotency: 'unsafe' }) });
  assert.equal(unsafe.decision.type, 'reconcile');
  assert.equal(unsafe.decision.attempts, 1);
  assert.ok(unsafe.error instanceof TypeError);
  assert.equal(unsafe.response, undefined);
});

test('a refused connection was never sent: even an unsafe write is retried, then gives up', async () => {
  const closed = createServer();
  await new Promise((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = closed.address().port;
  await new Promise((resolve) => closed.close(resolve));
  const result = await retryFetch(`http://127.0.0.1:${port}/`, { method: 'POST', body: 'x' }, { policy: policy({ idempotency: 'unsafe' }) });
  assert.equal(result.decision.type, 'gave_up');
  assert.equal(result.decision.reason, 'attempts_exhausted');
  assert.equal(result.decision.attempts, 3);
});

test('a non-retryable status ends at once and hands back the response', async () => {
  const result = await retryFetch(`${base}/not-found`, {}, { policy: policy(), requestIdHeader: null });
  assert.equal(result.decision.reason, 'not_retryable');
  assert.equal(result.response.status, 404);
  assert.equal(await result.response.text(), 'no such thing');
  assert.equal(seen.get('/not-found').at(-1).headers['x-request-id'], undefined);
});

test('Retry-After longer than the budget gives up now, without sleeping', async () => {
  const started = performance.now();
  const result = await retryFetch(`${base}/busy-long`, {}, { policy: policy({ serverGuidance: { capMs: 10000000 } }) });
  assert.equal(result.decision.reason, 'retry_after_exceeds_budget');
  assert.equal(result.decision.refusedDelayMs, 3600000);
  assert.ok(performance.now() - started < 1000);
  assert.equal(result.response.status, 503);
});

test('a malformed Retry-After carries no guidance', async () => {
  const result = await retryFetch(`${base}/busy-garbled`, {}, { policy: policy() });
  assert.equal(result.decision.type, 'succeeded');
});

test('aborting the caller signal cancels the operation', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 100);
  const result = await retryFetch(`${base}/stall`, {}, { policy: policy(), signal: controller.signal });
  assert.deepEqual([result.decision.type, result.decision.reason], ['gave_up', 'cancelled']);
});

test('a stream body cannot be resent, so it is refused up front', async () => {
  const body = new ReadableStream({ start: (controller) => controller.close() });
  await assert.rejects(retryFetch(`${base}/busy-then-ok`, { method: 'POST', body, duplex: 'half' }, { policy: policy() }), (error) => {
    return error instanceof RetryplanError && error.code === 'invalid_argument';
  });
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
  for (let waited = 0; !log[0].closedEarly && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
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
  assert.deepEqual(seen.get('/caller-key').map((entry) => entry.headers['idempotency-key']), ['order-5001', 'order-5001']);
});

test('init.signal cancels the operation like options.signal', async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error('user left')), 100);
  const result = await retryFetch(`${base}/signal`, { signal: controller.signal }, { policy: policy({ attemptTimeout: { fixedMs: 3000 } }) });
  assert.equal(result.decision.type, 'gave_up');
  assert.equal(result.decision.reason, 'cancelled');
});
