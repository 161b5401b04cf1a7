// The browser runtime's retryFetch as a page runs it (test/runtime.mjs, with the page's `location` and
// `navigator.onLine` stood in for on globalThis): what it adds to a cross-origin request, where a custom
// header makes the browser send a CORS preflight that a server not listing it fails; and a TypeError from
// a browser that says it is offline, which contacted no network.
import { test, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import * as runtime from './runtime.mjs';
import * as tools from 'retryplan/tools';

const PAGE = 'https://shop.example';

/** Stands in for the page's globals until the test ends. */
function page({ origin = PAGE, onLine = true } = {}) {
  globalThis.location = { origin };
  Object.defineProperty(globalThis, 'navigator', { value: { onLine }, configurable: true, writable: true });
}

afterEach(() => {
  delete globalThis.location;
  delete globalThis.navigator;
});

const policyOf = (config) => runtime.Policy.fromCompiled(tools.compilePolicy({ totalTimeoutMs: 2000, ...config }));

/** A fetch answering `status`, recording the names of the headers each attempt sent. */
function recording(status = 200) {
  const sent = [];
  const fetch = async (_input, init) => {
    sent.push([...init.headers.keys()].sort());
    return new Response('ok', { status });
  };
  return { sent, fetch };
}

test('a cross-origin request carries no request id and no core headers unless the caller asks: no CORS preflight', async () => {
  page();
  const policy = policyOf({ maxAttempts: 1 });
  const { sent, fetch } = recording();
  await runtime.retryFetch('https://api.example/price', {}, { policy, fetch });
  await runtime.retryFetch(`${PAGE}/price`, {}, { policy, fetch });
  await runtime.retryFetch('https://api.example/price', {}, { policy, fetch, requestIdHeader: 'X-Request-Id' });
  await runtime.retryFetch('https://api.example/price', {}, { policy, fetch, propagateCrossOrigin: true });
  await runtime.retryFetch('https://api.example/price', {}, { policy, fetch, requestIdHeader: null });
  assert.deepEqual(sent, [
    [], // cross-origin: nothing of ours, so a simple GET needs no preflight
    ['retryplan-attempt', 'retryplan-caller-retries', 'retryplan-timeout-ms', 'x-request-id'], // same origin
    ['x-request-id'], // the caller named the header: it goes
    ['retryplan-attempt', 'retryplan-caller-retries', 'retryplan-timeout-ms', 'x-request-id'], // opted in
    [],
  ]);
  policy.free();
});

test('a page with an opaque origin (a sandboxed frame, file:) treats every request as cross-origin', async () => {
  page({ origin: 'null' });
  const policy = policyOf({ maxAttempts: 1 });
  const { sent, fetch } = recording();
  await runtime.retryFetch('https://api.example/price', {}, { policy, fetch });
  assert.deepEqual(sent, [[]]);
  policy.free();
});

test("a cross-origin write still names itself with its Idempotency-Key (the server's CORS must allow it)", async () => {
  page();
  const policy = policyOf({ maxAttempts: 1 });
  const { sent, fetch } = recording(201);
  await runtime.retryFetch('https://api.example/orders', { method: 'POST', body: 'x' }, { policy, fetch });
  await runtime.retryFetch(
    'https://api.example/orders',
    { method: 'POST', body: 'x' },
    { policy, fetch, idempotencyKeyHeader: null },
  );
  assert.deepEqual(sent, [['content-type', 'idempotency-key'], ['content-type']]);
  policy.free();
});

/**
 * How a POST ends when every attempt's fetch rejects with a TypeError, the browser's `onLine` being
 * `atSend` when the attempt starts and `atFailure` when it fails (so one attempt when they differ).
 */
async function offlinePost(atSend, atFailure, maxAttempts) {
  page({ onLine: atSend });
  const policy = policyOf({
    maxAttempts,
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
    jitter: { kind: 'none' },
  });
  let attempts = 0;
  const fetch = async () => {
    attempts += 1;
    globalThis.navigator.onLine = atFailure;
    throw new TypeError('Failed to fetch');
  };
  const ending = await runtime
    .retryFetch('https://api.example/orders', { method: 'POST', body: 'x' }, { policy, fetch })
    .then(
      () => assert.fail('expected a rejection'),
      (error) => error,
    );
  policy.free();
  return { attempts, ending };
}

test('offline at the start of an attempt and at its failure: nothing was sent, so a POST is retried, not reconciled', async () => {
  const { attempts, ending } = await offlinePost(false, false, 3);
  assert.equal(ending.name, 'GaveUpError', String(ending));
  assert.equal(ending.decision.reason, 'attempts_exhausted');
  assert.equal(attempts, 3);
  assert.ok(ending.cause instanceof TypeError);
});

test('online at either end of an attempt: its TypeError may follow a sent request, so a POST is reconciled', async () => {
  for (const [atSend, atFailure] of [
    [true, true],
    [true, false], // the network went away during the attempt: the request may have gone out
    [false, true],
  ]) {
    const { attempts, ending } = await offlinePost(atSend, atFailure, 3);
    assert.equal(ending.name, 'ReconcileRequiredError', `onLine ${atSend} then ${atFailure}: ${ending}`);
    assert.equal(attempts, 1);
  }
});

/** A POST of `body` with `keepalive`, every fetch rejecting as a page's does a request it refuses or loses. */
async function keepalivePost(body, { standIn = true } = {}) {
  if (standIn) page();
  else delete globalThis.location;
  const policy = policyOf({
    maxAttempts: 3,
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
    jitter: { kind: 'none' },
  });
  let attempts = 0;
  const fetch = async () => {
    attempts += 1;
    throw new TypeError('Failed to fetch');
  };
  const ending = await runtime
    .retryFetch('https://api.example/beacon', { method: 'POST', body, keepalive: true }, { policy, fetch })
    .then(
      () => assert.fail('expected a rejection'),
      (error) => error,
    );
  policy.free();
  return { attempts, ending };
}

test('a keepalive body over 64 KiB, which a page refuses unsent: invalid_argument after one attempt, never a reconcile', async () => {
  const { attempts, ending } = await keepalivePost('x'.repeat(65537));
  assert.equal(attempts, 1);
  assert.ok(ending instanceof runtime.RetryplanError, String(ending));
  assert.equal(ending.code, 'invalid_argument');
  assert.equal(ending.field, 'init.body');
  assert.ok(ending.cause instanceof TypeError);
  // Counted in bytes as sent (UTF-8), not in UTF-16 code units: 21,846 three-byte characters are 65,538 bytes.
  assert.equal((await keepalivePost('\u20ac'.repeat(21846))).ending.code, 'invalid_argument');
});

test('a keepalive body of 64 KiB or less, or outside a page: a TypeError is still a lost connection', async () => {
  for (const [body, standIn] of [
    ['x'.repeat(65536), true], // within the quota: the request may have been sent
    [new Uint8Array(65536), true],
    ['x'.repeat(65537), false], // Node's fetch has no keepalive quota: a TypeError is the network's
  ]) {
    const { attempts, ending } = await keepalivePost(body, { standIn });
    assert.equal(ending.name, 'ReconcileRequiredError', String(ending));
    assert.equal(attempts, 1);
  }
});
