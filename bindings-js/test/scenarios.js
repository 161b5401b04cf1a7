// The shared helper scenarios (tests/helpers/scenarios.json) through
// retryFetch, as a user calls it: what a runner observes (in Node or in
// Chromium, the same code) and the checks of a scenario's `expect`.
import { toCamel } from './vectors.js';

/** The result shape of `expect.result`, from what retryFetch did. */
function resultOf(api, outcome, signal) {
  if (outcome.response !== undefined) {
    const { decision, response } = outcome;
    return {
      returns: {
        status: response.status,
        ending: decision.type,
        ...(decision.type === 'gave_up' ? { reason: decision.reason } : {}),
      },
    };
  }
  const { error } = outcome;
  if (signal.aborted && error === signal.reason) return { raises: { cancelled: true } };
  if (error instanceof api.OperationFailedError) {
    return {
      raises: { ending: error.decision.type, ...(error instanceof api.GaveUpError ? { reason: error.reason } : {}) },
    };
  }
  if (error instanceof api.RetryplanError) return { raises: { error: error.code, field: error.field } };
  return { unexpected: String(error?.stack ? error.stack : error) };
}

/**
 * Runs one scenario against `url` and reports what was observed (plain data,
 * so a page can hand it back). With `tools`, the policy is compiled by it and
 * loaded by `api` (`Policy.fromCompiled`), as a page built with a compiled
 * policy does (the browser runtime has no configuration reader).
 */
export async function observe(api, scenario, url, tools = undefined) {
  const config = toCamel(scenario.policy);
  const policy =
    tools === undefined ? api.Policy.fromConfig(config) : api.Policy.fromCompiled(tools.compilePolicy(config));
  const { method, body: text, body_bytes: bodyBytes, headers } = scenario.request;
  // A large body as a Blob, made before the clock starts: Chromium copies a string (or bytes) body into each
  // request on the page's side, over a second per 16 MiB on a loaded machine, before the server sees anything.
  const body = bodyBytes === undefined ? text : new Blob(['x'.repeat(bodyBytes)]);
  const controller = new AbortController();
  const cancelAfter = scenario.caller?.cancel_after_ms;
  const timer = cancelAfter === undefined ? undefined : setTimeout(() => controller.abort(), cancelAfter);
  const started = performance.now();
  let outcome;
  try {
    outcome = await api.retryFetch(url, { method, body, headers }, { policy, signal: controller.signal });
  } catch (error) {
    outcome = { error };
  }
  let elapsedMs = performance.now() - started;
  const { read_body: readBody } = scenario.expect;
  let read;
  let readError;
  if (outcome.response !== undefined) {
    if (readBody || 'body' in scenario.expect) {
      // The whole body, as a caller reads it: an error ends the read (the helper cut the body).
      try {
        read = await outcome.response.text();
      } catch (error) {
        readError = String(error);
      }
      if (readBody) elapsedMs = performance.now() - started;
    } else await outcome.response.body?.cancel();
  }
  clearTimeout(timer);
  const result = resultOf(api, outcome, controller.signal);
  const cause = outcome.error?.cause;
  policy.free();
  return {
    result,
    body: read,
    readError,
    elapsedMs,
    cause: cause === undefined ? undefined : { name: cause.name, code: cause.cause?.code ?? cause.code },
  };
}

/** Every way `observed` and the server's `log` differ from `expect` (the scenario's `server` entries said what each request got), as messages. */
export function check(expect, observed, log, server) {
  const failures = [];
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const requests =
    typeof expect.requests === 'number' ? { min: expect.requests, max: expect.requests } : expect.requests;
  if (!(log.length >= requests.min && log.length <= requests.max)) {
    failures.push(`the server saw ${log.length} requests, expected ${JSON.stringify(expect.requests)}`);
  }
  const methods = log.map((entry) => entry.method);
  if ('methods' in expect && !same(methods, expect.methods))
    failures.push(`the server saw ${JSON.stringify(methods)}, expected ${JSON.stringify(expect.methods)}`);
  const ids = log.map((entry) => entry.request_id);
  // A redirect the platform follows within an attempt keeps the attempt's id: a request may repeat the one before
  // it when that one was answered with a redirect.
  const redirected = (index) => {
    const entry = server[Math.min(index, server.length - 1)];
    return entry?.status >= 300 && entry?.status < 400 && entry.headers?.Location !== undefined;
  };
  const repeats = ids.filter(
    (id, index) => ids.indexOf(id) !== index && !(ids[index - 1] === id && redirected(index - 1)),
  );
  if (ids.some((id) => typeof id !== 'string' || !/^[0-9a-f]{16}$/.test(id)) || repeats.length > 0) {
    failures.push(`request ids are not all present and distinct: ${JSON.stringify(ids)}`);
  }
  const keys = log.map((entry) => entry.idempotency_key);
  if (expect.idempotency_key === 'absent' && keys.some((key) => key !== null))
    failures.push(`an idempotency key was sent: ${JSON.stringify(keys)}`);
  if (expect.idempotency_key === 'same' && (keys.some((key) => typeof key !== 'string') || new Set(keys).size !== 1)) {
    failures.push(`not the same idempotency key on every request: ${JSON.stringify(keys)}`);
  }
  const exactly = expect.idempotency_key?.exactly;
  if (exactly !== undefined && (keys.length === 0 || keys.some((key) => key !== exactly))) {
    failures.push(`not ${JSON.stringify(exactly)} on every request: ${JSON.stringify(keys)}`);
  }
  // A reason is checked where the scenario names one.
  const [[kind, want]] = Object.entries(expect.result);
  const got = observed.result[kind];
  const result =
    got !== undefined && !('reason' in want) && 'ending' in want
      ? { [kind]: { ...got, reason: undefined } }
      : observed.result;
  if (!same(result, expect.result))
    failures.push(`result ${JSON.stringify(observed.result)}, expected ${JSON.stringify(expect.result)}`);
  if ('body' in expect && observed.body !== expect.body)
    failures.push(`body ${JSON.stringify(observed.body)}, expected ${JSON.stringify(expect.body)}`);
  const { min, max } = expect.elapsed_ms;
  if (!(observed.elapsedMs >= min && observed.elapsedMs <= max))
    failures.push(`took ${Math.round(observed.elapsedMs)} ms, expected ${min}..${max}`);
  return failures;
}
