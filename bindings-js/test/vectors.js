// The conformance vector runner, shared by Node (vectors.test.mjs) and Chromium
// (browser.test.mjs). It drives the typed JS API: vector inputs (snake_case
// JSON) become camelCase API arguments, and typed results are turned back into
// snake_case plain JSON for an exact comparison. That key conversion lives here,
// in the test, not in the package. It mirrors core/tests/conformance.rs.

const camel = (key) => key.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const snake = (key) => key.replace(/[A-Z]/g, (c) => '_' + c.toLowerCase());

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
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && jsonEqual(a[key], b[key]));
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
  if (error.code === 'invalid_policy') return { code: error.code, fields: error.violations.map((v) => v.field) };
  if (error.code === 'invalid_policy_json') return { code: error.code, fields: [error.field] };
  return { code: error.code };
}

function answer(api, call) {
  try {
    const value = call();
    return ['expect', value === undefined ? null : JSON.parse(JSON.stringify(toSnake(value)))];
  } catch (error) {
    return ['expect_error', errorValue(api, error)];
  }
}

function settle(holder, [key, value], label, failures) {
  const expectedKey = 'expect' in holder ? 'expect' : 'expect_error' in holder ? 'expect_error' : undefined;
  if (expectedKey === undefined) return failures.push(`${label}: no expectation`);
  if (expectedKey !== key || !jsonEqual(holder[expectedKey], value)) {
    failures.push(`${label}: expected ${expectedKey} ${JSON.stringify(holder[expectedKey])}, got ${key} ${JSON.stringify(value)}`);
  }
}

function policyOf(api, testCase) {
  const hasProfile = 'profile' in testCase;
  if (hasProfile === 'policy' in testCase) throw new Error('a case needs exactly one of `profile` and `policy`');
  return hasProfile ? api.Policy.profile(field(testCase, 'profile', 'string')) : api.Policy.fromConfig(toCamel(testCase.policy));
}

const optionalNumber = (object, key) => (key in object ? field(object, key, 'number') : undefined);

function runOperation(api, testCase, failures) {
  const id = testCase.id;
  let policy;
  try {
    policy = policyOf(api, testCase);
  } catch (error) {
    return failures.push(`${id}: invalid policy: ${error.message}`);
  }
  const options = { seed: field(testCase, 'seed', 'number') };
  if ('idempotency_key' in testCase) options.idempotencyKey = field(testCase, 'idempotency_key', 'string');
  if ('deadline_ms' in testCase) options.deadlineMs = field(testCase, 'deadline_ms', 'number');
  const operation = new api.Operation(policy, field(testCase, 'start_ms', 'number'), options);
  if ('expect_idempotency_key' in testCase && operation.idempotencyKey !== testCase.expect_idempotency_key) {
    failures.push(`${id}: idempotency key ${operation.idempotencyKey} != ${testCase.expect_idempotency_key}`);
  }
  if (!Array.isArray(testCase.steps)) throw new Error(`${id}: operation cases need steps`);
  testCase.steps.forEach((step, index) => {
    const at = field(step, 'at_ms', 'number');
    const call = field(step, 'call', 'string');
    let result;
    if (call === 'poll') result = answer(api, () => operation.poll(at));
    else if (call === 'cancel') result = answer(api, () => operation.cancel(at));
    else if (call === 'outcome') {
      const attempt = field(step, 'attempt', 'number');
      const outcome = toCamel(step.outcome);
      result = answer(api, () => operation.onOutcome(at, attempt, outcome));
    } else throw new Error(`${id}: unknown call \`${call}\``);
    settle(step, result, `${id} step ${index}`, failures);
  });
  operation.free();
  policy.free();
}

/** Runs one case; pushes a message per failed check onto `failures`. Throws on a malformed or unknown case. */
export function runCase(api, testCase, failures) {
  const id = field(testCase, 'id', 'string');
  const kind = field(testCase, 'kind', 'string');
  const withPolicy = (use) => () => {
    const policy = policyOf(api, testCase);
    try {
      return use(policy);
    } finally {
      policy.free();
    }
  };
  let call;
  switch (kind) {
    case 'operation':
      return runOperation(api, testCase, failures);
    case 'policy':
      call = withPolicy((policy) => policy.toConfig());
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
      call = () => api.parseRetryAfter(field(testCase, 'value', 'string'), field(testCase, 'now_unix_ms', 'number'));
      break;
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
  settle(testCase, answer(api, call), id, failures);
}

/** Every case of every vector document: `[{name, document}]` -> `{count, failures}`. */
export function runDocuments(api, documents) {
  let count = 0;
  const failures = [];
  for (const { name, document } of documents) {
    if (!Array.isArray(document.cases)) throw new Error(`${name}: a vector file has cases`);
    for (const testCase of document.cases) {
      runCase(api, testCase, failures);
      count += 1;
    }
  }
  if (count === 0) throw new Error('no vectors found');
  return { count, failures };
}
