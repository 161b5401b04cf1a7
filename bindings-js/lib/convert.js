// Conversions used by the wasm glue: the error class and plain-object factories.
// Nothing here decides anything; it only shapes values the core computed.

/** Misuse of the engine (never a failed attempt: those are decisions). */
export class RetryplanError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'RetryplanError';
    /** Stable, language-neutral code: the core's `Error::code()`. */
    this.code = code;
  }
}

export const makeError = (code, message) => new RetryplanError(code, message);

export function addViolation(error, field, message) {
  (error.violations ??= []).push({ field, message });
}

export function setErrorField(error, field) {
  error.field = field;
}

// Decision factories, one per variant, fields in the core's order.
// A request id arrives as its two 32-bit halves and is spelled as the core's
// Display does: 16 lowercase hex digits. `abortAttempts` is always an array
// (empty when nothing is to be aborted), built by `attemptList`.
// The digits go through String.fromCharCode: `half.toString(16)` takes V8's slow
// path for a half >= 2^31 (not a small integer), about 0.4 us per id.
const DIGITS = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const hex16 = (h, l) =>
  String.fromCharCode(
    DIGITS[h >>> 28], DIGITS[(h >>> 24) & 15], DIGITS[(h >>> 20) & 15], DIGITS[(h >>> 16) & 15],
    DIGITS[(h >>> 12) & 15], DIGITS[(h >>> 8) & 15], DIGITS[(h >>> 4) & 15], DIGITS[h & 15],
    DIGITS[l >>> 28], DIGITS[(l >>> 24) & 15], DIGITS[(l >>> 20) & 15], DIGITS[(l >>> 16) & 15],
    DIGITS[(l >>> 12) & 15], DIGITS[(l >>> 8) & 15], DIGITS[(l >>> 4) & 15], DIGITS[l & 15],
  );
export const startAttempt = (attempt, timeoutMs, abortAtMs, idHigh, idLow, remainingBudgetMs, hedge) => ({
  type: 'start_attempt', attempt, timeoutMs, abortAtMs, requestId: hex16(idHigh, idLow), remainingBudgetMs, hedge,
});
export const wait = (retry, delayMs, untilMs, serverDelayMs, remainingBudgetMs) =>
  serverDelayMs === undefined
    ? { type: 'wait', retry, delayMs, untilMs, remainingBudgetMs }
    : { type: 'wait', retry, delayMs, untilMs, serverDelayMs, remainingBudgetMs };
export const awaitOutcome = (inFlight, untilMs) => ({ type: 'await_outcome', inFlight, untilMs });
export const succeeded = (attempts, winner, abortAttempts) => ({ type: 'succeeded', attempts, winner, abortAttempts });
export const gaveUp = (reason, attempts, remainingBudgetMs, refusedDelayMs, abortAttempts) =>
  refusedDelayMs === undefined
    ? { type: 'gave_up', reason, attempts, remainingBudgetMs, abortAttempts }
    : { type: 'gave_up', reason, attempts, remainingBudgetMs, refusedDelayMs, abortAttempts };
export const reconcile = (attempts, remainingBudgetMs, abortAttempts) => ({
  type: 'reconcile', attempts, remainingBudgetMs, abortAttempts,
});
export const restart = (attempts, deadlineMs, remainingBudgetMs, abortAttempts) => ({
  type: 'restart', attempts, deadlineMs, remainingBudgetMs, abortAttempts,
});

/** The attempt numbers of a set given as four 32-bit words (bit 0 of the first = attempt 1), ascending. */
export function attemptList(w0, w1, w2, w3) {
  const list = [];
  if ((w0 | w1 | w2 | w3) === 0) return list;
  [w0, w1, w2, w3].forEach((word, index) => {
    for (let bits = word | 0; bits !== 0; bits &= bits - 1) list.push(index * 32 + 32 - Math.clz32(bits & -bits));
  });
  return list;
}

export const httpOutcome = (status, retryAfterMs) =>
  retryAfterMs === undefined ? { type: 'http_status', status } : { type: 'http_status', status, retryAfterMs };
