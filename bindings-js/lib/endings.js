// The typed endings the helpers throw when an operation ends without a value
// to return: one class per ending, each carrying what decided it. Their
// message is the core's whole text (`Ending::message`: the ending's words,
// and the hint naming `outcomeOfError` after an error nothing classified, the
// same in every language): the helper hands it over as message data
// (`_endingMessage`), composed by lib/messages.js from the core's table.

// Whether the endings can be made without a stack trace: capturing one costs
// more than every decision of a ten-attempt operation, and would only show
// retryplan's own frames (the attempt's error, their `cause`, has its stack).
// Engines other than V8, and frozen intrinsics, keep their default.
const limit = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit');
const withoutStack = limit?.writable === true;

// Each class spells its own name (`name`, a field, as `this.name = ...` made
// it): a minifier renames classes, and a bundler that inlines one into
// ENDINGS names it by its key (`gave_up`), so `new.target.name` is not the
// class's name in a page. A subclass of one of them keeps its parent's name
// unless it sets its own, as a subclass of `TypeError` does.

/**
 * An operation that ended without a result to return. `message` is the core's text for the ending; `cause`
 * the error, or `lastValue` the value, the driver raises it with (`Ending::result`), if any.
 */
export class OperationFailedError extends Error {
  name = 'OperationFailedError';

  constructor(decision, idempotencyKey, lastOutcome, cause, message, lastValue) {
    const stackTraceLimit = Error.stackTraceLimit;
    if (withoutStack) Error.stackTraceLimit = 0;
    try {
      super(message, cause === undefined ? undefined : { cause });
    } finally {
      if (withoutStack) Error.stackTraceLimit = stackTraceLimit;
    }
    /** The ending decision (`gave_up`, `reconcile` or `restart`). */
    this.decision = decision;
    /** Attempts started, hedges included. */
    this.attempts = decision.attempts;
    this.idempotencyKey = idempotencyKey;
    /** How the last attempt the core took into account ended, if one did. */
    this.lastOutcome = lastOutcome;
    /** The value the last attempt returned, when the driver raises the ending with it (run()'s `outcomeOfResult` called it a failure). */
    this.lastValue = lastValue;
  }
}

/** The operation gave up: `reason` says why (attempts_exhausted, deadline_insufficient, ...). */
export class GaveUpError extends OperationFailedError {
  name = 'GaveUpError';

  constructor(decision, idempotencyKey, lastOutcome, cause, message, lastValue) {
    super(decision, idempotencyKey, lastOutcome, cause, message, lastValue);
    this.reason = decision.reason;
  }
}

/** An unsafe write may have happened: look it up by the idempotency key, never repeat it blindly. */
export class ReconcileRequiredError extends OperationFailedError {
  name = 'ReconcileRequiredError';
}

/** A conflict: re-read, recompute, and start a new operation before `deadlineMs`. */
export class RestartRequiredError extends OperationFailedError {
  name = 'RestartRequiredError';

  constructor(decision, idempotencyKey, lastOutcome, cause, message, lastValue) {
    super(decision, idempotencyKey, lastOutcome, cause, message, lastValue);
    this.deadlineMs = decision.deadlineMs;
  }
}

/** The typed ending's class for an ending decision other than `succeeded`. */
export const ENDINGS = { gave_up: GaveUpError, reconcile: ReconcileRequiredError, restart: RestartRequiredError };
