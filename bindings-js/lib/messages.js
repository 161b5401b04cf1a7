// Messages composed outside the wasm. The core's errors cross as data (a
// rule's index and the values it names, see src/lib.rs `message_js`), and
// this composes their text from the core's own table (lib/rules.js, written by
// core/mirrors from the core's rules: js_rules.rs), following the rules of
// retryplan::message byte for byte: the wasm carries no message text and no
// formatting code. The binding's own refusals (an argument of the wrong type)
// are BINDING below: a key and the value refused.
import { RULES } from './rules.js';

/** The index of a rule of the core's table, by its id. */
export const rule = (id) => RULES.findIndex(([known]) => known === id);
const INVALID_ARGUMENT = rule('invalid_argument');
const UNSUPPORTED = rule('unsupported');
const INVALID_CONFIG = rule('invalid_config');
const INVALID_CONFIG_WHOLE = rule('invalid_config_whole');
const TEXT = rule('text');

/** A message's text: `[rule index, ...values]`. */
export const compose = ([index, ...values]) => fill(RULES[index]?.[1] ?? '{0}', values);

/** The rule an `invalid_argument` or `unsupported` message says its field breaks (its text after the name), else undefined. */
export const ruleOf = (message) =>
  message?.[0] === INVALID_ARGUMENT || message?.[0] === UNSUPPORTED ? write(message[2], false) : undefined;

const PLACEHOLDER = /\{\{|\}\}|\{(\d+)(:q)?\}/g;
/** A template of the core's (`{0}`, `{1:q}`, `{{`) with its values. */
export const fill = (template, values) =>
  template.replace(PLACEHOLDER, (match, index, quoted) => {
    if (match === '{{') return '{';
    if (match === '}}') return '}';
    const value = values[Number(index)];
    return value === undefined ? match : write(value, quoted !== undefined);
  });

/** One value, as retryplan::message writes each kind. */
function write(value, quoted) {
  if (typeof value === 'string') return quoted ? quote(value) : value;
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'number') return decimal(value);
  if (typeof value[0] === 'number') return compose(value); // a message
  if (value.every((item) => typeof item === 'string')) return value.map((name) => `\`${name}\``).join(', '); // names
  return value.map(compose).join('; '); // messages
}

/** Caller text in double quotes: `"` and `\` escaped, control and invisible formatting characters as `\u{hex}`. */
const ESCAPED = /\p{Cc}|[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
export const quote = (text) =>
  `"${Array.from(text, (c) => (c === '"' || c === '\\' ? `\\${c}` : ESCAPED.test(c) ? `\\u{${c.codePointAt(0).toString(16)}}` : c)).join('')}"`;

/**
 * A float as retryplan writes it (units::Decimal): its digits up to 15
 * significant ones and at most 12 decimals, rounded, no exponent; `NaN`,
 * `over 10^19`, `below -10^19`, or `a number closer to 0 than 10^-12`.
 */
export function decimal(value) {
  if (Number.isNaN(value)) return 'NaN';
  const magnitude = Math.abs(value);
  if (magnitude >= 1e19) return value > 0 ? 'over 10^19' : 'below -10^19';
  const whole = BigInt(Math.trunc(magnitude));
  const decimals = Math.min(Math.max(15 - String(whole).length, 0), 12);
  const scale = 10n ** BigInt(decimals);
  const scaled = decimals === 0 ? whole : BigInt(Math.round(magnitude * Number(scale)));
  if (scaled === 0n && magnitude > 0) return 'a number closer to 0 than 10^-12';
  let fraction = scaled % scale;
  let text = `${value < 0 && scaled !== 0n ? '-' : ''}${scaled / scale}`;
  if (fraction !== 0n) {
    let digits = decimals;
    for (; fraction % 10n === 0n; digits -= 1) fraction /= 10n;
    text += `.${String(fraction).padStart(digits, '0')}`;
  }
  return text;
}

/** What kind of JS value `value` is, in words (never its contents). */
const kindOf = (value) => {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  const type = typeof value;
  if (type === 'object') return 'an object';
  return `a ${type === 'bigint' ? 'bigint' : type}`;
};

/** A refused number, in words. */
const describe = (value) => {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity || value === -Infinity) return String(value);
  if (value < 0) return 'a negative number';
  if (!Number.isInteger(value)) return 'a fraction';
  if (value > Number.MAX_SAFE_INTEGER) return 'a number above 2^53-1';
  return String(value);
};

/** The binding's own refusals (src/*.rs names them by key), each the values it was given. */
export const BINDING = {
  number: (value) => `must be a number, got ${kindOf(value)}`,
  instance: (type) => `must be ${/^[AEIOU]/.test(type) ? 'an' : 'a'} ${type}`,
  ms: (value) => `must be a finite number of milliseconds in 0..=2^53-1, got ${describe(value)}`,
  whole: (value, max) => `must be a whole number in 0..=${max}, got ${describe(value)}`,
  integer: (value) =>
    `must be a whole number in -(2^53-1)..=2^53-1, got ${typeof value === 'number' ? String(value) : kindOf(value)}`,
  boolean: (value) => `must be a boolean, got ${kindOf(value)}`,
  string: (value) => `must be a string, got ${kindOf(value)}`,
  long: (length, max) => `must be at most ${max} characters long, got ${length}`,
  surrogate: () => 'holds a lone surrogate (UTF-16 that is not Unicode text)',
  options: (value, key) => `expected an object with \`${key}\`, got ${kindOf(value)}`,
  name: (name, names) => `unknown name "${name}" (one of ${names.join(', ')})`,
  grpc_code: (name) => `unknown gRPC code "${name}" (use the snake_case name, e.g. "unavailable")`,
  pushback: () => 'must be "do_not_retry" or {retryAfterMs: number}',
  required: () => 'is required',
  old_name: (old) => `is given with its old name \`${old}\`; keep \`clock\` only`,
  not_an_option: (what = 'helper') => `is not an option of this ${what}`,
  spelt: (what, field) => `is not read: ${what}'s field is \`${field}\``,
  function: (value) => `must be a function, got ${kindOf(value)}`,
  response: (value) => `must resolve to a Response (a numeric \`status\` and \`headers\`), got ${kindOf(value)}`,
  signal: (value) => `must be an AbortSignal (with \`aborted\` and \`addEventListener\`), got ${kindOf(value)}`,
  outcome_type: (type) =>
    `unknown outcome type "${type}" (success, http_status, grpc_status, transport, application, cancelled)`,
  control: () => 'the dependency has no such control',
  freed: () => 'was freed (or is in use by a call that is still running)',
  objects: (max) => `at most ${max} objects may be alive at once`,
  method_needed: () => 'says whether a request may be repeated: give its `method`',
  token_needed: () => 'says what a token holds: give its `token`',
  header_lookup: () => 'must be a function of the header name, or have a `get` method (Headers)',
  headers: (value) => `must be a Headers object or a function, got ${kindOf(value)}`,
  reading: (name) => `must be "strict" or "lenient", got ${quote(name)}`,
  keepalive: (bytes) =>
    `must be at most 65536 bytes with \`keepalive\` (a page's fetch refuses a larger one unsent), got ${bytes} bytes`,
  header_value: (value) => `a header value must be a string, null or undefined, got ${kindOf(value)}`,
  // Reading a configuration (`invalid_config`).
  values: (max) => `holds more than ${max} values in all`,
  text_in_all: (max) => `holds more than ${max} characters of text in all`,
  cycle: () => 'refers back to an object that contains it (a cycle)',
  depth: (max) => `nested more than ${max} levels deep`,
  plain: (value) =>
    `expected plain data (null, a boolean, number, string, array or object), found ${
      value === undefined
        ? 'undefined'
        : typeof value === 'object'
          ? 'an object that is not plain data (a class instance or a Date)'
          : `a ${typeof value}`
    }`,
  map_keys: () => "a Map's keys must be strings",
  // A compiled form.
  compiled: (value) => `must be a compiled form (a Uint8Array or an ArrayBuffer), got ${kindOf(value)}`,
  // The tools.
  json: (message) => message,
  base64: () => 'is not base64 text (RFC 4648: A-Z a-z 0-9 + / with = padding, as `retryplan compile` prints it)',
  nanoseconds: (value) => `must be a bigint in 0..2^64 (nanoseconds), got ${kindOf(value)}`,
};

/**
 * The message of a refusal of the binding's own, as data in the form the
 * core's errors cross in (`[rule index, ...values]`, for `compose`, and for
 * lib/spelling.js to respell as a core error's): `invalid argument `field`:
 * ...`, or with `configWords` (how the core's message names the
 * configuration) `invalid dependency configuration at `field`: ...` (of the
 * whole configuration, no field: `invalid dependency configuration: ...`, as
 * the core's `Error::message` chooses), through the core's own templates for
 * the first part.
 */
export const bindingMessage = (configWords, field, key, a, b) => {
  const words = [TEXT, BINDING[key]?.(a, b) ?? key];
  if (!configWords) return [INVALID_ARGUMENT, field, words];
  return field === '' ? [INVALID_CONFIG_WHOLE, configWords, words] : [INVALID_CONFIG, configWords, field, words];
};
