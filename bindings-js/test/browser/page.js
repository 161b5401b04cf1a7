// Runs in Chromium: every conformance vector through the tools entry, the
// default entry's wasm with its reader (lib/browser.js, as it can, see
// LEAN_CANNOT_RUN), and the browser runtime (`retryplan` in a browser:
// browser/lib/browser.js) with every policy and dependency compiled by the
// tools entry and loaded with fromCompiled, and the lean browser runtime
// (browser-lean/: no shared controls) the same way, less the cases with a
// control (LEAN_RUNTIME_CANNOT_RUN); the control checks
// (test/controls.js) through the first two, then one retryFetch scenario
// through the runtime; then offers the shared helper scenarios to the test
// (window.__observe), through the runtime with compiled policies.
import * as api from '/bindings-js/lib/browser.js';
import * as runtime from '/bindings-js/browser/lib/browser.js';
import * as leanRuntime from '/bindings-js/browser-lean/lib/browser.js';
import * as tools from '/bindings-js/tools/lib/browser.js';
import { runDocuments } from '/bindings-js/test/vectors.js';
import { observe } from '/bindings-js/test/scenarios.js';
import { controlChecks } from '/bindings-js/test/controls.js';

window.__observe = (scenario, url) => observe(runtime, scenario, url, tools);

async function main() {
  const names = await (await fetch('/vectors/index.json')).json();
  const documents = [];
  for (const name of names) documents.push({ name, document: await (await fetch(`/vectors/${name}`)).json() });
  const vectors = runDocuments(tools, documents);
  let at = performance.now();
  const leanVectors = runDocuments(api, documents, true);
  const leanMs = performance.now() - at;
  at = performance.now();
  const compiledVectors = runDocuments(runtime, documents, true, tools);
  // Reported (never asserted): what the compiled pass adds to the suite's time.
  const passMs = { lean: leanMs, compiled: performance.now() - at };
  const leanRuntimeVectors = runDocuments(leanRuntime, documents, true, tools, false);
  const controls = { lean: controlChecks(api), tools: controlChecks(tools) };

  const policy = runtime.Policy.fromCompiled(
    tools.compilePolicy({
      maxAttempts: 3,
      totalTimeoutMs: 5000,
      attemptTimeout: { fixedMs: 2000 },
      backoff: { kind: 'constant', baseMs: 10, capMs: 10 },
      jitter: { kind: 'none' },
      idempotency: 'keyed',
    }),
  );
  const started = performance.now();
  const result = await runtime.retryFetch('/api/busy-then-ok', { method: 'POST', body: 'order=5001' }, { policy });
  const fetchScenario = {
    decision: result.decision,
    status: result.response?.status,
    body: await result.response?.text(),
    elapsedMs: performance.now() - started,
    idempotencyKey: result.idempotencyKey,
    seen: await (await fetch('/api/seen')).json(),
  };
  let error;
  try {
    api.Policy.profile('nope');
  } catch (caught) {
    error = { isError: caught instanceof Error, isOurs: caught instanceof api.RetryplanError, code: caught.code };
  }
  // What the runtime does not carry: a typed error naming what to do instead.
  let notCarried;
  try {
    runtime.Policy.fromConfig({ maxAttempts: 3 });
  } catch (caught) {
    notCarried = {
      isOurs: caught instanceof tools.RetryplanError,
      code: caught.code,
      field: caught.field,
      message: caught.message,
    };
  }
  const sameError = tools.RetryplanError === api.RetryplanError && runtime.RetryplanError === api.RetryplanError;
  return {
    vectors,
    leanVectors,
    compiledVectors,
    leanRuntimeVectors,
    passMs,
    controls,
    fetchScenario,
    error,
    notCarried,
    sameError,
  };
}

main().then(
  (result) => (window.__result = result),
  (error) => (window.__result = { crashed: String(error?.stack ? error.stack : error) }),
);
