// Benchmarks (not a test): `node bench.mjs` after ./build.sh.
// 1. One decision through wasm, in ns.
// 2. The retry loop's own overhead per attempt (no fetch, zero delay), against
//    p-retry and cockatiel measured in the same run, as ratios.
// 3. The gzip -9 size of what a browser downloads (wasm + minified JS).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import pRetry from 'p-retry';
import { rolldown } from 'rolldown';
import { ConstantBackoff, handleAll, retry } from 'cockatiel';
import { Operation, Policy, run } from 'retryplan';

const ns = (ms) => ms * 1e6;

function time(label, iterations, body) {
  for (let i = 0; i < Math.min(iterations, 10000); i += 1) body(i); // warm up
  const started = performance.now();
  for (let i = 0; i < iterations; i += 1) body(i);
  return (performance.now() - started) / iterations;
}

// 1. Decisions.
const policy = Policy.fromConfig({
  maxAttempts: 100,
  totalBudgetMs: 1e12,
  attemptTimeout: { fixedMs: 1e9 },
  backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  jitter: { kind: 'none' },
});
const inFlight = new Operation(policy, 0, { seed: 1 });
inFlight.poll(0);
const awaitNs = ns(time('await', 1_000_000, (i) => inFlight.poll(i)));

const unavailable = { type: 'http_status', status: 503 };
// onOutcome(503) -> start_attempt (zero delay): the decision every retry makes.
const outcomeMs = time('outcome', 2_000, (i) => {
  const operation = new Operation(policy, 0, { seed: i });
  let decision = operation.poll(0);
  for (let attempt = 1; attempt < 100; attempt += 1) decision = operation.onOutcome(attempt, decision.attempt, unavailable);
  operation.free();
});
const newMs = time('new', 200_000, (i) => new Operation(policy, 0, { seed: i }).free());
const outcomeNs = (ns(outcomeMs) - ns(newMs)) / 100; // 1 poll + 99 outcomes per operation

// 2. Loop overhead per attempt: every attempt fails at once, zero delay, 100 attempts.
const failure = new Error('unavailable'); // made once: no stack capture per attempt
async function perAttempt(label, operations, body) {
  let calls = 0;
  const count = () => {
    calls += 1;
  };
  await body(count); // warm up
  calls = 0;
  const started = performance.now();
  for (let i = 0; i < operations; i += 1) await body(count);
  return { label, usPerAttempt: ((performance.now() - started) * 1000) / calls, attemptsPerOperation: calls / operations };
}
const ours = await perAttempt('retryplan run()', 300, (count) =>
  run(
    policy,
    () => {
      count();
      return { outcome: unavailable };
    },
    { seed: 1 },
  ),
);
const pretry = await perAttempt('p-retry 9', 300, (count) =>
  pRetry(
    () => {
      count();
      throw failure;
    },
    { retries: 99, minTimeout: 0, maxTimeout: 0, factor: 1, randomize: false },
  ).catch(() => {}),
);
const cockatielPolicy = retry(handleAll, { maxAttempts: 99, backoff: new ConstantBackoff(0) });
const cockatiel = await perAttempt('cockatiel 4', 3, (count) =>
  cockatielPolicy
    .execute(() => {
      count();
      throw failure;
    })
    .catch(() => {}),
);

// The same with async attempts (a promise per attempt, as real I/O gives), after the rows above.
const oursAsync = await perAttempt('retryplan run()', 300, (count) =>
  run(
    policy,
    async () => {
      count();
      return { outcome: unavailable };
    },
    { seed: 1 },
  ),
);
const pretryAsync = await perAttempt('p-retry 9', 300, (count) =>
  pRetry(
    async () => {
      count();
      throw failure;
    },
    { retries: 99, minTimeout: 0, maxTimeout: 0, factor: 1, randomize: false },
  ).catch(() => {}),
);

// 3. Size: what a browser downloads. The JS is measured minified, as a bundler
//    ships it (rolldown, the bundler inside Vite): the wasm-bindgen glue alone,
//    and the whole browser entry (glue + run/retryFetch helpers).
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const wasmGz = gz(readFileSync(new URL('./wasm/retryplan_js_bg.wasm', import.meta.url)));
async function minifiedGz(entry) {
  const bundle = await rolldown({ input: fileURLToPath(new URL(entry, import.meta.url)), logLevel: 'silent' });
  const { output } = await bundle.generate({ format: 'esm', minify: true });
  await bundle.close();
  return output.filter((chunk) => chunk.type === 'chunk').reduce((sum, chunk) => sum + gz(chunk.code), 0);
}
const glueGz = await minifiedGz('./wasm/retryplan_js.js');
const entryGz = await minifiedGz('./lib/browser.js');

const r = (x) => x.toFixed(2);
console.log(`node ${process.version}
one decision through wasm: ${outcomeNs.toFixed(0)} ns for onOutcome(503) -> start_attempt, ${awaitNs.toFixed(0)} ns for poll -> await_outcome
  (native core, README: 9-15 ns per step: the boundary costs about ${r(outcomeNs / 12)}x); new Operation + free: ${ns(newMs).toFixed(0)} ns
loop overhead per attempt (no I/O, zero delay, ~100 attempts per operation):`);
const rows = (list, base) => {
  for (const row of list) {
    console.log(`  ${row.label.padEnd(16)} ${row.usPerAttempt.toFixed(2).padStart(9)} us/attempt  (${r(row.usPerAttempt / base.usPerAttempt)}x retryplan; ${row.attemptsPerOperation} attempts/op)`);
  }
};
rows([ours, pretry, cockatiel], ours);
console.log('  the same with async attempts (measured after the rows above):');
rows([oursAsync, pretryAsync], oursAsync);
console.log(`size, gzip -9: wasm ${wasmGz} B + minified glue ${glueGz} B = ${wasmGz + glueGz} B (goal 30720 B: ${r((wasmGz + glueGz) / 30720)}x);
  with the helpers (the minified browser entry, ${entryGz} B): ${wasmGz + entryGz} B`);
