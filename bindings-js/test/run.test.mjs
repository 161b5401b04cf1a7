// run(): the value helper as the root README's contract table says. The
// winner's value is returned; an ending without one rejects with a typed
// error; a thrown error goes through the failure table, then the hook.
import { test } from 'node:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rolldown } from 'rolldown';
import assert from 'node:assert/strict';
import {
  Dependency,
  GaveUpError,
  OperationFailedError,
  Policy,
  ReconcileRequiredError,
  RestartRequiredError,
  RetryplanError,
  Stats,
  run,
} from 'retryplan';
import { rejection } from './assertions.mjs';

const RETRYABLE = { type: 'application', verdict: 'retryable' };
const retryable = () => RETRYABLE;
class Busy extends Error {}

const quick = (config = {}) =>
  Policy.fromConfig({
    maxAttempts: 3,
    jitter: { kind: 'none' },
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
    ...config,
  });

test("run: the winner's value; attempts, waits and the ending come from the core", async () => {
  const policy = quick({ backoff: { kind: 'constant', baseMs: 5, capMs: 5 }, idempotency: 'keyed' });
  const seen = [];
  const value = await run(
    policy,
    (context) => {
      seen.push(context);
      if (context.attempt < 3) throw new Busy('busy');
      return 'ok';
    },
    { seed: 7, outcomeOfError: (error) => (error instanceof Busy ? RETRYABLE : undefined) },
  );
  assert.equal(value, 'ok');
  assert.equal(new Set(seen.map((c) => c.idempotencyKey)).size, 1);
  assert.equal(new Set(seen.map((c) => c.requestId)).size, 3);
});

test("run: the attempt context has the plan's fields, its key, and a lazy signal", async () => {
  const contexts = [];
  await run(
    quick({ maxAttempts: 2 }),
    (context) => {
      contexts.push(context);
      if (context.attempt === 1) throw new Busy();
      const { signal } = context; // the first read makes the AbortController
      assert.ok(signal instanceof AbortSignal);
      assert.equal(signal, context.signal);
      assert.equal(signal.aborted, false);
      return 'done';
    },
    { seed: 5, idempotencyKey: 'ctx-1', outcomeOfError: retryable },
  );
  const fields = [
    'attempt',
    'hedge',
    'timeoutMs',
    'abortAtMs',
    'requestId',
    'idempotencyKey',
    'remainingMs',
    'sendIdempotencyKey',
  ];
  for (const context of contexts) {
    assert.deepEqual(Object.keys(context), fields);
    assert.equal(
      Object.getOwnPropertyDescriptor(context, 'signal'),
      undefined,
      'a getter: the signal is made when read',
    );
    assert.equal(context.idempotencyKey, 'ctx-1'); // read after the run: still there
    assert.equal(context.hedge, false);
    assert.equal(context.sendIdempotencyKey, false);
    assert.equal(typeof context.remainingMs, 'number');
    assert.match(context.requestId, /^[0-9a-f]{16}$/);
  }
  assert.deepEqual(
    contexts.map((context) => context.attempt),
    [1, 2],
  );
  // A key drawn from the OS is readable after the run too.
  let kept;
  await run(quick(), (context) => void (kept = context));
  assert.match(kept.idempotencyKey, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  // An abort before the first read is replayed on it.
  const policy = Policy.fromConfig({ maxAttempts: 1, attemptTimeout: { fixedMs: 20 }, minimumUsefulAttemptMs: 10 });
  let late;
  await rejection(run(policy, (context) => ((late = context), new Promise(() => {}))));
  assert.equal(late.signal.aborted, true);
  assert.equal(late.signal.reason.name, 'TimeoutError');
});

test('run: an attempt that throws an unknown error is ambiguous by default: retried, then GaveUpError naming the hook, the error as its cause', async () => {
  const boom = new TypeError('boom'); // an error the failure table does not know
  let calls = 0;
  const error = await rejection(
    run(quick(), () => {
      calls += 1;
      throw boom;
    }),
  );
  assert.equal(calls, 3);
  assert.ok(error instanceof GaveUpError && error instanceof OperationFailedError && error instanceof Error);
  assert.equal(error.name, 'GaveUpError');
  assert.equal(error.reason, 'attempts_exhausted');
  assert.equal(error.attempts, 3);
  assert.equal(error.cause, boom);
  assert.deepEqual(error.lastOutcome, { type: 'application', verdict: 'ambiguous' });
  assert.match(error.message, /return an outcome from outcomeOfError/);
  assert.match(error.idempotencyKey, /^[0-9a-f-]{36}$/);
  assert.deepEqual(error.decision, {
    type: 'gave_up',
    reason: 'attempts_exhausted',
    attempts: 3,
    remainingMs: error.decision.remainingMs,
    abortAttempts: [],
  });
  // A non-idempotent write (an unsafe policy) is never repeated after such an error: reconcile, naming the hook.
  let writes = 0;
  const reconcile = await rejection(
    run(quick({ idempotency: 'unsafe' }), () => {
      writes += 1;
      throw boom;
    }),
  );
  assert.deepEqual([reconcile.name, writes], ['ReconcileRequiredError', 1]);
  assert.match(reconcile.message, /return an outcome from outcomeOfError/);
  // Returning (anything, undefined included) is success.
  assert.equal(await run(quick(), () => undefined), undefined);
});

test('run: a value outcomeOfResult judges ambiguous ends without the hint about an unknown error (it speaks of an error)', async () => {
  const ambiguous = () => ({ type: 'application', verdict: 'ambiguous' });
  const error = await rejection(run(quick(), () => 'pending', { outcomeOfResult: ambiguous }));
  assert.deepEqual([error.name, error.lastValue, error.cause], ['GaveUpError', 'pending', undefined]);
  assert.deepEqual(error.lastOutcome, { type: 'application', verdict: 'ambiguous' });
  assert.match(error.message, /^retryplan: operation: gave up after 3 attempts/);
  assert.doesNotMatch(error.message, /outcomeOfError/);
});

test("run: each ending says, in the core's words, which operation, what happened and what to do", async () => {
  const boom = new TypeError('boom');
  // Called not retryable (an unknown error is retried, and its ending adds the hook's hint: tested above).
  const fatal = () => ({ type: 'application', verdict: 'not_retryable' });
  const once = await rejection(run(quick(), () => Promise.reject(boom), { outcomeOfError: fatal }));
  assert.equal(once.message, 'retryplan: operation: gave up after 1 attempt: not_retryable'); // an anonymous function
  async function fetchStock() {
    throw new Busy();
  }
  const thrice = await rejection(run(quick(), fetchStock, { outcomeOfError: retryable }));
  assert.equal(thrice.message, 'retryplan: fetchStock: gave up after 3 attempts: attempts_exhausted');
  // A bound method by its own name (a bound function's is "bound fetchStock"; Python gives the qualified name).
  const bound = await rejection(run(quick(), fetchStock.bind(null), { outcomeOfError: fatal }));
  assert.equal(bound.message, 'retryplan: fetchStock: gave up after 1 attempt: not_retryable');
  const reset = new TypeError('fetch failed', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
  const placeOrder = () => Promise.reject(reset);
  const reconcile = await rejection(
    run(quick({ idempotency: 'unsafe' }), placeOrder, { idempotencyKey: 'order-"5001"' }),
  );
  assert.ok(reconcile instanceof ReconcileRequiredError);
  assert.equal(
    reconcile.message,
    'retryplan: placeOrder: the write may have happened; do not repeat it blindly: look it up (reconcile it) by its idempotency key "order-\\"5001\\""',
  );
  const saveCart = () => Promise.reject(new Busy());
  const restart = await rejection(
    run(quick(), saveCart, { outcomeOfError: () => ({ type: 'application', verdict: 'conflict' }) }),
  );
  assert.ok(restart instanceof RestartRequiredError);
  assert.equal(
    restart.message,
    'retryplan: saveCart: a conflict: re-read the current state, recompute the change and restart the unit of work within its deadline',
  );
});

test("no helper composes an ending's English: each fixed part of the core's ending rules appears in no module of lib/, nor the hint after an unknown error", () => {
  const table = JSON.parse(readFileSync(new URL('../../tests/messages/rules.json', import.meta.url), 'utf8'));
  const endings = table.rules.filter(({ id }) => id.startsWith('ending_'));
  assert.deepEqual(
    endings.map(({ id }) => id),
    ['ending_gave_up', 'ending_reconcile', 'ending_reconcile_key_not_sent', 'ending_restart', 'ending_with_hint'],
  );
  const parts = endings.flatMap(({ template }) =>
    template
      .split(/\{\d+(?::q)?\}/)
      .map((part) => part.trim())
      .filter((part) => part.length > 3 && part !== 'retryplan:'),
  );
  assert.equal(parts.length, 4, String(parts));
  const lib = new URL('../lib/', import.meta.url);
  for (const name of readdirSync(lib).filter((file) => file.endsWith('.js') && file !== 'rules.js')) {
    const source = readFileSync(new URL(name, lib), 'utf8');
    // The core decides when an ending carries the hint (Decision::ending_message_after): no module names its rule.
    for (const part of [
      ...parts,
      'gave up after',
      'reconcile it by',
      'restart the unit',
      'unknown_error_hint',
      'ending_with_hint',
    ]) {
      assert.ok(!source.includes(part), `lib/${name} composes ending words of its own: ${JSON.stringify(part)}`);
    }
  }
});

test('run: the failure table reads platform errors before the hook: ECONNREFUSED was never sent, a reset may have been processed', async () => {
  const unsafe = quick({ idempotency: 'unsafe' });
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
    code: 'ECONNREFUSED',
    syscall: 'connect',
  });
  let hookCalls = 0;
  const outcomeOfError = () => {
    hookCalls += 1;
  };
  const exhausted = await rejection(run(unsafe, () => Promise.reject(refused), { outcomeOfError }));
  assert.equal(exhausted.reason, 'attempts_exhausted');
  assert.equal(exhausted.attempts, 3);
  assert.equal(exhausted.cause, refused);
  assert.deepEqual(exhausted.lastOutcome, { type: 'transport', failure: 'not_sent' });
  // A fetch error whose cause says the socket closed after sending: reconcile, once.
  const reset = new TypeError('fetch failed', {
    cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }),
  });
  let calls = 0;
  const reconcile = await rejection(
    run(
      unsafe,
      () => {
        calls += 1;
        throw reset;
      },
      { outcomeOfError, idempotencyKey: 'order-7' },
    ),
  );
  assert.ok(reconcile instanceof ReconcileRequiredError && reconcile instanceof OperationFailedError);
  assert.equal(calls, 1);
  assert.equal(reconcile.idempotencyKey, 'order-7');
  assert.equal(reconcile.cause, reset);
  assert.deepEqual(reconcile.lastOutcome, { type: 'transport', failure: 'connection_lost' });
  assert.equal(hookCalls, 0, 'the table knew both errors');
});

test('run: each ending names its class even when a minifier renamed the classes (issue 24: `gave_up` after a Vite build)', async () => {
  const classes = { OperationFailedError, GaveUpError, ReconcileRequiredError, RestartRequiredError };
  const mangle = (cls, name) => Object.defineProperty(cls, 'name', { value: name, configurable: true });
  // As a minifier leaves them: every class's own name gone, so `new.target.name` would say `a`, `b`, ...
  for (const [index, cls] of Object.values(classes).entries()) mangle(cls, String.fromCharCode(97 + index));
  try {
    const gaveUp = await rejection(run(quick(), () => Promise.reject(new Busy()), { outcomeOfError: retryable }));
    const reconcile = await rejection(run(quick({ idempotency: 'unsafe' }), () => Promise.reject(new Busy())));
    const restart = await rejection(
      run(quick(), () => Promise.reject(new Busy()), {
        outcomeOfError: () => ({ type: 'application', verdict: 'conflict' }),
      }),
    );
    assert.deepEqual(
      [gaveUp.name, reconcile.name, restart.name],
      ['GaveUpError', 'ReconcileRequiredError', 'RestartRequiredError'],
    );
    assert.match(String(gaveUp), /^GaveUpError: retryplan: /);
    // A subclass of its own, renamed too, keeps its parent's name (as a subclass of TypeError does) unless it sets one.
    const Mine = mangle(class extends GaveUpError {}, 'c');
    assert.equal(new Mine(gaveUp.decision, 'key', undefined, undefined, [-1, 'words']).name, 'GaveUpError');
    const Named = class extends GaveUpError {
      name = 'CheckoutGaveUp';
    };
    assert.equal(new Named(gaveUp.decision, 'key', undefined, undefined, [-1, 'words']).name, 'CheckoutGaveUp');
  } finally {
    for (const [name, cls] of Object.entries(classes)) mangle(cls, name);
  }
  const Misuse = mangle(class extends RetryplanError {}, 'd');
  assert.equal(new Misuse('invalid_argument', 'words').name, 'RetryplanError');
});

test("run: the endings keep their names through rolldown (Vite's bundler) with minification", async () => {
  // The shape that named them `gave_up`: the classes reached only through ENDINGS, minified.
  const work = mkdtempSync(join(tmpdir(), 'retryplan-names-'));
  try {
    const entry = join(work, 'entry.mjs');
    const endings = fileURLToPath(new URL('../lib/endings.js', import.meta.url));
    writeFileSync(
      entry,
      `import { ENDINGS } from ${JSON.stringify(endings)};\nexport const names = Object.entries(ENDINGS).map(([type, End]) => [type, new End({ type, attempts: 1 }, 'key', undefined, undefined, 'words').name]);\n`,
    );
    const bundle = await rolldown({ input: entry, logLevel: 'silent' });
    await bundle.write({ file: join(work, 'out.mjs'), format: 'esm', minify: true });
    await bundle.close();
    const code = readFileSync(join(work, 'out.mjs'), 'utf8');
    assert.ok(!code.includes('class GaveUpError'), 'the bundle is minified');
    const { names } = await import(pathToFileURL(join(work, 'out.mjs')).href);
    assert.deepEqual(names, [
      ['gave_up', 'GaveUpError'],
      ['reconcile', 'ReconcileRequiredError'],
      ['restart', 'RestartRequiredError'],
    ]);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
});

test("run: the hook maps the application's errors; a conflict restarts; a bad outcome is misuse", async () => {
  const restart = await rejection(
    run(quick(), () => Promise.reject(new Busy()), {
      outcomeOfError: () => ({ type: 'application', verdict: 'conflict' }),
    }),
  );
  assert.ok(restart instanceof RestartRequiredError);
  assert.equal(restart.deadlineMs, restart.decision.deadlineMs);
  assert.equal(restart.decision.type, 'restart');
  const misuse = await rejection(
    run(quick(), () => Promise.reject(new Busy()), { outcomeOfError: () => ({ type: 'nope' }) }),
  );
  assert.ok(misuse instanceof RetryplanError);
  assert.equal(misuse.code, 'invalid_argument');
  const hookBug = new RangeError('hook bug');
  assert.equal(
    await rejection(
      run(
        quick(),
        () => {
          throw new Busy();
        },
        {
          outcomeOfError: () => {
            throw hookBug;
          },
        },
      ),
    ),
    hookBug,
  );
});

test('run: a synchronous attempt that runs past its abort time is timed out, as an async one is', async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 2,
    attemptTimeout: { fixedMs: 200 },
    minimumUsefulAttemptMs: 10,
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 }, // no wait: the fake clock below only moves in attempts
    jitter: { kind: 'none' },
  });
  for (const asynchronous of [false, true]) {
    let clock = 0;
    const discarded = [];
    const signals = [];
    const body = (context) => {
      signals.push(context.signal);
      clock += context.attempt === 1 ? 500 : 10; // the first one overruns its 200 ms
      return `answer ${context.attempt}`;
    };
    const value = await run(policy, asynchronous ? async (context) => body(context) : body, {
      seed: 3,
      clock: () => clock,
      onDiscard: (late) => discarded.push(late),
    });
    assert.equal(value, 'answer 2', `async: ${asynchronous}`);
    assert.deepEqual(discarded, ['answer 1']);
    assert.equal(signals[0].reason.name, 'TimeoutError');
    assert.equal(signals[1].aborted, false);
  }
});

test('run: an attempt that overruns its timeout is aborted with a TimeoutError; the driver counted the timeout, so the ending has no cause', async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 2,
    attemptTimeout: { fixedMs: 30 },
    minimumUsefulAttemptMs: 10,
    jitter: { kind: 'none' },
  });
  const signals = [];
  const error = await rejection(
    run(
      policy,
      ({ signal }) => {
        signals.push(signal);
        return new Promise(() => {});
      },
      { seed: 1 },
    ),
  );
  assert.equal(error.reason, 'attempts_exhausted');
  assert.equal(error.attempts, 2);
  assert.deepEqual(error.lastOutcome, { type: 'transport', failure: 'timed_out' });
  // The core's Ending::result names no token for a timeout it counted itself (core rule 4): raised alone.
  assert.equal(error.cause, undefined);
  assert.ok(signals.every((signal) => signal.aborted && signal.reason.name === 'TimeoutError'));
});

test("run: the caller aborting cancels the operation and rejects with the signal's reason", async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 5,
    backoff: { kind: 'constant', baseMs: 1000, capMs: 1000 },
    jitter: { kind: 'none' },
  });
  const controller = new AbortController();
  const stats = new Stats();
  const pending = run(policy, () => Promise.reject(new Busy()), {
    seed: 1,
    signal: controller.signal,
    outcomeOfError: retryable,
    stats,
  });
  setTimeout(() => controller.abort(), 20);
  const reason = await rejection(pending);
  assert.equal(reason, controller.signal.reason);
  assert.equal(reason.name, 'AbortError');
  assert.equal(stats.toJSON().gaveUp.cancelled, 1);
  // Already aborted: nothing runs, and the core gives up before any attempt starts.
  let calls = 0;
  const left = new Error('user left');
  const decisions = [];
  const onDecision = (event) => decisions.push(event.decision);
  assert.equal(await rejection(run(policy, () => (calls += 1), { signal: AbortSignal.abort(left), onDecision })), left);
  assert.equal(calls, 0);
  assert.deepEqual(
    decisions.map(({ type, reason, attempts }) => [type, reason, attempts]),
    [['gave_up', 'cancelled', 0]],
  );
});

test('run: onDecision sees each decision as the core makes it; stats are counted by the core', async () => {
  const events = [];
  const stats = new Stats();
  const value = await run(
    quick({ backoff: { kind: 'constant', baseMs: 5, capMs: 5 } }),
    ({ attempt }) => {
      if (attempt === 1) throw new Busy();
      return attempt;
    },
    { seed: 9, outcomeOfError: retryable, onDecision: (event) => events.push(event), stats },
  );
  assert.equal(value, 2);
  assert.deepEqual(
    events.map((event) => event.decision.type),
    ['start_attempt', 'wait', 'start_attempt', 'succeeded'],
  );
  assert.deepEqual(events[1].after, { attempt: 1, outcome: RETRYABLE });
  assert.deepEqual(events[3].after, { attempt: 2, outcome: { type: 'success' } });
  assert.ok(events.every((event) => typeof event.atMs === 'number'));
  const counters = stats.toJSON();
  assert.deepEqual([counters.operations, counters.attempts, counters.retries, counters.succeeded], [1, 2, 1, 1]);
  // A hook that throws is the caller's bug: the run rejects with it.
  const bug = new Error('observer bug');
  assert.equal(
    await rejection(
      run(quick(), () => 1, {
        onDecision: () => {
          throw bug;
        },
      }),
    ),
    bug,
  );
});

test("run: hedges run concurrently; the winner's value returns and the losers are aborted", async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 5000,
    attemptTimeout: { fixedMs: 2000 },
    jitter: { kind: 'none' },
    hedging: { delayMs: 20, maxHedgedAttempts: 2 },
  });
  const contexts = [];
  const discarded = [];
  const value = await run(
    policy,
    (context) => {
      contexts.push(context);
      // Attempt 1 stalls until aborted; 2 answers after 60 ms; 3 would answer later.
      const delay = { 1: 10000, 2: 60, 3: 500 }[context.attempt];
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => resolve(`value ${context.attempt}`), delay);
        context.signal.addEventListener('abort', () => {
          clearTimeout(timer);
          reject(context.signal.reason);
        });
      });
    },
    { seed: 5, onDiscard: (late) => discarded.push(late) },
  );
  assert.equal(value, 'value 2');
  assert.deepEqual(
    contexts.map((c) => [c.attempt, c.hedge]),
    [
      [1, false],
      [2, true],
      [3, true],
    ],
  );
  assert.ok(contexts[0].signal.aborted && contexts[2].signal.aborted && !contexts[1].signal.aborted);
  assert.equal(contexts[0].signal.reason.name, 'AbortError');
  assert.deepEqual(discarded, []);
});

test('run: a dependency is shared by every run; its refusals end runs with their reasons', async () => {
  const dependency = Dependency.fromConfig({
    breaker: { trip: { kind: 'consecutive', failures: 1 }, openMs: 60000, halfOpenProbes: 1 },
  });
  const policy = quick({ backoff: { kind: 'constant', baseMs: 1, capMs: 1 } });
  const failing = () => Promise.reject(new Busy());
  const outcomeOfError = () => ({ type: 'http_status', status: 503 });
  const first = await rejection(run(policy, failing, { seed: 1, dependency, outcomeOfError }));
  assert.deepEqual([first.reason, first.attempts], ['circuit_open', 1]);
  assert.deepEqual(first.lastOutcome, { type: 'http_status', status: 503 });
  const second = await rejection(run(policy, failing, { seed: 2, dependency, outcomeOfError }));
  assert.deepEqual(
    [second.reason, second.attempts, second.lastOutcome, second.cause],
    ['circuit_open', 0, undefined, undefined],
  );
  assert.equal(dependency.breaker.tryAcquire(0), undefined, 'the breaker is open');
});

test("run: cancelling aborts every running hedge with the signal's reason; hedges that overrun time out", async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 5000,
    attemptTimeout: { fixedMs: 60 },
    minimumUsefulAttemptMs: 10,
    jitter: { kind: 'none' },
    hedging: { delayMs: 10, maxHedgedAttempts: 2 },
  });
  const stall = ({ signal }) =>
    new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)));
  const signals = [];
  const controller = new AbortController();
  const reason = new Error('user left');
  setTimeout(() => controller.abort(reason), 40);
  const cancelled = await rejection(
    run(policy, (context) => (signals.push(context.signal), stall(context)), { seed: 1, signal: controller.signal }),
  );
  assert.equal(cancelled, reason);
  assert.ok(signals.length === 3 && signals.every((signal) => signal.aborted && signal.reason === reason));

  // Nobody answers: each attempt is aborted at its own abortAtMs and counted as timed out.
  const timedOut = [];
  const exhausted = await rejection(
    run(policy, (context) => (timedOut.push(context.signal), stall(context)), { seed: 2 }),
  );
  assert.deepEqual(
    [exhausted.reason, exhausted.attempts, exhausted.decision.abortAttempts],
    ['attempts_exhausted', 3, []],
  );
  assert.ok(timedOut.every((signal) => signal.aborted && signal.reason.name === 'TimeoutError'));
});

test('run: an attempt that throws while a hedge runs ends the operation; the hedge is aborted', async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 2,
    jitter: { kind: 'none' },
    hedging: { delayMs: 0, maxHedgedAttempts: 1 },
  });
  for (const synchronous of [false, true]) {
    const signals = [];
    const bug = new RangeError('bug in attempt 2');
    const error = await rejection(
      run(
        policy,
        (context) => {
          signals.push(context.signal);
          if (context.attempt === 2) {
            if (synchronous) throw bug;
            return Promise.reject(bug);
          }
          return new Promise(() => {});
        },
        { outcomeOfError: () => ({ type: 'application', verdict: 'not_retryable' }) },
      ), // a fatal error (an unknown one is ambiguous: not fatal)
    );
    assert.equal(error.reason, 'not_retryable');
    assert.equal(error.cause, bug);
    assert.equal(signals.length, 2);
    assert.ok(signals[0].aborted);
    assert.equal(signals[0].reason.name, 'AbortError');
  }
});

test('run: plain values, promises and thenables give the same run; a then that throws is a thrown error', async () => {
  const policy = quick({ maxAttempts: 4 });
  const shapes = {
    plain: (value) => value,
    promise: (value) => Promise.resolve(value),
    async: async (value) => value,
    thenable: (value) => ({ then: (resolve) => resolve(value) }),
  };
  for (const [shape, wrap] of Object.entries(shapes)) {
    const failing = {
      plain: () => {
        throw new Busy();
      },
      promise: () => Promise.reject(new Busy()),
      async: async () => {
        throw new Busy();
      },
      thenable: () => ({ then: (_, reject) => reject(new Busy()) }),
    }[shape];
    const value = await run(policy, (context) => (context.attempt < 4 ? failing() : wrap(`v${context.attempt}`)), {
      seed: 9,
      outcomeOfError: retryable,
    });
    assert.equal(value, 'v4', shape);
  }
  const unreadable = new SyntaxError('unreadable then');
  const thenThrows = {
    get then() {
      throw unreadable;
    },
  };
  const error = await rejection(run(policy, () => thenThrows));
  assert.deepEqual([error.reason, error.cause], ['attempts_exhausted', unreadable]);
});

// outcomeOfResult: what a returned value means (Python's `outcome_of_result`, Kotlin's `outcomeOfResult`).

/** The hook of a caller whose answers carry a status: a 5xx is the server's failure, anything else a success. */
const statusOfReply = (reply) => (reply.status >= 500 ? { type: 'http_status', status: reply.status } : undefined);

test('run: a value outcomeOfResult fails is retried; exhausted, the ending carries it as lastValue and no cause', async () => {
  const replies = [];
  const discarded = [];
  const judged = [];
  const error = await rejection(
    run(
      quick(),
      (context) => {
        const reply = { status: 503, attempt: context.attempt };
        replies.push(reply);
        return context.attempt === 2 ? Promise.resolve(reply) : reply;
      },
      {
        outcomeOfResult: (reply) => {
          judged.push(reply);
          return statusOfReply(reply);
        },
        onDiscard: (reply) => discarded.push(reply),
      },
    ),
  );
  assert.ok(error instanceof GaveUpError);
  assert.equal(error.reason, 'attempts_exhausted');
  assert.equal(error.attempts, 3);
  assert.equal(error.lastValue, replies[2]); // the very value the last attempt returned
  assert.equal(error.cause, undefined);
  assert.ok(!('cause' in error));
  assert.deepEqual(error.lastOutcome, { type: 'http_status', status: 503 });
  assert.doesNotMatch(error.message, /outcomeOfError/); // the hook classified it: no hint
  assert.deepEqual(judged, replies); // called once with each value
  assert.deepEqual(discarded, replies.slice(0, 2)); // the ones the driver dropped, never the one it raised with
  // A thrown error's ending has no lastValue.
  const thrown = await rejection(run(quick(), () => Promise.reject(new Busy()), { outcomeOfError: retryable }));
  assert.ok(thrown.cause instanceof Busy);
  assert.equal(thrown.lastValue, undefined);
  // A conflict restarts and an unsafe write's ambiguous value reconciles, each with the value.
  const conflict = await rejection(
    run(quick(), () => 'stale', { outcomeOfResult: () => ({ type: 'application', verdict: 'conflict' }) }),
  );
  assert.ok(conflict instanceof RestartRequiredError);
  assert.deepEqual([conflict.lastValue, conflict.cause], ['stale', undefined]);
  const write = await rejection(
    run(quick({ idempotency: 'unsafe' }), () => 'half done', {
      outcomeOfResult: () => ({ type: 'application', verdict: 'ambiguous' }),
    }),
  );
  assert.ok(write instanceof ReconcileRequiredError);
  assert.deepEqual([write.lastValue, write.cause, write.attempts], ['half done', undefined, 1]);
});

test('run: a value outcomeOfResult calls a success (nothing, null, or a success outcome) is returned', async () => {
  const discarded = [];
  const value = await run(
    quick(),
    (context) => ({ status: context.attempt < 3 ? 502 : 200, attempt: context.attempt }),
    {
      outcomeOfResult: statusOfReply,
      onDiscard: (reply) => discarded.push(reply.attempt),
    },
  );
  assert.deepEqual(value, { status: 200, attempt: 3 });
  assert.deepEqual(discarded, [1, 2]);
  assert.equal(await run(quick(), () => 'v', { outcomeOfResult: () => null }), 'v');
  assert.equal(await run(quick(), () => 'v', { outcomeOfResult: () => ({ type: 'success' }) }), 'v');
});

test('run: an outcomeOfResult that throws rejects the run with its error; nothing is left running', async () => {
  const bug = new RangeError('hook bug');
  const policy = Policy.fromConfig({
    maxAttempts: 3,
    jitter: { kind: 'none' },
    hedging: { delayMs: 0, maxHedgedAttempts: 1 },
  });
  const signals = [];
  const discarded = [];
  let calls = 0;
  const error = await rejection(
    run(
      policy,
      (context) => {
        signals.push(context.signal);
        return context.attempt === 1 ? new Promise(() => {}) : Promise.resolve(`value ${context.attempt}`);
      },
      {
        outcomeOfResult: () => {
          calls += 1;
          throw bug;
        },
        onDiscard: (value) => discarded.push(value),
      },
    ),
  );
  assert.equal(error, bug);
  assert.equal(calls, 1);
  assert.equal(signals.length, 2);
  assert.ok(signals.every((signal) => signal.aborted)); // the stalled first attempt too
  assert.deepEqual(discarded, ['value 2']);
});

test("run: an outcomeOfResult that returns what is not an Outcome is refused as outcomeOfError's is", async () => {
  for (const returned of [{ type: 'nope' }, 'retryable', 503, { type: 'http_status' }]) {
    const misuse = await rejection(run(quick(), () => 'v', { outcomeOfResult: () => returned }));
    const same = await rejection(run(quick(), () => Promise.reject(new Busy()), { outcomeOfError: () => returned }));
    assert.ok(misuse instanceof RetryplanError, String(misuse));
    assert.equal(misuse.code, 'invalid_argument');
    assert.deepEqual([misuse.field, misuse.message], [same.field, same.message]);
  }
  // A status the binding reads but the core refuses (no HTTP status is 42) is refused by the core.
  const status = await rejection(
    run(quick(), () => 'v', { outcomeOfResult: () => ({ type: 'http_status', status: 42 }) }),
  );
  assert.deepEqual([status.name, status.code], ['RetryplanError', 'invalid_argument']);
});

test("run: under hedging, a value the hook fails and a loser's late value never reach the caller", async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 2,
    jitter: { kind: 'none' },
    hedging: { delayMs: 0, maxHedgedAttempts: 1 },
  });
  const failing = (value) => (value.startsWith('busy') ? RETRYABLE : undefined);
  // Attempt 1 answers a value the hook fails while the hedge runs; the hedge then wins.
  let answerFirst;
  const first = new Promise((resolve) => {
    answerFirst = resolve;
  });
  const judged = [];
  const discarded = [];
  const options = {
    outcomeOfResult: (value) => {
      judged.push(value);
      return failing(value);
    },
    onDiscard: (value) => discarded.push(value),
  };
  const value = await run(
    policy,
    (context) => {
      if (context.attempt === 1) return first;
      answerFirst('busy 1');
      return first.then(() => 'ok 2'); // after attempt 1's value is handed in
    },
    options,
  );
  assert.equal(value, 'ok 2');
  assert.deepEqual(judged, ['busy 1', 'ok 2']);
  assert.deepEqual(discarded, ['busy 1']);
  // The hedge wins at once; attempt 1 answers after the run ended: dropped, never judged.
  judged.length = 0;
  discarded.length = 0;
  let answerLate;
  const late = new Promise((resolve) => {
    answerLate = resolve;
  });
  const signals = [];
  const won = await run(
    policy,
    (context) => {
      signals.push(context.signal);
      return context.attempt === 1 ? late : 'ok 2';
    },
    options,
  );
  assert.equal(won, 'ok 2');
  assert.ok(signals[0].aborted);
  answerLate('busy late');
  await late;
  await undefined;
  assert.deepEqual(judged, ['ok 2']);
  assert.deepEqual(discarded, ['busy late']);
  // Both fail: the ending carries the last value the driver took, the other one is dropped.
  judged.length = 0;
  discarded.length = 0;
  let answerSecond;
  const second = new Promise((resolve) => {
    answerSecond = resolve;
  });
  const error = await rejection(
    run(
      policy,
      (context) => {
        if (context.attempt === 1) return second.then(() => 'busy 1'); // after attempt 2's
        answerSecond();
        return 'busy 2';
      },
      options,
    ),
  );
  assert.ok(error instanceof GaveUpError);
  assert.deepEqual([error.lastValue, error.cause], ['busy 1', undefined]);
  assert.deepEqual(judged, ['busy 2', 'busy 1']);
  assert.deepEqual(discarded, ['busy 2']);
});

test('run: outcomeOfError and outcomeOfResult side by side; the ending carries what the last attempt gave', async () => {
  const options = {
    outcomeOfError: (error) => (error instanceof Busy ? RETRYABLE : undefined),
    outcomeOfResult: (value) => (value === 'busy' ? RETRYABLE : undefined),
  };
  const attempts = (last) => (context) => {
    if (context.attempt === 1) throw new Busy();
    if (context.attempt === 2) return 'busy';
    return last();
  };
  assert.equal(
    await run(
      quick(),
      attempts(() => 'ok'),
      options,
    ),
    'ok',
  );
  const busy = new Busy();
  const afterError = await rejection(
    run(
      quick(),
      attempts(() => {
        throw busy;
      }),
      options,
    ),
  );
  assert.deepEqual([afterError.cause, afterError.lastValue], [busy, undefined]);
  const afterValue = await rejection(
    run(
      quick(),
      attempts(() => 'busy'),
      options,
    ),
  );
  assert.deepEqual([afterValue.cause, afterValue.lastValue], [undefined, 'busy']);
});

test("run: the caller's cancel drops a held value (to onDiscard) and rejects with the signal's reason", async () => {
  const controller = new AbortController();
  const discarded = [];
  const error = await rejection(
    run(quick({ backoff: { kind: 'constant', baseMs: 5000, capMs: 5000 } }), () => 'busy', {
      signal: controller.signal,
      outcomeOfResult: () => RETRYABLE,
      onDiscard: (value) => discarded.push(value),
      onDecision: (event) => event.decision.type === 'wait' && controller.abort(new Error('stop')),
    }),
  );
  assert.equal(error, controller.signal.reason);
  assert.deepEqual(discarded, ['busy']);
});

test("run: misuse of retryplan inside an attempt (blame caller or configuration) ends the run with that error, unchanged, never retried; a nested operation's typed ending is an attempt's error", async () => {
  for (const misuse of [() => Policy.fromConfig({ maxAttempts: 0 }), () => run(quick(), () => 1, { sigal: null })]) {
    let calls = 0;
    const decisions = [];
    const error = await rejection(
      run(
        quick(),
        async () => {
          calls += 1;
          await misuse();
        },
        { onDecision: ({ decision }) => decisions.push(decision.type) },
      ),
    );
    assert.ok(error instanceof RetryplanError && !(error instanceof OperationFailedError), String(error));
    assert.ok(['configuration', 'caller'].includes(error.blame), error.blame);
    assert.equal(calls, 1, 'never retried');
    assert.deepEqual(decisions, ['start_attempt', 'gave_up'], 'the operation ends (cancelled)');
  }
  // A nested operation's ending is not misuse: the outer run retries it as any error nothing classified.
  let outer = 0;
  const nested = await rejection(
    run(quick(), async () => {
      outer += 1;
      await run(quick({ maxAttempts: 1 }), () => {
        throw new TypeError('inner');
      });
    }),
  );
  assert.deepEqual([nested.name, outer, nested.cause.name], ['GaveUpError', 3, 'GaveUpError']);
});
