// `Driver`: the host loop decided by the core (actions out, results in):
// `new Driver(policy, nowMs, {seed?, idempotencyKey?, deadlineMs?, dependency?, method?, idempotent?, requestIdempotencyKey?, oneShotBody?,
// concurrency?, stats?, recordEvents?, returnsResponses?, incoming?})`.
// A JS class over a driver handle (src/driver.rs): the helpers use the
// handles themselves (`newDriver`), without a class instance or a
// FinalizationRegistry entry per operation. Its typed methods are written by
// core/mirrors from methods::DRIVER, between the marker lines in the class.
import {
  _driverAnswer,
  _driverCancel,
  _driverHandleTimerEnd,
  _driverNew,
  _driverOutgoing,
  _driverResponse,
  _driverResultOf,
  _operationState,
  _wireRefusal,
} from '../wasm/retryplan_js.js';
import {
  attempt as attemptOf,
  flag,
  ms,
  names,
  oneOf,
  only,
  options as optionsOf,
  optional,
  refuse,
  text,
  whole,
} from './args.js';
import { decided } from './convert.js';
import { drawUnlessSeeded, pool } from './entropy.js';
import { RESPONSE_HEADERS } from './constants.js';
import { anyStatus, guidance } from './http.js';
import { HEAVY, Held, brandedHandle, handle, handleOf } from './objects.js';
import { Policy } from './policy.js';
import { nextEvent, pollAction } from './records.js';
import { NAMES, driverKey, numbers } from './wire.js';

/**
 * `[nextWakeupMs, deadlineMs, attemptsStarted, startedAtMs, isEnded]` of the
 * operation `running` runs, a `Driver`'s or an `Operation`'s (a view: read at once).
 */
export const state = (running) => numbers(_operationState(handle(running), running instanceof Driver));

const MAX_SAFE = Number.MAX_SAFE_INTEGER;

/** The options of an `Operation` (index.d.ts OperationOptions), which the helpers' and a `Driver`'s extend. */
export const OPERATION_OPTIONS = 'seed idempotencyKey deadlineMs dependency';
/** Every option a `Driver` reads (index.d.ts DriverOptions): any other key is refused (`only`). */
const DRIVER_OPTIONS = /* @__PURE__ */ names(
  `${OPERATION_OPTIONS} method idempotent requestIdempotencyKey concurrency stats recordEvents oneShotBody returnsResponses incoming`,
);
/** The keys of a result's holding (`handleResult`): any other is refused. */
const HOLDING = /* @__PURE__ */ names('token held');

/** `newDriver`'s `poll` for an `Operation` (`lib/operation.js`): its handle, made from the operation's options alone. */
export const OPERATION = 'operation';

/**
 * A driver's handle (options checked; seed and key drawn from the OS when
 * there is no seed, from the words `at` in the entropy pool); with `poll`,
 * its first poll's output record is the wire's (lib/wire.js `current`); with
 * `poll` = `OPERATION`, an operation's handle instead (the driver's own
 * options are not read). The order of checks: dependency first, then the rest.
 */
export function newDriver(policy, nowMs, options, poll = false) {
  optionsOf(options, 'seed');
  const dependency = brandedHandle('dependency', options?.dependency, 'Dependency');
  const operation = poll === OPERATION;
  const own = operation ? undefined : options;
  const stats = brandedHandle('stats', own?.stats, 'Stats');
  const policyHandle = handleOf('policy', policy, Policy);
  const now = ms('nowMs', nowMs);
  const at = drawUnlessSeeded(options);
  const seed = optional(whole, 'seed', options?.seed, MAX_SAFE);
  const key = optional(text, 'idempotencyKey', options?.idempotencyKey);
  const deadline = optional(ms, 'deadlineMs', options?.deadlineMs);
  const idempotent = flag('idempotent', own?.idempotent);
  const method = optional(text, 'method', own?.method);
  if (method === undefined && idempotent !== undefined) throw refuse('idempotent', 'method_needed');
  const requestKey = optional(text, 'requestIdempotencyKey', own?.requestIdempotencyKey);
  if (method === undefined && requestKey !== undefined) throw refuse('requestIdempotencyKey', 'method_needed');
  const concurrency = optional(oneOf, 'concurrency', own?.concurrency, NAMES.concurrencies);
  const record = flag('recordEvents', own?.recordEvents) ?? false;
  const oneShotBody = flag('oneShotBody', own?.oneShotBody) ?? false;
  const returnsResponses = flag('returnsResponses', own?.returnsResponses) ?? false;
  const incoming = brandedHandle('incoming', own?.incoming, 'IncomingContext');
  const made = _driverNew(
    policyHandle,
    now,
    seed,
    key,
    deadline,
    dependency,
    method,
    idempotent,
    requestKey,
    oneShotBody,
    concurrency,
    stats,
    record,
    returnsResponses,
    incoming,
    poll === true,
    operation,
    pool[at],
    pool[at + 1],
    pool[at + 2],
    pool[at + 3],
    pool[at + 4],
    pool[at + 5],
  );
  if (made === 0) throw _wireRefusal();
  return made;
}

/**
 * `{token?, held?}`, a result's holding (`handleResult`'s argument `holding`,
 * as index.d.ts names it): the token (-1 for none, as the wire spells it) and
 * the index of `held` (`value` by default).
 */
function holding(options) {
  if (options != null && typeof options !== 'object') throw refuse('holding', 'options', options, 'token');
  only(options, HOLDING, 'function');
  const token = optional(whole, 'token', options?.token, MAX_SAFE) ?? -1;
  const held = optional(oneOf, 'held', options?.held, NAMES.held);
  if (token === -1 && options?.held != null) throw refuse('held', 'token_needed');
  return [token, held];
}

/** Headers the core wrote (`[name, value, ...]`) as an object by lower-case name, in its order. */
export function headerObject(written) {
  const headers = {};
  for (let at = 0; at < written.length; at += 2) headers[written[at]] = written[at + 1];
  return headers;
}

/** The core's request headers of attempt `attempt` (of driver handle `driver`) at `nowMs` for a next hop speaking `protocol`, as an object. */
export const outgoingHeaders = (driver, attempt, nowMs, protocol = 'http') =>
  headerObject(decided(_driverOutgoing(driver, attempt, nowMs, protocol)));

/** The protocol of the next hop (`"http"` by default; the core checks the name). */
const protocolOf = (protocol) => optional(text, 'protocol', protocol) ?? 'http';

/** What a `Driver` and an `Operation` (lib/operation.js) both read of the operation they run. */
export class Running extends Held {
  /** The stable idempotency key of every attempt. */
  get idempotencyKey() {
    return driverKey(handle(this), this instanceof Driver);
  }

  /** The operation's deadline: `min(start + totalTimeoutMs, deadlineMs)`. */
  get deadlineMs() {
    return state(this)[1];
  }

  /** Attempts started so far (hedges included). */
  get attemptsStarted() {
    return state(this)[2];
  }

  /** True once an ending was returned. */
  get isEnded() {
    return state(this)[4] === 1;
  }
}

export class Driver extends Running {
  constructor(policy, nowMs, options) {
    only(optionsOf(options, 'seed'), DRIVER_OPTIONS, 'constructor');
    super(newDriver(policy, nowMs, options), HEAVY);
  }

  // generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the driver's methods (core/mirrors/src/methods/table.rs)
  /** What to do now: an `AttemptPlan` to start, an `AbortAttempt`, a `Sleep` or the `Ending`. */
  pollAction(nowMs) {
    return pollAction(handle(this), ms('nowMs', nowMs));
  }

  /**
   * Hands in how attempt `attempt` ended: `"accepted"`, or `"discarded"`
   * (dispose of what it carried). With a `token` (the host's handle to what it
   * holds, `held` `"value"` (default) or `"error"`) the driver says later what
   * becomes of it: a `Release` action, or the `Ending.result`. JS takes the
   * token and what it holds as `holding`: `{token, held}`.
   */
  handleResult(nowMs, attempt, outcome, options) {
    const now = ms('nowMs', nowMs);
    const at = attemptOf(attempt);
    const [token, held] = holding(options);
    return NAMES.receipts[decided(_driverResultOf(handle(this), now, at, outcome, token, held))];
  }

  /**
   * Hands in the HTTP response attempt `attempt` received, read by the core:
   * `status` exactly as the platform gave it (any number; outside 100..=599, or
   * an interim 1xx but 101, the core reads it as `"malformed_response"`), its
   * `headers`, Retry-After read as the policy says against the wall clock
   * `nowUnixMs`. Held as a value under `token` when one is given. `redirected`:
   * the client followed at least one redirect inside the attempt to get it (its
   * retryable failure is then ambiguous: an earlier hop may have processed the
   * request). `"accepted"` or `"discarded"`. `headers`: a function of the
   * lower-case name, or a `Headers` or `Map`; `token`, `nowUnixMs` (the wall
   * clock, `Date.now()`, by default: a Retry-After date is read against it) and
   * `redirected` (false by default) in `options`.
   */
  handleResponse(nowMs, attempt, status, headers, options) {
    const now = ms('nowMs', nowMs);
    const at = attemptOf(attempt);
    anyStatus(status);
    only(optionsOf(options, 'token'), { __proto__: null, nowUnixMs: true, token: true, redirected: true }, 'function');
    const [token] = holding(options && { token: options.token });
    const nowUnixMs = ms('nowUnixMs', options?.nowUnixMs ?? Date.now());
    const redirected = flag('redirected', options?.redirected) ?? false;
    const values = guidance(headers, RESPONSE_HEADERS);
    return NAMES.receipts[
      decided(_driverResponse(handle(this), now, at, token, status, values, nowUnixMs, redirected))
    ];
  }

  /**
   * The request headers of running attempt `attempt` sent at `nowMs` to a next
   * hop speaking `protocol`: the attempt's remaining time, its number, the key,
   * whether a layer above retries. The core computes them;
   * `"attempt_not_running"` when `attempt` is not running. `protocol`: `"http"`
   * (default) or `"grpc"`. By lower-case name, in the core's order.
   */
  outgoingHeaders(nowMs, attempt, protocol) {
    const now = ms('nowMs', nowMs);
    const at = attemptOf(attempt);
    return headerObject(decided(_driverOutgoing(handle(this), at, now, protocolOf(protocol))));
  }

  /**
   * The headers of the answer this layer gives its own caller once the operation
   * has ended, for `protocol`: "do not retry" after overload or an exhausted
   * budget, else none (and none before the end). `protocol`: `"http"` (default)
   * or `"grpc"`. By lower-case name, in the core's order. The browser runtime
   * throws `"unsupported"` here (README, "Propagation").
   */
  answerHeaders(protocol) {
    return headerObject(decided(_driverAnswer(handle(this), protocolOf(protocol))));
  }

  /** The caller abandons the operation: it gives up (`cancelled`), running attempts are aborted. */
  handleCancel(nowMs) {
    decided(_driverCancel(handle(this), ms('nowMs', nowMs)));
  }

  /**
   * The timer the host armed for the last `Sleep` ran out (it was not woken
   * early), the clock at `nowMs`; the host polls next. A clock that did not move
   * through the wait is refused (`"invalid_argument"` naming `clock`): the wait
   * would never end by it.
   */
  handleTimerEnd(nowMs) {
    decided(_driverHandleTimerEnd(handle(this), ms('nowMs', nowMs)));
  }

  /** The oldest recorded `DecisionEvent` not yet read (only with `DriverOptions.recordEvents`), or undefined. */
  pollEvent() {
    return nextEvent(handle(this));
  }
  // end of what core/mirrors writes: the driver's methods (core/mirrors/src/methods/table.rs)
}
