// Conversions used by the wasm glue and lib/: the error class, and the small shapes (attempt lists, request ids, attempts).
// Nothing here decides anything; it only shapes values the core computed.
// In the browser runtime (browser/lib/) `./messages.js` is lib/runtime/messages.js,
// which composes nothing: each error's words are then its code and field (codeWords).
import { bindingMessage, compose, fill, ruleOf } from './messages.js';
import { RetryplanError, codeWords } from './error.js';
import { COMPILED_FORM } from './generated/wire.js';

export { RetryplanError };

/** A core error's message as data (`[rule index, ...values]`), kept for lib/spelling.js to respell. */
export const MESSAGE = Symbol('retryplan.message');

/**
 * A core error (see src/lib.rs `js_error`): its message composed here, from the core's table (kept, to respell);
 * with no table (the browser runtime), its code and field, and `key`, a refusal's rule (see `bindingError`).
 */
export function coreError(code, field, message, key) {
  const error = new RetryplanError(
    code,
    compose(message) ?? (key ? `${codeWords(code, field)}: ${key}` : codeWords(code, field)),
  );
  if (field !== undefined) error.field = field;
  if (code === 'invalid_argument' || code === 'unsupported') error.rule = ruleOf(message) ?? key;
  else if (code === 'invalid_header' || code === 'invalid_request_header') error.header = field;
  error[MESSAGE] = message;
  return error;
}

/**
 * A refused compiled form (see src/lib.rs `compiled_error`): the core's code
 * and its message, the core's own text generated into COMPILED_FORM (the
 * wasm carries no formatting code); `config` names the kind expected.
 */
export function compiledFormError(message, expected, a, b) {
  const [code, template] = COMPILED_FORM.MESSAGES[message];
  const error = new RetryplanError(code, fill(template, [expected, a, b]) ?? codeWords(code, expected));
  error.blame = COMPILED_FORM.BLAME;
  error.config = expected;
  return error;
}

/** A typed field of a core error (`attempt`, `running`, `profile`, `known`), set as the core gave it. */
export function addDetail(error, key, value) {
  error[key] = value;
}

export function addViolation(error, field, message) {
  (error.violations ??= []).push({ field, message: compose(message) ?? codeWords(error.code, field) });
}

/** A warning of the core (`{field, message}`), its message composed here. */
export const warning = (field, message) => ({ field, message: compose(message) ?? field });

/**
 * A refusal of the binding's own (an argument, or with `config`, the name of the configuration being read, and
 * `configWords`, how the core's message names it, a value only JS has): see messages.js BINDING. Made as a core
 * error is, its message kept as data, so that lib/spelling.js respells both alike.
 */
export function bindingError(config, configWords, field, key, a, b) {
  const message = bindingMessage(configWords, field, key, a, b);
  const error = coreError(config ? 'invalid_config' : 'invalid_argument', field, message, key);
  if (config) error.config = config;
  return error;
}

/** The value of an internal wasm method that returns a result or a RetryplanError: the result, or the error thrown. */
export const decided = (value) => {
  if (value instanceof RetryplanError) throw value;
  return value;
};

/**
 * False when `text` holds a lone surrogate, which copying it into wasm would
 * silently replace with U+FFFD (the binding refuses it instead).
 */
const LONE_SURROGATE = /\p{Cs}/u;
export const isWellFormed =
  typeof String.prototype.isWellFormed === 'function'
    ? (text) => text.isWellFormed()
    : (text) => !LONE_SURROGATE.test(text);

// The helpers' record of a started attempt, and what the host loop reads.

const CONTROLLER = Symbol('retryplan.controller');
const REASON = Symbol('retryplan.reason');
const NOT_ABORTED = Symbol('retryplan.notAborted');

/**
 * A started attempt as the helpers hold it: the plan's fields (own,
 * enumerable), its operation's `idempotencyKey` (set by the helper), and its
 * own `signal`, an AbortSignal made on the first read (an AbortController
 * costs more than a decision; an abort before that read is replayed). run()
 * hands it to the attempt as its context.
 */
export class Attempt {
  constructor(attempt, timeoutMs, abortAtMs, requestId, remainingMs, hedge, sendIdempotencyKey) {
    this.attempt = attempt;
    this.hedge = hedge;
    this.timeoutMs = timeoutMs;
    this.abortAtMs = abortAtMs;
    this.requestId = requestId;
    this.idempotencyKey = undefined;
    this.remainingMs = remainingMs;
    this.sendIdempotencyKey = sendIdempotencyKey;
    this[CONTROLLER] = undefined;
    this[REASON] = NOT_ABORTED;
  }

  get signal() {
    if (this[CONTROLLER] === undefined) {
      this[CONTROLLER] = new AbortController();
      if (this[REASON] !== NOT_ABORTED) this[CONTROLLER].abort(this[REASON]);
    }
    return this[CONTROLLER].signal;
  }
}

/** Aborts an attempt's signal (now, or when it is first read). */
export function abortAttempt(entry, reason) {
  entry[REASON] = reason;
  entry[CONTROLLER]?.abort(reason);
}
