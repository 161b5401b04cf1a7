// The conformance vector runner, shared by Node (vectors.test.mjs) and Chromium
// (browser.test.mjs). It drives the typed JS API: vector inputs (snake_case
// JSON) become camelCase API arguments, and typed results are turned back into
// snake_case plain JSON for an exact comparison. That key conversion lives here,
// in the test, not in the package. It mirrors core/tests/conformance.rs.
//
// Both entries run it: `retryplan/tools` every case, the default entry
// (`retryplan`) every case and step it has the API for. What it cannot run is
// listed in LEAN_CANNOT_RUN with the reason, and each case or step left out
// is reported by id (`skipped`).

/**
 * Vector files no JS entry runs yet, and why (every test that lists the vector
 * directory leaves them out: vectors.test.mjs, serve.mjs for Chromium).
 */
export const FILES_NOT_YET_RUN = new Map([]);

/**
 * What the browser runtime cannot run, besides what the default entry cannot
 * (LEAN_CANNOT_RUN): a page serves no request, so the runtime's wasm is
 * built without the propagation functions (no `IncomingContext`).
 */
export const RUNTIME_CANNOT_RUN = {
  kinds: {
    incoming_context: "reading an incoming request is a server's job: not in the browser runtime",
    propagated_driver: "a driver serving an incoming request is a server's: not in the browser runtime",
  },
};

/**
 * What the lean browser runtime (`retryplan/lean`, the bundler plugin's
 * `runtime: 'lean'`) cannot run, besides what the browser runtime cannot: it
 * is built without the shared controls, so a case whose policy runs with a
 * dependency, or that runs a control, is left out; every other case runs
 * (its `Dependency.fromCompiled` refusing loudly is runtime.test.mjs's).
 */
const NO_CONTROLS =
  'the shared controls are not in the lean browser runtime (a page with a Dependency is built with the default one)';
export const LEAN_RUNTIME_CANNOT_RUN = {
  kinds: { budget: NO_CONTROLS, breaker: NO_CONTROLS, dependency: NO_CONTROLS },
  inputs: { dependency: NO_CONTROLS },
};

/**
 * What the default entry cannot run, and why: whole kinds (a kind with an
 * `expect_error` still runs when the error comes from reading the
 * configuration, which the default entry does), single step calls (the other
 * steps of the case run), and case inputs.
 */
export const LEAN_CANNOT_RUN = {
  kinds: {
    policy: 'the normalised configuration (toConfig) is a tool; the invalid policies run',
    dependency: 'snapshots are a tool; the invalid configurations run',
    classify: 'Policy#classify is a tool',
    explain: 'Policy#explain is a tool',
    backoff_ceilings: 'Policy#backoffCeilingsMs is a tool',
    redelivery: 'redeliver is a tool (queue workers, not browsers)',
    admit: 'admit is a tool (servers)',
    grpc_pushback: 'parseGrpcPushback is a tool (the gRPC dialect)',
    grpc_timeout_encode: 'encodeGrpcTimeout is a tool (the gRPC dialect)',
    grpc_timeout_parse: 'parseGrpcTimeout is a tool (the gRPC dialect)',
    http_date: 'parseHttpDate is a tool (the default entry reads dates only inside Retry-After)',
    grpc_timeout_ns_encode: 'encodeGrpcTimeoutNs is a tool (the gRPC dialect)',
    grpc_timeout_ns_parse: 'parseGrpcTimeoutNs is a tool (the gRPC dialect)',
    grpc_service_config: 'ServiceConfig is a tool (the gRPC dialect)',
    aws_error_code: 'awsErrorCodeFromResponse is a tool (the AWS dialect)',
    urllib3_retry: 'policyFromUrllib3 is a tool (the urllib3 dialect)',
  },
  calls: {
    dependency_snapshot: 'Dependency#snapshot is a tool',
    snapshot: 'RetryBudget#snapshot and CircuitBreaker#snapshot are tools',
  },
  inputs: {
    grpc_service_config: 'the policy comes from a gRPC service config (ServiceConfig is a tool)',
    aws_standard: 'the dependency is awsStandardDependency(), a tool (the AWS dialect)',
    aws_standard_2026: 'the dependency is awsStandard2026Dependency(), a tool (the AWS dialect)',
  },
};

/** Why the default entry cannot run `testCase` as a whole, or undefined when it can (perhaps without some steps). */
export function leanCannotRun(testCase) {
  const byKind = LEAN_CANNOT_RUN.kinds[testCase.kind];
  const readsOnly = (testCase.kind === 'policy' || testCase.kind === 'dependency') && 'expect_error' in testCase;
  if (byKind !== undefined && !readsOnly) return byKind;
  if ('grpc_service_config' in testCase) return LEAN_CANNOT_RUN.inputs.grpc_service_config;
  if (testCase.dependency === 'aws_standard') return LEAN_CANNOT_RUN.inputs.aws_standard;
  if (testCase.dependency === 'aws_standard_2026') return LEAN_CANNOT_RUN.inputs.aws_standard_2026;
  return undefined;
}

const camel = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const snake = (key) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function renameKeys(value, rename) {
  if (Array.isArray(value)) return value.map((item) => renameKeys(item, rename));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [rename(key), renameKeys(item, rename)]));
}
export const toCamel = (value) => renameKeys(value, camel);
export const toSnake = (value) => renameKeys(value, snake);

/** Order-insensitive deep equality of plain JSON values. */
export function jsonEqual(a, b) {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === b.length && a.every((item, index) => jsonEqual(item, b[index]));
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]))
  );
}

function field(object, key, type) {
  const value = object[key];
  if (typeof value !== type) throw new Error(`\`${key}\` must be a ${type}, got ${JSON.stringify(value)}`);
  return value;
}

/** The expectation form of an error, as the Rust runner builds it. */
function errorValue(api, error) {
  if (!(error instanceof api.RetryplanError)) throw error; // not ours: a failure of the binding
  if (!(error instanceof Error) || typeof error.message !== 'string') throw new Error('RetryplanError is not an Error');
  let value = { code: error.code };
  if (error.code === 'config_violations')
    value = { code: error.code, config: error.config, fields: error.violations.map((v) => v.field) };
  if (error.code === 'invalid_config') value = { code: error.code, config: error.config, fields: [error.field] };
  if (error.code === 'unsupported') value = { code: error.code, fields: [error.field] };
  // Who must act: compared when the vector states it (settle drops it otherwise).
  value.blame = error.blame;
  // The text, for the message checks (not part of the vector's expectation): the core's words, before a
  // configuration object's error is respelt in its own camelCase keys (bad-input.test.mjs checks that).
  return Object.defineProperty(value, 'message', {
    value: error[Symbol.for('retryplan.coreMessage')] ?? error.message,
    enumerable: false,
  });
}

/** Drops every empty `abort_attempts` (always present in the JS API), as the vectors leave it out. */
function dropEmptyAborts(json) {
  if (Array.isArray(json)) json.forEach(dropEmptyAborts);
  else if (json !== null && typeof json === 'object') {
    if (Array.isArray(json.abort_attempts) && json.abort_attempts.length === 0) delete json.abort_attempts;
    Object.values(json).forEach(dropEmptyAborts);
  }
  return json;
}

/** A typed answer as vector JSON: snake_case keys, and no empty `abortAttempts`. */
function vectorJson(value) {
  if (value === undefined) return null;
  return dropEmptyAborts(JSON.parse(JSON.stringify(toSnake(value))));
}

function answer(api, call) {
  try {
    return ['expect', vectorJson(call())];
  } catch (error) {
    return ['expect_error', errorValue(api, error)];
  }
}

function settle(holder, [key, value], label, failures, run) {
  if (key === 'expect_error' && run?.messages !== undefined) run.messages[label] = value.message;
  const expectedKey = 'expect' in holder ? 'expect' : 'expect_error' in holder ? 'expect_error' : undefined;
  if (expectedKey === undefined) return failures.push(`${label}: no expectation`);
  const expected = holder[expectedKey];
  if (key === 'expect_error' && !(expected !== null && typeof expected === 'object' && 'blame' in expected))
    delete value.blame;
  if (expectedKey !== key || !jsonEqual(holder[expectedKey], value)) {
    failures.push(
      `${label}: expected ${expectedKey} ${JSON.stringify(holder[expectedKey])}, got ${key} ${JSON.stringify(value)}`,
    );
  }
}

function serviceConfigOf(api, testCase) {
  // A service config is read with the keys gRPC writes (no renaming).
  return api.ServiceConfig.fromJson(
    JSON.stringify(testCase.grpc_service_config),
    optionalNumber(testCase, 'max_attempts_cap'),
  );
}

/**
 * The case's policy. In a compiled run (`run.compiled`: the tools entry), the
 * tools entry reads it as it reads it in its own run, compiles it
 * (`compilePolicy`), and `api` loads the form (`Policy.fromCompiled`): what a
 * page built with a compiled policy does. Counted in `run.compiledCount`.
 */
function policyOf(api, testCase, run) {
  const tools = run?.compiled;
  if (tools !== undefined) {
    const source = policyOf(tools, testCase);
    let form;
    try {
      form = tools.compilePolicy(source);
    } finally {
      source.free();
    }
    run.compiledCount.policies += 1;
    return api.Policy.fromCompiled(form);
  }
  if ('grpc_service_config' in testCase) {
    const config = serviceConfigOf(api, testCase);
    try {
      const policy = config.profileFor(
        field(testCase.grpc_method, 'service', 'string'),
        field(testCase.grpc_method, 'method', 'string'),
      );
      if (policy === undefined) throw new Error(`${testCase.id}: no profile for the method`);
      return policy;
    } finally {
      config.free();
    }
  }
  const hasProfile = 'profile' in testCase;
  if (hasProfile === 'policy' in testCase) throw new Error('a case needs exactly one of `profile` and `policy`');
  return hasProfile
    ? api.Policy.profile(field(testCase, 'profile', 'string'))
    : api.Policy.fromConfig(toCamel(testCase.policy));
}

const optionalNumber = (object, key) => (key in object ? field(object, key, 'number') : undefined);

/**
 * A dependency configuration: JSON text for the tools entry (its reader), an
 * object for the default entry; in a compiled run, JSON text compiled by the
 * tools entry (`compileDependency`) and loaded by `api` (`Dependency.fromCompiled`).
 */
function readDependency(api, config, run) {
  if (run.compiled !== undefined) {
    const form = run.compiled.compileDependency(JSON.stringify(config));
    run.compiledCount.dependencies += 1;
    return api.Dependency.fromCompiled(form);
  }
  return run.lean ? api.Dependency.fromConfig(toCamel(config)) : api.Dependency.fromJson(JSON.stringify(config));
}

/**
 * A budget or a breaker (`which`) on its own. In a compiled run, the tools
 * entry reads its configuration first (so that an invalid one is refused as
 * in the entry's own run), then compiles it as a dependency's one control
 * (`compileDependency`), and `api` takes it from the loaded dependency: a
 * page built with compiled forms has no reader to make one from a configuration.
 */
function standaloneControl(api, run, which, config) {
  const Class = which === 'budget' ? 'RetryBudget' : 'CircuitBreaker';
  if (run.compiled === undefined) return new api[Class](toCamel(config));
  new run.compiled[Class](toCamel(config)).free();
  const dependency = api.Dependency.fromCompiled(run.compiled.compileDependency(JSON.stringify({ [which]: config })));
  run.compiledCount.dependencies += 1;
  try {
    return dependency[which];
  } finally {
    dependency.free();
  }
}

/** The case's dependency: its configuration, an AWS standard one by name, or the service config's throttling. */
function dependencyOf(api, testCase, run) {
  if (testCase.dependency === 'aws_standard') return api.awsStandardDependency();
  if (testCase.dependency === 'aws_standard_2026') return api.awsStandard2026Dependency();
  if ('dependency' in testCase) return readDependency(api, testCase.dependency, run);
  if ('grpc_service_config' in testCase) {
    const config = serviceConfigOf(api, testCase);
    try {
      return config.throttlingDependency();
    } finally {
      config.free();
    }
  }
  return undefined;
}

function runSeries(api, testCase, failures, run) {
  let dependency;
  try {
    dependency = dependencyOf(api, testCase, run);
  } catch (error) {
    return failures.push(`${testCase.id}: invalid dependency: ${error.message}`);
  }
  testCase.operations.forEach((operation, index) => {
    runOperation(
      api,
      { ...testCase, ...operation, id: `${testCase.id} operation ${index}` },
      failures,
      dependency,
      run,
    );
  });
  dependency?.free();
}

/** True (and the step reported in `run.skipped`) when the entry cannot run this call. */
function skipStep(run, call, label) {
  const reason = run.lean ? LEAN_CANNOT_RUN.calls[call] : undefined;
  if (reason !== undefined) run.skipped.push(`${label} (${call}): ${reason}`);
  return reason !== undefined;
}

function runOperation(api, testCase, failures, shared, run) {
  const id = testCase.id;
  let policy;
  try {
    policy = policyOf(api, testCase, run);
  } catch (error) {
    return failures.push(`${id}: invalid policy: ${error.message}`);
  }
  const options = { seed: field(testCase, 'seed', 'number') };
  if ('idempotency_key' in testCase) options.idempotencyKey = field(testCase, 'idempotency_key', 'string');
  if ('deadline_ms' in testCase) options.deadlineMs = field(testCase, 'deadline_ms', 'number');
  let dependency = shared;
  if (dependency === undefined) {
    try {
      dependency = dependencyOf(api, testCase, run);
    } catch (error) {
      return failures.push(`${id}: invalid dependency: ${error.message}`);
    }
  }
  if (dependency !== undefined) options.dependency = dependency;
  const operation = new api.Operation(policy, field(testCase, 'start_ms', 'number'), options);
  if ('expect_idempotency_key' in testCase && operation.idempotencyKey !== testCase.expect_idempotency_key) {
    failures.push(`${id}: idempotency key ${operation.idempotencyKey} != ${testCase.expect_idempotency_key}`);
  }
  if (!Array.isArray(testCase.steps)) throw new Error(`${id}: operation cases need steps`);
  testCase.steps.forEach((step, index) => {
    const at = field(step, 'at_ms', 'number');
    const call = field(step, 'call', 'string');
    if (skipStep(run, call, `${id} step ${index}`)) return;
    let result;
    if (call === 'poll') result = answer(api, () => operation.poll(at));
    else if (call === 'cancel') result = answer(api, () => operation.cancel(at));
    else if (call === 'outcome') {
      const attempt = field(step, 'attempt', 'number');
      const outcome = toCamel(step.outcome);
      result = answer(api, () => operation.onOutcome(at, attempt, outcome));
    } else if (call === 'dependency_snapshot') {
      if (!dependency) throw new Error(`${id}: dependency_snapshot needs a dependency`);
      result = answer(api, () => dependency.snapshot(at));
    } else if (call === 'budget_on_failure') {
      const budget = dependency?.budget;
      if (!budget) throw new Error(`${id}: budget_on_failure needs a dependency with a budget`);
      result = answer(api, () => budget.onFailure(at));
      budget.free();
    } else throw new Error(`${id}: unknown call \`${call}\``);
    settle(step, result, `${id} step ${index}`, failures, run);
  });
  operation.free();
  if (shared === undefined) dependency?.free();
  policy.free();
}

/**
 * Hands a driver step's result in, held under its `token` (as `held` says)
 * when it has one: an outcome as written, a failure by its name, or a
 * response the driver reads itself (its status as given, its headers by name,
 * whether the client followed a redirect to get it).
 */
function handIn(api, driver, at, step) {
  const attempt = field(step, 'attempt', 'number');
  const holding = 'token' in step ? { token: field(step, 'token', 'number') } : undefined;
  if ('response' in step) {
    const { status, headers = {} } = step.response;
    const lookup = (name) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
    return driver.handleResponse(at, attempt, status, lookup, {
      ...holding,
      nowUnixMs: optionalNumber(step, 'now_unix_ms') ?? 0,
      redirected: 'redirected' in step ? field(step, 'redirected', 'boolean') : false,
    });
  }
  if (holding !== undefined && 'held' in step) holding.held = field(step, 'held', 'string');
  const outcome = 'outcome' in step ? toCamel(step.outcome) : api.Outcome.fromFailure(field(step, 'failure', 'string'));
  return driver.handleResult(at, attempt, outcome, holding);
}

/** A lookup by lower-case name in a vector's headers object. */
const lookupIn = (headers) => (name) => Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];

/** An `incoming_context` case's answer: the context read, as the vector states it (a refusal names one of the case's headers). */
function incomingContext(api, policy, testCase) {
  const headers = testCase.headers;
  let context;
  try {
    context = api.IncomingContext.read(policy, lookupIn(headers), field(testCase, 'now_ms', 'number'));
  } catch (error) {
    if (
      error?.code === 'invalid_request_header' &&
      !Object.keys(headers).some((name) => name.toLowerCase() === error.field)
    ) {
      throw new Error(`${testCase.id}: refused ${error.field} (not a header of the case)`);
    }
    throw error;
  }
  try {
    const ns = context.callerRemainingNs;
    if (ns !== undefined && typeof ns !== 'bigint')
      throw new Error(`${testCase.id}: callerRemainingNs is not a bigint`);
    return {
      callerRemainingNs: ns === undefined ? null : String(ns),
      deadlineHeader: context.deadlineHeader ?? null,
      deadlineMs: context.deadlineMs ?? null,
      previousAttempts: context.previousAttempts,
      idempotencyKey: context.idempotencyKey ?? null,
      callerRetries: context.callerRetries,
    };
  } finally {
    context.free();
  }
}

/** Runs a `driver` case: the host loop's calls on one Driver, in order, with stats and events on. */
function runDriver(api, testCase, failures, run) {
  const id = testCase.id;
  let policy;
  try {
    policy = policyOf(api, testCase, run);
  } catch (error) {
    return failures.push(`${id}: invalid policy: ${error.message}`);
  }
  const stats = new api.Stats();
  const options = { seed: field(testCase, 'seed', 'number'), stats, recordEvents: true };
  if ('idempotency_key' in testCase) options.idempotencyKey = field(testCase, 'idempotency_key', 'string');
  if ('deadline_ms' in testCase) options.deadlineMs = field(testCase, 'deadline_ms', 'number');
  if ('method' in testCase) options.method = field(testCase, 'method', 'string');
  if ('idempotent_request' in testCase) options.idempotent = field(testCase, 'idempotent_request', 'boolean');
  if ('request_idempotency_key' in testCase)
    options.requestIdempotencyKey = field(testCase, 'request_idempotency_key', 'string');
  if ('concurrency' in testCase) options.concurrency = field(testCase, 'concurrency', 'string');
  if ('one_shot_body' in testCase) options.oneShotBody = field(testCase, 'one_shot_body', 'boolean');
  if ('returns_responses' in testCase) options.returnsResponses = field(testCase, 'returns_responses', 'boolean');
  if ('dependency' in testCase) options.dependency = readDependency(api, testCase.dependency, run);
  let driver;
  try {
    // A `propagated_driver` case: the request it serves, read at its start.
    if ('incoming_headers' in testCase)
      options.incoming = api.IncomingContext.read(
        policy,
        lookupIn(testCase.incoming_headers),
        field(testCase, 'start_ms', 'number'),
      );
    driver = new api.Driver(policy, field(testCase, 'start_ms', 'number'), options);
  } catch (error) {
    return settle(testCase, ['expect_error', errorValue(api, error)], id, failures, run);
  }
  if ('expect' in testCase || 'expect_error' in testCase)
    failures.push(`${id}: the driver was made, but the case expects an error`);
  if ('expect_idempotency_key' in testCase && driver.idempotencyKey !== testCase.expect_idempotency_key) {
    failures.push(`${id}: idempotency key ${driver.idempotencyKey} != ${testCase.expect_idempotency_key}`);
  }
  testCase.steps.forEach((step, index) => {
    const at = field(step, 'at_ms', 'number');
    const call = field(step, 'call', 'string');
    const label = `${id} step ${index}`;
    if (skipStep(run, call, label)) return;
    let result;
    if (call === 'poll') result = answer(api, () => driver.pollAction(at));
    else if (call === 'result') result = answer(api, () => handIn(api, driver, at, step));
    else if (call === 'cancel') result = answer(api, () => driver.handleCancel(at));
    else if (call === 'timer_ended') result = answer(api, () => driver.handleTimerEnd(at));
    else if (call === 'events') {
      result = answer(api, () => {
        const events = [];
        for (let event; (event = driver.pollEvent()) !== undefined; ) events.push(event);
        return events;
      });
    } else if (call === 'stats') result = answer(api, () => stats.toJSON());
    else if (call === 'outgoing_headers') {
      const attempt = field(step, 'attempt', 'number');
      result = answer(api, () => driver.outgoingHeaders(at, attempt, field(step, 'protocol', 'string')));
    } else if (call === 'answer_headers')
      result = answer(api, () => driver.answerHeaders(field(step, 'protocol', 'string')));
    else throw new Error(`${label}: unknown driver call \`${call}\``);
    settle(step, result, label, failures, run);
  });
  driver.free();
  options.incoming?.free();
  options.dependency?.free();
  stats.free();
  policy.free();
}

/** Runs the steps of a `budget` or `breaker` case on one control made by `make` (from the camelCase config). */
function runControl(api, testCase, failures, make, runStep, run) {
  const id = testCase.id;
  let control;
  try {
    control = make();
  } catch (error) {
    return settle(testCase, ['expect_error', errorValue(api, error)], id, failures, run);
  }
  if ('expect' in testCase || 'expect_error' in testCase) {
    failures.push(
      `${id}: the configuration is valid, but the case expects ${JSON.stringify(testCase.expect_error ?? testCase.expect)}`,
    );
  }
  if (!Array.isArray(testCase.steps)) throw new Error(`${id}: a valid configuration needs steps`);
  const permits = [];
  testCase.steps.forEach((step, index) => {
    const at = field(step, 'at_ms', 'number');
    const call = field(step, 'call', 'string');
    if (skipStep(run, call, `${id} step ${index}`)) return permits.push(undefined);
    const result = answer(api, () => runStep(control, step, call, at, permits, `${id} step ${index}`));
    settle(step, result, `${id} step ${index}`, failures, run);
  });
  permits.forEach((permit) => permit?.free());
  control.free();
}

/** The grant (a charge, a permit) step `step[key]` was given, of `grants` (one per step); the step `label` fails without it. */
function earlierGrant(step, key, grants, label) {
  const index = field(step, key, 'number');
  if (!grants[index]) throw new Error(`${label}: no grant at its ${key}, ${index}`);
  return grants[index];
}

function budgetStep(budget, step, call, at, charges, label) {
  const charge = () => ('charge_step' in step ? earlierGrant(step, 'charge_step', charges, label) : undefined);
  let granted;
  try {
    switch (call) {
      case 'on_request':
        return budget.onRequest(at);
      case 'try_retry': {
        const afterTimeout = 'after_timeout' in step ? field(step, 'after_timeout', 'boolean') : undefined;
        granted = budget.tryRetry(at, afterTimeout);
        return granted === undefined ? { granted: false } : { granted: true, cost: granted.cost };
      }
      case 'on_success':
        return budget.onSuccess(at, charge());
      case 'on_failure':
        return budget.onFailure(at, charge());
      case 'snapshot':
        return budget.snapshot(at);
      case 'acquire':
        return { granted: budget.acquire(field(step, 'amount', 'number')) };
      case 'release':
        return budget.release(field(step, 'amount', 'number'));
      default:
        throw new Error(`unknown budget call \`${call}\``);
    }
  } finally {
    charges.push(granted);
  }
}

function breakerStep(breaker, step, call, at, permits, label) {
  const permit = () => earlierGrant(step, 'permit_step', permits, label);
  let granted;
  try {
    switch (call) {
      case 'try_acquire':
        granted = breaker.tryAcquire(at);
        return granted === undefined ? { granted: false } : { granted: true, probe: granted.probe };
      case 'on_success':
        return breaker.onSuccess(at, permit());
      case 'on_failure':
        return breaker.onFailure(at, permit());
      case 'release':
        return breaker.release(permit());
      case 'snapshot':
        return breaker.snapshot(at);
      default:
        throw new Error(`unknown breaker call \`${call}\``);
    }
  } finally {
    permits.push(granted);
  }
}

/** Runs one case; pushes a message per failed check onto `failures`. Throws on a malformed or unknown case. */
/** The state of one run: what it left out, the messages of the errors it met, how many forms it compiled. */
export const newRun = (lean, compiled = undefined, controls = true) => ({
  lean,
  compiled,
  controls,
  skipped: [],
  messages: {},
  compiledCount: { policies: 0, dependencies: 0 },
});

export function runCase(api, testCase, failures, run = { lean: false, skipped: [] }) {
  const id = field(testCase, 'id', 'string');
  const kind = field(testCase, 'kind', 'string');
  const cannot = run.lean ? leanCannotRun(testCase) : undefined;
  if (cannot !== undefined) return run.skipped.push(`${id}: ${cannot}`);
  const runtimeCannot = api.IncomingContext === undefined ? RUNTIME_CANNOT_RUN.kinds[kind] : undefined;
  if (runtimeCannot !== undefined) return run.skipped.push(`${id}: ${runtimeCannot}`);
  const noControls =
    run.controls === false
      ? (LEAN_RUNTIME_CANNOT_RUN.kinds[kind] ??
        ('dependency' in testCase ? LEAN_RUNTIME_CANNOT_RUN.inputs.dependency : undefined))
      : undefined;
  if (noControls !== undefined) return run.skipped.push(`${id}: ${noControls}`);
  const withPolicy = (use) => () => {
    const policy = policyOf(api, testCase, run);
    try {
      return use(policy);
    } finally {
      policy.free();
    }
  };
  let call;
  switch (kind) {
    case 'operation':
      return runOperation(api, testCase, failures, undefined, run);
    case 'driver':
    case 'propagated_driver':
      return runDriver(api, testCase, failures, run);
    case 'incoming_context':
      call = withPolicy((policy) => incomingContext(api, policy, testCase));
      break;
    case 'operation_series':
      return runSeries(api, testCase, failures, run);
    case 'grpc_service_config':
      call = () => {
        const config = serviceConfigOf(api, testCase);
        const dependency = config.throttlingDependency();
        try {
          const methods = config.methods.map((method) => {
            const policy = method.policy.toConfig();
            method.policy.free();
            return { name: method.name, policy };
          });
          const lookups = (testCase.lookups ?? []).map((lookup) => {
            const found = config.methodFor(lookup.service, lookup.method);
            if (found === undefined) return null;
            found.policy.free();
            return found.name;
          });
          return {
            methods,
            throttling: dependency === undefined ? null : dependency.snapshot(0),
            warnings: config.warnings,
            lookups,
          };
        } finally {
          dependency?.free();
          config.free();
        }
      };
      break;
    case 'grpc_timeout_ns_encode':
      call = () => api.encodeGrpcTimeoutNs(BigInt(field(testCase, 'timeout_ns', 'string')));
      break;
    case 'grpc_timeout_ns_parse':
      call = () => String(api.parseGrpcTimeoutNs(field(testCase, 'value', 'string')));
      break;
    case 'request_name':
      call = () => api.requestName(field(testCase, 'method', 'string'), field(testCase, 'url', 'string'));
      break;
    case 'aws_error_code':
      call = () => api.awsErrorCodeFromResponse(testCase.errortype_header, testCase.body) ?? null;
      break;
    case 'urllib3_retry':
      call = () => {
        const total = optionalNumber(testCase, 'total_timeout_ms');
        const policy = api.policyFromUrllib3(JSON.stringify(testCase.retry), total);
        try {
          return policy.toConfig();
        } finally {
          policy.free();
        }
      };
      break;
    case 'budget':
      return runControl(
        api,
        testCase,
        failures,
        () => standaloneControl(api, run, 'budget', testCase.budget),
        budgetStep,
        run,
      );
    case 'breaker':
      return runControl(
        api,
        testCase,
        failures,
        () => standaloneControl(api, run, 'breaker', testCase.breaker),
        breakerStep,
        run,
      );
    case 'dependency':
      call = () => {
        const dependency = readDependency(api, testCase.dependency, run);
        try {
          return run.lean ? null : dependency.snapshot(0);
        } finally {
          dependency.free();
        }
      };
      break;
    case 'redelivery':
      call = withPolicy((policy) =>
        api.redeliver(
          policy,
          field(testCase, 'attempts', 'number'),
          field(testCase, 'first_seen_ms', 'number'),
          field(testCase, 'now_ms', 'number'),
          toCamel(testCase.outcome),
        ),
      );
      break;
    case 'http_outcome':
      call = () =>
        api.Outcome.fromHttp(
          field(testCase, 'status', 'number'),
          'retry_after' in testCase ? field(testCase, 'retry_after', 'string') : null,
          'retry_after_ms' in testCase ? field(testCase, 'retry_after_ms', 'string') : null,
          field(testCase, 'now_unix_ms', 'number'),
        );
      break;
    case 'policy':
      // The default entry reads the policy only (an invalid one's error is the expectation).
      call = withPolicy((policy) => (run.lean ? null : policy.toConfig()));
      break;
    case 'backoff_ceilings':
      call = withPolicy((policy) => policy.backoffCeilingsMs(field(testCase, 'retries', 'number')));
      break;
    case 'classify':
      call = withPolicy((policy) => policy.classify(toCamel(testCase.outcome)));
      break;
    case 'explain':
      call = withPolicy((policy) =>
        policy.explain(optionalNumber(testCase, 'deadline_ms'), optionalNumber(testCase, 'first_attempt_at_ms') ?? 0),
      );
      break;
    case 'retry_after':
    case 'http_date':
      // The same arguments: a header value read against `now_unix_ms`, as `reading` says.
      call = () =>
        api[kind === 'retry_after' ? 'parseRetryAfter' : 'parseHttpDate'](
          field(testCase, 'value', 'string'),
          field(testCase, 'now_unix_ms', 'number'),
          'reading' in testCase ? field(testCase, 'reading', 'string') : undefined,
        );
      break;
    case 'rate_limit':
      call = () =>
        api.parseRateLimit(
          field(testCase, 'value', 'string'),
          'policy_value' in testCase ? field(testCase, 'policy_value', 'string') : undefined,
        );
      break;
    case 'rate_limit_reset':
      call = () =>
        api.parseRateLimitReset(field(testCase, 'value', 'string'), field(testCase, 'now_unix_ms', 'number'));
      break;
    case 'http_response': {
      const read = (options) =>
        api.Outcome.fromHttpResponse(
          field(testCase, 'status', 'number'),
          new Headers(testCase.headers),
          field(testCase, 'now_unix_ms', 'number'),
          options,
        );
      const reading = 'reading' in testCase ? field(testCase, 'reading', 'string') : undefined;
      // Without a policy, the reading as the last argument; with one, both in the options (refused together).
      call = 'policy' in testCase ? withPolicy((policy) => read({ policy, reading })) : () => read(reading);
      break;
    }
    case 'retry_after_ms':
      call = () => api.parseRetryAfterMsHeader(field(testCase, 'value', 'string'));
      break;
    case 'grpc_pushback':
      call = () => api.parseGrpcPushback(field(testCase, 'value', 'string'));
      break;
    case 'grpc_timeout_encode':
      call = () => api.encodeGrpcTimeout(field(testCase, 'timeout_ms', 'number'));
      break;
    case 'grpc_timeout_parse':
      call = () => api.parseGrpcTimeout(field(testCase, 'value', 'string'));
      break;
    case 'admit':
      call = () =>
        api.admit(
          field(testCase, 'deadline_ms', 'number'),
          field(testCase, 'now_ms', 'number'),
          field(testCase, 'reserve_ms', 'number'),
          field(testCase, 'minimum_useful_ms', 'number'),
        );
      break;
    default:
      throw new Error(`${id}: unknown kind \`${kind}\``);
  }
  settle(testCase, answer(api, call), id, failures, run);
}

/**
 * Every case of every vector document: `[{name, document}]` -> `{count,
 * failures, skipped}`; with `lean`, as the default entry runs them.
 */
/**
 * Runs every case of `documents` through `api` (the default entry when
 * `lean`); with `compiled` (the tools entry), every policy and dependency
 * configuration goes through its compiled form (see `policyOf`).
 */
export function runDocuments(api, documents, lean = false, compiled = undefined, controls = true) {
  let count = 0;
  const failures = [];
  const run = newRun(lean, compiled, controls);
  for (const { name, document } of documents) {
    if (!Array.isArray(document.cases)) throw new Error(`${name}: a vector file has cases`);
    for (const testCase of document.cases) {
      runCase(api, testCase, failures, run);
      count += 1;
    }
  }
  if (count === 0) throw new Error('no vectors found');
  return { count, failures, skipped: run.skipped, messages: run.messages, compiledCount: run.compiledCount };
}
