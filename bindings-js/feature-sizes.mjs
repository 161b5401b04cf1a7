// What the browser runtimes' wasm would weigh without each candidate feature
// (issue 24's feature runtimes), estimated before building one: a runtime's
// wasm as build.sh optimises it with its names (target/.../retryplan_js.
// browser.wasm, retryplan_js.browser-lean.wasm), the feature's exports
// removed and its functions' bodies replaced by a zero result (so that code
// after a call still runs, as it would behind a cfg gate that skips the
// feature), then -Oz again with binaryen (the pinned one), names stripped and
// gzipped (-9). The baseline goes through the same passes, so each figure is
// a difference of like with like. An estimate, not a build: a real cfg gate
// can save more (the compiler drops the branches around the feature too) or
// less (its own refusal). Not run by test.sh.
//
//   node feature-sizes.mjs                        # each feature alone, on both runtimes
//   node feature-sizes.mjs browser-lean a+b c     # given sets, on one runtime
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import binaryen from 'binaryen';

/** Each candidate: the exports it adds and the functions (by demangled name) that are its code. */
export const FEATURES = {
  controls: {
    exports: /^_(dependency|budget|breaker|slots|permit|charge|grants)/,
    functions: /^<?retryplan::controls::|^<?retryplan::ground::window|engine::operation::grants/,
  },
  polly_jitter: { functions: /^libm::/ },
  hedging: { functions: /operation::hedging/ },
  aws_error_codes: { functions: /error_code/ },
  rate_limit_headers: { exports: /^_parseRateLimit/, functions: /rate_limit|structured_field/ },
  retry_after_dates: { functions: /http_date|email_date/ },
  stats: { exports: /^_stats/, functions: /retryplan::engine::stats|::stats::/ },
  operation_api: { exports: /^_operation/ },
};

function zeroOf(module, type) {
  if (type === binaryen.i32) return module.i32.const(0);
  if (type === binaryen.i64) return module.i64.const(0n);
  if (type === binaryen.f32) return module.f32.const(0);
  if (type === binaryen.f64) return module.f64.const(0);
  return module.ref.null(type);
}

function zero(module, results) {
  if (results === binaryen.none) return module.nop();
  const types = binaryen.expandType(results);
  return types.length === 1 ? zeroOf(module, types[0]) : module.tuple.make(types.map((t) => zeroOf(module, t)));
}

/** The gzipped bytes of `runtime`'s wasm without the features named. */
export function without(runtime, names) {
  const file = new URL(`../target/wasm32-unknown-unknown/wasm-release/retryplan_js.${runtime}.wasm`, import.meta.url);
  const module = binaryen.readBinary(readFileSync(file));
  module.setFeatures(binaryen.Features.All);
  const features = names.map((name) => {
    if (FEATURES[name] === undefined) throw new Error(`feature-sizes.mjs: no feature ${name}`);
    return FEATURES[name];
  });
  for (let at = module.getNumExports() - 1; at >= 0; at -= 1) {
    const { name } = binaryen.getExportInfo(module.getExportByIndex(at));
    if (features.some((feature) => feature.exports?.test(name))) module.removeExport(name);
  }
  const replaced = [];
  for (let at = 0; at < module.getNumFunctions(); at += 1) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(at));
    if (!info.base && features.some((feature) => feature.functions?.test(info.name))) replaced.push(info);
  }
  for (const { name, params, results } of replaced) {
    module.removeFunction(name);
    module.addFunction(name, params, results, [], zero(module, results));
  }
  binaryen.setOptimizeLevel(2);
  binaryen.setShrinkLevel(2);
  binaryen.setDebugInfo(false);
  module.optimize();
  module.runPasses(['strip-debug', 'strip-producers']);
  const bytes = module.emitBinary();
  module.dispose();
  return gzipSync(bytes, { level: 9 }).length;
}

const [runtimeArg, ...sets] = process.argv.slice(2);
const main = process.argv[1] === fileURLToPath(import.meta.url);
for (const runtime of main ? (runtimeArg ? [runtimeArg] : ['browser', 'browser-lean']) : []) {
  const base = without(runtime, []);
  console.log(`${runtime}: ${base} B (re-optimised, the baseline of the differences)`);
  const wanted = sets.length > 0 ? sets.map((set) => set.split('+')) : Object.keys(FEATURES).map((name) => [name]);
  for (const names of wanted) {
    if (runtime === 'browser-lean' && names.includes('controls')) continue;
    const size = without(runtime, names);
    console.log(`  without ${names.join(' + ').padEnd(60)} ${String(size).padStart(6)} B  ${size - base} B`);
  }
}
