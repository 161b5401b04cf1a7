// Issue 27's scenario: one deadline from the browser to the last service, across three hops in three runtimes.
//
//   headless Chromium: a page built by Vite (page.js: a compiled policy, the browser runtime's retryFetch),
//     served from the Python service's origin, so its order is same-origin and carries the core's headers
//   -> Python: an ASGI service under uvicorn (service.py: retryplan's AsgiMiddleware, the next call through
//     retryplan's httpx AsyncRetryTransport), in its own process
//   -> Node: a node:http service under retryplan's propagation middleware (below, in this process), whose
//     work (retryplan's `run`) stalls on its first order, is busy on its second and answers the third.
//
// The page then reads the stock trying once (it says it does not retry): the Python service is then the one
// layer that retries (Node busy twice, then answering), and Node sees Python's three attempts.
//
// Each hop's own policy would retry (the page 3 attempts, Python 3, Node 2) and wait far longer than the
// page allows (Python's attempts 5 s, Node's 5 s, the stall 30 s). With propagation the page's attempt
// deadline (2500 ms) bounds every hop below it, the inner hops make one attempt per request (the page
// retries: `retry_layer: outermost`), and the page's key is every hop's. The test asserts, on each hop's own
// monotonic clock (no two clocks compared): every hop ends within its propagated deadline plus TOLERANCE_MS;
// the deepest service sees at most the page's max_attempts requests in all (here exactly 3, not 3 x 3 x 2);
// one idempotency key at every hop; each hop's deadline is nested in its caller's (exact, no tolerance); and
// the Python service's attempt spans (OpenTelemetry, the SDK's in-memory exporter) carry
// http.request.resend_count on its resent attempts, each span the request Node received (its traceparent).
// The only waits are the schedule's: the stall until Node's propagated deadline cuts it (about 1.5 s).
// HOPS_DEBUG=1 prints what each hop saw.
//
// Prerequisites (tests/hops/test.sh checks them): bindings-js built (build.sh, npm ci), /usr/bin/chromium,
// and a Python with the retryplan wheel, httpx, uvicorn and opentelemetry-sdk (bindings-python/test.sh's
// .venv-python, or $RETRYPLAN_PYTHON).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { withPage } from '../../bindings-js/test/chromium.mjs';

const here = new URL('./', import.meta.url);
const repo = fileURLToPath(new URL('../../', import.meta.url));
const bindingsJs = join(repo, 'bindings-js');
// The JS package and its dev tools resolve from bindings-js/ (its node_modules, and `retryplan` by name).
const fromBindings = createRequire(join(bindingsJs, 'package.json'));
const load = (name) => import(pathToFileURL(fromBindings.resolve(name)).href);
const { Policy, currentIncoming, propagation, run } = await load('retryplan');
const { default: retryplanPlugin } = await load('retryplan/rollup');
const { build } = await load('vite');

/**
 * How late a hop may end past its deadline, in ms: a timer's lateness on a loaded machine (the event loops of
 * Node and uvicorn, five sessions on two cores) and writing the answer after the cut. Every deadline is the
 * core's, less the way-back reserve each inner hop keeps (RESERVE_MS); the hops end well inside them when propagation
 * works (Node's work is cut at its deadline less its 100 ms response reserve), and seconds past them when it
 * does not.
 */
const TOLERANCE_MS = 150;
/** The page's policy (page.policy.json): its attempts are the whole request's. */
const PAGE = { maxAttempts: 3, attemptMs: 2500, totalTimeoutMs: 8000 };
/**
 * The way-back reserve the inner hops keep (`propagation.reserve_ms`; 20 ms by default, 400 ms here) and
 * their response reserve (service.py's policy and NODE_POLICY). A hop reads its caller's remaining time when
 * it gets to the request, so time a starved process spends before reading it is not counted: on this shared
 * machine (load 9 on two cores) an answer written 70 ms before its caller's deadline (20 ms reserves) was seen
 * to arrive after it, and with 200 ms reserves a Node read 545 ms late once when CPU hogs outranked the niced
 * test. 400 ms plus the 100 ms response reserve is the margin each answer has for its way back.
 */
const RESERVE_MS = 400;
const RESPONSE_RESERVE_MS = 100;

/** The Node service's own policy for its work: two attempts of 5 s (what it would do alone). */
const NODE_POLICY = Policy.fromConfig({
  maxAttempts: 2,
  totalTimeoutMs: 15000,
  attemptTimeout: { fixedMs: 5000 },
  responseReserveMs: RESPONSE_RESERVE_MS,
  minimumUsefulAttemptMs: 10,
  backoff: { kind: 'constant', baseMs: 1, multiplier: 1, capMs: 1 },
  jitter: { kind: 'none' },
  propagation: { reserveMs: RESERVE_MS },
});
/**
 * What the Node service does on its n-th request of each path: stall (30 s, unless its deadline cuts it), busy
 * (503), answer. `/reserve` is the page's order (the page retries it); `/stock` the page's read, tried once by
 * the page, so the Python service is the one layer that retries it.
 */
const SCHEDULE = { '/reserve': ['stall', 'busy', 'ok'], '/stock': ['busy', 'busy', 'ok'] };
const STALL_MS = 30_000;

const monotonic = () => performance.now();

/** The work of one request, by the schedule: resolves to the status it answers. */
function work(kind, signal) {
  if (kind === 'busy') return Promise.resolve(503);
  if (kind === 'ok') return Promise.resolve(200);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(200), STALL_MS);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(signal.reason);
    });
  });
}

/** The deepest hop: node:http under retryplan's propagation middleware; its work under `run`. */
async function nodeService() {
  const seen = [];
  const middleware = propagation(NODE_POLICY);
  const server = createServer((req, res) =>
    middleware(req, res, async () => {
      const incoming = currentIncoming();
      const path = new URL(req.url, 'http://x').pathname;
      const record = {
        path,
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            ([name]) => name.startsWith('retryplan-') || name === 'idempotency-key' || name === 'traceparent',
          ),
        ),
        key: incoming.idempotencyKey,
        callerRetries: incoming.callerRetries,
        receivedAtMs: incoming.receivedAtMs,
        deadlineMs: incoming.deadlineMs,
        workAttempts: 0,
      };
      const kind = SCHEDULE[path]?.[seen.filter((each) => each.path === path).length] ?? 'ok';
      seen.push(record);
      // Ended: answered, or the caller gone first.
      res.on('close', () => {
        record.endedMs = monotonic();
        record.answered = res.writableFinished;
      });
      for await (const _ of req);
      let status;
      try {
        status = await run(NODE_POLICY, (context) => {
          record.workAttempts += 1;
          return work(kind, context.signal);
        });
      } catch (ending) {
        record.ending = `${ending.name}: ${ending.reason}`;
        status = 503;
      }

      const answer = path === '/stock' ? { inStock: status === 200 } : { reserved: status === 200 };
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    }),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        server.closeAllConnections();
      }),
  };
}

/** The middle hop: service.py under uvicorn, in its own process, serving `dist` and calling `next`. */
async function pythonService(dist, next) {
  const python = process.env.RETRYPLAN_PYTHON ?? join(repo, '.venv-python/bin/python');
  const child = spawn(python, [fileURLToPath(new URL('service.py', here)), '--static', dist, '--next', next], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const first = await Promise.race([
    createInterface({ input: child.stdout })[Symbol.asyncIterator]().next(),
    exited.then((code) => assert.fail(`service.py exited (${code}) before it listened`)),
  ]);
  const { port } = JSON.parse(first.value);
  return {
    url: `http://127.0.0.1:${port}`,
    seen: async () => (await fetch(`http://127.0.0.1:${port}/api/seen`)).json(),
    spans: async () => (await fetch(`http://127.0.0.1:${port}/api/spans`)).json(),
    close: async () => {
      child.kill();
      await exited;
    },
  };
}

/** Builds the page with Vite and the bundler plugin, in a directory inside bindings-js/ (so `retryplan` resolves by name). */
async function buildPage() {
  const work = mkdtempSync(join(bindingsJs, '.page-hops-'));
  for (const file of ['page.js', 'page.policy.json', 'once.policy.json'])
    cpSync(fileURLToPath(new URL(file, here)), join(work, file));
  writeFileSync(
    join(work, 'index.html'),
    `<!doctype html>\n<meta charset="utf-8">\n<title>hops</title>\n<script type="module">\nimport { checkStock, placeOrder, propagationFor } from './page.js';\nObject.assign(window, { checkStock, placeOrder, propagationFor });\n</script>\n`,
  );
  const dist = join(work, 'dist');
  await build({
    root: work,
    configFile: false,
    logLevel: 'silent',
    plugins: [retryplanPlugin()],
    build: { outDir: dist, emptyOutDir: true },
  });
  return { dist, remove: () => rmSync(work, { recursive: true, force: true }) };
}

/** Runs the scenario once: what the page, the Python service and the Node service each saw. */
async function scenario() {
  const page = await buildPage();
  const node = await nodeService();
  let python;
  try {
    python = await pythonService(page.dist, node.url);
    const placed = await withPage(async (tab, errors) => {
      await tab.goto(`${python.url}/`);
      await tab.waitForFunction(() => typeof window.placeOrder === 'function', null, { timeout: 30000 });
      const result = await tab.evaluate(() => window.placeOrder({ item: 'tea', count: 2 }));
      const stock = await tab.evaluate(() => window.checkStock());
      // The same-origin rule against the page's real origin (a stand-in fetch: nothing is sent).
      const other = python.url.replace('127.0.0.1', 'localhost');
      const origins = await tab.evaluate(
        async ([same, other]) => ({
          same: await window.propagationFor(`${same}/api/x`),
          relative: await window.propagationFor('/api/x'),
          cross: await window.propagationFor(`${other}/api/x`),
          crossOptedIn: await window.propagationFor(`${other}/api/x`, { propagateCrossOrigin: true }),
        }),
        [python.url, other],
      );
      return { ...result, stock, origins, errors };
    });
    const served = await python.seen();
    const spans = await python.spans();
    const by = (records, path) => records.filter((each) => each.path === path);
    return {
      placed,
      python: by(served, '/api/order'),
      node: by(node.seen, '/reserve'),
      stock: { python: by(served, '/api/stock'), node: by(node.seen, '/stock') },
      spans,
    };
  } finally {
    await python?.close();
    await node.close();
    page.remove();
  }
}

const seen = await scenario();
if (process.env.HOPS_DEBUG) console.log(JSON.stringify(seen, null, 1));

test('the page places its order: three attempts in the page (stalled, busy, answered), within its total timeout', () => {
  const { placed } = seen;
  assert.deepEqual(placed.errors, []);
  assert.equal(placed.error, undefined, placed.error);
  assert.equal(placed.status, 200, placed.body);
  assert.deepEqual(JSON.parse(placed.body), { reserved: true });
  assert.deepEqual([placed.decision.type, placed.decision.attempts], ['succeeded', PAGE.maxAttempts]);
  assert.ok(placed.elapsedMs <= PAGE.totalTimeoutMs + TOLERANCE_MS, `${placed.elapsedMs} ms`);
});

test('the page sends the headers on a same-origin request, on a cross-origin one only when opted in', () => {
  const sent = ['retryplan-attempt', 'retryplan-caller-retries', 'retryplan-timeout-ms'];
  assert.deepEqual(seen.placed.origins, { same: sent, relative: sent, cross: [], crossOptedIn: sent });
});

test("the deepest service sees at most the page policy's attempts in all (not their product), each hop trying once per request", () => {
  assert.equal(seen.python.length, PAGE.maxAttempts, JSON.stringify(seen.python));
  assert.ok(seen.node.length <= PAGE.maxAttempts, `${seen.node.length} requests reached Node`);
  // The schedule needs each of them: one stalled, one busy, one answered.
  assert.equal(seen.node.length, SCHEDULE['/reserve'].length);
  assert.deepEqual(
    seen.python.map((each) => [each.headers['retryplan-attempt'], each.incoming.caller_retries]),
    [
      ['1', true],
      ['2', true],
      ['3', true],
    ],
  );
  assert.deepEqual(
    seen.node.map((each) => [each.headers['retryplan-attempt'], each.callerRetries, each.workAttempts]),
    [
      ['1', true, 1],
      ['1', true, 1],
      ['1', true, 1],
    ],
  );
  assert.deepEqual(
    seen.python.map((each) => each.status),
    [503, 503, 200],
  );
});

test('a page that does not retry leaves the retries to the next layer: the Python service retries, Node sees its attempts', () => {
  const { stock } = seen.placed;
  assert.equal(stock.error, undefined, stock.error);
  assert.deepEqual([stock.decision.type, stock.decision.attempts, stock.status], ['succeeded', 1, 200]);
  assert.deepEqual(JSON.parse(stock.body), { inStock: true });
  const [python] = seen.stock.python;
  assert.equal(seen.stock.python.length, 1);
  assert.deepEqual([python.headers['retryplan-attempt'], python.incoming.caller_retries], ['1', false]);
  assert.deepEqual(
    seen.stock.node.map((each) => [each.headers['retryplan-attempt'], each.callerRetries]),
    [
      ['1', true],
      ['2', true],
      ['3', true],
    ],
  );
  for (const [at, each] of seen.stock.node.entries()) {
    const sent = Number(each.headers['retryplan-timeout-ms']);
    assert.ok(sent > 0 && sent <= Number(python.headers['retryplan-timeout-ms']) - RESERVE_MS - RESPONSE_RESERVE_MS);
    assert.ok(each.endedMs <= each.deadlineMs + TOLERANCE_MS, `Node stock #${at + 1}`);
  }
  assert.ok(python.ended_ms <= python.deadline_ms + TOLERANCE_MS);
});

test("one idempotency key at every hop: the page's", () => {
  const key = seen.placed.idempotencyKey;
  assert.match(key, /./);
  const keys = [
    ...seen.python.flatMap((each) => [each.headers['idempotency-key'], each.incoming.idempotency_key]),
    ...seen.node.flatMap((each) => [each.headers['idempotency-key'], each.key]),
  ];
  assert.deepEqual(new Set(keys), new Set([key]));
});

test("every hop ends within its propagated deadline (plus the tolerance), and each deadline is nested in its caller's", () => {
  for (const [at, each] of seen.python.entries()) {
    // What the page's attempt had left when it was sent, at most its attempt's timeout.
    const sent = Number(each.headers['retryplan-timeout-ms']);
    assert.ok(sent > 0 && sent <= PAGE.attemptMs, `page -> Python #${at + 1}: ${sent} ms`);
    assert.equal(each.incoming.deadline_header, 'retryplan-timeout-ms');
    assert.equal(each.deadline_ms, each.incoming.received_at_ms + sent - RESERVE_MS);
    assert.ok(
      each.ended_ms <= each.deadline_ms + TOLERANCE_MS,
      `Python #${at + 1} ended ${each.ended_ms - each.deadline_ms} ms past its deadline`,
    );
  }
  for (const [at, each] of seen.node.entries()) {
    const sent = Number(each.headers['retryplan-timeout-ms']);
    const caller = Number(seen.python[at].headers['retryplan-timeout-ms']);
    // Python's attempt: at most what it was given, less its way-back and response reserves.
    assert.ok(
      sent > 0 && sent <= caller - RESERVE_MS - RESPONSE_RESERVE_MS,
      `Python -> Node #${at + 1}: ${sent} of ${caller} ms`,
    );
    assert.equal(each.deadlineMs, each.receivedAtMs + sent - RESERVE_MS);
    assert.ok(each.answered, `Node #${at + 1}'s answer was written before its caller gave up`);
    assert.ok(
      each.endedMs <= each.deadlineMs + TOLERANCE_MS,
      `Node #${at + 1} ended ${each.endedMs - each.deadlineMs} ms past its deadline`,
    );
  }
  // The stall was cut by Node's propagated deadline (its own policy would have waited 5 s), not answered.
  assert.match(seen.node[0].ending, /^GaveUpError: /);
});

test("the Python hop's spans (OpenTelemetry SDK, in-memory exporter) carry http.request.resend_count on the resent attempts", () => {
  const client = (path) =>
    seen.spans.filter((span) => span.kind === 'CLIENT' && new URL(span.attributes['url.full']).pathname === path);
  const spanIdOf = (traceparent) => traceparent?.split('-')[2];
  // The read the page tried once: the Python service retried it, its second and third attempts are resends.
  const stock = client('/stock');
  assert.deepEqual(
    stock.map((span) => [span.attributes['http.request.resend_count'], span.attributes['http.response.status_code']]),
    [
      [undefined, 503],
      [1, 503],
      [2, 200],
    ],
  );
  // Each span is the attempt Node received: the span context went out on it (traceparent).
  assert.deepEqual(
    seen.stock.node.map((each) => spanIdOf(each.headers.traceparent)),
    stock.map((span) => span.span_id),
  );
  // The order the page retried: the Python service sent each request once, so none of its spans is a resend.
  const reserve = client('/reserve');
  assert.deepEqual(
    reserve.map((span) => [span.attributes['http.request.resend_count'], span.attributes['http.response.status_code']]),
    [
      [undefined, 503],
      [undefined, 503],
      [undefined, 200],
    ],
  );
  assert.deepEqual(
    seen.node.map((each) => spanIdOf(each.headers.traceparent)),
    reserve.map((span) => span.span_id),
  );
});
