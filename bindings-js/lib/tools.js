// What the tools entry (`retryplan/tools`) adds to the default entry's API:
// JSON text, toConfig/toJson, explain, classify, snapshots, redelivery, the
// gRPC and AWS dialects, admission. Built into tools/lib/ beside the tools
// wasm (its `../wasm/retryplan_js.js` is the tools glue there, and its
// classes are the tools entry's own); the default entry never imports it.
import {
  _awsStandardDependency,
  _controlSnapshot,
  _dependencyCompile,
  _dependencyFromJson,
  _dependencySnapshot,
  _policyCeilings,
  _policyClassify,
  _policyExplain,
  _policyFromJson,
  _policyFromUrllib3,
  _policyToCompiled,
  _policyToConfig,
  _policyToJson,
  _redeliver,
  _serviceConfigMethodFor,
  _serviceConfigMethods,
  _serviceConfigRead,
  _serviceConfigThrottling,
  _serviceConfigWarnings,
  _statsRecord,
} from '../wasm/retryplan_js.js';
import { CircuitBreaker, Dependency, RetryBudget } from './controls.js';
import { compiledForm, refuse, text } from './args.js';
import { decided } from './convert.js';
import { decidedConfig } from './spelling.js';
import { Held, handle, handleOf, make } from './objects.js';
import { Policy } from './policy.js';
import { Stats } from './stats.js';

export { IncomingContext } from './propagation.js';
export {
  parseGrpcPushback,
  encodeGrpcTimeout,
  parseGrpcTimeout,
  encodeGrpcTimeoutNs,
  parseGrpcTimeoutNs,
  parseHttpDate,
  awsErrorCodeFromResponse,
  remainingMs,
  /** @deprecated The old name of `remainingMs`, kept for one release. */
  remainingMs as remainingBudgetMs,
  admit,
} from '../wasm/retryplan_js.js';

Object.assign(Policy, {
  /** Reads and validates policy JSON text (the snake_case schema shared by every language). */
  fromJson(json) {
    return make(this, _policyFromJson(json));
  },
});
Object.assign(Policy.prototype, {
  /** The normalised configuration, as a camelCase object. */
  toConfig() {
    return _policyToConfig(handle(this));
  },
  /** The normalised configuration as JSON text in the shared snake_case schema. */
  toJson() {
    return _policyToJson(handle(this));
  },
  /** The backoff ceilings of the first `retries` retries. */
  backoffCeilingsMs(retries) {
    return _policyCeilings(handle(this), retries);
  },
  /** What an outcome means under this policy: `{class, ambiguous?}`. */
  classify(outcome) {
    return _policyClassify(handle(this), outcome);
  },
  /** The worst-case timeline against `deadlineMs`, the first attempt `firstAttemptAtMs` after the start. */
  explain(deadlineMs, firstAttemptAtMs) {
    return _policyExplain(handle(this), deadlineMs, firstAttemptAtMs);
  },
});

/** Counts one decision as an operation returned it. */
Stats.prototype.record = function record(decision) {
  _statsRecord(handle(this), decision);
};

Object.assign(Dependency, {
  /** Reads dependency JSON text (the shared snake_case schema). */
  fromJson(json) {
    return make(this, _dependencyFromJson(json));
  },
});
/** Every control's state at `nowMs`: `{budget, breaker, retrySlotsInUse}`, each null when absent. */
Dependency.prototype.snapshot = function snapshot(nowMs) {
  return _dependencySnapshot(handle(this), nowMs);
};
/** The state at `nowMs`, for metrics. */
RetryBudget.prototype.snapshot = function snapshot(nowMs) {
  return _controlSnapshot(handle(this), nowMs);
};
CircuitBreaker.prototype.snapshot = RetryBudget.prototype.snapshot;

/**
 * A policy's compiled form, for `Policy.fromCompiled`: a policy object or
 * JSON text is read and validated first, with the errors of
 * `Policy.fromConfig` and `Policy.fromJson`; a Policy (a profile, a service
 * config's) is compiled as it is.
 */
export function compilePolicy(policy) {
  if (policy instanceof Policy) return decided(_policyToCompiled(handle(policy)));
  const read = typeof policy === 'string' ? Policy.fromJson(policy) : Policy.fromConfig(policy);
  try {
    return decided(_policyToCompiled(handle(read)));
  } finally {
    read.free();
  }
}

/**
 * A dependency's compiled form, for `Dependency.fromCompiled`: a
 * configuration object or JSON text, read and validated first with the errors
 * of `Dependency.fromConfig` and `Dependency.fromJson`.
 */
export const compileDependency = (config) =>
  typeof config === 'string'
    ? decided(_dependencyCompile(config, true))
    : decidedConfig(_dependencyCompile(config, false), config);

/** A compiled form as the base64 line `retryplan compile` prints (RFC 4648 section 4, padded). */
export function compiledToBase64(form) {
  const bytes = compiledForm('form', form);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of a compiled form written as base64 text (the line `retryplan compile` prints). */
export function compiledFromBase64(line) {
  let binary;
  try {
    binary = atob(text('line', line));
  } catch {
    throw refuse('line', 'base64');
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** What to do with a queue message after delivery number `attempts` that ended with `outcome`. */
export const redeliver = (policy, attempts, firstSeenMs, nowMs, outcome) =>
  _redeliver(handleOf('policy', policy, Policy), attempts, firstSeenMs, nowMs, outcome);

/**
 * The policy a urllib3 `Retry` maps to, from its attributes as JSON text keyed by urllib3's
 * names (a number of seconds may be `"inf"`, `"-inf"` or `"nan"`); `totalTimeoutMs` is the
 * whole call's deadline (24 hours when left out: urllib3 has none). The mapping and its
 * refusals are the core's, the same as Python's `retryplan.compat.from_urllib3`.
 */
export const policyFromUrllib3 = (json, totalTimeoutMs) => make(Policy, _policyFromUrllib3(json, totalTimeoutMs));

/** The AWS SDK standard mode's dependency: the 500-unit retry quota. */
export const awsStandardDependency = () => make(Dependency, _awsStandardDependency(false));

/** The AWS SDK standard mode's 2026 dependency: 500 units, a retry costs 14, or 5 after a throttling error. */
export const awsStandard2026Dependency = () => make(Dependency, _awsStandardDependency(true));

/** One selector: `{name, service, method, policy}`. */
const method = ([name, service, methodName, policy]) => ({
  name,
  service,
  method: methodName,
  policy: make(Policy, policy),
});

/** A gRPC service config read as gRFC A6 says: a validated policy per method selector, the retry throttling, warnings. */
export class ServiceConfig extends Held {
  /** Reads a service config object (keys as gRPC writes them); `maxAttemptsCap` defaults to 5. */
  static fromConfig(config, maxAttemptsCap) {
    return make(this, _serviceConfigRead(config, false, maxAttemptsCap));
  }

  /** Reads a service config from JSON text. */
  static fromJson(json, maxAttemptsCap) {
    return make(this, _serviceConfigRead(json, true, maxAttemptsCap));
  }

  /** One object per selector: `{name, service, method, policy}`. */
  get methods() {
    return _serviceConfigMethods(handle(this)).map(method);
  }

  /** What was capped or truncated: `[{field, message}]`. */
  get warnings() {
    return _serviceConfigWarnings(handle(this));
  }

  /** A new Dependency holding the retry throttling, or undefined; one per server name. */
  throttlingDependency() {
    const dependency = decided(_serviceConfigThrottling(handle(this)));
    return dependency === 0 ? undefined : make(Dependency, dependency);
  }

  /** The most specific selector's object for `service`/`method`, or undefined. */
  methodFor(service, methodName) {
    const found = _serviceConfigMethodFor(handle(this), service, methodName);
    return found === undefined ? undefined : method(found);
  }

  /** The most specific selector's policy for `service`/`method`, or undefined. */
  profileFor(service, methodName) {
    return this.methodFor(service, methodName)?.policy;
  }
}
