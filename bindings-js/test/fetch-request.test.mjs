// What retryFetch makes of the caller's request, against a local HTTP server
// (127.0.0.1 only): which bodies it sends again and which once (one-shot),
// both signals of the caller, the key and request id headers under the
// caller's names (or none), and what ends the operation at once because the
// caller's request or `fetch` made it (never retried as a network failure).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { GaveUpError, Policy, RetryplanError, retryFetch } from 'retryplan';
import { rejection } from './assertions.mjs';
import { scriptedServer } from './scripted-server.mjs';

// Each path's answers by request, the last repeating: 'busy' (503, Retry-After: 0), 'ok', 'stall' (never answered),
// 'redirect' (302 to /landing), 'to-drop' (302 to /drop), 'drop' (the connection closed, unanswered), 'weird' (a
// status of 999, which is no HTTP status), 'slow-body' (a 200 whose body stalls after its first byte).
const scripts = {
  '/busy-then-ok': ['busy', 'ok'],
  '/busy': ['busy'],
  '/stall': ['stall'],
  '/redirect': ['redirect'],
  '/loop': ['loop'],
  '/landing': ['ok'],
  '/to-drop': ['to-drop'],
  '/drop': ['drop'],
  '/weird': ['weird'],
  '/slow-body': ['slow-body'],
};
let server;
let base;
/** The requests each path received (its scripted answers are by this count), by path and query. */
let seen;

before(async () => {
  server = await scriptedServer(
    (url) => scripts[new URL(url, 'http://x').pathname] ?? ['ok'],
    (action, response) => {
      if (action === 'ok') return response.writeHead(200).end('done');
      if (action === 'busy') return response.writeHead(503, { 'retry-after': '0' }).end('busy');
      if (action === 'redirect') return response.writeHead(302, { location: '/landing' }).end();
      if (action === 'loop') return response.writeHead(302, { location: '/loop' }).end();
      if (action === 'to-drop') return response.writeHead(302, { location: '/drop' }).end();
      if (action === 'drop') return response.socket.destroy();
      if (action === 'weird') return response.writeHead(999).end('weird');
      if (action === 'slow-body') return response.writeHead(200, { 'content-length': '100' }).write('x'); // then stalls
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
    attemptTimeout: { fixedMs: 2000 },
    minimumUsefulAttemptMs: 50,
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
    jitter: { kind: 'none' },
    idempotency: 'keyed',
    ...config,
  });

/** The bodies the server saw at `path`. */
const bodies = (path) => (seen.get(path) ?? []).map((entry) => entry.body);

test('a body read as it is sent (an async iterable, a Node Readable) is one-shot: sent once, then body_not_replayable with the response', async () => {
  async function* chunks() {
    yield new TextEncoder().encode('order ');
    yield new TextEncoder().encode('5001');
  }
  const oneShot = {
    'async-generator': () => chunks(),
    'Readable.from': () => Readable.from(['order ', '5001']),
    'custom async iterable': () => ({ [Symbol.asyncIterator]: chunks }),
  };
  for (const [kind, body] of Object.entries(oneShot)) {
    const path = `/busy?${encodeURIComponent(kind)}`;
    const result = await retryFetch(
      `${base}${path}`,
      { method: 'POST', body: body(), duplex: 'half' },
      { policy: policy() },
    );
    assert.deepEqual(
      [result.decision.type, result.decision.reason, result.decision.attempts],
      ['gave_up', 'body_not_replayable', 1],
      kind,
    );
    assert.equal(result.response.status, 503, kind);
    assert.deepEqual(bodies(path), ['order 5001'], `${kind}: one request, with the whole body`);
  }
});

test('a one-shot body is never hedged', async () => {
  const hedged = policy({ attemptTimeout: { fixedMs: 300 }, hedging: { delayMs: 20, maxHedgedAttempts: 2 } });
  const body = Readable.from(['once']);
  const error = await rejection(
    retryFetch(`${base}/stall?one-shot`, { method: 'PUT', body, duplex: 'half' }, { policy: hedged }),
  );
  assert.ok(error instanceof GaveUpError, String(error));
  assert.equal(error.reason, 'body_not_replayable');
  assert.equal(error.attempts, 1);
  assert.equal(seen.get('/stall?one-shot').length, 1, 'no hedge was sent');
});

test('a string, Blob, BufferSource, FormData or URLSearchParams body is sent again, whole, with each attempt', async () => {
  const form = new FormData();
  form.set('order', '5001');
  const bytes = new TextEncoder().encode('order=5001');
  const replayable = {
    string: ['order=5001', 'order=5001'],
    Blob: [new Blob(['order=5001']), 'order=5001'],
    ArrayBuffer: [bytes.buffer.slice(0), 'order=5001'],
    Uint8Array: [bytes, 'order=5001'],
    DataView: [new DataView(bytes.buffer.slice(0)), 'order=5001'],
    Buffer: [Buffer.from('order=5001'), 'order=5001'],
    URLSearchParams: [new URLSearchParams({ order: '5001' }), 'order=5001'],
    FormData: [form, undefined],
  };
  for (const [kind, [body, sent]] of Object.entries(replayable)) {
    const path = `/busy-then-ok?${kind}`;
    const result = await retryFetch(`${base}${path}`, { method: 'POST', body }, { policy: policy() });
    assert.equal(result.decision.type, 'succeeded', kind);
    assert.equal(result.decision.attempts, 2, kind);
    const sentBodies = bodies(path);
    assert.equal(sentBodies.length, 2, kind);
    // FormData goes as multipart with a fresh boundary each time: the same part each time.
    if (sent === undefined) for (const one of sentBodies) assert.match(one, /name="order"\r\n\r\n5001\r\n/, kind);
    else assert.deepEqual(sentBodies, [sent, sent], kind);
  }
});

/**
 * `call()`, with AbortSignal.any as Node has it or (`without`) as a platform without it has it (put back at once:
 * retryFetch combines the signals before it returns).
 */
function platform(without, call) {
  const any = AbortSignal.any;
  if (without) AbortSignal.any = undefined;
  try {
    return call();
  } finally {
    AbortSignal.any = any;
  }
}
const PLATFORMS = { 'AbortSignal.any': false, 'without AbortSignal.any': true };

test('options.signal and init.signal both cancel: whichever aborts first, with its reason', async () => {
  for (const [name, without] of Object.entries(PLATFORMS))
    for (const which of ['options', 'init']) {
      const fromOptions = new AbortController();
      const fromInit = new AbortController();
      const reason = new Error(`${which} left`);
      setTimeout(() => (which === 'options' ? fromOptions : fromInit).abort(reason), 50);
      const error = await rejection(
        platform(without, () =>
          retryFetch(
            `${base}/stall?${which}-${without}`,
            { signal: fromInit.signal },
            { policy: policy(), signal: fromOptions.signal },
          ),
        ),
      );
      assert.equal(error, reason, `${name}: ${which}`);
    }
});

test('a Request given as input cancels with its own signal, as fetch(request) would', async () => {
  for (const [name, without] of Object.entries(PLATFORMS)) {
    const controller = new AbortController();
    const reason = new Error('the page left');
    const request = new Request(`${base}/stall?request-signal-${without}`, { signal: controller.signal });
    setTimeout(() => controller.abort(reason), 50);
    const error = await rejection(platform(without, () => retryFetch(request, undefined, { policy: policy() })));
    assert.equal(error, reason, name);
  }
});

test("a Request's signal still cancels after a garbage collection (a copy of the Request follows it only weakly)", async () => {
  setFlagsFromString('--expose-gc');
  const collect = runInNewContext('gc');
  const controller = new AbortController();
  const reason = new Error('the page left');
  const request = new Request(`${base}/stall?request-signal-collected`, { signal: controller.signal });
  const settled = rejection(retryFetch(request, undefined, { policy: policy() }));
  for (let round = 0; round < 5; round += 1) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
  controller.abort(reason);
  assert.equal(await settled, reason);
});

test("after retryFetch returns, the caller's signal still aborts the response's body, as it would fetch's", async () => {
  const cases = {
    'options.signal': (signal) => [`${base}/slow-body?options`, undefined, { policy: policy(), signal }],
    'init.signal': (signal) => [`${base}/slow-body?init`, { signal }, { policy: policy() }],
    "a Request's signal": (signal) => [
      new Request(`${base}/slow-body?request`, { signal }),
      undefined,
      { policy: policy() },
    ],
  };
  for (const [name, call] of Object.entries(cases)) {
    const controller = new AbortController();
    const reason = new Error(`${name}: the page left`);
    const { response } = await retryFetch(...call(controller.signal));
    const body = response.text();
    controller.abort(reason);
    // Bounded: before the fix the read never settled (the body followed the finished attempt's signal alone).
    const outcome = await Promise.race([
      body.then(
        () => 'read',
        (error) => error,
      ),
      new Promise((resolve) => setTimeout(() => resolve('still pending'), 2000).unref()),
    ]);
    assert.equal(outcome, reason, name);
  }
});

test('a signal already aborted cancels before anything is sent, whichever of the two it is', async () => {
  for (const [name, without] of Object.entries(PLATFORMS))
    for (const which of ['options', 'init']) {
      const aborted = AbortSignal.abort(new Error(`${which} gone`));
      const live = new AbortController().signal;
      const [signal, initSignal] = which === 'options' ? [aborted, live] : [live, aborted];
      const path = `/stall?aborted-${which}-${without}`;
      const error = await rejection(
        platform(without, () => retryFetch(`${base}${path}`, { signal: initSignal }, { policy: policy(), signal })),
      );
      assert.equal(error, aborted.reason, `${name}: ${which}`);
      assert.equal(seen.get(path), undefined, `${name}: ${which}: nothing sent`);
    }
});

/** The headers of the one request a keyed POST sent with `options`, at a path of its own. */
async function sentHeaders(name, options) {
  const path = `/landing?${name}`;
  const result = await retryFetch(`${base}${path}`, { method: 'POST', body: 'x' }, { policy: policy(), ...options });
  assert.equal(result.decision.type, 'succeeded');
  return [seen.get(path)[0].headers, result.idempotencyKey];
}

test('the idempotency key goes under one header: Idempotency-Key, the one idempotencyKeyHeader names, or none for null', async () => {
  const [usual, key] = await sentHeaders('usual', {});
  assert.equal(usual['idempotency-key'], key);
  const [renamed, renamedKey] = await sentHeaders('renamed', { idempotencyKeyHeader: 'X-Key' });
  assert.equal(renamed['x-key'], renamedKey);
  assert.equal(renamed['idempotency-key'], undefined, 'not under the core name as well');
  const [omitted] = await sentHeaders('omitted', { idempotencyKeyHeader: null });
  assert.equal(omitted['idempotency-key'], undefined);
  assert.equal(omitted['retryplan-attempt'], '1', "the core's other headers still go");
});

test('the request id goes under X-Request-Id, the one requestIdHeader names, or none for null', async () => {
  const [usual] = await sentHeaders('request-id', {});
  assert.match(usual['x-request-id'], /^[0-9a-f]{16}$/);
  const [renamed] = await sentHeaders('request-id-renamed', { requestIdHeader: 'X-Trace' });
  assert.match(renamed['x-trace'], /^[0-9a-f]{16}$/);
  assert.equal(renamed['x-request-id'], undefined);
  const [omitted] = await sentHeaders('request-id-omitted', { requestIdHeader: null });
  assert.deepEqual(
    Object.keys(omitted).filter((name) => /request-id|trace/.test(name)),
    [],
  );
});

test("redirect: 'error' meeting a redirect is the caller's request: fetch's TypeError rethrown unchanged, at once", async () => {
  const error = await rejection(retryFetch(`${base}/redirect?error`, { redirect: 'error' }, { policy: policy() }));
  assert.ok(error instanceof TypeError, String(error));
  assert.equal(error.cause?.message, 'unexpected redirect');
  assert.equal(seen.get('/redirect?error').length, 1, 'never retried');
  // Followed (the default), the redirect is no error.
  const followed = await retryFetch(`${base}/redirect?follow`, {}, { policy: policy() });
  assert.equal(followed.decision.type, 'succeeded');
  assert.equal(await followed.response.text(), 'done');
});

test("a redirect loop past fetch's 20 is not retried: fetch's TypeError rethrown unchanged, as Python's clients raise theirs", async () => {
  const error = await rejection(retryFetch(`${base}/loop`, {}, { policy: policy() }));
  assert.ok(error instanceof TypeError, String(error));
  assert.equal(error.cause?.message, 'redirect count exceeded');
  assert.equal(seen.get('/loop').length, 21, 'one attempt: the request and its 20 redirects');
});

test('an ending after a redirect names the request the caller made, as every language does (not the URL redirected to)', async () => {
  // GET /to-drop is redirected to /drop, whose connection closes unanswered on each of the three attempts.
  const error = await rejection(retryFetch(`${base}/to-drop`, {}, { policy: policy() }));
  assert.ok(error instanceof GaveUpError, String(error));
  assert.equal(error.message, `retryplan: GET ${base}/to-drop: gave up after 3 attempts: attempts_exhausted`);
  assert.equal(seen.get('/drop').length, 3);
});

test("an ending after a status that is no HTTP status (999) says so, in the core's words", async () => {
  // Each 999 is read as a malformed response (a lost connection: the response is released); the GET is retried.
  const error = await rejection(retryFetch(`${base}/weird`, {}, { policy: policy() }));
  assert.ok(error instanceof GaveUpError, String(error));
  assert.equal(
    error.message,
    `retryplan: GET ${base}/weird: gave up after 3 attempts: attempts_exhausted; the last response's status 999 is ` +
      "no HTTP status (100..=599): read as a malformed response, the server's fault",
  );
  assert.equal(seen.get('/weird').length, 3);
});

test('a fetch resolving to something that is not a response ends at once with an error naming `fetch`', async () => {
  for (const [what, value] of [
    ['an object without headers', { status: 200 }],
    ['undefined', undefined],
    ['a status that is no number', { status: '200', headers: new Headers() }],
  ]) {
    let calls = 0;
    const fetch = async () => {
      calls += 1;
      return value;
    };
    const error = await rejection(retryFetch(`${base}/never`, {}, { policy: policy(), fetch }));
    assert.ok(error instanceof RetryplanError, `${what}: ${error}`);
    assert.equal(error.code, 'invalid_argument', what);
    assert.equal(error.field, 'fetch', what);
    assert.match(error.message, /must resolve to a Response/, what);
    assert.equal(calls, 1, `${what}: never retried`);
  }
});

test('a network TypeError with a cause is still read by the failure table (a reset: retried)', async () => {
  let calls = 0;
  const fetch = async (input, init) => {
    calls += 1;
    if (calls === 1)
      throw new TypeError('fetch failed', {
        cause: Object.assign(new Error('other side closed'), { code: 'ECONNRESET' }),
      });
    return globalThis.fetch(input, init);
  };
  const result = await retryFetch(`${base}/landing?reset`, {}, { policy: policy(), fetch });
  assert.equal(result.decision.type, 'succeeded');
  assert.equal(calls, 2);
});

/** A POST's policy without a word on idempotency: RFC 9110 says a POST may not be repeated, so it reconciles. */
const unkeyed = () =>
  Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 5000,
    attemptTimeout: { fixedMs: 2000 },
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
    jitter: { kind: 'none' },
  });

test('reconcile names the key the request was sent with, and with idempotencyKeyHeader: null says none was sent', async () => {
  const unsentWords = 'look it up (reconcile it) by other means: no idempotency key was sent with it';
  const malformed =
    "; the last response's status 999 is no HTTP status (100..=599): read as a malformed response, the server's fault";
  // A dropped connection (may have been processed) and a status that is no HTTP status (with the core's hint after it).
  for (const [path, hint] of [
    ['/drop', ''],
    ['/weird', malformed],
  ]) {
    const sent = `${path}?key-sent`;
    const named = await rejection(retryFetch(`${base}${sent}`, { method: 'POST', body: 'x' }, { policy: unkeyed() }));
    assert.equal(named.name, 'ReconcileRequiredError');
    assert.equal(seen.get(sent)[0].headers['idempotency-key'], named.idempotencyKey);
    assert.equal(
      named.message,
      `retryplan: POST ${base}${sent}: the write may have happened; do not repeat it blindly: look it up (reconcile it) by its idempotency key "${named.idempotencyKey}"${hint}`,
    );
    const unsent = `${path}?key-not-sent`;
    const options = { policy: unkeyed(), idempotencyKeyHeader: null };
    const error = await rejection(retryFetch(`${base}${unsent}`, { method: 'POST', body: 'x' }, options));
    assert.equal(error.name, 'ReconcileRequiredError');
    assert.equal(seen.get(unsent)[0].headers['idempotency-key'], undefined, 'no key went');
    assert.equal(
      error.message,
      `retryplan: POST ${base}${unsent}: the write may have happened; do not repeat it blindly: ${unsentWords}${hint}`,
    );
  }
});

/**
 * A fetch that records the headers it was called with and cancels the operation (`controller.abort(reason)`) while
 * the request is in flight, then rejects as fetch does, with its signal's reason.
 */
const cancellingFetch = (controller, reason, sent) => (_input, init) => {
  sent.push(init.headers);
  controller.abort(reason);
  return new Promise((_resolve, reject) => {
    if (init.signal.aborted) reject(init.signal.reason);
    else init.signal.addEventListener('abort', () => reject(init.signal.reason));
  });
};

test("a cancelled request rejects with the signal's reason, untouched (the caller's object, perhaps shared)", async () => {
  for (const idempotencyKeyHeader of ['Idempotency-Key', null]) {
    const controller = new AbortController();
    const reason = new Error('page closed');
    const sent = [];
    const fetch = cancellingFetch(controller, reason, sent);
    const options = { policy: policy(), fetch, signal: controller.signal, idempotencyKeyHeader };
    const error = await rejection(retryFetch('http://127.0.0.1:9/orders', { method: 'POST', body: 'x' }, options));
    assert.equal(error, reason, 'the reason itself');
    assert.equal(sent.length, 1);
    assert.deepEqual(Object.keys(error), [], "nothing set on the caller's reason");
  }
});
