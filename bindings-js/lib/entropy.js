// Seeds and idempotency keys for the operations a caller does not seed, from
// crypto.getRandomValues in batches, as Node's crypto.randomUUID caches its
// random bytes: one call per operation costs more than all its decisions.
import { RetryplanError } from './convert.js';

/** Words per operation: two for the seed, four for the 128-bit key. */
const WORDS = 6;
/** Operations served by one call to crypto.getRandomValues (6 KB: about 11 ns an operation, 44 ns for 64). */
const BATCH = 256;

/**
 * The words, signed: each crosses into the wasm (a u32 there, the same bits)
 * as a small integer, where an unsigned word above 2^31 would be a boxed number.
 */
export const pool = new Int32Array(WORDS * BATCH);
let next = pool.length;

/** The index in `pool` of six random words no other operation gets. */
export function draw() {
  if (next === pool.length) {
    if (typeof globalThis.crypto?.getRandomValues !== 'function') {
      throw new RetryplanError(
        'entropy_unavailable',
        'entropy unavailable: crypto.getRandomValues is missing (pass a seed)',
      );
    }
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  const at = next;
  next += WORDS;
  return at;
}

/** The index of six random words, or -1 (no words: zeros) when `options` gives a seed. */
export const drawUnlessSeeded = (options) =>
  options != null && typeof options === 'object' && options.seed != null ? -1 : draw();
