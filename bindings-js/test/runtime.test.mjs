// The browser runtime in Node (test/runtime.mjs loads it as a browser would
// run it): what it does not carry throws a typed `unsupported` error naming
// the call and what to do instead, its errors carry codes and fields without
// the core's words, and its classes are its own but its error classes are
// every entry's. (Every vector runs through it in vectors.test.mjs, and in
// Chromium in browser.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';
import * as runtime from './runtime.mjs';
import * as leanRuntime from './runtime-lean.mjs';
import * as node from 'retryplan';
import * as tools from 'retryplan/tools';
import { NOT_CARRIED, NOT_IN_LEAN, NOT_SERVED } from '../browser-entry.mjs';

/** The error `call` throws, as the fields a caller reads. */
function errorOf(call) {
  try {
    call();
  } catch (error) {
    assert.ok(error instanceof node.RetryplanError, String(error));
    const { code, blame, field, config, message } = error;
    return { code, blame, field, config, message };
  }
  assert.fail('expected a RetryplanError');
}

/** Each of `calls` (named as its error names it) throws unsupported, the core's blame, `advice` after its name. */
function assertUnsupported(calls, advice) {
  for (const [what, call] of Object.entries(calls)) {
    assert.deepEqual(
      errorOf(call),
      {
        code: 'unsupported',
        blame: 'configuration',
        field: what,
        config: undefined,
        message: `\`${what}\` cannot run here: ${advice}`,
      },
      what,
    );
  }
}

const ADVICE =
  'it is not in the browser runtime: compile the configuration when the page is built (retryplan/rollup, ' +
  'compilePolicy or compileDependency of retryplan/tools, or `retryplan compile`) and load it with ' +
  'Policy.fromCompiled or Dependency.fromCompiled, or import it from retryplan/tools';

test('what the runtime does not carry throws unsupported, naming the call and what to do instead', () => {
  const calls = {
    'Policy.fromConfig': () => runtime.Policy.fromConfig({ maxAttempts: 3 }),
    'Policy.profile': () => runtime.Policy.profile('checkout'),
    'Dependency.fromConfig': () => runtime.Dependency.fromConfig({ retrySlots: 2 }),
    'new RetryBudget': () => new runtime.RetryBudget({ kind: 'token_bucket', maxTokens: 10, tokenRatio: 0.5 }),
    'new CircuitBreaker': () => new runtime.CircuitBreaker({ trip: { kind: 'consecutive', failures: 3 } }),
  };
  assert.deepEqual(
    Object.keys(calls).sort(),
    Object.values(NOT_CARRIED).sort(),
    'every stub of the glue is called here',
  );
  assertUnsupported(calls, ADVICE);
  // Node's build carries them all.
  assert.equal(node.Policy.fromConfig({ maxAttempts: 3 }).maxAttempts, 3);
  assert.equal(node.Policy.profile('checkout').totalTimeoutMs, 800);
});

test("propagation's incoming side is not in the runtime: answerHeaders says where it is, and nothing else of it is exported", () => {
  for (const name of ['IncomingContext', 'propagation', 'currentIncoming']) {
    assert.equal(runtime[name], undefined, name);
    assert.equal(typeof node[name], 'function', name);
  }
  const driver = new runtime.Driver(runtime.Policy.fromCompiled(tools.compilePolicy({})), 0, { seed: 1 });
  const calls = { 'Driver#answerHeaders': () => driver.answerHeaders() };
  assert.deepEqual(
    new Set(Object.values(NOT_SERVED)),
    new Set([...Object.keys(calls), 'IncomingContext.read', 'IncomingContext']),
  );
  for (const [what, call] of Object.entries(calls)) {
    const error = errorOf(call);
    assert.deepEqual([error.code, error.blame, error.field], ['unsupported', 'configuration', what], what);
    assert.match(error.message, /cannot run here: it is not in the browser runtime: a page serves no request/);
  }
  driver.free();
});

test("the runtime carries the outgoing side: a Driver's outgoingHeaders are the core's, as in Node", () => {
  const form = tools.compilePolicy({ maxAttempts: 3, totalTimeoutMs: 800 });
  const headers = [runtime, node].map((api) => {
    const driver = new api.Driver(api.Policy.fromCompiled(form), 0, { seed: 1, idempotencyKey: 'order-5001' });
    const action = driver.pollAction(0);
    assert.equal(action.type, 'start_attempt');
    const sent = driver.outgoingHeaders(100, action.attempt);
    driver.free();
    return sent;
  });
  assert.deepEqual(headers[0], headers[1]);
  assert.equal(headers[0]['retryplan-attempt'], '1');
  assert.ok(Number(headers[0]['retryplan-timeout-ms']) > 0, JSON.stringify(headers[0]));
});

test("the runtime's retryFetch sends the core's headers cross-origin only when the caller opts in (no page here: no origin)", async () => {
  const policy = runtime.Policy.fromCompiled(tools.compilePolicy({ maxAttempts: 1, totalTimeoutMs: 800 }));
  const sent = [];
  const fetch = async (_input, init) => {
    sent.push(Object.fromEntries([...init.headers].filter(([name]) => name.startsWith('retryplan-'))));
    return new Response('ok');
  };
  const url = 'http://127.0.0.1:9/orders';
  await runtime.retryFetch(url, {}, { policy, fetch });
  await runtime.retryFetch(url, {}, { policy, fetch, propagateCrossOrigin: false });
  await runtime.retryFetch(url, {}, { policy, fetch, propagateCrossOrigin: true });
  assert.deepEqual(sent.slice(0, 2), [{}, {}]);
  assert.deepEqual(Object.keys(sent[2]).sort(), [
    'retryplan-attempt',
    'retryplan-caller-retries',
    'retryplan-timeout-ms',
  ]);
  const refused = await runtime.retryFetch(url, {}, { policy, fetch, propagateCrossOrigin: 'yes' }).then(
    () => assert.fail('expected a refusal'),
    (error) => error,
  );
  assert.deepEqual([refused.code, refused.field], ['invalid_argument', 'propagateCrossOrigin']);
  assert.equal(sent.length, 3, 'nothing sent for a refused option');
  policy.free();
});

test('new Policy(...) and new Dependency(...) say how each is made, in every build', () => {
  for (const api of [runtime, node, tools]) {
    const policy = errorOf(() => new api.Policy({ maxAttempts: 3 }));
    assert.deepEqual([policy.code, policy.blame, policy.field], ['unsupported', 'configuration', 'Policy']);
    assert.match(
      policy.message,
      /^`new Policy\(\.\.\.\)` cannot run here: a Policy is made by Policy\.fromCompiled\(form\)/,
    );
    const dependency = errorOf(() => new api.Dependency({ retrySlots: 2 }));
    assert.deepEqual([dependency.code, dependency.field], ['unsupported', 'Dependency']);
    assert.match(dependency.message, /Dependency\.fromCompiled\(form\)/);
  }
});

test("the runtime's errors carry the core's code and fields, their words the code and field (the messages are Node's and the tools')", () => {
  const form = tools.compilePolicy({ maxAttempts: 3, totalTimeoutMs: 800 });
  const policy = runtime.Policy.fromCompiled(form);
  assert.equal(policy.maxAttempts, 3);
  const operation = new runtime.Operation(policy, 0, { seed: 1 });
  const running = errorOf(() => operation.onOutcome(0, 2, { type: 'success' }));
  assert.deepEqual(
    [running.code, running.blame, running.message],
    ['attempt_not_running', 'caller', 'attempt_not_running'],
  );
  const wrongKind = errorOf(() => runtime.Policy.fromCompiled(tools.compileDependency({ retrySlots: 2 })));
  assert.deepEqual(wrongKind, {
    code: 'compiled_form_kind',
    blame: 'configuration',
    field: undefined,
    config: 'policy',
    message: 'compiled_form_kind at `policy`',
  });
  const argument = errorOf(() => new runtime.Operation(policy, null));
  assert.deepEqual(
    [argument.code, argument.field, argument.message],
    ['invalid_argument', 'nowMs', 'invalid_argument at `nowMs`: number'],
  );
  // The same errors in Node, with the core's words.
  assert.match(
    errorOf(() => node.Policy.fromCompiled(tools.compileDependency({ retrySlots: 2 }))).message,
    /^expected a compiled policy, got a compiled dependency/,
  );
  operation.free();
  policy.free();
});

test("the runtime's classes are its own (a Policy of another build is refused), its error classes every build's", () => {
  const form = tools.compilePolicy({ maxAttempts: 2 });
  const foreign = node.Policy.fromCompiled(form);
  const refused = errorOf(() => new runtime.Operation(foreign, 0));
  // A wrong object is one of the binding's refusals (BINDING's `instance`): the runtime's words are the code,
  // field and key, Node's the core's invalid_argument template around the rule.
  assert.deepEqual(
    [refused.code, refused.field, refused.message],
    ['invalid_argument', 'policy', 'invalid_argument at `policy`: instance'],
  );
  const own = runtime.Policy.fromCompiled(form);
  const inNode = errorOf(() => new node.Operation(own, 0));
  assert.deepEqual(
    [inNode.code, inNode.field, inNode.message],
    ['invalid_argument', 'policy', 'invalid argument `policy`: must be a Policy'],
  );
  const notIncoming = errorOf(() => new node.Driver(node.Policy.profile('read'), 0, { incoming: {} }));
  assert.equal(notIncoming.message, 'invalid argument `incoming`: must be an IncomingContext');
  own.free();
  assert.equal(runtime.RetryplanError, node.RetryplanError);
  assert.equal(runtime.GaveUpError, tools.GaveUpError);
  foreign.free();
});

test('a typed ending of the runtime names its type and reason', async () => {
  const policy = runtime.Policy.fromCompiled(
    tools.compilePolicy({
      maxAttempts: 2,
      backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
      jitter: { kind: 'none' },
    }),
  );
  const ending = await runtime
    .run(policy, () => Promise.reject(new Error('busy')), {
      outcomeOfError: () => ({ type: 'application', verdict: 'retryable' }),
    })
    .then(
      () => assert.fail('expected the ending'),
      (error) => error,
    );
  assert.ok(ending instanceof runtime.GaveUpError);
  assert.equal(ending.name, 'GaveUpError');
  assert.equal(ending.message, 'gave_up: attempts_exhausted');
  assert.equal(ending.attempts, 2);
  assert.equal(ending.cause.message, 'busy');
  policy.free();
});

test("each runtime's run() reads a value with outcomeOfResult; its ending carries the last value", async () => {
  const form = tools.compilePolicy({
    maxAttempts: 2,
    backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
    jitter: { kind: 'none' },
  });
  for (const entry of [runtime, leanRuntime]) {
    const policy = entry.Policy.fromCompiled(form);
    const outcomeOfResult = (reply) => (reply.status === 503 ? { type: 'http_status', status: 503 } : undefined);
    const replies = [{ status: 503 }, { status: 503 }];
    const ending = await entry
      .run(policy, (context) => replies[context.attempt - 1], { outcomeOfResult })
      .then(
        () => assert.fail('expected the ending'),
        (error) => error,
      );
    assert.ok(ending instanceof entry.GaveUpError);
    assert.equal(ending.message, 'gave_up: attempts_exhausted');
    assert.equal(ending.lastValue, replies[1]);
    assert.equal(ending.cause, undefined);
    const value = await entry.run(policy, (context) => ({ status: context.attempt === 1 ? 503 : 200 }), {
      outcomeOfResult,
    });
    assert.deepEqual(value, { status: 200 });
    policy.free();
  }
});

test("the runtime's bundle holds none of the core's message templates nor the configuration reader's JS", async () => {
  const bundle = await rolldown({
    input: fileURLToPath(new URL('../browser/lib/browser.js', import.meta.url)),
    logLevel: 'silent',
  });
  const { output } = await bundle.generate({ format: 'esm' });
  await bundle.close();
  const code = output
    .filter((chunk) => chunk.type === 'chunk')
    .map((chunk) => chunk.code)
    .join('\n');
  for (const template of ['invalid {0} configuration at', 'unknown profile', '(did you mean'])
    assert.ok(!code.includes(template), template);
  assert.ok(!code.includes('spelledAsWritten(value, config)'), "lib/spelling.js's respelling");
  // And the default entry's bundle does hold them (the check can fail).
  const full = await rolldown({
    input: fileURLToPath(new URL('../lib/browser.js', import.meta.url)),
    logLevel: 'silent',
  });
  const fullCode = (await full.generate({ format: 'esm' })).output.map((chunk) => chunk.code ?? '').join('\n');
  await full.close();
  assert.ok(fullCode.includes('invalid {0} configuration at'));
});

test('the lean runtime (no shared controls) refuses a compiled dependency and retry slots loudly, naming the call and the runtime to use', () => {
  const dependencyForm = tools.compileDependency({ retrySlots: 2 });
  const calls = {
    'Dependency.fromCompiled': () => leanRuntime.Dependency.fromCompiled(dependencyForm),
    'new RetrySlots': () => new leanRuntime.RetrySlots(2),
  };
  // The only two a page can reach: every other function of the controls runs on a control one of them made.
  assert.deepEqual(
    Object.entries(NOT_IN_LEAN)
      .filter(([name]) => name === '_dependencyFromCompiled' || name === '_slotsNew')
      .map(([, what]) => what)
      .sort(),
    Object.keys(calls).sort(),
  );
  assertUnsupported(
    calls,
    "it is not in the lean browser runtime (the bundler plugin's `runtime: 'lean'`), which leaves the shared controls " +
      'out: build the page with the default runtime (`retryplan()`) to use a Dependency or RetrySlots',
  );
  // A page cannot hand a dependency of another runtime to the lean one either.
  const foreign = runtime.Dependency.fromCompiled(dependencyForm);
  const policy = leanRuntime.Policy.fromCompiled(tools.compilePolicy({ maxAttempts: 2 }));
  const refused = errorOf(() => new leanRuntime.Driver(policy, 0, { seed: 1, dependency: foreign }));
  assert.deepEqual([refused.code, refused.field], ['invalid_argument', 'dependency']);
  // The browser runtime carries them (the check can fail).
  assert.equal(foreign.retrySlots.capacity, 2);
  foreign.free();
  policy.free();
});

test('the lean runtime decides as the browser runtime does: the same policy, the same decisions', async () => {
  const form = tools.compilePolicy({
    maxAttempts: 4,
    totalTimeoutMs: 5000,
    backoff: { kind: 'exponential', baseMs: 100, capMs: 1000 },
    jitter: { kind: 'polly' },
    hedging: { delayMs: 50, maxHedgedAttempts: 1 },
    retryOn: { errorCodes: ['aws_throttling'] },
  });
  const decisions = (api) => {
    const policy = api.Policy.fromCompiled(form);
    const operation = new api.Operation(policy, 0, { seed: 7 });
    const seen = [];
    let now = 0;
    for (let step = 0; step < 40 && operation.nextWakeupMs() !== undefined; step += 1) {
      const decision = operation.poll(now);
      seen.push(decision);
      if (decision.type === 'start_attempt') {
        seen.push(operation.onOutcome(now + 10, decision.attempt, { type: 'http_status', status: 503 }));
        now += 10;
      } else now = Math.max(now + 1, operation.nextWakeupMs() ?? now);
    }
    assert.ok(seen.filter((decision) => decision.type === 'start_attempt').length >= 2, JSON.stringify(seen));
    operation.free();
    policy.free();
    return seen;
  };
  assert.deepEqual(decisions(leanRuntime), decisions(runtime));
});
