// Benchmarks (not a test): `npm run bench` after ./build.sh (it installs the
// peer libraries below into bench/node_modules first: they need Node 22, so
// they are not devDependencies of the package).
// 1. One decision through wasm, in ns; new Operation / Driver + free.
// 2. The workload users have (issue 11): a fresh operation per call, its seed
//    and key drawn from the OS; an attempt that throws an ordinary
//    application error (mapped by the hook to a retryable failure), 10
//    attempts with zero delay; and the one-attempt happy path. run() against
//    p-retry 9 and cockatiel 4 doing the same, in interleaved rounds, as
//    ratios. Each round is measured in the process's CPU time (user +
//    system), and the best round of each counts: other processes on a shared
//    machine neither count nor, mostly, slow a round down. cockatiel sleeps a
//    timer tick between attempts, so its CPU time is its real cost, not its
//    latency (wall time, also shown).
// 3. The gzip -9 size of what a browser downloads (wasm + minified JS).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { rolldown } from 'rolldown';
import { ConstantBackoff, handleAll, pRetry, retry } from './bench/peers.mjs';
import { Driver, Operation, Policy, run } from 'retryplan';

const ns = (ms) => ms * 1e6;

/** CPU time (ms) per call of `body`, best of three runs. */
function time(_label, iterations, body) {
  for (let i = 0; i < Math.min(iterations, 10000); i += 1) body(i); // warm up
  let best = Infinity;
  for (let run = 0; run < 3; run += 1) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < iterations; i += 1) body(i);
    const { user, system } = process.cpuUsage(cpu);
    best = Math.min(best, (user + system) / 1000 / iterations);
  }
  return best;
}

// 1. Decisions.
const policy = Policy.fromConfig({
  maxAttempts: 100,
  totalTimeoutMs: 1e12,
  attemptTimeout: { fixedMs: 1e9 },
  backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  jitter: { kind: 'none' },
});
const awaiting = new Operation(policy, 0, { seed: 1 });
awaiting.poll(0);
const awaitNs = ns(time('await', 1_000_000, (i) => awaiting.poll(i)));

const unavailable = { type: 'http_status', status: 503 };
// onOutcome(503) -> start_attempt (zero delay): the decision every retry makes.
const outcomeMs = time('outcome', 2_000, (i) => {
  const operation = new Operation(policy, 0, { seed: i });
  let decision = operation.poll(0);
  for (let attempt = 1; attempt < 100; attempt += 1)
    decision = operation.onOutcome(attempt, decision.attempt, unavailable);
  operation.free();
});
const newMs = time('new', 200_000, (i) => new Operation(policy, 0, { seed: i }).free());
const outcomeNs = (ns(outcomeMs) - ns(newMs)) / 100; // 1 poll + 99 outcomes per operation
const osMs = time('os', 200_000, () => new Operation(policy, 0).free()); // seed and key from the OS
const driverMs = time('driver', 200_000, () => new Driver(policy, 0).free()); // seed and key from the OS

// 2. The workload users have.
const ATTEMPTS = 10;
const tenAttempts = Policy.fromConfig({
  maxAttempts: ATTEMPTS,
  totalTimeoutMs: 1e12,
  attemptTimeout: { fixedMs: 1e9 },
  backoff: { kind: 'constant', baseMs: 0, capMs: 0 },
  jitter: { kind: 'none' },
});
const RETRYABLE = { type: 'application', verdict: 'retryable' };
const runOptions = { outcomeOfError: () => RETRYABLE };
const pRetryOptions = { retries: ATTEMPTS - 1, minTimeout: 0, maxTimeout: 0, factor: 1, randomize: false };
const cockatielPolicy = retry(handleAll, { maxAttempts: ATTEMPTS - 1, backoff: new ConstantBackoff(0) });
const failing = () => {
  throw new Error('unavailable'); // an ordinary application error, made (and its stack captured) per attempt
};
const answer = () => 1;
const ignore = () => {};

const workloads = {
  failing: {
    'retryplan run()': [2000, () => run(tenAttempts, failing, runOptions).catch(ignore)],
    'p-retry 9': [2000, () => pRetry(failing, pRetryOptions).catch(ignore)],
    // cockatiel sleeps a timer tick between attempts, even for zero backoff.
    'cockatiel 4': [3, () => cockatielPolicy.execute(failing).catch(ignore)],
  },
  happy: {
    'retryplan run()': [20000, () => run(tenAttempts, answer)],
    'p-retry 9': [20000, () => pRetry(answer, pRetryOptions)],
    'cockatiel 4': [20000, () => cockatielPolicy.execute(answer)],
  },
};
const ROUNDS = 9;
const best = {};
const wall = {};
for (let round = 0; round <= ROUNDS; round += 1) {
  for (const [workload, rows] of Object.entries(workloads)) {
    for (const [label, [calls, body]] of Object.entries(rows)) {
      const started = performance.now();
      const cpu = process.cpuUsage();
      for (let i = 0; i < calls; i += 1) await body();
      const { user, system } = process.cpuUsage(cpu);
      if (round === 0) continue; // warms up
      const key = `${workload} ${label}`;
      best[key] = Math.min(best[key] ?? Infinity, (user + system) / calls);
      wall[key] = Math.min(wall[key] ?? Infinity, ((performance.now() - started) * 1000) / calls);
    }
  }
}

// 3. Size: what a browser downloads, the browser runtime (browser/: Node's
//    wasm/ is built for speed, see Cargo.toml's wasm-node). The JS is measured
//    minified, as a bundler ships it (rolldown, the bundler inside Vite): the
//    wasm-bindgen glue alone, and the whole browser entry (glue + run/retryFetch helpers).
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const wasmGz = gz(readFileSync(new URL('./browser/wasm/retryplan_js_bg.wasm', import.meta.url)));
async function minifiedGz(entry) {
  const bundle = await rolldown({ input: fileURLToPath(new URL(entry, import.meta.url)), logLevel: 'silent' });
  const { output } = await bundle.generate({ format: 'esm', minify: true });
  await bundle.close();
  return output.filter((chunk) => chunk.type === 'chunk').reduce((sum, chunk) => sum + gz(chunk.code), 0);
}
const glueGz = await minifiedGz('./browser/wasm/retryplan_js.js');
const entryGz = await minifiedGz('./browser/lib/browser.js');

const r = (x) => x.toFixed(2);
console.log(`node ${process.version}
one decision through wasm: ${outcomeNs.toFixed(0)} ns for onOutcome(503) -> start_attempt, ${awaitNs.toFixed(0)} ns for poll -> await_outcome
  (native core, README: 9-15 ns per step: the boundary costs about ${r(outcomeNs / 12)}x);
new Operation + free: ${ns(osMs).toFixed(0)} ns with the seed and key from the OS, ${ns(newMs).toFixed(0)} ns seeded;
  new Driver + free (seed and key from the OS): ${ns(driverMs).toFixed(0)} ns`);
for (const [workload, title, perAttempt] of [
  [
    'failing',
    `${ATTEMPTS} attempts, each throwing a new Error the hook calls retryable, zero delay, a fresh operation per call`,
    true,
  ],
  ['happy', 'the one-attempt happy path, a fresh operation per call', false],
]) {
  console.log(`${title} (CPU time, best of ${ROUNDS} interleaved rounds; wall time beside it):`);
  const per = perAttempt ? ATTEMPTS : 1;
  const us = (label) => best[`${workload} ${label}`] / per;
  for (const label of Object.keys(workloads[workload])) {
    const ratios = ['p-retry 9', 'cockatiel 4']
      .map((peer) => `${r(us('retryplan run()') / us(peer))}x ${peer}`)
      .join(', ');
    const row = `  ${label.padEnd(16)} ${us(label).toFixed(2).padStart(8)} us/${perAttempt ? 'attempt' : 'call'} (wall ${(wall[`${workload} ${label}`] / per).toFixed(2)})`;
    console.log(label === 'retryplan run()' ? `${row}  run() is ${ratios}` : row);
  }
}
console.log(`size of the browser runtime, gzip -9: wasm ${wasmGz} B + minified glue ${glueGz} B = ${wasmGz + glueGz} B (goal 30720 B: ${r((wasmGz + glueGz) / 30720)}x);
  with the helpers (the minified browser entry, ${entryGz} B): ${wasmGz + entryGz} B`);
