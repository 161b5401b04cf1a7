// Types of the `retryplan` package, the default entry (`retryplan/tools`
// adds the tools: lib/tools.d.ts). Keys are camelCase; string values (kinds,
// reasons, codes) are the core's snake_case names, the same in every language.
// Every time is a number of milliseconds on your monotonic clock
// (`performance.now()`; fractions are floored). Times must be numbers (never
// coerced: null or '0' is refused), finite, >= 0 and <= Number.MAX_SAFE_INTEGER;
// strings must be strings of at most 2^20 UTF-16 units without lone
// surrogates; otherwise a RetryplanError with code "invalid_argument" names the argument.

// The core's name tables (reasons, codes, kinds) are generated from the core
// by core/mirrors into generated/names.d.ts (`cargo run -p retryplan-mirrors`):
// each union and its docs are written there, not here. Every one is exported,
// and imported below only where this file names it.
export type * from './generated/names.js';
import type {
  AbortReason,
  Blame,
  BreakerState,
  CompiledFormErrorCode,
  Concurrency,
  ConfigKind,
  DeadLetterReason,
  ErrorCode,
  Failure,
  GiveUpReason,
  GrpcCode,
  Held,
  ProfileName,
  Receipt,
  RetryAfterReading,
  TransportFailure,
  Verdict,
} from './generated/names.js';
// The configuration types schema.json describes, generated the same way into
// generated/config.d.ts: PolicyConfig is what a caller writes (every key optional),
// ResolvedPolicyConfig what a validated policy writes back.
export type * from './generated/config.js';
import type { BreakerConfig, BudgetConfig, DependencyConfig, PolicyConfig } from './generated/config.js';

/** One rule a configuration breaks. `field` is the dotted snake_case path from that configuration, e.g. "backoff.cap_ms" (a policy), "max_tokens" (a budget), "budget.max_tokens" (a dependency). */
export interface Violation {
  field: string;
  message: string;
}

// Each entry (this one, retryplan/tools, the browser runtimes) is its own build: its Policy, Stats, Dependency,
// RetryBudget, CircuitBreaker and IncomingContext are refused by another entry's functions ("must be a Policy").
// Each class carries a protected brand (`entry`, types only) so that TypeScript refuses them there too.

/**
 * A configuration as plain data, what `fromConfig` reads: not an object of the API (a Policy, a Dependency:
 * each has `free`), which the reader refuses ("invalid_config", not plain data).
 */
export type PlainConfig<Config> = Config & { free?: never };

/** A compiled form: the bytes `compilePolicy`/`compileDependency` (retryplan/tools) or `retryplan compile --out FILE` write. A Node Buffer is a Uint8Array. */
export type CompiledForm = Uint8Array | ArrayBuffer;

/** Misuse of the engine. A failed attempt is never an error: it is an Outcome, and giving up is a Decision. */
export class RetryplanError extends Error {
  /**
   * What the entries throw; a test fake may make one too. `code` sets `blame` (the code's, by the core's
   * table); `message` is the whole message (empty when left out). The optional fields (`field`, `config`,
   * ...) are not arguments: the entries set them on the errors they throw.
   */
  constructor(code: ErrorCode | CompiledFormErrorCode, message?: string);
  readonly name: 'RetryplanError';
  readonly code: ErrorCode | CompiledFormErrorCode;
  /** Who must act (the core's `Error::blame()`, one per code; see the README's errors section). */
  readonly blame: Blame;
  /** For "attempt_not_running": the attempt number the outcome named. */
  readonly attempt?: number;
  /** For "attempt_not_running": the attempts running now, ascending (empty when none is). */
  readonly running?: number[];
  /** For "unknown_profile": the name asked for (`profile`, not `name`: an error's `name` is its class name). */
  readonly profile?: string;
  /** For "unknown_profile": the names of the built-in profiles. */
  readonly known?: string[];
  /** For "config_violations": every rule broken. */
  readonly violations?: Violation[];
  /** For "invalid_config" and "config_violations": which configuration could not be read, or breaks the rules; for a CompiledFormErrorCode, the kind expected ("policy" or "dependency"). */
  readonly config?: ConfigKind;
  /** For "invalid_config" (where reading stopped), "invalid_argument" (the argument), "invalid_header" and "invalid_request_header" (the header) and "unsupported" (the section). */
  readonly field?: string;
  /** For "invalid_argument" and "unsupported": the rule the argument or section breaks, as the message words it (`must be a whole number in 0..=65535, got -1`; in the browser runtime, which carries no words, the rule's key, or nothing for "unsupported"). */
  readonly rule?: string;
  /** For "invalid_header" and "invalid_request_header": the header, lower case (as `field`; the name Python and Kotlin give it). */
  readonly header?: string;
}

/** A `grpc-retry-pushback-ms` trailer: wait this long, or do not retry. */
export type Pushback = { retryAfterMs: number } | 'do_not_retry';

/** What the caller saw when an attempt ended. */
export type Outcome =
  | { type: 'success' }
  | {
      type: 'http_status';
      status: number;
      retryAfterMs?: number /** The service's error code (AWS), 1 to 64 visible ASCII characters. */;
      errorCode?: string;
    }
  | { type: 'grpc_status'; code: GrpcCode; pushback?: Pushback }
  | {
      type: 'transport';
      failure: TransportFailure /** A wait the server asked for with the failure, applied as a Retry-After is. */;
      retryAfterMs?: number;
    }
  | { type: 'application'; verdict: Verdict }
  | { type: 'cancelled' };

/** Start attempt `attempt` now; abort it at `abortAtMs`, then report its outcome. */
export interface StartAttempt {
  type: 'start_attempt';
  attempt: number;
  timeoutMs: number;
  abortAtMs: number;
  /** 16 lowercase hex digits, fresh per attempt. */
  requestId: string;
  remainingMs: number;
  /** True for a hedge: an extra attempt while another still runs (keep both; the first acceptable result wins). */
  hedge: boolean;
}
/** Sleep until `untilMs`, then poll. */
export interface Wait {
  type: 'wait';
  /** 0 for the first retry. */
  retry: number;
  delayMs: number;
  untilMs: number;
  /** The retry after: the wait the server asked for, as honored (after the policy's cap). */
  retryAfterMs?: number;
  remainingMs: number;
}
/** Attempts are running: report each one's outcome; poll again at `untilMs` at the latest (an abort or hedge time). */
export interface AwaitOutcome {
  type: 'await_outcome';
  /** How many attempts are running. */
  running: number;
  untilMs: number;
}
/**
 * Every ending lists in `abortAttempts` the (hedged) attempts still running,
 * ascending, which the caller must abort now: always an array, empty when
 * nothing runs. `attempts` counts every attempt started, hedges included.
 */
export interface Succeeded {
  type: 'succeeded';
  attempts: number;
  /** The attempt whose result won. */
  winner: number;
  abortAttempts: number[];
}
export interface GaveUp {
  type: 'gave_up';
  reason: GiveUpReason;
  attempts: number;
  remainingMs: number;
  /** The wait that was considered and refused, if one was computed. */
  refusedDelayMs?: number;
  abortAttempts: number[];
}
/** An unsafe write may have happened: look it up by the idempotency key, never repeat it. */
export interface Reconcile {
  type: 'reconcile';
  attempts: number;
  remainingMs: number;
  abortAttempts: number[];
}
/** A conflict: re-read, recompute, and start a new operation with `deadlineMs` as its deadline. */
export interface Restart {
  type: 'restart';
  attempts: number;
  deadlineMs: number;
  remainingMs: number;
  abortAttempts: number[];
}
export type Ending = Succeeded | GaveUp | Reconcile | Restart;
export type Decision = StartAttempt | Wait | AwaitOutcome | Ending;

/** One rule of `serverGuidance.statuses` (derived from the generated PolicyConfig). */
export type StatusGuidanceConfig = NonNullable<NonNullable<PolicyConfig['serverGuidance']>['statuses']>[number];
/** A set of HTTP statuses and gRPC codes with one meaning (`ambiguous`, `conflict`). */
export type StatusSetConfig = NonNullable<PolicyConfig['ambiguous']>;

export type Class =
  | { class: 'success' }
  | {
      class: 'retryable';
      ambiguous: boolean /** Present (true) for an AWS throttling error code. */;
      throttling?: true;
    }
  | { class: 'not_retryable' }
  | { class: 'conflict' }
  | { class: 'cancelled' };

export type TimelineStep =
  | { type: 'attempt'; attempt: number; startMs: number; timeoutMs: number; endMs: number }
  | {
      type: 'wait';
      retry: number;
      startMs: number;
      ceilingMs: number;
      minDelayMs: number;
      maxDelayMs: number;
      endMs: number;
    };

export type Warning =
  | { type: 'attempts_do_not_fit'; configured: number; fit: number; deadlineMs: number }
  | { type: 'worst_case_exceeds_deadline'; worstCaseMs: number; deadlineMs: number }
  | { type: 'guidance_cap_exceeds_deadline'; capMs: number; deadlineMs: number };

/**
 * An ending as a Timeline writes it (the core's `Decision` as data): as the Ending of its `type`, but
 * `abortAttempts` is left out when empty, which it is in a worst case (one attempt at a time). In practice a
 * GaveUp-shaped ending; the other kinds are listed because the core's type allows them.
 */
export type TimelineEnding = {
  [K in Ending['type']]: Omit<Extract<Ending, { type: K }>, 'abortAttempts'> & { abortAttempts?: number[] };
}[Ending['type']];

/** A policy's worst-case timeline, in ms from the operation's start. */
export interface Timeline {
  deadlineMs: number;
  firstAttemptAtMs: number;
  responseReserveMs: number;
  configuredAttempts: number;
  attemptsThatFit: number;
  steps: TimelineStep[];
  /** How the worst case ends: a give-up (`gave_up`) for every policy; see TimelineEnding. */
  ending: TimelineEnding;
  unboundedWorstCaseMs: number | null;
  warnings: Warning[];
}

export type Admission =
  | { type: 'admit'; remainingMs: number }
  | { type: 'reject'; remainingMs: number; minimumUsefulMs: number };

export interface StatsCounters {
  operations: number;
  attempts: number;
  /** Attempts after the first that followed a failure. */
  retries: number;
  /** Attempts started while another was still running. */
  hedges: number;
  succeeded: number;
  reconciles: number;
  restarts: number;
  gaveUp: {
    attemptsExhausted: number;
    deadlineInsufficient: number;
    retryAfterExceedsDeadline: number;
    retryAfterAboveCap: number;
    serverDeclinedRetry: number;
    notRetryable: number;
    cancelled: number;
    budgetExhausted: number;
    circuitOpen: number;
    noRetrySlot: number;
    bodyNotReplayable: number;
  };
}

/** A validated, immutable policy. Holds wasm memory: `free()` it, or let the GC do it. */
export class Policy {
  /** The entry the object is of (types only, a brand): another entry's functions refuse it. */
  protected readonly entry: 'retryplan';
  protected constructor();
  /**
   * Validates a policy object; throws RetryplanError "config_violations" (with violations) or "invalid_config", config "policy".
   * Plain data only: plain or null-prototype objects (any realm), `Map`s with string keys, arrays, strings,
   * finite numbers, booleans and `null`; `undefined` properties are left out.
   */
  static fromConfig(config: PlainConfig<PolicyConfig>): Policy;
  /**
   * Reads a compiled policy (`compilePolicy` of retryplan/tools, or `retryplan compile`'s bytes),
   * validated when it was compiled, without the configuration reader: the policy compiled, equal
   * to it. A form that is not one, of another version, damaged or a dependency's throws a
   * RetryplanError with a CompiledFormErrorCode; a value that is neither a Uint8Array nor an
   * ArrayBuffer (or above 2^20 bytes) throws "invalid_argument" (field "form").
   */
  static fromCompiled(form: CompiledForm): Policy;
  /** A built-in profile; throws "unknown_profile" for another name. */
  static profile(name: ProfileName): Policy;
  readonly maxAttempts: number;
  /** True when requests carry the idempotency key header (keyed and unsafe operations). */
  readonly sendsIdempotencyKey: boolean;
  /** The operation's total timeout in ms: every attempt and wait fit in it. */
  readonly totalTimeoutMs: number;
  /** @deprecated The old name of `totalTimeoutMs`, kept for one release. */
  readonly totalBudgetMs: number;
  free(): void;
}

/**
 * The options of an `Operation`. Every options object of the API (an `Operation`'s, a `Driver`'s, `run`'s,
 * `retryFetch`'s, `propagation`'s, `instrumentOpenTelemetry`'s) is checked for keys it does not have: an own
 * enumerable key that is not one of its options (a misspelling, or one given as `undefined`) is refused, a
 * RetryplanError `invalid_argument` whose `field` is the key (``invalid argument `KEY`: is not an option of
 * this helper``, or "this constructor", "this middleware", "this function"); `run` and `retryFetch` reject with it.
 * An option of the wrong type is refused the same way, naming it, before any attempt: a hook, clock or `fetch`
 * that is not a function (``invalid argument `fetch`: must be a function, got a number``), a `signal` without
 * `aborted` and `addEventListener` (an AbortSignal of any realm passes), a header name or `protocol` that is not
 * a string, a Policy, Stats or Dependency that is not one. `null` is an option not given, as `undefined`.
 */
export interface OperationOptions {
  /** Seeds jitter and request ids (an integer <= 2^53-1). Without it, crypto.getRandomValues seeds it. */
  seed?: number;
  /** 1 to 255 visible ASCII characters; derived from the seed (or random) when absent. */
  idempotencyKey?: string;
  /** A deadline propagated by your caller, on the same clock. */
  deadlineMs?: number;
  /**
   * The shared controls of the dependency this operation calls. The operation
   * consults and feeds them itself (breaker, retry slots, budget); your
   * Dependency stays usable (the operation holds its own handle).
   */
  dependency?: Dependency;
}

/** One logical operation: one idempotency key, many attempts. Each call returns exactly one decision. */
export class Operation {
  constructor(policy: Policy, nowMs: number, options?: OperationOptions);
  // generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the operation's methods (core/mirrors/src/methods/table.rs)
  /** The current decision: start an attempt, keep waiting, or await the running attempt. */
  poll(nowMs: number): Decision;
  /** Reports how attempt `attempt` ended (for an HTTP response, `Outcome.fromHttp`) and returns the next decision. */
  onOutcome(nowMs: number, attempt: number, outcome: Outcome): Decision;
  /** The caller abandons the operation: it gives up (`cancelled`), listing the running attempts to abort. */
  cancel(nowMs: number): GaveUp;
  /** When to poll next, in ms on the caller's clock, or undefined once ended. */
  nextWakeupMs(): number | undefined;
  /** Time left at `nowMs` before the deadline, after the response reserve, in ms (saturating at 0). */
  remainingMs(nowMs: number): number;
  /** @deprecated Alias of `remainingMs` for one release ("budget" names the retry budget only). */
  remainingBudgetMs(nowMs: number): number;
  /** The request id attempt `attempt` (1-based) gets (16 lowercase hex digits). */
  requestId(attempt: number): string;
  // end of what core/mirrors writes: the operation's methods (core/mirrors/src/methods/table.rs)
  readonly deadlineMs: number;
  readonly idempotencyKey: string;
  /** Attempts started so far, hedges included. */
  readonly attemptsStarted: number;
  /** The attempts running now, ascending. */
  readonly runningAttempts: number[];
  /** When the operation started (the `nowMs` it was made with). */
  readonly startedAtMs: number;
  readonly isEnded: boolean;
  free(): void;
}

/** Counters over many operations' decisions: give it to drivers and helpers (`{stats}`), which count as the core decides. */
export class Stats {
  /** The entry the object is of (types only, a brand): another entry's functions refuse it. */
  protected readonly entry: 'retryplan';
  constructor();
  /** Adds another set of counters to these (saturating), e.g. per-worker Stats into one. */
  merge(other: Stats): void;
  toJSON(): StatsCounters;
  free(): void;
}

/**
 * An HTTP response as an outcome, with the header rules of every binding: the
 * raw `Retry-After` (delta-seconds or an HTTP-date, read against `nowUnixMs`,
 * i.e. `Date.now()`) and `retry-after-ms` values, null/undefined when absent.
 * A readable `retry-after-ms` wins; an unreadable value is no guidance; values
 * saturate at 2^53-1 ms. Throws "invalid_argument" for a status that is not a
 * whole number <= 65535 or a bad `nowUnixMs`.
 */
export function outcomeFromHttp(
  status: number,
  retryAfter: string | null | undefined,
  retryAfterMs: string | null | undefined,
  nowUnixMs: number,
): Outcome & { type: 'http_status' };

/** What to do with a queue message after one delivery. */
export type Redelivery =
  | { type: 'acknowledge' }
  | { type: 'redeliver_after'; delayMs: number; redeliverAtMs: number }
  | { type: 'dead_letter'; reason: DeadLetterReason };
/** Amounts ending in `Milli` are thousandths (of a token, or of a retry). */
export type BudgetSnapshot =
  | { kind: 'token_bucket'; tokensMilli: number; maxTokensMilli: number; retriesAllowed: boolean }
  | { kind: 'ratio'; requests: number; retries: number; balanceMilli: number }
  | { kind: 'quota'; available: number; capacity: number };
export interface BreakerSnapshot {
  /** An open breaker whose openMs is over shows half_open. */
  state: BreakerState;
  consecutiveFailures: number;
  windowResults: number;
  windowFailures: number;
  /** When an open breaker starts probing (0 when not open). */
  openUntilMs: number;
  /** Half-open probes started and not finished. */
  probesRunning: number;
}
/** Each control's state; null when the dependency lacks it. */
export interface DependencySnapshot {
  budget: BudgetSnapshot | null;
  breaker: BreakerSnapshot | null;
  retrySlotsInUse: number | null;
}
/**
 * What a granted retry cost (quota units; 0 for the other models), opaque: only `tryRetry` makes one.
 * Hand it back once, to `onSuccess` (refunded), `onFailure` or `spend` (spent), of the budget that
 * granted it; a second use, another budget's charge or a freed one throws "invalid_argument" naming `charge`.
 * Freed (or collected) unsettled, it stays spent.
 */
export class RetryCharge {
  private constructor();
  readonly cost: number;
  free(): void;
}

/**
 * The shared controls of one downstream dependency. Make one per dependency
 * and pass it to every operation (`{dependency}`) or run that calls it.
 * Holds wasm memory: `free()` it, or let the GC do it.
 */
export class Dependency {
  /** The entry the object is of (types only, a brand): another entry's functions refuse it. */
  protected readonly entry: 'retryplan';
  protected constructor();
  /** Validates a camelCase configuration; errors and field paths (snake_case) match `fromJson` (retryplan/tools). */
  static fromConfig(config: PlainConfig<DependencyConfig>): Dependency;
  /**
   * New shared controls (full budget, closed breaker) from a compiled dependency
   * (`compileDependency` of retryplan/tools), without the configuration reader; refused as
   * `Policy.fromCompiled` refuses a form (a policy's form: "compiled_form_kind").
   */
  static fromCompiled(form: CompiledForm): Dependency;
  /** Another handle on the same controls (free each handle on its own). */
  clone(): Dependency;
  /** A handle on the shared budget (a new object per read), or undefined. */
  readonly budget: RetryBudget | undefined;
  /** A handle on the shared breaker (a new object per read), or undefined. */
  readonly breaker: CircuitBreaker | undefined;
  /** A handle on the shared retry slots (a new object per read), or undefined. */
  readonly retrySlots: RetrySlots | undefined;
  free(): void;
}

/** A retry budget. Operations with a Dependency use it themselves; call it directly only for your own retry loop. */
export class RetryBudget {
  /** The entry the object is of (types only, a brand): another entry's functions refuse it. */
  protected readonly entry: 'retryplan';
  /** Validates a configuration: a reading error (`invalid_config`, config "budget") names the path from the budget ("kind"), a violation (`config_violations`, config "budget") "max_tokens" too; a dependency's are "budget.kind", "budget.max_tokens". */
  constructor(config: BudgetConfig);
  /** Counts an original request (a first attempt). */
  onRequest(nowMs: number): void;
  /** Asks to dispatch a retry or hedge: the charge when granted, undefined when refused (nothing charged). */
  tryRetry(nowMs: number, afterTimeout?: boolean): RetryCharge | undefined;
  /** Records a success; `charge` is what `tryRetry` granted for it (refunded once), absent for a first attempt. */
  onSuccess(nowMs: number, charge?: RetryCharge): void;
  /** Records a retryable failure; `charge` is what `tryRetry` granted for it (spent), absent for a first attempt. */
  onFailure(nowMs: number, charge?: RetryCharge): void;
  /** Settles a charge whose retry ended with neither a success nor a retryable failure (cancelled, aborted): it stays spent. */
  spend(charge: RetryCharge): void;
  /** The charges granted and not settled yet. */
  readonly chargesOutstanding: number;
  /**
   * The AWS SDKs' raw quota call, in units, outside the rules of grants (for a host mirroring
   * botocore's own bookkeeping; a retry loop uses `tryRetry` and its charge): takes `amount` units
   * from a quota, true when taken, false when fewer are left. Throws "invalid_argument" for another kind.
   */
  acquire(amount: number): boolean;
  /** The AWS SDKs' raw quota call (see `acquire`): gives `amount` units back to a quota, never above its capacity. */
  release(amount: number): void;
  free(): void;
}

/**
 * Admission from `CircuitBreaker#tryAcquire`, opaque; hand it back once, to the breaker that granted it, with the
 * result or as a release (a second use, another breaker's permit or a freed one throws "invalid_argument" naming `permit`).
 * Freed (or collected) unsettled, it is released.
 */
export class BreakerPermit {
  private constructor();
  /** True when the attempt is a half-open probe. */
  readonly probe: boolean;
  free(): void;
}

/** A circuit breaker. Operations with a Dependency use it themselves. */
export class CircuitBreaker {
  /** The entry the object is of (types only, a brand): another entry's functions refuse it. */
  protected readonly entry: 'retryplan';
  /** Validates a configuration: a reading error (`invalid_config`, config "breaker") names the path from the breaker ("trip.kind"), a violation (`config_violations`, config "breaker") "open_ms" too; a dependency's are "breaker.trip.kind", "breaker.open_ms". */
  constructor(config: BreakerConfig);
  /** A permit, or undefined when refused (open, or every half-open probe taken). */
  tryAcquire(nowMs: number): BreakerPermit | undefined;
  /** The dependency answered (anything but a retryable failure). */
  onSuccess(nowMs: number, permit: BreakerPermit): void;
  /** A retryable failure. */
  onFailure(nowMs: number, permit: BreakerPermit): void;
  /** Gives a permit back without a result (the attempt was cancelled). */
  release(permit: BreakerPermit): void;
  /** The permits granted and not settled yet. */
  readonly permitsOutstanding: number;
  free(): void;
}

/**
 * A slot from `RetrySlots#tryAcquire`, opaque; give it back once, to the slots that granted it
 * (a second use, another's slot or a freed one throws "invalid_argument" naming `slot`).
 * Freed (or collected) unreleased, it is given back.
 */
export class RetrySlot {
  private constructor();
  free(): void;
}

/** Retry slots: how many retries and hedges to one dependency may run at once. */
export class RetrySlots {
  /** `capacity` slots (0 refuses every retry and hedge). */
  constructor(capacity: number);
  /** Takes a slot: the `RetrySlot`, or undefined when all are taken. */
  tryAcquire(): RetrySlot | undefined;
  /** Gives `slot` back (once, to the slots that granted it). */
  release(slot: RetrySlot): void;
  /** Slots in use now. */
  readonly inUse: number;
  /** How many slots there are. */
  readonly capacity: number;
  free(): void;
}

/** @deprecated The old name of `RetrySlots`, kept for one release. */
export const ConcurrencyLimit: typeof RetrySlots;
/** @deprecated The old name of `RetrySlots`, kept for one release. */
export type ConcurrencyLimit = RetrySlots;

/** A Retry-After value (delta-seconds or an HTTP-date) as ms from `nowUnixMs` (Date.now()). Throws "invalid_header". */
export function parseRetryAfter(value: string, nowUnixMs: number, reading?: RetryAfterReading): number;
/** The wait in ms a RateLimit field asks for (with its RateLimit-Policy), or undefined when it asks for none. Throws "invalid_header". */
export function parseRateLimit(value: string, policyValue?: string): number | undefined;
/** A RateLimit-Reset / X-RateLimit-Reset value (delta-seconds below 1e9, a Unix time from it) as ms. Throws "invalid_header". */
export function parseRateLimitReset(value: string, nowUnixMs: number): number;
/** A `retry-after-ms` header value. Throws "invalid_header". */
export function parseRetryAfterMsHeader(value: string): number;
/**
 * How the HTTP helpers name a request in their endings, logs and spans (`url.full` is the name after its method): the
 * core's `"METHOD url"`, the URL as given without its user info or fragment, the OpenTelemetry conventions' sensitive
 * query values (`X-Amz-Signature`, `sig`, ...) replaced by `REDACTED`.
 */
export function requestName(method: string, url: string): string;
export function profileNames(): ProfileName[];

/**
 * The failure a platform error stands for, by the binding's one table: Node's
 * error codes along the `cause` chain of a fetch error (ECONNREFUSED,
 * ENOTFOUND, UND_ERR_SOCKET, ...) and DOMException names (AbortError,
 * TimeoutError); undefined when the table does not know it.
 */
export function failureOf(error: unknown): Failure | undefined;

/** Response headers as the core reads them: a `Headers` (anything with `get`), or a function of the lower-case name. */
export type HeaderLookup =
  | { get(name: string): string | null | undefined }
  | ((name: string) => string | null | undefined);

/** How `Outcome.fromHttpResponse` reads a response: a Retry-After reading, or a policy's (at most one of the two). */
export interface HttpResponseOptions {
  /** How Retry-After is read: 'strict' (RFC 9110, the default) or 'lenient'. Not with `policy`. */
  reading?: RetryAfterReading;
  /** Read as this policy's HTTP helpers read a response: its `server_guidance.headers` and `retry_after_reading`. */
  policy?: Policy;
}

/** Outcome constructors owned by the core. `Outcome.fromHttp === outcomeFromHttp`. */
export const Outcome: {
  readonly fromHttp: typeof outcomeFromHttp;
  /**
   * An HTTP response as every helper in every language reads it: a status
   * outside 100..=599, or an interim 1xx but 101, is `{type: 'transport', failure: 'connection_lost'}`
   * (a malformed response: the server's fault, never an error); otherwise the
   * guidance headers (`GUIDANCE_HEADERS`, in that order; which one wins is the
   * core's rule: the first that asks for a wait, of retry-after-ms,
   * x-ms-retry-after-ms, x-amz-retry-after, Retry-After, RateLimit with RateLimit-Policy,
   * RateLimit-Reset, X-RateLimit-Reset; the last three not on a cached
   * response, an `Age` above 0) through `headers`, HTTP-dates against
   * `nowUnixMs` (`Date.now()`), Retry-After read as `reading` says (default
   * 'strict'; `retryFetch` reads as its policy says). The last argument is
   * the reading, or `{reading, policy}`: given a `policy`, the response is read
   * as its HTTP helpers read one (only the headers its
   * `server_guidance.headers` names: Retry-After alone for `retry_after`;
   * Retry-After read as its `server_guidance.retry_after_reading` says), as
   * an outcome recorded in an `Operation` or a `Driver` of that policy should
   * be; `reading` and `policy` together are refused (`invalid_argument`,
   * field `reading`: the policy carries its reading).
   */
  readonly fromHttpResponse: (
    status: number,
    headers: HeaderLookup,
    nowUnixMs: number,
    options?: RetryAfterReading | HttpResponseOptions,
  ) => Outcome;
  /** What a failure means to the engine. */
  readonly fromFailure: (failure: Failure) => Outcome;
};

/** Every response header the core reads for server guidance, lower case, in the order it consults them. */
export const GUIDANCE_HEADERS: readonly string[];
/** "Idempotency-Key": carries the operation's key when an attempt's plan says `sendIdempotencyKey`. */
export const IDEMPOTENCY_KEY_HEADER: string;
/** "X-Request-Id": carries each attempt's fresh request id. */
export const REQUEST_ID_HEADER: string;

export interface DriverOptions extends OperationOptions {
  /**
   * The HTTP method of the request the operation sends (case-sensitive, as on
   * the wire). A method that is not idempotent (RFC 9110 §9.2.2; RFC 10008's QUERY is) (POST, PATCH, ...)
   * makes a `safe` or `idempotent` policy `unsafe`: never repeated after it
   * may have been processed, sent with an Idempotency-Key to reconcile by.
   */
  method?: string;
  /** The caller's word for this request: it may (true) or may not (false) be repeated. Needs `method`. */
  idempotent?: boolean;
  /**
   * The value of the request's own Idempotency-Key header, as written: the request is keyed by that
   * exact key unless `idempotent` says otherwise (the core's `Policy::http_request`). An empty one, or
   * one that is neither a Structured Field String nor a bare visible-ASCII key, is refused
   * (`invalid_argument`, name `Idempotency-Key`). Needs `method`.
   */
  requestIdempotencyKey?: string;
  /** "concurrent" by default. A "sequential" host is refused a hedging policy ("unsupported", field "hedging"). */
  concurrency?: Concurrency;
  /** Counters the driver updates as it decides (shared with every driver given the same Stats). */
  stats?: Stats;
  /** Keep each decision for `pollEvent` (off: nothing is kept). */
  recordEvents?: boolean;
  /**
   * The request's body can be sent only once (a stream): it is sent once,
   * never hedged, and the operation gives up `body_not_replayable` where a
   * retry was wanted.
   */
  oneShotBody?: boolean;
  /**
   * The host returns responses (an HTTP helper): the ending returns the last
   * response it holds (`finish.result`), unless it is a reconcile or the
   * caller's cancel. Off: only a success's value is returned.
   */
  returnsResponses?: boolean;
  /**
   * The request this operation serves, as the core read it
   * (`IncomingContext.read`; Node and retryplan/tools): the operation ends by
   * the caller's deadline less `propagation.reserve_ms` (every attempt's
   * timeout within it), runs under the caller's idempotency key, and makes
   * one attempt when the caller retries and `propagation.retry_layer` is
   * `outermost`.
   */
  incoming?: IncomingContext;
}

/** What the next hop speaks, which decides the propagation headers written for it. */
export type Protocol = 'http' | 'grpc';

/**
 * What the request being served says about its caller, read by the core from
 * its headers as the policy's `propagation.read_headers` says: the caller's
 * remaining time (`grpc-timeout`, `x-envoy-expected-rq-timeout-ms`,
 * `retryplan-timeout-ms`), its attempts, its idempotency key and whether it
 * retries. Opaque: drivers and helpers start from it. Node and
 * retryplan/tools only (the browser runtime serves no request).
 */
export class IncomingContext {
  /** The entry the object is of (types only, a brand): another entry's functions refuse it. */
  protected readonly entry: 'retryplan';
  /**
   * Reads `headers` (a lookup by lower-case name, a `Headers`/`Map`, or Node's
   * `req.headers`, several field lines joined by ", ") under `policy` at
   * `nowMs` (the monotonic clock, `performance.now()`, by default). A value that
   * breaks its header's rule is refused: a RetryplanError `invalid_request_header`
   * (blame `caller`) whose `field` is the header (`invalid_argument` naming
   * `Idempotency-Key` for a bad key); a server answers that request 400.
   */
  static read(
    policy: Policy,
    headers: HeaderLookup | Record<string, string | string[] | undefined>,
    nowMs?: number,
  ): IncomingContext;
  /** When the request was read (ms, the reader's clock). */
  readonly receivedAtMs: number;
  /** The caller's remaining time when it sent the request, in ns; undefined without a deadline header. */
  readonly callerRemainingNs: bigint | undefined;
  /** The header that gave `callerRemainingNs` (the tightest). */
  readonly deadlineHeader: string | undefined;
  /** Attempts the caller made before this one. */
  readonly previousAttempts: number;
  /** The caller's idempotency key, sent on every hop unchanged. */
  readonly idempotencyKey: string | undefined;
  /** A layer above retries this request (it said so, or this is not its first attempt). */
  readonly callerRetries: boolean;
  /** The deadline of an operation serving it: received + the caller's remaining - the policy's `propagation.reserve_ms`. */
  readonly deadlineMs: number | undefined;
  free(): void;
}

/**
 * A middleware `(req, res, next)` for `node:http` (and so Express) that serves
 * each request under `policy`'s `propagation` section (Node only): it reads the
 * request's context through the core and makes it the ambient context of the
 * request (an AsyncLocalStorage), so `run` and `retryFetch` inside the handler
 * start from it and write the core's headers on each attempt; a malformed
 * propagation header is answered 400 (the core's message as text) without
 * calling `next`; the answer gets the core's answer headers
 * (`retryplan-retryable: ?0` when the last give-up of a helper inside the
 * request was because of overload or a retry budget), added when its head is
 * written. `options.clock` is its monotonic clock in ms (performance.now() by default). Throws when
 * `policy` is not a Policy, or `options` has a key other than `clock` (or its old name `now`) or a clock that
 * is not a function.
 */
export function propagation(
  policy: Policy,
  options?: PropagationOptions,
): (req: PropagationRequest, res: PropagationResponse, next: () => void) => void;

/** The `propagation` middleware's options. */
export interface PropagationOptions {
  /** The monotonic clock in ms; performance.now() by default. */
  clock?: () => number;
  /** @deprecated The old name of `clock` (giving both is refused). */
  now?: () => number;
}

/** What the middleware reads of a request: Node's `IncomingMessage` (and Express's request) is one. */
export interface PropagationRequest {
  headers: Record<string, string | string[] | undefined>;
}
/** What the middleware uses of a response: Node's `ServerResponse` (and Express's response) is one. */
export interface PropagationResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  writeHead(...args: unknown[]): unknown;
  end(chunk?: string): unknown;
}

/** The incoming context of the request being served (inside a `propagation` middleware), or undefined. */
export function currentIncoming(): IncomingContext | undefined;

/**
 * Node and tools entries: reports every `run` and `retryFetch` through
 * OpenTelemetry (the browser runtime reports to none). `api` is your
 * `@opentelemetry/api` module (an optional peer dependency: retryplan imports
 * nothing of it); `tracerProvider` and `meterProvider` default to its global
 * ones. Each attempt is a span (`retryFetch`: an HTTP `CLIENT` span with
 * `http.request.resend_count` on every resent attempt and the span context
 * injected into its headers; `run`: an `INTERNAL` span named after the
 * function), each give-up a `retryplan.give_up` span event with its reason,
 * and the counters `retryplan.attempts`, `retryplan.retries`,
 * `retryplan.give_ups`, `retryplan.budget.refusals`,
 * `retryplan.breaker.refusals`, `retryplan.operations`: the core's signals
 * (`retryplan::telemetry`, core/src/compatibility/telemetry.md). A key of
 * `providers` other than these two is refused (`invalid_argument`).
 */
export function instrumentOpenTelemetry(
  api: OpenTelemetryApi,
  providers?: { tracerProvider?: unknown; meterProvider?: unknown },
): void;

/** Stops reporting to OpenTelemetry. */
export function uninstrumentOpenTelemetry(): void;

/** What `instrumentOpenTelemetry` uses of the `@opentelemetry/api` module (pass the module itself). */
export interface OpenTelemetryApi {
  trace: unknown;
  metrics: unknown;
  context: unknown;
  propagation: unknown;
  SpanKind: unknown;
  SpanStatusCode: unknown;
}

/** How a host holds a result it hands in: its own token for it (a whole number), and what it holds ("value" by default). */
export interface Holding {
  token: number;
  held?: Held;
}
/** The one result the finish concerns: return the value held under `token` (`returned`), or raise the ending with the error held under it as its cause. */
export interface EndingResult {
  token: number;
  returned: boolean;
  /** Until when (monotonic ms) a returned value is readable: its attempt's abort time when the ending returns it and did not succeed; absent for a success's (the caller's, no limit) or when nothing is returned. */
  readableUntilMs?: number;
}

/** Everything a host needs to send one attempt: the decision, and whether to send the idempotency key. */
export interface AttemptPlan extends StartAttempt {
  /** Send the operation's idempotency key (IDEMPOTENCY_KEY_HEADER) with this attempt. */
  sendIdempotencyKey: boolean;
}
/** An attempt and how it ended. */
export interface AttemptOutcome {
  attempt: number;
  outcome: Outcome;
}
/** What a host does now. */
export type Action =
  | AttemptPlan
  /** Abort that attempt's I/O; any result it still delivers is discarded. */
  | { type: 'abort_attempt'; attempt: number; reason: AbortReason }
  /** Sleep until `untilMs`, waking early for a result or a cancel; then poll. */
  | { type: 'sleep'; untilMs: number }
  /** Drop what the host holds under `token`: the driver will never return or raise it. */
  | { type: 'release'; token: number }
  /**
   * The operation ended; `lastResult` is the last result taken into account
   * (the winner's for a success); `result` the held result to return or raise
   * with (none: raise the ending alone).
   */
  | { type: 'finish'; decision: Ending; lastResult?: AttemptOutcome; result?: EndingResult };
/** A decision as the core made it, for observers. */
export interface DecisionEvent {
  atMs: number;
  decision: Decision;
  /** The result that led to it, when one did. */
  after?: AttemptOutcome;
}

/**
 * The host loop of one operation, decided by the core: poll one action at a
 * time (start, abort, sleep, finish), hand in each attempt's outcome as it
 * arrives. The driver counts an attempt still running at its `abortAtMs` as
 * timed out itself; a late result is `"discarded"`, never an error.
 */
export class Driver {
  constructor(policy: Policy, nowMs: number, options?: DriverOptions);
  // generated by core/mirrors: do not edit (cargo run -p retryplan-mirrors): the driver's methods (core/mirrors/src/methods/table.rs)
  /** What to do now: an `AttemptPlan` to start, an `AbortAttempt`, a `Sleep` or the `Ending`. */
  pollAction(nowMs: number): Action;
  /**
   * Hands in how attempt `attempt` ended: `"accepted"`, or `"discarded"`
   * (dispose of what it carried). With a `token` (the host's handle to what it
   * holds, `held` `"value"` (default) or `"error"`) the driver says later what
   * becomes of it: a `Release` action, or the `Ending.result`. JS takes the
   * token and what it holds as `holding`: `{token, held}`.
   */
  handleResult(nowMs: number, attempt: number, outcome: Outcome, holding?: Holding): Receipt;
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
  handleResponse(
    nowMs: number,
    attempt: number,
    status: number,
    headers: ((name: string) => string | null | undefined) | { get(name: string): string | null | undefined },
    options?: { token?: number; nowUnixMs?: number; redirected?: boolean },
  ): Receipt;
  /**
   * The request headers of running attempt `attempt` sent at `nowMs` to a next
   * hop speaking `protocol`: the attempt's remaining time, its number, the key,
   * whether a layer above retries. The core computes them;
   * `"attempt_not_running"` when `attempt` is not running. `protocol`: `"http"`
   * (default) or `"grpc"`. By lower-case name, in the core's order.
   */
  outgoingHeaders(nowMs: number, attempt: number, protocol?: Protocol): Record<string, string>;
  /**
   * The headers of the answer this layer gives its own caller once the operation
   * has ended, for `protocol`: "do not retry" after overload or an exhausted
   * budget, else none (and none before the end). `protocol`: `"http"` (default)
   * or `"grpc"`. By lower-case name, in the core's order. The browser runtime
   * throws `"unsupported"` here (README, "Propagation").
   */
  answerHeaders(protocol?: Protocol): Record<string, string>;
  /** The caller abandons the operation: it gives up (`cancelled`), running attempts are aborted. */
  handleCancel(nowMs: number): void;
  /**
   * The timer the host armed for the last `Sleep` ran out (it was not woken
   * early), the clock at `nowMs`; the host polls next. A clock that did not move
   * through the wait is refused (`"invalid_argument"` naming `clock`): the wait
   * would never end by it.
   */
  handleTimerEnd(nowMs: number): void;
  /** The oldest recorded `DecisionEvent` not yet read (only with `DriverOptions.recordEvents`), or undefined. */
  pollEvent(): DecisionEvent | undefined;
  // end of what core/mirrors writes: the driver's methods (core/mirrors/src/methods/table.rs)
  readonly idempotencyKey: string;
  readonly deadlineMs: number;
  readonly attemptsStarted: number;
  readonly isEnded: boolean;
  free(): void;
}

/**
 * True once the wasm module has trapped (a `WebAssembly.RuntimeError`: out
 * of memory, or a bug). Its objects may then be unusable and what they held
 * (a retry slot, a breaker probe) never released: load the module again (a
 * new page or process). Inputs are bounded (strings to 2^20 characters,
 * configurations to 100,000 values) so that no argument can make it run out
 * of memory.
 */
export function wasmTrapped(): boolean;

/**
 * An operation that ended without a result to return. Its `message` is the
 * core's, the same words in every language: the operation (a request's method
 * and URL, `run`'s function name), what happened and what to do.
 */
export class OperationFailedError extends Error {
  /**
   * What the helpers throw; a test fake may make one too (as a GaveUpError, ReconcileRequiredError or
   * RestartRequiredError, whose constructors take the same arguments, `decision` of their own kind).
   * `attempts` is `decision.attempts`; `message` is the whole message (empty when left out: the helpers
   * give the core's text); `cause`, when given, is the error's `cause`; `lastValue` the value the last
   * attempt returned.
   */
  constructor(
    decision: GaveUp | Reconcile | Restart,
    idempotencyKey: string,
    lastOutcome?: Outcome,
    cause?: unknown,
    message?: string,
    lastValue?: unknown,
  );
  /** The ending decision. */
  readonly decision: GaveUp | Reconcile | Restart;
  /** Attempts started, hedges included. */
  readonly attempts: number;
  readonly idempotencyKey: string;
  /** How the last attempt the core took into account ended, if one did. */
  readonly lastOutcome?: Outcome;
  /** The error the last attempt threw, when the driver raises the ending with it (none when the driver counted a timeout itself). */
  readonly cause?: unknown;
  /**
   * The value the last attempt returned, when the driver raises the ending
   * with it: `run()`'s `outcomeOfResult` called it a failure (`cause` is then
   * undefined). Undefined otherwise.
   */
  readonly lastValue?: unknown;
}
/** The operation gave up: `reason` says why. */
export class GaveUpError extends OperationFailedError {
  /** As OperationFailedError's; `reason` is `decision.reason`. */
  constructor(
    decision: GaveUp,
    idempotencyKey: string,
    lastOutcome?: Outcome,
    cause?: unknown,
    message?: string,
    lastValue?: unknown,
  );
  readonly name: 'GaveUpError';
  readonly decision: GaveUp;
  readonly reason: GiveUpReason;
}
/** An unsafe write may have happened: look it up by `idempotencyKey`, never repeat it blindly. */
export class ReconcileRequiredError extends OperationFailedError {
  /** As OperationFailedError's. */
  constructor(
    decision: Reconcile,
    idempotencyKey: string,
    lastOutcome?: Outcome,
    cause?: unknown,
    message?: string,
    lastValue?: unknown,
  );
  readonly name: 'ReconcileRequiredError';
  readonly decision: Reconcile;
}
/** A conflict: re-read, recompute, and start a new operation before `deadlineMs`. */
export class RestartRequiredError extends OperationFailedError {
  /** As OperationFailedError's; `deadlineMs` is `decision.deadlineMs`. */
  constructor(
    decision: Restart,
    idempotencyKey: string,
    lastOutcome?: Outcome,
    cause?: unknown,
    message?: string,
    lastValue?: unknown,
  );
  readonly name: 'RestartRequiredError';
  readonly decision: Restart;
  readonly deadlineMs: number;
}

/** What `run()`'s attempt gets: the attempt's plan, its operation's key, and its own signal. */
export interface AttemptContext {
  attempt: number;
  /** True for a hedge, running beside an earlier attempt. */
  hedge: boolean;
  timeoutMs: number;
  abortAtMs: number;
  /** 16 lowercase hex digits, fresh per attempt: send it as X-Request-Id. */
  requestId: string;
  idempotencyKey: string;
  /** Time left at the start: propagate it downstream as a deadline. */
  remainingMs: number;
  /** True when a request carries the idempotency key (a keyed or unsafe policy). */
  sendIdempotencyKey: boolean;
  /**
   * This attempt's own signal, made when first read (a getter: `{...context}`
   * does not copy it): aborted at its timeout (reason: a TimeoutError), when
   * another attempt ends the operation (an AbortError), or when the caller's
   * signal aborts (reason: the signal's reason).
   */
  readonly signal: AbortSignal;
  /**
   * Inside a request served under the `propagation` middleware (Node): the
   * core's headers for the next hop (deadline, attempt count, key, retrying
   * layer), for the attempt's transport to send; absent otherwise.
   */
  outgoingHeaders?: Record<string, string>;
}

/** What every helper takes. */
export interface HelperOptions extends OperationOptions {
  /** Aborting it cancels the operation: the helper rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * The monotonic clock in ms; performance.now() by default. A fake time must move it
   * (with `node:test`'s `mock.timers`, fake `Date` and give `clock: () => Date.now()`).
   */
  clock?: () => number;
  /** @deprecated The old name of `clock` (giving both is refused). */
  now?: () => number;
  /**
   * What an error an attempt threw means, when the failure table (`failureOf`)
   * does not know it: an Outcome (e.g. `{type: 'application', verdict:
   * 'retryable'}`), or nothing for the default: the core's verdict for an
   * unknown error, `ambiguous` (retried while the operation may repeat an
   * attempt that may have had its effect, reconciled under an `unsafe` policy).
   */
  outcomeOfError?: (error: unknown) => Outcome | undefined | void;
  /** Called with each decision as the core makes it (each start, wait and the ending). */
  onDecision?: (event: DecisionEvent) => void;
  /** Counters the core updates as it decides. */
  stats?: Stats;
}
export interface RunOptions<T = unknown> extends HelperOptions {
  /** What the next hop speaks, for `context.outgoingHeaders` ("http" by default). */
  protocol?: Protocol;
  /**
   * What a value an attempt returned (or resolved to) means, called once with
   * each while the run lasts: an Outcome (e.g. `{type: 'http_status', status: 503}`), or nothing
   * for a success. The driver decides what becomes of a failed value: dropped
   * (to `onDiscard`), or the ending is raised with it as `lastValue`. A hook
   * that throws rejects the run with that error; one that returns what is not
   * an Outcome, with the RetryplanError `invalid_argument` naming its field.
   */
  outcomeOfResult?: (value: T) => Outcome | null | undefined | void;
  /**
   * Called with each value the run will not return: an attempt's that succeeded too late (timed out, or another
   * won), or one `outcomeOfResult` failed that the driver drops. Never with `null` or `undefined` (nothing to release).
   */
  onDiscard?: (value: T) => void;
}
/**
 * Runs one operation: calls `attempt(context)` whenever the core says so and
 * resolves to the winner's value. An attempt that throws is a failure, read
 * by the failure table, else by `outcomeOfError` (default: `ambiguous`); a
 * value is a success unless `outcomeOfResult` says otherwise; under a hedging
 * policy attempts run concurrently, each with its own AbortSignal. Rejects
 * with GaveUpError, ReconcileRequiredError or RestartRequiredError when there
 * is no value to return (with the last error as `cause`, or the last value as
 * `lastValue`, when the driver raises the ending with one), or with `signal.reason`.
 * An `attempt` that is not a function rejects with the RetryplanError `invalid_argument` naming `attempt`.
 */
export function run<T>(
  policy: Policy,
  attempt: (context: AttemptContext) => T | PromiseLike<T>,
  options?: RunOptions<T>,
): Promise<T>;

/**
 * retryFetch's options: `run`'s `outcomeOfResult`, `onDiscard` and `protocol` are not among them (the helper reads
 * each response itself, and cancels the body of each one it drops) and are refused, as any other unknown key.
 */
export interface RetryFetchOptions extends HelperOptions {
  policy: Policy;
  /** The fetch to call; globalThis.fetch by default. It must resolve to a Response (a numeric `status` and `headers`). */
  fetch?: typeof fetch;
  /** Whether this request may be repeated, whatever its method says (see `DriverOptions.method`). */
  idempotent?: boolean;
  /**
   * Header carrying the idempotency key (`IDEMPOTENCY_KEY_HEADER`); null to omit. The key goes under this one
   * header only: the core's propagation headers do not carry it again under `idempotency-key`.
   */
  idempotencyKeyHeader?: string | null;
  /**
   * Header carrying each attempt's request id (`REQUEST_ID_HEADER`); null to omit. In a page, a
   * cross-origin request carries it only when this is given or `propagateCrossOrigin` is true (a custom
   * header there needs the server's CORS preflight answer to list it).
   */
  requestIdHeader?: string | null;
  /**
   * In a page (the browser runtime): send the core's propagation headers on a
   * cross-origin request too (they always go on a same-origin one). They make
   * the browser send a CORS preflight first: the server must list them in
   * `Access-Control-Allow-Headers` (`retryplan-timeout-ms, retryplan-attempt,
   * retryplan-caller-retries, idempotency-key`), or the fetch fails. False by
   * default; Node sends them always and ignores it.
   */
  propagateCrossOrigin?: boolean;
}
/** The last response and the ending attached: the winner's on success, e.g. the last 503 or a 404 when the operation gave up. */
export type RetryFetchResult =
  | { decision: Succeeded; response: Response; idempotencyKey: string }
  | { decision: GaveUp; response: Response; idempotencyKey: string }
  | { decision: Restart; response: Response; idempotencyKey: string };
/**
 * fetch with the core's retries: per-attempt timeouts (an AbortSignal per
 * attempt), Retry-After read by the core, the method's repeatability, an
 * Idempotency-Key when the plan says so, a fresh X-Request-Id per attempt,
 * hedging. Resolves with the last response when there is one; rejects with
 * the typed ending when there is none, and always for reconcile (every
 * response not returned has its body cancelled); rejects unchanged for an
 * invalid request (a bad URL, a bad header), before sending anything, and
 * for what the request makes once sent (Node's fetch meeting a redirect under
 * `redirect: 'error'`); with a RetryplanError naming `fetch` when the `fetch`
 * option resolves to no response. A body other than a string, Blob,
 * BufferSource, FormData or URLSearchParams (a ReadableStream, an async
 * iterable, a Node Readable) is sent once, never hedged: where a retry was
 * wanted the operation gives up `body_not_replayable` (with the response).
 * `options.signal` and the request's own signal (`init.signal`, or a Request
 * input's) both cancel. In Node every attempt
 * carries the core's propagation headers (`retryplan-timeout-ms`,
 * `retryplan-attempt`, `retryplan-caller-retries`, the key when it is sent),
 * inside a served request or not; in a page a same-origin request carries
 * them (no CORS preflight for it), a cross-origin one only with
 * `propagateCrossOrigin: true` (the server must allow them in its preflight).
 */
export function retryFetch(
  input: string | URL | Request,
  init: RequestInit | null | undefined,
  options: RetryFetchOptions,
): Promise<RetryFetchResult>;
