// The arguments of the public API, checked before they cross into the wasm:
// nothing is coerced (a time is a JS number, never `null`, `'0'` or `true`),
// and each refusal is a RetryplanError (`invalid_argument`) naming the
// argument, its words those of messages.js (BINDING). Strings are bounded and
// must be Unicode text (a lone surrogate would be silently replaced on the
// way in). The wasm takes what passes as it is.
import { bindingError, isWellFormed } from './convert.js';
import { COMPILED_FORM } from './generated/wire.js';

const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** The longest string accepted, in UTF-16 code units (1 MiB of ASCII). */
export const MAX_TEXT = 2 ** 20;

export const refuse = (name, key, a, b) => bindingError(undefined, undefined, name, key, a, b);

/** A JS number, never coerced. */
export function number(name, value) {
  if (typeof value !== 'number') throw refuse(name, 'number', value);
  return value;
}

/** Whole milliseconds: a finite number in 0..=2^53-1, floored. */
export function ms(name, value) {
  if (typeof value !== 'number') throw refuse(name, 'number', value);
  if (!(value >= 0 && value <= MAX_SAFE)) throw refuse(name, 'ms', value);
  return Math.floor(value);
}

/** A whole number in `0..=max` (never floored). */
export function whole(name, value, max) {
  if (typeof value !== 'number') throw refuse(name, 'number', value);
  if (!(Number.isInteger(value) && value >= 0 && value <= max)) throw refuse(name, 'whole', value, max);
  return value;
}

/** An attempt number (a whole number that fits in 32 bits). */
export const attempt = (value) => whole('attempt', value, 2 ** 32 - 1);

/** Why `value` (a string) cannot cross as text, if it cannot: `[key, value]` of its refusal. */
export const unreadable = (value) =>
  value.length > MAX_TEXT ? ['long', value.length] : isWellFormed(value) ? undefined : ['surrogate', undefined];

/** A string of Unicode text of at most MAX_TEXT units. */
export function text(name, value) {
  if (typeof value !== 'string') throw refuse(name, 'string', value);
  const problem = unreadable(value);
  if (problem !== undefined) throw refuse(name, problem[0], problem[1], MAX_TEXT);
  return value;
}

/**
 * An optional value: `undefined` and `null` are absent (undefined), anything
 * else is read by `read` (with `limit`, its third argument when it has one;
 * no rest parameter: that would make an array on every call, absent or not).
 */
export const optional = (read, name, value, limit) => (value == null ? undefined : read(name, value, limit));

/** An optional flag. */
export function flag(name, value) {
  if (value == null) return undefined;
  if (typeof value !== 'boolean') throw refuse(name, 'boolean', value);
  return value;
}

/**
 * The options of a list written as one string, space-separated (split once),
 * for `only`: a prototype-less object mapping each name to what its value
 * must be (looked up faster than a Set's `has`, measured on run()'s path).
 * `name:type` must be of that `typeof` (`now:function`), `name:signal` an
 * AbortSignal; a bare `name` maps to `true`: anything, or checked where it
 * is read (a Policy, a time, a flag).
 */
export const names = (list) => {
  const known = Object.create(null);
  for (const entry of list.split(' ')) {
    const [name, type = true] = entry.split(':');
    known[name] = type;
  }
  return known;
};

/**
 * Refuses the first enumerable key of `options` that is not one of `known`
 * (see `names`), or whose value is not what it must be: a misspelt option is
 * an error, never silently ignored, and one of the wrong type fails here,
 * naming it, not in the middle of a run. A key given as `undefined` counts;
 * an inherited one is checked for its type only. `null` and `undefined` are
 * "not given". An AbortSignal is checked by its shape (`aborted` and
 * `addEventListener`), so that one from another realm passes. No allocation
 * (`for...in`, not `Object.keys`); `what` names the function the options are
 * for in the words ("helper" by default).
 */
export function only(options, known, what) {
  for (const key in options) {
    const type = known[key];
    if (type === undefined) {
      if (Object.hasOwn(options, key)) throw refuse(key, 'not_an_option', what);
    } else if (type !== true) {
      const value = options[key];
      if (
        value != null &&
        (type === 'signal'
          ? typeof value.aborted !== 'boolean' || typeof value.addEventListener !== 'function'
          : typeof value !== type)
      )
        throw refuse(key, type, value);
    }
  }
}

/** The options object of a constructor: undefined or null for none, else an object (`first` names the field its error reports). */
export function options(value, first) {
  if (value != null && typeof value !== 'object') throw refuse('options', 'options', value, first);
  return value ?? undefined;
}

/**
 * A compiled form: a Uint8Array (a Buffer too), or an ArrayBuffer read as
 * one. Its length is the core's to judge: a form longer than the core reads
 * (COMPILED_FORM.MAX_LEN) is handed over as its first MAX_LEN + 1 bytes,
 * which the core refuses as it refuses the whole form, without copying the
 * rest into wasm memory.
 */
export function compiledForm(name, value) {
  const bytes = value instanceof ArrayBuffer ? new Uint8Array(value) : value;
  if (!(bytes instanceof Uint8Array)) throw refuse(name, 'compiled', value);
  return bytes.length > COMPILED_FORM.MAX_LEN ? bytes.subarray(0, COMPILED_FORM.MAX_LEN + 1) : bytes;
}

/** One of `names` (`name` is the argument), as its index. */
export function oneOf(name, value, names) {
  const index = names.indexOf(text(name, value));
  if (index < 0) throw refuse(name, 'name', value, names);
  return index;
}

/** The monotonic clock in whole milliseconds (as `ms` reads a time: floored). */
const monotonicNow = () => Math.floor(performance.now());

/**
 * A helper's clock: `options.clock` (or its old name, `now`), each reading
 * checked as a time and named as the caller gave it, or the monotonic clock;
 * both given is refused, naming `clock`.
 */
export function clockOf(options) {
  const clock = options?.clock;
  const now = options?.now;
  if (clock != null && now != null) throw refuse('clock', 'old_name', 'now');
  const read = clock ?? now;
  if (read == null) return monotonicNow;
  const name = clock != null ? 'clock' : 'now';
  return () => ms(name, read());
}
