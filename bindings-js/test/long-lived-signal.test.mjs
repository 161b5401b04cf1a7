// A signal that outlives many calls (a server's shutdown signal, passed to every retryFetch): nothing of a call may
// stay on it. Each attempt's fetch was given AbortSignal.any([caller's, attempt's]), and Node keeps every signal
// any() makes on its sources for good (nodejs/node#55351): one entry per attempt, never freed. The attempt's fetch
// now reads its own signal (the host aborts it when the caller's aborts), and a returned response's body follows
// the caller's signal through one listener per signal, forgotten when the response is collected.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { getEventListeners } from 'node:events';
import { Policy, retryFetch, run } from 'retryplan';

const POLICY = Policy.fromConfig({
  maxAttempts: 3,
  backoff: { kind: 'constant', baseMs: 0, multiplier: 1, capMs: 0 },
  jitter: { kind: 'none' },
});

async function serve(handler) {
  const server = createServer(handler);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${server.address().port}/` };
}

/** A server answering 503, then 200, then 503, ...: every call retries once. `requests()`: how many it received. */
async function serveBusyThenOk() {
  let received = 0;
  const served = await serve((_request, response) => {
    received += 1;
    response.writeHead(received % 2 ? 503 : 200).end('x');
  });
  return { ...served, requests: () => received };
}

/** Node's set of the signals AbortSignal.any made from `signal` (internal; empty where Node has none). */
const dependants = (signal) => {
  const key = Object.getOwnPropertySymbols(signal).find((symbol) => symbol.description === 'kDependantSignals');
  return key === undefined ? 0 : signal[key].size;
};

test('many retryFetch calls sharing one signal leave at most one listener on it, whatever their number, and nothing else', async () => {
  const { server, url, requests } = await serveBusyThenOk();
  try {
    const shutdown = new AbortController();
    for (let call = 0; call < 200; call += 1) {
      const { response } = await retryFetch(url, undefined, { policy: POLICY, signal: shutdown.signal });
      await response.text();
    }
    assert.equal(requests(), 400, 'each call retried its 503 once');
    assert.equal(dependants(shutdown.signal), 0, 'no signal made per attempt is kept on the caller’s');
    // None for the operations (all done); one for the responses returned under it until they are collected.
    assert.ok(getEventListeners(shutdown.signal, 'abort').length <= 1);
  } finally {
    server.close();
  }
});

test('retryFetch given both options.signal and init.signal leaves nothing of its calls on either', async () => {
  const { server, url, requests } = await serveBusyThenOk();
  try {
    const shutdown = new AbortController();
    const request = new AbortController();
    for (let call = 0; call < 100; call += 1) {
      const { response } = await retryFetch(
        url,
        { signal: request.signal },
        { policy: POLICY, signal: shutdown.signal },
      );
      await response.text();
    }
    assert.equal(requests(), 200, 'each call retried its 503 once');
    for (const signal of [shutdown.signal, request.signal]) {
      assert.equal(dependants(signal), 0, 'no signal made per call is kept on a caller’s');
    }
    // None for the operations (all done); one for the responses returned under it until they are collected (the
    // request's signal also has undici's, one per Request made with it, until each is collected).
    assert.ok(getEventListeners(shutdown.signal, 'abort').length <= 1);
  } finally {
    server.close();
  }
});

test('either of the two signals cancels a retryFetch, with its own reason, and still aborts a returned body', async () => {
  const { server, url } = await serve((request, response) => {
    if (request.url === '/stall') return; // never answered
    response.writeHead(200);
    response.write('the first byte, and no more');
  });
  try {
    for (const which of ['options', 'init']) {
      const [caller, request] = [new AbortController(), new AbortController()];
      const { response } = await retryFetch(url, { signal: request.signal }, { policy: POLICY, signal: caller.signal });
      const reading = response.text();
      const reason = new Error(`the ${which} signal`);
      (which === 'options' ? caller : request).abort(reason);
      await assert.rejects(reading, (error) => error === reason);
    }
    const [caller, request] = [new AbortController(), new AbortController()];
    const stalled = retryFetch(`${url}stall`, { signal: request.signal }, { policy: POLICY, signal: caller.signal });
    const reason = new Error('the request was dropped');
    setTimeout(() => request.abort(reason), 20);
    await assert.rejects(stalled, (error) => error === reason);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("after retryFetch returns, the caller's signal still aborts the response's body, as it would fetch's", async () => {
  const { server, url } = await serve((_request, response) => {
    response.writeHead(200);
    response.write('the first byte, and no more');
  });
  try {
    const caller = new AbortController();
    const { response } = await retryFetch(url, undefined, { policy: POLICY, signal: caller.signal });
    const reading = response.text();
    const reason = new Error('the caller stopped');
    caller.abort(reason);
    await assert.rejects(reading, (error) => error === reason);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('twenty operations at once on one signal add one listener to it (no MaxListenersExceededWarning), and its abort cancels them all', async () => {
  const warnings = [];
  const warned = (warning) => warnings.push(warning.name);
  process.on('warning', warned);
  try {
    const shutdown = new AbortController();
    const calls = Array.from({ length: 20 }, () =>
      run(POLICY, () => new Promise(() => {}), { signal: shutdown.signal }),
    );
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(getEventListeners(shutdown.signal, 'abort').length, 1);
    const reason = new Error('shutting down');
    shutdown.abort(reason);
    for (const call of calls) await assert.rejects(call, (error) => error === reason);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(warnings, []);
    assert.equal(getEventListeners(shutdown.signal, 'abort').length, 0, 'none once they are all done');
  } finally {
    process.off('warning', warned);
  }
});
