// HTTP responses and headers as the core reads them (`Outcome.fromHttp`,
// `Outcome.fromHttpResponse`, `Outcome.fromFailure`; the header readers are
// lib/functions.js's): the arguments are checked here, the values read by the core.
import { _outcomeFromHttp, _outcomeFromResponse } from '../wasm/retryplan_js.js';
import { ms, oneOf, only, optional, refuse, text, whole, unreadable, MAX_TEXT } from './args.js';
import { decided } from './convert.js';
import { Held, handleOf } from './objects.js';
import { Policy } from './policy.js';
import { GUIDANCE_HEADERS } from './constants.js';
import { FAILURE_OUTCOMES, outcomeOf } from './generated/outcomes.js';
import { outcomeOfWords } from './records.js';
import { NAMES } from './wire.js';

/** A Retry-After reading's index in the core's names (`"strict"` or `"lenient"`), undefined for none (the core's default). */
export function readingOf(reading) {
  const name = optional(text, 'reading', reading);
  const index = name === undefined ? undefined : NAMES.readings.indexOf(name);
  if (index < 0) throw refuse('reading', 'reading', name);
  return index;
}

/** The value of header `name` through `lookup`: a function of the lower-case name, or an object with a `get` method (`Headers`, a `Map`). */
export function header(lookup, name) {
  let value;
  if (typeof lookup === 'function') value = lookup(name);
  else if (lookup !== null && typeof lookup === 'object') {
    if (typeof lookup.get !== 'function') throw refuse('headers', 'header_lookup');
    value = lookup.get(name);
  } else throw refuse('headers', 'headers', lookup);
  if (value == null) return null;
  if (typeof value !== 'string') throw refuse('headers', 'header_value', value);
  const problem = unreadable(value);
  if (problem !== undefined) throw refuse('headers', problem[0], problem[1], MAX_TEXT);
  return value;
}

/** The values of the guidance headers (`GUIDANCE_HEADERS`, or `names`, in that order; null when absent). */
export const guidance = (lookup, names = GUIDANCE_HEADERS) => names.map((name) => header(lookup, name));

/** Any whole number is a status a platform may give (negative, 0, 70000): checked only to be one, read by the core. */
export function anyStatus(status) {
  if (!Number.isSafeInteger(status)) throw refuse('status', typeof status === 'number' ? 'integer' : 'number', status);
  return status;
}

/** What `Outcome.fromHttpResponse`'s options may hold (`policy` is checked to be a Policy by its handle). */
const RESPONSE_OPTIONS = { reading: 'string', policy: true };

/**
 * An HTTP response as an outcome, read by the core as in every language: a
 * status outside 100..=599, or an interim 1xx but 101, is a malformed response; otherwise the guidance
 * headers through `headers`, HTTP-dates against `nowUnixMs`, Retry-After read
 * as `reading` says (`"strict"`, the default, or `"lenient"`). `options` is
 * the reading's name, or `{reading, policy}`: given a policy, the response is
 * read as its HTTP helpers read one (the core's `Outcome::read_http_response`:
 * the headers its `server_guidance.headers` names, Retry-After as its
 * `server_guidance.retry_after_reading` says); a reading and a policy together
 * are refused by the core.
 */
export function outcomeFromHttpResponse(status, headers, nowUnixMs, options) {
  const checked = anyStatus(status);
  const now = ms('nowUnixMs', nowUnixMs);
  const given = options !== null && typeof options === 'object' ? options : { reading: options };
  // A Policy (any object of the wasm's) has no option keys: never read as options with none given.
  if (given instanceof Held) throw refuse('options', 'options', given, 'policy');
  only(given, RESPONSE_OPTIONS, 'function');
  const index = readingOf(given.reading);
  const policy = handleOf('policy', given.policy, Policy, true);
  return outcomeOfWords(decided(_outcomeFromResponse(checked, guidance(headers), now, index, policy)));
}

/** An HTTP response as an outcome from its status and raw Retry-After / retry-after-ms values. */
export function outcomeFromHttp(status, retryAfter, retryAfterMs, nowUnixMs) {
  const checked = whole('status', status, 65535);
  const after = optional(text, 'retryAfter', retryAfter);
  const afterMs = optional(text, 'retryAfterMs', retryAfterMs);
  return outcomeOfWords(_outcomeFromHttp(checked, after, afterMs, ms('nowUnixMs', nowUnixMs)));
}

/** What a failure of the vocabulary (`"dns_lookup_failed"`, ...) means to the engine, as an outcome. */
export const outcomeOfFailure = (failure) => outcomeOf(...FAILURE_OUTCOMES[oneOf('failure', failure, NAMES.failures)]);
