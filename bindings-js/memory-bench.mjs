// A benchmark (not a test) of forgotten objects (issue 29 item 2): a million
// operations, each on a dependency, polled once and dropped without free(),
// in a loop that runs straight through ("sync": finalizers are tasks, so none
// can run before it ends) and in one that lets the event loop turn every
// thousand ("async", as a server does between requests). Reports the process's
// resident memory and the wasm memory (which never shrinks) after the loop
// and after five forced collections. Each mode runs in its own process.
// Run after ./build.sh: `node memory-bench.mjs` (spawns `node --expose-gc`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const COUNT = 1_000_000;
const mode = process.argv[2];

if (mode === undefined) {
  for (const each of ['sync', 'async']) {
    const child = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), each], {
      stdio: 'inherit',
    });
    if (child.status !== 0) process.exit(child.status ?? 1);
  }
} else {
  const { Dependency, Operation, Policy } = await import('retryplan');
  const { _wireMemory } = await import('./wasm/retryplan_js.js');
  const mb = (bytes) => `${Math.round(bytes / 1048576)} MB`;
  const memory = () => `rss ${mb(process.memoryUsage().rss)}, wasm ${mb(_wireMemory()[0].buffer.byteLength)}`;
  const dependency = Dependency.fromConfig({ retrySlots: 4 });
  const policy = Policy.fromConfig({
    maxAttempts: 3,
    totalTimeoutMs: 100000,
    attemptTimeout: { fixedMs: 1000 },
    backoff: { kind: 'constant', baseMs: 10, capMs: 10 },
    jitter: { kind: 'none' },
  });
  const before = memory();
  const started = performance.now();
  for (let i = 0; i < COUNT; i += 1) {
    new Operation(policy, 0, { dependency }).poll(0);
    if (mode === 'async' && i % 1000 === 999) await new Promise((resolve) => setImmediate(resolve));
  }
  const elapsed = Math.round(performance.now() - started);
  const after = memory();
  for (let i = 0; i < 5; i += 1) {
    globalThis.gc();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  console.log(
    `${mode}: ${COUNT} operations dropped in ${elapsed} ms; before: ${before}; after: ${after}; after 5 collections: ${memory()}`,
  );
}
