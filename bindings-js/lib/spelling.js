// Where camelCase meets the core's snake_case: a configuration object's keys
// (and a decision's, tools' `Stats.record`) are read as snake_case
// (src/data.rs), and the errors of the core and of that reader name them so;
// such an error is respelt here in the object's own keys. (Not in
// convert.js: the wasm glue never needs it.)
import { MESSAGE, RetryplanError } from './convert.js';
import { compose, rule } from './messages.js';

const CORE_MESSAGE = Symbol.for('retryplan.coreMessage');
const INVALID_CONFIG = rule('invalid_config');
const INVALID_ARGUMENT = rule('invalid_argument');
const UNKNOWN_FIELD = rule('unknown_field');
const DID_YOU_MEAN = rule('did_you_mean');
const MISSING_FIELD = rule('missing_field');
/** `max_attempts` -> `maxAttempts`, as the core's `value::camel_case` spells a name as a JS key. */
const camelCase = (name) =>
  name.replace(/_+([^_]?)/g, (_, next) => (next >= 'a' && next <= 'z' ? next.toUpperCase() : next));
/** `maxAttempts` -> `max_attempts`, as the binding reads a key (src/data.rs `snake_case`). */
const snakeCase = (key) => key.replace(/[A-Z]/g, (upper) => `_${upper.toLowerCase()}`);

/**
 * The keys of `path` (`retry_on.error_codes[3]`, as the core names a field)
 * as `config` spells them, in plain objects and Maps; a key the object lacks
 * (a missing field) as the nearest keys that tell are spelt (snake_case or
 * camelCase; camelCase when none tells).
 */
function writtenPath(config, path) {
  let at = config;
  let snake = false;
  return path.replace(/\[(\d+)\]|[^.[]+/g, (segment, index) => {
    if (index !== undefined) {
      at = Array.isArray(at) ? at[Number(index)] : undefined;
      return segment;
    }
    if (at === null || typeof at !== 'object') return segment;
    // A Map's string keys (one that is not a string is refused, the Map named: it names no field).
    const map = at instanceof Map;
    const keys = map ? [...at.keys()].filter((own) => typeof own === 'string') : Object.keys(at);
    // One-word keys (`kind`) are spelt alike both ways: the spelling is the nearest telling one's.
    if (keys.some((own) => own.includes('_'))) snake = true;
    else if (keys.some((own) => own !== own.toLowerCase())) snake = false;
    const key = keys.find((own) => snakeCase(own) === segment);
    at = key === undefined ? undefined : map ? at.get(key) : at[key];
    return key ?? (snake ? segment : camelCase(segment));
  });
}

/**
 * The error an object (`value`, camelCase keys) got, its message in the
 * object's own spelling: the field it names as written (a missing field as
 * its neighbours are spelt), and an unknown field's suggestion and the fields
 * expected in camelCase (`maxAttempt`: did you mean `maxAttempts`?), unless
 * the key was written in snake_case. Two kinds of error: a configuration
 * object's (`invalid_config`: the core's, or the binding's refusal of what is
 * not plain data, `found a bigint`) and a decision object's
 * (`invalid_argument`, tools' `Stats.record`: its fields are top-level keys,
 * and an unknown one is blamed on the object as a whole, `decision`).
 * `.field` stays the snake_case path every language gives.
 */
export function spelledAsWritten(error, value) {
  const message = error[MESSAGE];
  const config = Array.isArray(message) && message[0] === INVALID_CONFIG;
  if (!config && !(Array.isArray(message) && message[0] === INVALID_ARGUMENT)) return error;
  // `[invalid_config, words, path, reason]` or `[invalid_argument, path, reason]`.
  const [path, inner] = message.slice(-2);
  const written = writtenPath(value, path);
  let reason = inner;
  if (inner[0] === MISSING_FIELD) reason = [MISSING_FIELD, written.slice(written.lastIndexOf('.') + 1)];
  if (inner[0] === UNKNOWN_FIELD) {
    const [unknown, key, suggestion, names] = inner;
    const typedPath = config ? written : writtenPath(value, key);
    const typed = typedPath.slice(typedPath.lastIndexOf('.') + 1);
    const spell = typed.includes('_') ? (name) => name : camelCase;
    reason = [unknown, typed, suggestion === '' ? '' : [DID_YOU_MEAN, spell(suggestion[1])], names.map(spell)];
  }
  // The core's own words (snake_case), as every language gives them: the conformance runner compares those.
  error[CORE_MESSAGE] = error.message;
  error.message = compose([...message.slice(0, -2), written, reason]);
  if (!config) error.rule = compose(reason);
  return error;
}

/** The value of a wasm function reading configuration object `config`, or its error thrown as `config` spells it. */
export const decidedConfig = (value, config) => {
  if (value instanceof RetryplanError) throw spelledAsWritten(value, config);
  return value;
};
