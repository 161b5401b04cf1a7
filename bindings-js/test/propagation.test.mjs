// Issue 27 in Node: the `propagation` middleware (the server side) and the
// helpers inside it (the outgoing side), against real local servers on
// 127.0.0.1. Hop 1 serves the test's request under the middleware and calls
// hop 2 with retryFetch (or run); hop 2 records what it was sent. Every value
// asserted is the core's (the deadline arithmetic is propagation.json's,
// with a frozen clock); retries are counted, never timed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { IncomingContext, Policy, currentIncoming, propagation, retryFetch, run } from 'retryplan';

/** 3000 ms attempts within a 5000 ms total timeout, 2 attempts, short fixed backoff: the deadline is the caller's. */
const policy = Policy.fromConfig({
  maxAttempts: 2,
  totalTimeoutMs: 5000,
  attemptTimeout: { fixedMs: 3000 },
  responseReserveMs: 50,
  minimumUsefulAttemptMs: 100,
  backoff: { kind: 'exponential', baseMs: 10, multiplier: 2, capMs: 20 },
  jitter: { kind: 'none' },
});

/** Serves `handle(req, res)` on 127.0.0.1; resolves to `{url, close}`. */
async function serve(handle) {
  const server = createServer(handle);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** Hop 2: answers each request with the next status of `statuses` (the last one repeated), recording its headers. */
async function downstream(statuses) {
  const seen = [];
  const hop = await serve((req, res) => {
    seen.push(req.headers);
    res.statusCode = statuses[Math.min(seen.length - 1, statuses.length - 1)];
    res.end('hop 2');
  });
  return { ...hop, seen };
}

/** Hop 1: the middleware, then `handler(req, res)` (the `(req, res, next)` form, as Express calls it). */
function hop1(handler, options) {
  const middleware = propagation(policy, options);
  return serve((req, res) => middleware(req, res, () => handler(req, res)));
}

test('the middleware makes the incoming context ambient: the core read it, and the handler sees it', async () => {
  let seen;
  const hop = await hop1(
    (_req, res) => {
      const context = currentIncoming();
      seen = {
        deadlineMs: context.deadlineMs,
        callerRemainingNs: context.callerRemainingNs,
        deadlineHeader: context.deadlineHeader,
        previousAttempts: context.previousAttempts,
        idempotencyKey: context.idempotencyKey,
        callerRetries: context.callerRetries,
      };
      res.end('ok');
    },
    { now: () => 1000 },
  );
  try {
    const headers = {
      'grpc-timeout': '900m',
      'retryplan-timeout-ms': '1000',
      'x-envoy-attempt-count': '2',
      'idempotency-key': 'order-5001',
    };
    const response = await fetch(hop.url, { headers });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get('retryplan-retryable'), null, 'no helper gave up: nothing to answer');
    // The tightest deadline wins (900 ms), less the default 20 ms reserve; Envoy's count 2 is one attempt before.
    assert.deepEqual(seen, {
      deadlineMs: 1000 + 900 - 20,
      callerRemainingNs: 900_000_000n,
      deadlineHeader: 'grpc-timeout',
      previousAttempts: 1,
      idempotencyKey: 'order-5001',
      callerRetries: true,
    });
    assert.equal(currentIncoming(), undefined, 'outside a request there is no ambient context');
  } finally {
    await hop.close();
  }
});

test("a malformed propagation header is answered 400 with the core's words, and the handler never runs", async () => {
  let handled = 0;
  const hop = await hop1((_req, res) => {
    handled += 1;
    res.end('ok');
  });
  try {
    for (const [name, value] of [
      ['grpc-timeout', '1.5S'],
      ['retryplan-timeout-ms', '-5'],
      ['x-envoy-attempt-count', '0'],
      ['retryplan-caller-retries', 'yes'],
    ]) {
      const response = await fetch(hop.url, { headers: { [name]: value } });
      assert.equal(response.status, 400, name);
      const text = await response.text();
      assert.ok(text.includes(name), `${name}: ${text}`);
    }
    // The key is read by the core too: an unterminated Structured Field String is not a key.
    const badKey = await fetch(hop.url, { headers: { 'idempotency-key': '"unterminated' } });
    assert.equal(badKey.status, 400);
    assert.match(await badKey.text(), /Idempotency-Key/);
    assert.equal(handled, 0);
    // A well-formed request still goes through.
    assert.equal((await fetch(hop.url, { headers: { 'grpc-timeout': '1S' } })).status, 200);
    assert.equal(handled, 1);
  } finally {
    await hop.close();
  }
});

test("IncomingContext.read takes Node's req.headers: a header sent twice arrives joined, and is refused like any malformed value", () => {
  const headers = { 'retryplan-timeout-ms': ['100', '200'], 'idempotency-key': 'k-1' };
  assert.throws(
    () => IncomingContext.read(policy, headers, 0),
    (error) =>
      error.code === 'invalid_request_header' && error.blame === 'caller' && error.field === 'retryplan-timeout-ms',
  );
  const context = IncomingContext.read(policy, { 'retryplan-timeout-ms': ' 100 ' }, 0);
  assert.equal(context.deadlineMs, 80);
  context.free();
});

test("two hops: hop 1's retryFetch sends the core's deadline, attempt and key, its attempt bounded by the caller's deadline", async () => {
  const hop2 = await downstream([200]);
  let result;
  const hop = await hop1(
    async (_req, res) => {
      // The same frozen clock as the middleware's: the arithmetic is exact.
      const { response } = await retryFetch(
        hop2.url,
        { method: 'POST', body: 'order' },
        { policy, now: () => 1000, seed: 7 },
      );
      result = response.status;
      res.end('done');
    },
    { now: () => 1000 },
  );
  try {
    const response = await fetch(hop.url, {
      method: 'POST',
      headers: { 'retryplan-timeout-ms': '500', 'idempotency-key': 'order-5001' },
    });
    assert.equal(response.status, 200);
    assert.equal(result, 200);
    assert.equal(hop2.seen.length, 1);
    const sent = hop2.seen[0];
    // Deadline 1000 + 500 - 20 = 1480; the attempt's 3000 ms cut to 1480 - 50 (response reserve) - 1000 = 430 ms.
    assert.equal(sent['retryplan-timeout-ms'], '430');
    assert.equal(sent['retryplan-attempt'], '1');
    assert.equal(sent['retryplan-caller-retries'], '?1', 'hop 1 itself may retry (2 attempts)');
    assert.equal(sent['idempotency-key'], 'order-5001', "the caller's key, unchanged");
  } finally {
    await hop.close();
    await hop2.close();
  }
});

test("inside a served request, a key the code gives a call is that call's, not the caller's (several writes, several keys)", async () => {
  const hop2 = await downstream([200]);
  const keys = {};
  const hop = await hop1(async (_req, res) => {
    const post = { method: 'POST', body: 'x' };
    await retryFetch(hop2.url, { ...post, headers: { 'Idempotency-Key': 'capture-1' } }, { policy });
    keys.option = (await retryFetch(hop2.url, post, { policy, idempotencyKey: 'refund-2' })).idempotencyKey;
    keys.drawn = (await retryFetch(hop2.url, post, { policy })).idempotencyKey;
    await run(policy, (context) => (keys.run = context.idempotencyKey), { idempotencyKey: 'order-3' });
    res.end('done');
  });
  try {
    const response = await fetch(hop.url, { method: 'POST', headers: { 'idempotency-key': 'client-checkout-77' } });
    assert.equal(response.status, 200);
    assert.deepEqual(
      hop2.seen.map((headers) => headers['idempotency-key']),
      ['capture-1', 'refund-2', 'client-checkout-77'],
      "the request's own key, the option's, and (none given) the caller's",
    );
    assert.deepEqual(keys, { option: 'refund-2', drawn: 'client-checkout-77', run: 'order-3' });
  } finally {
    await hop.close();
    await hop2.close();
  }
});

test('two hops, retries at one layer: when the caller retries, hop 1 makes one attempt and hands the 503 back', async () => {
  const hop2 = await downstream([503]);
  let decision;
  const hop = await hop1(async (_req, res) => {
    const fetched = await retryFetch(hop2.url, {}, { policy });
    decision = fetched.decision;
    res.statusCode = fetched.response.status;
    res.end();
  });
  try {
    const response = await fetch(hop.url, {
      headers: { 'retryplan-caller-retries': '?1', 'retryplan-timeout-ms': '5000' },
    });
    assert.equal(response.status, 503);
    assert.equal(hop2.seen.length, 1, 'one attempt: the layer above retries');
    assert.equal(hop2.seen[0]['retryplan-caller-retries'], '?1', 'the next hop is told a layer above retries');
    assert.deepEqual([decision.type, decision.reason, decision.attempts], ['gave_up', 'attempts_exhausted', 1]);
    // One attempt is not this layer retrying against overload: the caller's policy decides.
    assert.equal(response.headers.get('retryplan-retryable'), null);
  } finally {
    await hop.close();
    await hop2.close();
  }
});

test('two hops: a hop that retried against overload and gave up answers "do not retry" (the core\'s answer headers)', async () => {
  const hop2 = await downstream([503]);
  const hop = await hop1(async (_req, res) => {
    const fetched = await retryFetch(hop2.url, {}, { policy });
    res.statusCode = fetched.response.status;
    res.end();
  });
  try {
    const response = await fetch(hop.url, { headers: { 'retryplan-timeout-ms': '5000' } });
    assert.equal(response.status, 503);
    assert.equal(hop2.seen.length, 2, 'the outermost layer that can retries');
    assert.deepEqual(
      hop2.seen.map((headers) => headers['retryplan-attempt']),
      ['1', '2'],
    );
    assert.equal(response.headers.get('retryplan-retryable'), '?0');
  } finally {
    await hop.close();
    await hop2.close();
  }
});

test('the next hop\'s "do not retry" stops hop 1\'s retries (server_declined_retry), and is passed up', async () => {
  const answered = [];
  const hop2 = await serve((_req, res) => {
    answered.push(1);
    res.statusCode = 503;
    res.setHeader('retryplan-retryable', '?0');
    res.end();
  });
  let decision;
  const hop = await hop1(async (_req, res) => {
    const fetched = await retryFetch(hop2.url, {}, { policy });
    decision = fetched.decision;
    res.statusCode = 502;
    res.end();
  });
  try {
    const response = await fetch(hop.url);
    assert.equal(answered.length, 1);
    assert.deepEqual([decision.type, decision.reason], ['gave_up', 'server_declined_retry']);
    assert.equal(response.headers.get('retryplan-retryable'), '?0');
  } finally {
    await hop.close();
    await hop2.close();
  }
});

test("outside a served request, retryFetch still sends the core's headers on every attempt (Node)", async () => {
  const hop2 = await downstream([503, 200]);
  try {
    assert.equal(currentIncoming(), undefined);
    const { decision } = await retryFetch(hop2.url, {}, { policy });
    assert.deepEqual([decision.type, decision.attempts], ['succeeded', 2]);
    assert.deepEqual(
      hop2.seen.map((headers) => [headers['retryplan-attempt'], headers['retryplan-caller-retries']]),
      [
        ['1', '?1'],
        ['2', '?1'],
      ],
      'each attempt tells the next hop its number and that this layer retries',
    );
    for (const headers of hop2.seen) {
      const timeoutMs = Number(headers['retryplan-timeout-ms']);
      assert.ok(timeoutMs > 0 && timeoutMs <= 3000, `retryplan-timeout-ms ${timeoutMs}: the policy's own attempt`);
      assert.equal(headers['idempotency-key'], undefined, 'a safe read carries no key');
    }
    // A client that cannot retry says so: the next hop's own retries are the ones.
    hop2.seen.length = 0;
    const single = Policy.fromConfig({ maxAttempts: 1, jitter: { kind: 'none' } });
    await retryFetch(hop2.url, {}, { policy: single });
    assert.deepEqual(
      hop2.seen.map((headers) => [headers['retryplan-attempt'], headers['retryplan-caller-retries']]),
      [['1', '?0']],
    );
  } finally {
    await hop2.close();
  }
});

test('two hops, the outer client (outside a served request) retries: the last hop sees its attempts, not their product, one key', async () => {
  const hop2 = await downstream([503]);
  const inner = Policy.fromConfig({
    maxAttempts: 3,
    backoff: { kind: 'constant', baseMs: 1, multiplier: 1, capMs: 1 },
  });
  const hop = await hop1(async (_req, res) => {
    const { response } = await retryFetch(hop2.url, {}, { policy: inner });
    res.statusCode = response.status;
    res.end();
  });
  try {
    const outer = Policy.fromConfig({
      maxAttempts: 3,
      idempotency: 'keyed',
      backoff: { kind: 'constant', baseMs: 1, multiplier: 1, capMs: 1 },
    });
    const { decision, response, idempotencyKey } = await retryFetch(
      hop.url,
      { method: 'POST', body: 'order' },
      { policy: outer },
    );
    assert.equal(response.status, 503);
    assert.deepEqual([decision.type, decision.reason, decision.attempts], ['gave_up', 'attempts_exhausted', 3]);
    // Three requests in all (the outer policy's attempts), not 3 x 3: hop 1 was told a layer above retries.
    assert.deepEqual(
      hop2.seen.map((headers) => headers['retryplan-attempt']),
      ['1', '1', '1'],
    );
    assert.deepEqual(
      hop2.seen.map((headers) => [headers['retryplan-caller-retries'], headers['idempotency-key']]),
      Array(3).fill(['?1', idempotencyKey]),
      "one key throughout: the outer client's",
    );
  } finally {
    await hop.close();
    await hop2.close();
  }
});

test("run inside a request: its driver starts from the ambient context, and each attempt carries the core's headers", async () => {
  let contexts;
  const hop = await hop1(
    async (_req, res) => {
      contexts = [];
      await run(
        policy,
        (context) => {
          contexts.push({ ...context.outgoingHeaders, timeoutMs: context.timeoutMs, key: context.idempotencyKey });
          return 'value';
        },
        { now: () => 2000, protocol: 'grpc' },
      );
      res.end();
    },
    { now: () => 2000 },
  );
  try {
    await fetch(hop.url, { headers: { 'grpc-timeout': '1S', 'idempotency-key': 'k-77' } });
    // 2000 + 1000 - 20 = 2980; 2980 - 50 - 2000 = 930 ms for the attempt, as gRPC writes it.
    assert.deepEqual(contexts, [
      {
        'grpc-timeout': '930000u',
        'idempotency-key': 'k-77',
        'retryplan-caller-retries': '?1',
        timeoutMs: 930,
        key: 'k-77',
      },
    ]);
    // Outside a request run fills no headers (its caller's transport would send them), the policy's own 3000 ms.
    const outside = await run(policy, (context) => [context.outgoingHeaders, context.timeoutMs]);
    assert.deepEqual(outside, [undefined, 3000]);
  } finally {
    await hop.close();
  }
});

test("the README's two-hop example runs as it says, and is examples/two-hops.mjs", async () => {
  const { execFileSync } = await import('node:child_process');
  const { readFileSync } = await import('node:fs');
  const example = new URL('../examples/two-hops.mjs', import.meta.url);
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  assert.ok(
    readme.includes(`\`\`\`js\n${readFileSync(example, 'utf8')}\`\`\`\n`),
    'README.md shows examples/two-hops.mjs as it is',
  );
  assert.equal(execFileSync(process.execPath, [example.pathname], { encoding: 'utf8' }), '1 order-5001 true\n400\n');
});
