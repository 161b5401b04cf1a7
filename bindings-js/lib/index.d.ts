// Types of the `retryplan` package. Keys are camelCase; string values (kinds,
// reasons, codes) are the core's snake_case names, the same in every language.
// Every time is a number of milliseconds on your monotonic clock
// (`performance.now()`; fractions are floored). Times must be finite, >= 0 and
// <= Number.MAX_SAFE_INTEGER, or a RetryplanError with code "invalid_argument" is thrown.

/** Stable, language-neutral error codes (the core's `Error::code()`). */
export type ErrorCode =
  | 'invalid_policy'
  | 'invalid_policy_json'
  | 'unknown_profile'
  | 'operation_ended'
  | 'attempt_not_running'
  | 'invalid_argument'
  | 'invalid_header'
  | 'entropy_unavailable';

/** One rule an invalid policy breaks. `field` is the dotted snake_case path, e.g. "backoff.cap_ms". */
export interface Violation {
  field: string;
  message: string;
}

/** Misuse of the engine. A failed attempt is never an error: it is an Outcome, and giving up is a Decision. */
export class RetryplanError extends Error {
  readonly name: 'RetryplanError';
  readonly code: ErrorCode;
  /** For "invalid_policy": every rule broken. */
  readonly violations?: Violation[];
  /** For "invalid_policy_json" (where reading stopped), "invalid_argument" (the argument) and "invalid_header" (the header). */
  readonly field?: string;
}

export type GiveUpReason =
  | 'attempts_exhausted'
  | 'deadline_insufficient'
  | 'retry_after_exceeds_budget'
  | 'retry_after_above_cap'
  | 'server_declined_retry'
  | 'not_retryable'
  | 'cancelled';

export type GrpcCode =
  | 'ok'
  | 'cancelled'
  | 'unknown'
  | 'invalid_argument'
  | 'deadline_exceeded'
  | 'not_found'
  | 'already_exists'
  | 'permission_denied'
  | 'resource_exhausted'
  | 'failed_precondition'
  | 'aborted'
  | 'out_of_range'
  | 'unimplemented'
  | 'internal'
  | 'unavailable'
  | 'data_loss'
  | 'unauthenticated';

/** not_sent: the request never left. connection_lost / timed_out: it may have been processed. */
export type TransportFailure = 'not_sent' | 'connection_lost' | 'timed_out';
export type Verdict = 'retryable' | 'not_retryable' | 'conflict';
/** A `grpc-retry-pushback-ms` trailer: wait this long, or do not retry. */
export type Pushback = { retryAfterMs: number } | 'do_not_retry';

/** What the caller saw when an attempt ended. */
export type Outcome =
  | { type: 'success' }
  | { type: 'http_status'; status: number; retryAfterMs?: number }
  | { type: 'grpc_status'; code: GrpcCode; pushback?: Pushback }
  | { type: 'transport'; failure: TransportFailure }
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
  remainingBudgetMs: number;
}
/** Sleep until `untilMs`, then poll. */
export interface Wait {
  type: 'wait';
  /** 0 for the first retry. */
  retry: number;
  delayMs: number;
  untilMs: number;
  serverDelayMs?: number;
  remainingBudgetMs: number;
}
/** An attempt is running: report its outcome; poll again at `untilMs` at the latest. */
export interface AwaitOutcome {
  type: 'await_outcome';
  inFlight: number;
  untilMs: number;
}
export interface Succeeded {
  type: 'succeeded';
  attempts: number;
}
export interface GaveUp {
  type: 'gave_up';
  reason: GiveUpReason;
  attempts: number;
  remainingBudgetMs: number;
  refusedDelayMs?: number;
}
/** An unsafe write may have happened: look it up by the idempotency key, never repeat it. */
export interface Reconcile {
  type: 'reconcile';
  attempts: number;
  remainingBudgetMs: number;
}
/** A conflict: re-read, recompute, and start a new operation with `deadlineMs` as its deadline. */
export interface Restart {
  type: 'restart';
  attempts: number;
  deadlineMs: number;
  remainingBudgetMs: number;
}
export type Ending = Succeeded | GaveUp | Reconcile | Restart;
export type Decision = StartAttempt | Wait | AwaitOutcome | Ending;

export type BackoffKind = 'exponential' | 'linear' | 'constant';
export type Idempotency = 'safe' | 'idempotent' | 'keyed' | 'unsafe';
export type AttemptTimeoutConfig = { fixedMs: number } | { fractionOfRemaining: number };
export type JitterConfig =
  | { kind: 'none' | 'full' | 'equal' | 'decorrelated' }
  | { kind: 'proportional'; ratio: number };
export interface StatusSetConfig {
  httpStatuses?: number[];
  grpcCodes?: GrpcCode[];
}

/** A policy as written. Every field is optional: the core's defaults fill the rest. */
export interface PolicyConfig {
  /** Attempts in all, the first included (3 = one try and up to two retries). */
  maxAttempts?: number;
  totalBudgetMs?: number;
  attemptTimeout?: AttemptTimeoutConfig;
  responseReserveMs?: number;
  minimumUsefulAttemptMs?: number;
  backoff?: { kind?: BackoffKind; baseMs?: number; multiplier?: number; capMs?: number };
  jitter?: JitterConfig;
  retryOn?: StatusSetConfig & { transport?: TransportFailure[] };
  ambiguous?: StatusSetConfig;
  conflict?: StatusSetConfig;
  serverGuidance?: { honor?: boolean; capMs?: number; aboveCap?: 'clamp' | 'give_up' };
  idempotency?: Idempotency;
}

/** A validated policy's full configuration, as `Policy.toConfig()` returns it. */
export interface ResolvedPolicyConfig {
  maxAttempts: number;
  totalBudgetMs: number;
  attemptTimeout: AttemptTimeoutConfig;
  responseReserveMs: number;
  minimumUsefulAttemptMs: number;
  backoff: { kind: BackoffKind; baseMs: number; multiplier: number; capMs: number };
  jitter: JitterConfig;
  retryOn: { httpStatuses: number[]; grpcCodes: GrpcCode[]; transport: TransportFailure[] };
  ambiguous: { httpStatuses: number[]; grpcCodes: GrpcCode[] };
  conflict: { httpStatuses: number[]; grpcCodes: GrpcCode[] };
  serverGuidance: { honor: boolean; capMs: number; aboveCap: 'clamp' | 'give_up' };
  idempotency: Idempotency;
}

export type ProfileName = 'read' | 'checkout' | 'write_keyed' | 'write_strict' | 'background';

export type Class =
  | { class: 'success' }
  | { class: 'retryable'; ambiguous: boolean }
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
  | { type: 'guidance_cap_exceeds_budget'; capMs: number; deadlineMs: number };

/** A policy's worst-case timeline, in ms from the operation's start. */
export interface Timeline {
  deadlineMs: number;
  firstAttemptAtMs: number;
  responseReserveMs: number;
  configuredAttempts: number;
  attemptsThatFit: number;
  steps: TimelineStep[];
  ending: Decision;
  unboundedWorstCaseMs: number | null;
  warnings: Warning[];
}

export type Admission =
  | { type: 'admit'; remainingMs: number }
  | { type: 'reject'; remainingMs: number; minimumUsefulMs: number };

export interface StatsCounters {
  operations: number;
  attempts: number;
  retries: number;
  succeeded: number;
  reconciles: number;
  restarts: number;
  gaveUp: {
    attemptsExhausted: number;
    deadlineInsufficient: number;
    retryAfterExceedsBudget: number;
    retryAfterAboveCap: number;
    serverDeclinedRetry: number;
    notRetryable: number;
    cancelled: number;
  };
}

/** A validated, immutable policy. Holds wasm memory: `free()` it, or let the GC do it. */
export class Policy {
  private constructor();
  /** Validates a policy object; throws RetryplanError "invalid_policy" (with violations) or "invalid_policy_json". */
  static fromConfig(config: PolicyConfig): Policy;
  /** Validates policy JSON text in the shared snake_case schema (policy files). */
  static fromJson(json: string): Policy;
  /** A built-in profile; throws "unknown_profile" for another name. */
  static profile(name: ProfileName): Policy;
  toConfig(): ResolvedPolicyConfig;
  /** The configuration as JSON text in the shared snake_case schema. */
  toJson(): string;
  readonly maxAttempts: number;
  readonly totalBudgetMs: number;
  /** Backoff ceilings (before jitter) of the first `retries` retries. */
  backoffCeilingsMs(retries: number): number[];
  classify(outcome: Outcome): Class;
  /** The worst case against `deadlineMs` (from the start); the first attempt starts `firstAttemptAtMs` after it. */
  explain(deadlineMs?: number, firstAttemptAtMs?: number): Timeline;
  free(): void;
}

export interface OperationOptions {
  /** Seeds jitter and request ids (an integer <= 2^53-1). Without it, crypto.getRandomValues seeds it. */
  seed?: number;
  /** 1 to 255 visible ASCII characters; derived from the seed (or random) when absent. */
  idempotencyKey?: string;
  /** A deadline propagated by your caller, on the same clock. */
  deadlineMs?: number;
}

/** One logical operation: one idempotency key, many attempts. Each call returns exactly one decision. */
export class Operation {
  constructor(policy: Policy, nowMs: number, options?: OperationOptions);
  poll(nowMs: number): StartAttempt | Wait | AwaitOutcome | Ending;
  onOutcome(nowMs: number, attempt: number, outcome: Outcome): Decision;
  /**
   * Reports an HTTP response with its raw Retry-After header (null when absent),
   * read against `nowUnixMs` (Date.now()); a malformed header carries no guidance.
   */
  onHttpResponse(nowMs: number, attempt: number, status: number, retryAfter: string | null | undefined, nowUnixMs: number): Decision;
  cancel(nowMs: number): GaveUp;
  /** When to poll next; undefined once ended. */
  nextWakeupMs(): number | undefined;
  remainingBudgetMs(nowMs: number): number;
  readonly deadlineMs: number;
  readonly idempotencyKey: string;
  readonly attemptsStarted: number;
  readonly isEnded: boolean;
  free(): void;
}

/** Counters over many operations' decisions. */
export class Stats {
  constructor();
  /** Counts one decision as an operation returned it (each start and ending once). */
  record(decision: Decision): void;
  toJSON(): StatsCounters;
  free(): void;
}

/** A Retry-After value (delta-seconds or an HTTP-date) as ms from `nowUnixMs` (Date.now()). Throws "invalid_header". */
export function parseRetryAfter(value: string, nowUnixMs: number): number;
/** A `retry-after-ms` header value. Throws "invalid_header". */
export function parseRetryAfterMsHeader(value: string): number;
export function parseGrpcPushback(value: string): Pushback;
export function encodeGrpcTimeout(timeoutMs: number): string;
/** Throws "invalid_header". */
export function parseGrpcTimeout(value: string): number;
/** Budget left at `nowMs` before `deadlineMs`, minus `reserveMs`, never below 0. */
export function remainingBudgetMs(deadlineMs: number, nowMs: number, reserveMs: number): number;
/** Server-side admission of a request with a propagated deadline. */
export function admit(deadlineMs: number, nowMs: number, reserveMs: number, minimumUsefulMs: number): Admission;
export function profileNames(): ProfileName[];

export interface AttemptContext {
  attempt: number;
  timeoutMs: number;
  abortAtMs: number;
  requestId: string;
  idempotencyKey: string;
  /** Aborted at the attempt's timeout or when the caller's signal aborts. */
  signal: AbortSignal;
}
/** What an attempt saw: an outcome, or an HTTP response whose raw Retry-After header the core reads. */
export type AttemptResult<T> =
  | { outcome: Outcome; http?: undefined; value?: T; error?: unknown }
  | { http: { status: number; retryAfter?: string | null }; value?: T; error?: unknown };
export interface RunOptions extends OperationOptions {
  /** Aborting it cancels the operation (the decision is gave_up / cancelled). */
  signal?: AbortSignal;
  /** The monotonic clock in ms; performance.now() by default. */
  now?: () => number;
}
export interface RunResult<T> {
  decision: Ending;
  /** The value of the last attempt that returned one. */
  value?: T;
  /** The error of the last attempt that returned one. */
  error?: unknown;
  idempotencyKey: string;
}
/** Runs one operation, calling `attempt` whenever the core says so and sleeping when it says wait. */
export function run<T>(
  policy: Policy,
  attempt: (context: AttemptContext) => AttemptResult<T> | Promise<AttemptResult<T>>,
  options?: RunOptions,
): Promise<RunResult<T>>;

export interface RetryFetchOptions extends RunOptions {
  policy: Policy;
  /** The fetch to call; globalThis.fetch by default. */
  fetch?: typeof fetch;
  /** Header carrying the idempotency key ("Idempotency-Key"); null to omit. */
  idempotencyKeyHeader?: string | null;
  /** Header carrying each attempt's request id ("X-Request-Id"); null to omit. */
  requestIdHeader?: string | null;
}
export interface RetryFetchResult {
  decision: Ending;
  /** The last response received: the successful one, or e.g. the last 503. */
  response?: Response;
  /** The last network error, if an attempt failed without a response. */
  error?: unknown;
  idempotencyKey: string;
}
/** fetch with per-attempt timeouts, Retry-After, an idempotency key and request ids, as the policy decides. */
export function retryFetch(input: RequestInfo | URL, init: RequestInit | undefined, options: RetryFetchOptions): Promise<RetryFetchResult>;
