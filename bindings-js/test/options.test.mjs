// Options objects take only the options they have (issue 23: one behaviour in
// every language, as Python's `ArgumentTypeError` and Kotlin's named
// parameters): an own enumerable key `run`, `retryFetch`, a `Driver`, an
// `Operation`, `propagation` or `instrumentOpenTelemetry` does not read is a
// RetryplanError `invalid_argument` naming it, in every entry (Node, tools,
// the browser runtime and the lean one), never silently ignored; one of the
// wrong type (a hook that is not a function, a signal that is not an
// AbortSignal) is refused the same way, naming it, before any attempt (as
// Python's `ArgumentTypeError`), never a raw TypeError mid-run; null is not
// given. And `onDiscard` is never called with null or undefined (nothing to
// release).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import * as runtime from './runtime.mjs';
import * as leanRuntime from './runtime-lean.mjs';
import * as node from 'retryplan';
import * as tools from 'retryplan/tools';
import retryplan from 'retryplan/rollup';
import { rejection } from './assertions.mjs';

/** Every entry that has the helpers, and whether its errors carry the core's words (the runtimes' do not). */
const ENTRIES = { node: [node, true], tools: [tools, true], runtime: [runtime, false], lean: [leanRuntime, false] };

const FORM = tools.compilePolicy({
  maxAttempts: 2,
  totalTimeoutMs: 60_000,
  backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  jitter: { kind: 'none' },
});

/** What an unknown option `key` is refused with, in an entry with words or without. */
const refusal = (key, words, what = 'helper') => ({
  code: 'invalid_argument',
  field: key,
  message: words
    ? `invalid argument \`${key}\`: is not an option of this ${what}`
    : `invalid_argument at \`${key}\`: not_an_option`,
});
/** What option `key` of the wrong type is refused with: it must be `rule` (a key of MUST), and got `kind`. */
const MUST = {
  boolean: 'a boolean',
  function: 'a function',
  string: 'a string',
  signal: 'an AbortSignal (with `aborted` and `addEventListener`)',
};
const wrongType = (key, rule, kind, words) => ({
  code: 'invalid_argument',
  field: key,
  message: words
    ? `invalid argument \`${key}\`: must be ${MUST[rule]}, got ${kind}`
    : `invalid_argument at \`${key}\`: ${rule}`,
});
/** Options of the wrong type every helper has: `[key, value, rule, kind]`. */
const HELPER_WRONG = [
  ['outcomeOfError', 1, 'function', 'a number'],
  ['onDecision', true, 'function', 'a boolean'],
  ['clock', 5, 'function', 'a number'],
  ['now', 5, 'function', 'a number'],
  ['signal', 1, 'signal', 'a number'],
  ['signal', {}, 'signal', 'an object'],
  ['signal', { aborted: false }, 'signal', 'an object'],
  ['signal', { addEventListener() {} }, 'signal', 'an object'],
];
const fieldsOf = (error) => {
  assert.ok(error instanceof node.RetryplanError, String(error));
  return { code: error.code, field: error.field, message: error.message };
};

/** The options each interface of lib/index.d.ts documents (its members, with those of the ones it extends). */
function documented(name) {
  const types = readFileSync(new URL('../lib/index.d.ts', import.meta.url), 'utf8');
  const body = types.match(
    new RegExp(`^export interface ${name}(?:<[^>]*>)?(?: extends (\\w+))? \\{\\n([^]*?)^\\}`, 'm'),
  );
  assert.ok(body, name);
  const own = [...body[2].matchAll(/^ {2}(\w+)\??:/gm)].map(([, key]) => key);
  return [...(body[1] ? documented(body[1]) : []), ...own].sort();
}

/** A fetch that answers 200 and counts its calls. */
function counted() {
  const fetch = async () => {
    fetch.calls += 1;
    return new Response('ok');
  };
  fetch.calls = 0;
  return fetch;
}

for (const [entry, [api, words]] of Object.entries(ENTRIES)) {
  const policy = api.Policy.fromCompiled(FORM);

  test(`${entry}: run refuses an option it does not have, naming it, before any attempt`, async () => {
    let calls = 0;
    const attempt = () => (calls += 1);
    for (const key of ['outcomOfError', 'sigal', 'dedline', 'policy', 'fetch'])
      assert.deepEqual(
        fieldsOf(await rejection(api.run(policy, attempt, { [key]: () => undefined }))),
        refusal(key, words),
      );
    // Given as undefined, it is given all the same.
    assert.deepEqual(
      fieldsOf(await rejection(api.run(policy, attempt, { seed: 1, deadlinMs: undefined }))),
      refusal('deadlinMs', words),
    );
    assert.equal(calls, 0);
  });

  test(`${entry}: retryFetch refuses an option it does not have, and run's own, naming it, before any request`, async () => {
    const fetch = counted();
    for (const key of ['sigal', 'dedline', 'onDiscard', 'outcomeOfResult', 'protocol'])
      assert.deepEqual(
        fieldsOf(await rejection(api.retryFetch('http://127.0.0.1:9/', {}, { policy, fetch, [key]: 5 }))),
        refusal(key, words),
      );
    assert.deepEqual(
      fieldsOf(await rejection(api.retryFetch('http://127.0.0.1:9/', {}, { policy, fetch, dedline: undefined }))),
      refusal('dedline', words),
    );
    assert.equal(fetch.calls, 0);
  });

  test(`${entry}: run and retryFetch take every option index.d.ts documents, no options, and inherited keys`, async () => {
    const common = {
      seed: 1,
      idempotencyKey: 'order-1',
      deadlineMs: 1e12,
      dependency: undefined, // the lean runtime makes none
      signal: new AbortController().signal,
      clock: () => Math.floor(performance.now()),
      outcomeOfError: () => undefined,
      onDecision: () => {},
      stats: new api.Stats(),
    };
    const runOptions = { ...common, protocol: 'http', outcomeOfResult: () => undefined, onDiscard: () => {} };
    // `now`, the old name of `clock`, is documented too (and refused beside it: tested below).
    assert.deepEqual([...Object.keys(runOptions), 'now'].sort(), documented('RunOptions'));
    assert.equal(await api.run(policy, () => 7, runOptions), 7);
    const fetch = counted();
    const fetchOptions = {
      ...common,
      policy,
      fetch,
      idempotent: true,
      idempotencyKeyHeader: 'Idempotency-Key',
      requestIdHeader: null,
      propagateCrossOrigin: false,
    };
    assert.deepEqual([...Object.keys(fetchOptions), 'now'].sort(), documented('RetryFetchOptions'));
    assert.equal((await api.retryFetch('http://127.0.0.1:9/', {}, fetchOptions)).response.status, 200);
    // No options, and keys that are not the object's own (a prototype's, a class's methods), are no options.
    assert.equal(await api.run(policy, () => 8), 8);
    assert.equal(await api.run(policy, () => 9, null), 9);
    class Options {
      seed = 2;
      sigal() {}
    }
    const inherited = Object.assign(Object.create({ dedline: 5 }), { seed: 3 });
    assert.equal(await api.run(policy, () => 10, new Options()), 10);
    assert.equal(await api.run(policy, () => 11, inherited), 11);
    assert.equal(
      (await api.retryFetch('http://127.0.0.1:9/', undefined, { __proto__: { policy }, fetch })).response.status,
      200,
    );
    assert.equal(fetch.calls, 2);
  });

  test(`${entry}: run refuses an option of the wrong type, naming it, before any attempt`, async () => {
    let calls = 0;
    const attempt = () => (calls += 1);
    const cases = [
      ...HELPER_WRONG,
      ['outcomeOfResult', 'retryable', 'function', 'a string'],
      ['onDiscard', {}, 'function', 'an object'],
      ['protocol', 1, 'string', 'a number'],
    ];
    for (const [key, value, rule, kind] of cases)
      assert.deepEqual(
        fieldsOf(await rejection(api.run(policy, attempt, { seed: 1, [key]: value }))),
        wrongType(key, rule, kind, words),
        key,
      );
    // An inherited option is read, so it is checked too.
    assert.deepEqual(
      fieldsOf(await rejection(api.run(policy, attempt, Object.create({ onDecision: 1 })))),
      wrongType('onDecision', 'function', 'a number', words),
    );
    assert.equal(calls, 0);
  });

  test(`${entry}: run refuses an attempt that is not a function, naming it, not as an ambiguous failure`, async () => {
    // Each attempt's call of it would throw a TypeError the failure table does not know: ambiguous, retried.
    const decisions = [];
    const error = await rejection(api.run(policy, 1, { onDecision: (event) => decisions.push(event) }));
    assert.deepEqual(fieldsOf(error), wrongType('attempt', 'function', 'a number', words));
    assert.deepEqual(decisions, []);
  });

  test(`${entry}: retryFetch refuses an option of the wrong type, naming it, before any request`, async () => {
    const fetch = counted();
    const cases = [
      ...HELPER_WRONG,
      ['fetch', 'fetch', 'function', 'a string'],
      ['idempotencyKeyHeader', 5, 'string', 'a number'],
      ['requestIdHeader', true, 'string', 'a boolean'],
      ['propagateCrossOrigin', 'yes', 'boolean', 'a string'],
    ];
    for (const [key, value, rule, kind] of cases)
      assert.deepEqual(
        fieldsOf(await rejection(api.retryFetch('http://127.0.0.1:9/', {}, { policy, fetch, [key]: value }))),
        wrongType(key, rule, kind, words),
        key,
      );
    assert.equal(fetch.calls, 0);
  });

  test(`${entry}: retryFetch refuses a propagateCrossOrigin that is not a boolean before it makes the operation`, async () => {
    // It was read once the operation's driver was made (its first attempt counted), and never freed.
    const stats = new api.Stats();
    const options = { policy, fetch: counted(), stats, propagateCrossOrigin: 'yes' };
    const error = await rejection(api.retryFetch('http://127.0.0.1:9/', {}, options));
    assert.deepEqual(fieldsOf(error), wrongType('propagateCrossOrigin', 'boolean', 'a string', words));
    const { operations, attempts } = stats.toJSON();
    assert.deepEqual([operations, attempts], [0, 0]);
  });

  test(`${entry}: retryFetch with a fetch that is not a function refuses it before any attempt, not as a lost connection`, async () => {
    // Each attempt's call of it would throw a TypeError, which reads as connection_lost: a POST would end in
    // ReconcileRequiredError ("the write may have happened") with nothing ever sent.
    for (const method of ['POST', 'GET']) {
      const decisions = [];
      const error = await rejection(
        api.retryFetch(
          'http://127.0.0.1:9/',
          { method },
          { policy, fetch: 1, onDecision: (event) => decisions.push(event) },
        ),
      );
      assert.deepEqual(fieldsOf(error), wrongType('fetch', 'function', 'a number', words));
      assert.deepEqual(decisions, [], 'no decision made: no attempt started');
    }
  });

  test(`${entry}: null is an option not given: a null init, fetch, hook, signal or clock`, async () => {
    const fetch = counted();
    assert.equal((await api.retryFetch('http://127.0.0.1:9/', null, { policy, fetch })).response.status, 200);
    assert.equal(fetch.calls, 1);
    const nulls = { signal: null, now: null, outcomeOfError: null, onDecision: null, stats: null, dependency: null };
    const own = globalThis.fetch;
    globalThis.fetch = fetch; // a null fetch is globalThis.fetch
    try {
      const options = { ...nulls, policy, fetch: null, idempotencyKeyHeader: null, requestIdHeader: null };
      assert.equal((await api.retryFetch('http://127.0.0.1:9/', { method: 'POST' }, options)).response.status, 200);
    } finally {
      globalThis.fetch = own;
    }
    assert.equal(fetch.calls, 2);
    let attempts = 0;
    const value = await api.run(policy, () => (attempts += 1), {
      ...nulls,
      protocol: null,
      seed: 1,
      // The first value fails, and the retry drops it: with a null onDiscard, nothing is called.
      outcomeOfResult: (result) => (result === 1 ? { type: 'http_status', status: 503 } : undefined),
      onDiscard: null,
    });
    assert.equal(value, 2);
    assert.equal(await api.run(policy, () => 3, { outcomeOfResult: null }), 3);
  });

  test(`${entry}: an AbortSignal is known by its shape (another realm's passes), and a policy, stats and dependency by their class`, async () => {
    let listening = 0;
    const foreign = {
      aborted: false,
      addEventListener: () => (listening += 1),
      removeEventListener: () => (listening -= 1),
    };
    assert.equal(await api.run(policy, () => 4, { signal: foreign }), 4);
    assert.equal(listening, 0);
    // Checked as instances of the entry's classes already (before any attempt), naming the option.
    for (const key of ['stats', 'dependency'])
      assert.equal(fieldsOf(await rejection(api.run(policy, () => 5, { [key]: 1 }))).field, key);
    assert.equal(fieldsOf(await rejection(api.retryFetch('http://127.0.0.1:9/', {}, { policy: 1 }))).field, 'policy');
  });

  test(`${entry}: onDiscard is never called with null or undefined (nothing to release), with any other value it is`, async () => {
    for (const dropped of [null, undefined, 0, '']) {
      const discarded = [];
      let attempts = 0;
      const value = await api.run(policy, () => (++attempts === 1 ? dropped : 'second'), {
        seed: 1,
        // The first value fails, and the retry drops it.
        outcomeOfResult: (result) => (result === dropped ? { type: 'http_status', status: 503 } : undefined),
        onDiscard: (result) => discarded.push(result),
      });
      assert.equal(value, 'second');
      assert.deepEqual(discarded, dropped == null ? [] : [dropped], String(dropped));
    }
  });

  test(`${entry}: a Driver and an Operation refuse an option they do not have`, () => {
    for (const make of [
      (options) => new api.Driver(policy, 0, options),
      (options) => new api.Operation(policy, 0, options),
    ]) {
      let error;
      try {
        make({ seed: 1, sed: 2 });
      } catch (thrown) {
        error = thrown;
      }
      assert.deepEqual(fieldsOf(error), refusal('sed', words, 'constructor'));
      make(undefined).free();
      make({ seed: 1, idempotencyKey: 'k', deadlineMs: 5, dependency: undefined }).free();
    }
    // A Driver's own options are not an Operation's.
    assert.throws(() => new api.Operation(policy, 0, { method: 'GET' }), { code: 'invalid_argument', field: 'method' });
    const driverOptions = {
      seed: 1,
      idempotencyKey: 'k',
      deadlineMs: 5,
      dependency: undefined,
      method: 'GET',
      idempotent: true,
      requestIdempotencyKey: undefined,
      concurrency: 'concurrent',
      stats: undefined,
      recordEvents: true,
      oneShotBody: false,
      returnsResponses: false,
      incoming: undefined,
    };
    assert.deepEqual(Object.keys(driverOptions).sort(), documented('DriverOptions'));
    new api.Driver(policy, 0, driverOptions).free();
  });
}

test('propagation and instrumentOpenTelemetry refuse an option they do not have; the bundler plugin too', () => {
  const policy = node.Policy.fromCompiled(FORM);
  assert.throws(() => node.propagation(policy, { nw: () => 0 }), {
    code: 'invalid_argument',
    field: 'nw',
    message: 'invalid argument `nw`: is not an option of this middleware',
  });
  assert.throws(() => node.propagation(policy, { now: 0 }), {
    code: 'invalid_argument',
    field: 'now',
    message: 'invalid argument `now`: must be a function, got a number',
  });
  assert.equal(typeof node.propagation(policy, { now: () => 0 }), 'function');
  assert.throws(() => node.propagation(policy, { clock: 0 }), { field: 'clock' });
  assert.throws(() => node.propagation(policy, { clock: () => 0, now: () => 0 }), {
    code: 'invalid_argument',
    field: 'clock',
    message: 'invalid argument `clock`: is given with its old name `now`; keep `clock` only',
  });
  assert.throws(() => node.propagation(policy, { clock: () => -1 }), { code: 'invalid_argument', field: 'clock' });
  assert.equal(typeof node.propagation(policy, { clock: () => 0 }), 'function');
  assert.equal(typeof node.propagation(policy, { now: null }), 'function');
  assert.equal(typeof node.propagation(policy, null), 'function');
  const api = { trace: { getTracerProvider() {} }, metrics: { getMeterProvider() {} } };
  assert.throws(() => node.instrumentOpenTelemetry(api, { tracerProvidr: {} }), {
    code: 'invalid_argument',
    field: 'tracerProvidr',
    message: 'invalid argument `tracerProvidr`: is not an option of this function',
  });
  assert.throws(() => retryplan({ runtim: 'lean' }), {
    name: 'TypeError',
    message: 'retryplan/rollup: `runtim` is not an option of the plugin (it has `runtime`)',
  });
  assert.equal(retryplan({ runtime: 'lean' }).name, 'retryplan');
  assert.equal(retryplan(null).name, 'retryplan');
});

test("run's null protocol inside a served request is not given: the headers for the next hop are HTTP's", async () => {
  const policy = node.Policy.fromCompiled(FORM);
  const middleware = node.propagation(policy);
  let headers;
  const server = createServer((req, res) =>
    middleware(req, res, async () => {
      headers = await node.run(policy, (context) => context.outgoingHeaders, { protocol: null }).catch(String);
      res.end();
    }),
  );
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    await fetch(`http://127.0.0.1:${server.address().port}`);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
  assert.equal(headers['retryplan-attempt'], '1', String(headers));
});

test("a helper's clock that answers no time is refused naming the caller's option `now`, not the engine's `nowMs`", async () => {
  const policy = node.Policy.fromConfig({ maxAttempts: 2, totalTimeoutMs: 1000 });
  for (const reading of [Number.NaN, -5, 'soon']) {
    const error = await rejection(node.run(policy, () => 1, { now: () => reading }));
    assert.equal(error.code, 'invalid_argument', error.message);
    assert.equal(error.field, 'now', String(reading));
  }
});

test("a helper's clock is `clock`, or its old name `now`; both given is refused naming `clock`, before any attempt", async () => {
  const policy = node.Policy.fromConfig({ maxAttempts: 1, totalTimeoutMs: 1000 });
  let calls = 0;
  const both = await rejection(node.run(policy, () => (calls += 1), { clock: () => 0, now: () => 0 }));
  assert.deepEqual(fieldsOf(both), {
    code: 'invalid_argument',
    field: 'clock',
    message: 'invalid argument `clock`: is given with its old name `now`; keep `clock` only',
  });
  const fetched = await rejection(
    node.retryFetch('http://127.0.0.1:9/', {}, { policy, fetch: counted(), clock: () => 0, now: () => 0 }),
  );
  assert.equal(fetched.field, 'clock');
  assert.equal(calls, 0);
  // Each reading is checked, and named as the caller gave it.
  const refused = await rejection(node.run(policy, () => 1, { clock: () => Number.NaN }));
  assert.equal(refused.field, 'clock', refused.message);
  // The operation runs on the clock given: an attempt that moves it past the deadline is the last one (on the
  // real clock, the retryable failure would be retried at once).
  const retried = node.Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 1000,
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  });
  for (const key of ['clock', 'now']) {
    let time = 5000;
    let attempts = 0;
    const error = await rejection(
      node.run(
        retried,
        () => {
          attempts += 1;
          time += 2000;
          throw new Error('unavailable');
        },
        { [key]: () => time, outcomeOfError: () => ({ type: 'application', verdict: 'retryable' }) },
      ),
    );
    assert.ok(error instanceof node.GaveUpError, String(error));
    assert.equal(attempts, 1, key);
  }
});
