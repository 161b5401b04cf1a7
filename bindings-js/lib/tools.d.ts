// Types of `retryplan/tools`: everything the default entry (`retryplan`,
// lib/index.d.ts) has, and the tools: JSON text, toConfig/toJson, explain,
// classify, snapshots, redelivery, the gRPC and AWS dialects, admission. It
// is a separate build with its own wasm: its objects (a Policy, a Dependency)
// work with its own functions and classes, not with the default entry's.
import * as lean from './index.js';
import type {
  Admission,
  AwaitOutcome,
  BreakerSnapshot,
  BudgetSnapshot,
  Class,
  Decision,
  DependencyConfig,
  DependencySnapshot,
  Outcome,
  PolicyConfig,
  ProfileName,
  Pushback,
  Redelivery,
  RetryAfterReading,
  ResolvedPolicyConfig,
  Timeline,
} from './index.js';

export * from './index.js';

/** A validated, immutable policy, with the tools. Holds wasm memory: `free()` it, or let the GC do it. */
export class Policy extends lean.Policy {
  static fromConfig(config: PolicyConfig): Policy;
  static fromCompiled(form: lean.CompiledForm): Policy;
  static profile(name: ProfileName): Policy;
  /**
   * Validates policy JSON text in the shared snake_case schema (policy files). A key repeated in
   * the text is refused ("invalid_config" naming it), as in every language; integers beyond
   * 2^53 are rounded before they are read (JS numbers).
   */
  static fromJson(json: string): Policy;
  toConfig(): ResolvedPolicyConfig;
  /** The configuration as JSON text in the shared snake_case schema, numbers as JS prints them (`2`, where Rust prints `2.0`). */
  toJson(): string;
  /** Backoff ceilings (before jitter) of the first `retries` retries. */
  backoffCeilingsMs(retries: number): number[];
  classify(outcome: Outcome): Class;
  /** The worst case against `deadlineMs` (from the start); the first attempt starts `firstAttemptAtMs` after it. */
  explain(deadlineMs?: number, firstAttemptAtMs?: number): Timeline;
}

/** Counters over many operations' decisions, with `record` for decisions you count yourself. */
export class Stats extends lean.Stats {
  /**
   * Counts one decision as an operation returned it (each start and ending once).
   * An `await_outcome` given with `inFlight`, the old name of `running`, is
   * read as `running` for one release.
   */
  record(
    decision:
      | Decision
      | (Omit<AwaitOutcome, 'running'> & {
          /** @deprecated renamed `running` (issue 28); read as `running` for one release. */
          inFlight: number;
        }),
  ): void;
}

/** The shared controls of one downstream dependency, with JSON text and snapshots. */
export class Dependency extends lean.Dependency {
  static fromConfig(config: DependencyConfig): Dependency;
  static fromCompiled(form: lean.CompiledForm): Dependency;
  /** Reads dependency JSON text in the shared snake_case schema (as `Policy.fromJson`). Throws "invalid_config" or "config_violations" (config "dependency"). */
  static fromJson(json: string): Dependency;
  clone(): Dependency;
  snapshot(nowMs: number): DependencySnapshot;
  readonly budget: RetryBudget | undefined;
  readonly breaker: CircuitBreaker | undefined;
  readonly retrySlots: lean.RetrySlots | undefined;
}

/** A retry budget, with its snapshot. */
export class RetryBudget extends lean.RetryBudget {
  snapshot(nowMs: number): BudgetSnapshot;
}

/** A circuit breaker, with its snapshot. */
export class CircuitBreaker extends lean.CircuitBreaker {
  snapshot(nowMs: number): BreakerSnapshot;
}

/**
 * What to do with a queue message after delivery number `attempts` (1 for the
 * first, this one included) that ended with `outcome`; the queue carries the
 * count and `firstSeenMs`. Throws "invalid_argument" for attempts 0.
 */
/**
 * A policy's compiled form (a few dozen bytes, starting with `rp`), for `Policy.fromCompiled` in
 * the default entry: a policy object or JSON text is read and validated first, throwing what
 * `Policy.fromConfig` or `Policy.fromJson` throws; a Policy (a profile, a service config's) is
 * compiled as it is. The same bytes as `retryplan compile --out FILE`.
 */
export function compilePolicy(policy: PolicyConfig | string | Policy): Uint8Array;
/**
 * A dependency's compiled form, for `Dependency.fromCompiled`: a configuration object or JSON
 * text, read and validated first, throwing what `Dependency.fromConfig` or `Dependency.fromJson` throws.
 */
export function compileDependency(config: DependencyConfig | string): Uint8Array;
/** A compiled form as the base64 line `retryplan compile` prints (RFC 4648 section 4, padded). */
export function compiledToBase64(form: lean.CompiledForm): string;
/**
 * The bytes of a compiled form written as base64 text (the line `retryplan compile` prints; ASCII
 * whitespace is ignored); text that is not base64 throws "invalid_argument" (field "line").
 */
export function compiledFromBase64(line: string): Uint8Array;

export function redeliver(
  policy: Policy,
  attempts: number,
  firstSeenMs: number,
  nowMs: number,
  outcome: Outcome,
): Redelivery;

export function parseGrpcPushback(value: string): Pushback;
export function encodeGrpcTimeout(timeoutMs: number): string;
/** Throws "invalid_header". */
export function parseGrpcTimeout(value: string): number;
/** A timeout in nanoseconds as a `grpc-timeout` value, in the unit a peer would choose (never rounded up). */
export function encodeGrpcTimeoutNs(timeoutNs: bigint): string;
/** A `grpc-timeout` value as exact nanoseconds (saturating at 2^63-1). Throws "invalid_header". */
export function parseGrpcTimeoutNs(value: string): bigint;
/**
 * The moment an HTTP-date (RFC 9110 section 5.6.7) names, in Unix ms (negative before 1970); `nowUnixMs` only
 * picks the century of an rfc850-date, and "0" is not a date. `reading` "lenient" also reads what Python's
 * email.utils reads. Throws "invalid_header".
 */
export function parseHttpDate(value: string, nowUnixMs: number, reading?: RetryAfterReading): number;
/** The AWS error code of a response: `x-amzn-errortype`, else a JSON body's `__type`/`code`, else an XML `<Code>`. */
export function awsErrorCodeFromResponse(errortypeHeader?: string | null, body?: string | null): string | undefined;
/**
 * The policy a urllib3 `Retry` maps to (the core's urllib3 dialect, as Python's `retryplan.compat.from_urllib3`),
 * from its attributes as JSON text keyed by urllib3's names; a number of seconds may be "inf", "-inf" or "nan".
 * `totalTimeoutMs` is the whole call's deadline (24 hours when left out: urllib3 has none). Throws
 * "config_violations" naming each attribute no policy expresses, "invalid_config" for a value of the wrong type.
 */
export function policyFromUrllib3(json: string, totalTimeoutMs?: number): Policy;
/** The AWS SDK standard mode's dependency: the 500-unit retry quota. */
export function awsStandardDependency(): Dependency;
/** The AWS SDK standard mode's 2026 dependency: 500 units, a retry costs 14, or 5 after a throttling error. */
export function awsStandard2026Dependency(): Dependency;

/** One method selector of a gRPC service config and its policy. */
export interface MethodProfile {
  /** `/service/method`, `/service/` (a service's default) or `` (the default config). */
  name: string;
  service: string;
  method: string;
  policy: Policy;
}

/** A gRPC service config read as gRFC A6 says: a validated policy per method selector, the retry throttling, warnings. */
export class ServiceConfig {
  private constructor();
  /** Reads a service config object, keys as gRPC writes them; `maxAttemptsCap` defaults to 5 (below 2: 5, as grpc-go reads it). */
  static fromConfig(config: object, maxAttemptsCap?: number): ServiceConfig;
  static fromJson(json: string, maxAttemptsCap?: number): ServiceConfig;
  readonly methods: MethodProfile[];
  /** What was capped or truncated rather than refused. */
  readonly warnings: { field: string; message: string }[];
  /** A new Dependency holding the retry throttling, or undefined; one per server name. */
  throttlingDependency(): Dependency | undefined;
  methodFor(service: string, method: string): MethodProfile | undefined;
  profileFor(service: string, method: string): Policy | undefined;
  free(): void;
}
/** Time left at `nowMs` before `deadlineMs`, minus `reserveMs`, never below 0. */
export function remainingMs(deadlineMs: number, nowMs: number, reserveMs: number): number;
/** @deprecated The old name of `remainingMs`, kept for one release. */
export function remainingBudgetMs(deadlineMs: number, nowMs: number, reserveMs: number): number;
/** Server-side admission of a request with a propagated deadline. */
export function admit(deadlineMs: number, nowMs: number, reserveMs: number, minimumUsefulMs: number): Admission;
