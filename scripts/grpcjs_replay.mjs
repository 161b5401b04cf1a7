#!/usr/bin/env node
// Differential replay of the gRPC dialect (gRFC A6) against grpc-js itself.
//
// Two parts, both seeded:
//
// 1. Call series. A random service config (a retryPolicy valid for both sides,
//    with or without retryThrottling) and a series of calls on one channel
//    (one throttler), each call a script of attempt results (a status code, and
//    maybe `grpc-retry-pushback-ms` trailers). Each call runs through grpc-js's
//    own `RetryingCall` (build/src/retrying-call.js: the code a channel runs),
//    with stub child calls that end as scripted and its timers captured instead
//    of waited for, sharing one `RetryThrottler`; and through the engine
//    (`ServiceConfig` -> `profileFor` -> `Operation`, with the config's
//    `throttlingDependency()`). After every attempt both sides must agree on:
//    - retry or not, and why not (not retryable, attempts exhausted including
//      the cap at 5, the pushback said not to retry, throttled);
//    - the delay: grpc-js waits `ceiling * random(0.8, 1.2)` (its `Math.random`
//      is fixed at 0.5 here, so its wait is the ceiling itself), so the
//      engine's delay must lie within [0.8, 1.2] of it (1 ms of rounding
//      either way); a pushback replaces the backoff exactly;
//    - the throttle's tokens after the step;
//    - the `grpc-previous-rpc-attempts` grpc-js sends on each retry (the
//      attempt number less one, which is what the engine's gRPC headers carry).
//    Over a run, the lowest and highest fraction of grpc-js's range the
//    engine's draws reached are checked, so a range too narrow shows too.
// 2. Service-config validation. Hand-written and mutated configs through
//    grpc-js's `validateServiceConfig` and `ServiceConfig.fromConfig`: which
//    each refuses.
//
// Known, documented deviations (core/src/compatibility/grpc_aws.md, gRPC
// sections: grpc-js against A6, which decides) are counted apart, by name,
// instead of failing: see KNOWN.
//
// Usage: node scripts/grpcjs_replay.mjs [--cases N] [--seed S] [--grpc-js DIR]
// DIR is a directory whose node_modules holds @grpc/grpc-js (default:
// bindings-js, where it is a pinned devDependency). Exits 1 on any difference
// that is not a known deviation. bindings-js/test/grpcjs.test.mjs runs a
// seeded sample.

import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join, resolve } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const bindingsJs = resolve(here, '..', 'bindings-js');

export const KNOWN = {
  pushback_parse_int:
    'grpc-js reads grpc-retry-pushback-ms with parseInt: an unreadable value ("xxx", "") is NaN, which it ' +
    'retries at once; "007", "+5", "1.5", "10abc", "-0" and values beyond 32 bits are read as a number where A6 ' +
    '(and the engine) say do not retry',
  pushback_several_values:
    'grpc-js reads the first of several pushback values; the host reports several as do_not_retry (grpc-go)',
  pushback_stop_non_retryable_no_token:
    'grpc-js takes no token for a do-not-retry pushback on a non-retryable code; A6 and grpc-go take one',
  first_backoff_uncapped:
    'grpc-js (as grpc-java) waits initialBackoff * jitter for the first retry even above maxBackoff; A6 and ' +
    'grpc-go cap it',
  ok_in_codes: 'grpc-js accepts OK (0) in retryableStatusCodes; the engine refuses it as grpc-java does',
  max_tokens_fraction: 'grpc-js accepts a maxTokens with a fraction; A6 asks for an integer (documented deviation)',
  token_ratio_rounded:
    'grpc-js rounds tokenRatio to 3 decimals (toFixed), A6 ignores the decimals beyond the third (truncates, ' +
    'warned), and the engine keeps a ratio that truncates to 0 as 0.001 where grpc-js keeps 0',
  duration_grammar:
    'grpc-js durations are /^\\d+(\\.\\d{1,9})?s$/: it refuses ".5s", "1.s" (which grpc-go reads, as the engine) and ' +
    'accepts "0s" for initialBackoff/maxBackoff, which A6 refuses (> 0)',
  timeout_object: 'grpc-js accepts a timeout as {seconds, nanos}; proto3 JSON writes a Duration as a string',
  method_config_without_name:
    'grpc-js refuses a method config without `name`; the engine skips it (service_config.proto)',
  null_fields:
    "grpc-js refuses null for retryPolicy, retryThrottling, a name's method (proto3 JSON: null is the default; " +
    'the engine, as grpc-go)',
  zero_timeout:
    'grpc-js accepts a timeout of "0s" (every call fails at once); the engine refuses it (documented deviation)',
  non_array_ignored:
    'grpc-js ignores a methodConfig or nonFatalStatusCodes that is not a list; the engine refuses a value of the ' +
    'wrong type',
  lb_config_checked: 'grpc-js checks a loadBalancingConfig entry has one key; the engine does not read load balancing',
  backoff_whole_ms:
    'the engine keeps initialBackoff and maxBackoff in whole ms, rounded up, with a warning (documented): ' +
    '"0.0333s" is 34 ms, and its ceilings grow from 34',
  duration_above_protobuf_bound:
    "grpc-js reads any number of seconds; the engine refuses one beyond protobuf's bound (315,576,000,000 s)",
};

/** Loads grpc-js's retry and service-config modules from DIR's node_modules. */
export function loadGrpcJs(dir = bindingsJs) {
  const require = createRequire(join(dir, 'package.json'));
  const base = dirname(require.resolve('@grpc/grpc-js/package.json'));
  return {
    version: require('@grpc/grpc-js/package.json').version,
    retrying: require(join(base, 'build/src/retrying-call.js')),
    serviceConfig: require(join(base, 'build/src/service-config.js')),
    Metadata: require(join(base, 'build/src/metadata.js')).Metadata,
    Status: require(join(base, 'build/src/constants.js')).Status,
  };
}

/** The engine's tools entry (built bindings-js). */
export async function loadEngine() {
  return import(pathToFileURL(join(bindingsJs, 'tools/lib/node.js')).href);
}

// ---------------------------------------------------------------- randomness

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Rng {
  constructor(seed) {
    this.next = mulberry32(seed);
  }
  int(lo, hi) {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick(list) {
    return list[Math.floor(this.next() * list.length)];
  }
  chance(p) {
    return this.next() < p;
  }
}

export const CODE_NAMES = [
  'OK',
  'CANCELLED',
  'UNKNOWN',
  'INVALID_ARGUMENT',
  'DEADLINE_EXCEEDED',
  'NOT_FOUND',
  'ALREADY_EXISTS',
  'PERMISSION_DENIED',
  'RESOURCE_EXHAUSTED',
  'FAILED_PRECONDITION',
  'ABORTED',
  'OUT_OF_RANGE',
  'UNIMPLEMENTED',
  'INTERNAL',
  'UNAVAILABLE',
  'DATA_LOSS',
  'UNAUTHENTICATED',
];
const RETRYABLE_CANDIDATES = [1, 2, 4, 8, 10, 13, 14, 15];
const DURATIONS = ['0.001s', '0.01s', '0.05s', '0.1s', '0.25s', '0.5s', '1s', '1.5s', '2s', '5s', '0.0333s', '3s'];
const MULTIPLIERS = [0.5, 1, 1.3, 1.5, 1.6, 2, 3, 10];
export const MAX_TOKENS = [1, 2, 3, 4, 5, 10, 20, 100, 1000];
export const TOKEN_RATIOS = [0.001, 0.01, 0.1, 0.5, 0.546, 1, 1.5, 2, 10];
// Ratios with decimals beyond the third: grpc-js rounds them, the engine truncates (KNOWN.token_ratio_rounded).
const TOKEN_RATIOS_ROUNDED = [0.5466, 0.0004];
// Pushback values A6 reads (first row) and values it says mean "do not retry".
export const PUSHBACK_VALID = ['0', '1', '10', '123', '250', '1000', '2147483647'];
export const PUSHBACK_STOP = ['-1', '-1000', '-2147483648'];
// Values grpc-js's parseInt reads differently from A6 (KNOWN.pushback_parse_int).
export const PUSHBACK_PARSE_INT = ['xxx', '', '007', '+5', '-0', '1.5', '10abc', '2147483648', '99999999999'];

export function codeSpelling(rng, code) {
  const name = CODE_NAMES[code];
  return rng.pick([code, name, name, name.toLowerCase(), name[0] + name.slice(1).toLowerCase()]);
}

function randomRetryPolicy(rng) {
  const codes = [...new Set(Array.from({ length: rng.int(1, 3) }, () => rng.pick(RETRYABLE_CANDIDATES)))];
  let initial = rng.pick(DURATIONS);
  let max = rng.pick(DURATIONS);
  // Mostly initial <= max; sometimes above (KNOWN.first_backoff_uncapped).
  if (seconds(initial) > seconds(max) && !rng.chance(0.2)) [initial, max] = [max, initial];
  return {
    maxAttempts: rng.int(2, 7),
    initialBackoff: initial,
    maxBackoff: max,
    backoffMultiplier: rng.pick(MULTIPLIERS),
    retryableStatusCodes: codes.map((code) => codeSpelling(rng, code)),
  };
}

const seconds = (duration) => Number(duration.slice(0, -1));

function randomAttempt(rng, policy) {
  const roll = rng.next();
  let code;
  if (roll < 0.2) code = 0;
  else if (roll < 0.75) code = codeNumber(rng.pick(policy.retryableStatusCodes));
  else code = rng.int(1, 16);
  const pushback = [];
  if (code !== 0 && rng.chance(0.3)) {
    const kind = rng.next();
    if (kind < 0.5) pushback.push(rng.pick(PUSHBACK_VALID));
    else if (kind < 0.75) pushback.push(rng.pick(PUSHBACK_STOP));
    else pushback.push(rng.pick(PUSHBACK_PARSE_INT));
    if (rng.chance(0.05)) pushback.push(rng.pick(PUSHBACK_VALID));
  }
  return { code, pushback };
}

export function codeNumber(spelling) {
  return typeof spelling === 'number' ? spelling : CODE_NAMES.indexOf(spelling.toUpperCase());
}

export function randomCase(rng, index) {
  const retryPolicy = randomRetryPolicy(rng);
  const config = { methodConfig: [{ name: [{ service: 'echo.Echo' }], retryPolicy }] };
  if (rng.chance(0.7))
    config.retryThrottling = {
      maxTokens: rng.pick(MAX_TOKENS),
      tokenRatio: rng.pick(rng.chance(0.05) ? TOKEN_RATIOS_ROUNDED : TOKEN_RATIOS),
    };
  const drain = index % 10 === 9;
  const calls = [];
  const count = drain ? rng.int(10, 30) : rng.int(1, 8);
  for (let i = 0; i < count; i++) {
    const failing = drain && rng.chance(0.7);
    calls.push(
      Array.from({ length: 7 }, () =>
        failing
          ? { code: codeNumber(retryPolicy.retryableStatusCodes[0]), pushback: [] }
          : randomAttempt(rng, retryPolicy),
      ),
    );
  }
  return { seed: index, config, calls };
}

// ---------------------------------------------------------------- grpc-js side

/**
 * What one grpc-js channel shares among its calls (this replay's and the hedging one's): the service config
 * as grpc-js validates it, the throttler, and a buffer tracker.
 */
export function channelState(grpc, config) {
  const validated = grpc.serviceConfig.validateServiceConfig(structuredClone(config));
  const throttling = validated.retryThrottling;
  const throttler = throttling
    ? new grpc.retrying.RetryThrottler(throttling.maxTokens, throttling.tokenRatio, undefined)
    : undefined;
  return { validated, throttler, bufferTracker: new grpc.retrying.MessageBufferTracker(1 << 24, 1 << 20) };
}

/** grpc-js's own RetryingCall over `channel` for the config's first method, as a channel makes one. */
export function newRetryingCall(grpc, channel, state, callNumber) {
  const callConfig = {
    methodConfig: state.validated.methodConfig[0],
    pickInformation: {},
    status: 0,
    dynamicFilterFactories: [],
  };
  const { bufferTracker, throttler } = state;
  const path = '/echo.Echo/Say';
  return new grpc.retrying.RetryingCall(channel, callConfig, path, 'localhost', null, Infinity, callNumber, bufferTracker, throttler);
}

/** A stub child call (the attempt a RetryingCall starts): it keeps its metadata and listener; `own` adds to it. */
export function stubChild(own) {
  return {
    listener: null,
    metadata: null,
    start(metadata, listener) {
      this.metadata = metadata;
      this.listener = listener;
    },
    sendMessageWithContext(context) {
      context.callback?.();
    },
    halfClose() {},
    startRead() {},
    cancelWithStatus() {},
    getPeer: () => 'stub',
    getDeadlineInfo: () => [],
    getAuthContext: () => null,
    ...own,
  };
}

/** One channel's worth of grpc-js retry state: the throttler its calls share. */
class GrpcJsChannel {
  constructor(grpc, config) {
    this.grpc = grpc;
    Object.assign(this, channelState(grpc, config));
    this.callNumber = 0;
    this.children = [];
    this.channel = {
      getOptions: () => ({}),
      createLoadBalancingCall: () => this.newChild(),
    };
  }

  newChild() {
    const child = stubChild({
      number: ++this.callNumber,
      getCallNumber() {
        return this.number;
      },
    });
    this.children.push(child);
    return child;
  }

  /** Starts a call; returns a handle to end its attempts one by one. */
  startCall() {
    const grpc = this.grpc;
    const call = newRetryingCall(grpc, this.channel, this, ++this.callNumber);
    const retryPolicy = this.validated.methodConfig[0].retryPolicy;
    let ended = null;
    call.reportStatus = (status) => {
      ended = status;
    };
    call.start(new grpc.Metadata(), {
      onReceiveMetadata() {},
      onReceiveMessage() {},
      onReceiveStatus() {},
    });
    call.sendMessageWithContext({}, Buffer.from('x'));
    call.halfClose();
    const self = this;
    return {
      call,
      /** grpc-previous-rpc-attempts on the running attempt's request, or null. */
      previousAttempts() {
        const value = self.children.at(-1).metadata.get('grpc-previous-rpc-attempts');
        return value.length === 0 ? null : value[0];
      },
      /** Ends the running attempt; returns grpc-js's step: {retry, delayMs} or {retry: false, reason}. */
      end(attempt) {
        const child = self.children.at(-1);
        const metadata = new grpc.Metadata();
        for (const value of attempt.pushback) metadata.add('grpc-retry-pushback-ms', value);
        const attemptsBefore = call.attempts;
        const timers = [];
        const saved = globalThis.setTimeout;
        globalThis.setTimeout = (callback, ms) => {
          timers.push({ callback, ms });
          return { unref() {}, ref() {} };
        };
        const childrenBefore = self.children.length;
        try {
          child.listener.onReceiveStatus({ code: attempt.code, details: '', metadata, progress: 'PROCESSED' });
          if (ended === null && timers.length === 1) timers[0].callback();
        } finally {
          globalThis.setTimeout = saved;
        }
        if (self.children.length > childrenBefore) return { retry: true, delayMs: timers[0].ms };
        if (ended === null) throw new Error('grpc-js neither retried nor ended the call');
        let reason;
        if (attempt.code === 0) reason = 'succeeded';
        else if (!call.isStatusCodeInList(retryPolicy.retryableStatusCodes, attempt.code))
          reason = 'not_retryable';
        else if (attemptsBefore >= call.maxAttempts) reason = 'attempts_exhausted';
        else if (timers.length === 0) reason = 'server_declined_retry';
        else reason = 'budget_exhausted';
        return { retry: false, reason, waitedMs: timers[0]?.ms };
      },
    };
  }

  tokens() {
    return this.throttler?.tokens;
  }
}

// ---------------------------------------------------------------- engine side

function engineOutcome(engine, attempt) {
  const code = CODE_NAMES[attempt.code].toLowerCase();
  if (attempt.pushback.length === 0) return { type: 'grpc_status', code };
  // Several values at once: the host reports "do not retry" (grpc-go; the page's pushback row).
  const pushback = attempt.pushback.length > 1 ? 'do_not_retry' : engine.parseGrpcPushback(attempt.pushback[0]);
  return { type: 'grpc_status', code, pushback };
}

/** The known deviation an attempt of a case may show, if any. */
function knownFor(testCase, attempt, retryNumber) {
  if (attempt.pushback.length > 1) return 'pushback_several_values';
  if (attempt.pushback.length === 1 && PUSHBACK_PARSE_INT.includes(attempt.pushback[0])) return 'pushback_parse_int';
  const policy = testCase.config.methodConfig[0].retryPolicy;
  if (
    attempt.pushback.length === 1 &&
    Number(attempt.pushback[0]) < 0 &&
    !policy.retryableStatusCodes.some((c) => codeNumber(c) === attempt.code)
  )
    return 'pushback_stop_non_retryable_no_token';
  if (seconds(policy.initialBackoff) > seconds(policy.maxBackoff) && retryNumber === 0) return 'first_backoff_uncapped';
  if (attempt.code === 0 && TOKEN_RATIOS_ROUNDED.includes(testCase.config.retryThrottling?.tokenRatio))
    return 'token_ratio_rounded';
  return null;
}

/** The engine keeps backoffs in whole ms, rounded up (warned): a config with a finer one may draw a little apart. */
function wholeMs(testCase) {
  const policy = testCase.config.methodConfig[0].retryPolicy;
  const fine = [policy.initialBackoff, policy.maxBackoff].some(
    (d) => !Number.isInteger(Math.round(seconds(d) * 1e6) / 1e3),
  );
  return fine ? 'backoff_whole_ms' : null;
}

export class Result {
  constructor() {
    this.cases = 0;
    this.calls = 0;
    this.steps = 0;
    this.known = {};
    this.differences = [];
    this.endings = {};
    this.reach = {};
    this.configs = 0;
  }
  note(explained, text) {
    if (explained) this.known[explained] = (this.known[explained] ?? 0) + 1;
    else this.differences.push(text);
  }
  count(table, key) {
    this[table][key] = (this[table][key] ?? 0) + 1;
  }
}

/** Runs one case on both sides, recording every difference (or the known deviation that explains it). */
export function replay(grpc, engine, testCase, result) {
  result.cases += 1;
  const where = `seed=${testCase.seed} config=${JSON.stringify(testCase.config)}`;
  const channel = new GrpcJsChannel(grpc, testCase.config);
  const serviceConfig = engine.ServiceConfig.fromConfig(structuredClone(testCase.config));
  const policy = serviceConfig.profileFor('echo.Echo', 'Say');
  const dependency = serviceConfig.throttlingDependency();
  serviceConfig.free();
  const engineTokens = (now) => {
    const budget = dependency?.snapshot(now).budget;
    return budget ? budget.tokensMilli / 1000 : undefined;
  };
  // Once a case's tokens differ for a known reason, later token comparisons are explained by it.
  let tokensExplained = null;
  let now = 0;
  try {
    testCase.calls.forEach((script, callIndex) => {
      result.calls += 1;
      const js = channel.startCall();
      const operation = new engine.Operation(policy, now, {
        seed: testCase.seed * 1000 + callIndex,
        ...(dependency ? { dependency } : {}),
      });
      let decision = operation.poll(now);
      let retryNumber = 0;
      let explained = null;
      try {
        for (const [index, attempt] of script.entries()) {
          const number = index + 1;
          result.steps += 1;
          const here = `${where} call ${callIndex} attempt ${number} (${CODE_NAMES[attempt.code]} pushback ${JSON.stringify(attempt.pushback)}; so far ${JSON.stringify(script.slice(0, number).map((a) => [a.code, ...a.pushback]))})`;
          const stepKnown = knownFor(testCase, attempt, retryNumber);
          explained = explained ?? stepKnown;
          if (decision.type !== 'start_attempt') {
            result.differences.push(`${here}: the engine did not start an attempt: ${JSON.stringify(decision)}`);
            return;
          }
          const header = js.previousAttempts();
          const expectedHeader = number > 1 ? String(number - 1) : null;
          if (header !== expectedHeader)
            result.differences.push(
              `${here}: grpc-js sent grpc-previous-rpc-attempts ${header}, expected ${expectedHeader}`,
            );
          const step = js.end(attempt);
          now += 10;
          decision = operation.onOutcome(now, number, engineOutcome(engine, attempt));
          const engineRetries = decision.type === 'wait' || decision.type === 'start_attempt';
          if (step.retry !== engineRetries) {
            result.note(
              explained ?? tokensExplained,
              `${here}: grpc-js ${step.retry ? `retries after ${step.delayMs} ms` : `ends (${step.reason})`}, the engine ${JSON.stringify(decision)}`,
            );
            tokensExplained = tokensExplained ?? explained;
            return;
          }
          if (!step.retry) {
            const engineReason = decision.type === 'succeeded' ? 'succeeded' : decision.reason;
            result.count('endings', step.reason);
            if (engineReason !== step.reason)
              result.note(
                explained ?? tokensExplained,
                `${here}: grpc-js ends (${step.reason}), the engine ${JSON.stringify(decision)}`,
              );
          } else {
            const delayMs = decision.type === 'wait' ? decision.delayMs : 0;
            const pushback = attempt.pushback.length === 1 ? Number.parseInt(attempt.pushback[0], 10) : Number.NaN;
            if (attempt.pushback.length > 0 && pushback >= 0) {
              if (delayMs !== step.delayMs)
                result.note(
                  explained,
                  `${here}: the pushback: grpc-js waits ${step.delayMs} ms, the engine ${delayMs}`,
                );
            } else if (attempt.pushback.length > 0) {
              result.note(explained, `${here}: grpc-js retries after pushback ${JSON.stringify(attempt.pushback)}`);
            } else {
              // Math.random is 0.5 (below): grpc-js's wait is its ceiling; any draw lies in [0.8, 1.2] of it.
              const ceiling = step.delayMs;
              const low = 0.8 * ceiling;
              const high = 1.2 * ceiling;
              if (!(low - 1 <= delayMs && delayMs <= high + 1)) {
                result.note(
                  stepKnown === 'first_backoff_uncapped' ? stepKnown : (explained ?? wholeMs(testCase)),
                  `${here}: retry ${retryNumber}: the engine waits ${delayMs} ms, outside grpc-js's [${low.toFixed(3)}, ${high.toFixed(3)}] ms`,
                );
              } else if (high - low >= 20) {
                const fraction = (delayMs - low) / (high - low);
                const key = `retry ${Math.min(retryNumber, 3)}`;
                const reach = result.reach[key] ?? { low: 1, high: 0, samples: 0 };
                result.reach[key] = {
                  low: Math.min(reach.low, fraction),
                  high: Math.max(reach.high, fraction),
                  samples: reach.samples + 1,
                };
              }
            }
            retryNumber += 1;
            if (decision.type === 'wait') {
              now = decision.untilMs;
              decision = operation.poll(now);
            }
          }
          const theirs = channel.tokens();
          const mine = engineTokens(now);
          if (theirs !== undefined && Math.abs(theirs - mine) > 1e-6) {
            result.note(stepKnown, `${here}: tokens after the step: grpc-js ${theirs}, the engine ${mine}`);
            if (!stepKnown) return;
            // A known deviation moved the tokens: say so once, then carry on from the engine's count so that the
            // rest of the series still compares every step.
            tokensExplained = stepKnown;
            channel.throttler.tokens = mine;
          }
          if (!step.retry) return;
        }
        if (decision.type === 'start_attempt') operation.cancel(now);
      } finally {
        operation.free();
        now += 1000;
      }
    });
  } finally {
    policy.free();
    dependency?.free();
  }
}

// ---------------------------------------------------------------- validation

const VALID_RETRY = {
  maxAttempts: 3,
  initialBackoff: '0.1s',
  maxBackoff: '1s',
  backoffMultiplier: 2,
  retryableStatusCodes: ['UNAVAILABLE'],
};

function withRetry(patch) {
  const retryPolicy = { ...VALID_RETRY, ...patch };
  for (const [key, value] of Object.entries(patch)) if (value === undefined) delete retryPolicy[key];
  return { methodConfig: [{ name: [{ service: 's' }], retryPolicy }] };
}

/** Configs for the validation comparison, each with the known deviation it may show (or null). */
export function validationConfigs() {
  const list = [
    [{}, null],
    [withRetry({}), null],
    [withRetry({ maxAttempts: 1 }), null],
    [withRetry({ maxAttempts: 0 }), null],
    [withRetry({ maxAttempts: -1 }), null],
    [withRetry({ maxAttempts: 2.5 }), null],
    [withRetry({ maxAttempts: '3' }), null],
    [withRetry({ maxAttempts: 100 }), null],
    [withRetry({ maxAttempts: undefined }), null],
    [withRetry({ initialBackoff: undefined }), null],
    [withRetry({ maxBackoff: undefined }), null],
    [withRetry({ backoffMultiplier: undefined }), null],
    [withRetry({ retryableStatusCodes: undefined }), null],
    [withRetry({ initialBackoff: '1.5s' }), null],
    [withRetry({ initialBackoff: '0.000000001s' }), null],
    [withRetry({ initialBackoff: '0.0000000001s' }), null],
    [withRetry({ initialBackoff: '1' }), null],
    [withRetry({ initialBackoff: 's' }), null],
    [withRetry({ initialBackoff: '.s' }), null],
    [withRetry({ initialBackoff: '1..5s' }), null],
    [withRetry({ initialBackoff: ' 1s' }), null],
    [withRetry({ initialBackoff: '1S' }), null],
    [withRetry({ initialBackoff: 1 }), null],
    [withRetry({ initialBackoff: '-1s' }), null],
    [withRetry({ initialBackoff: '+1s' }), null],
    [withRetry({ initialBackoff: '1m' }), null],
    [withRetry({ initialBackoff: '0s' }), 'duration_grammar'],
    [withRetry({ maxBackoff: '0s' }), 'duration_grammar'],
    [withRetry({ maxBackoff: '0.000s' }), 'duration_grammar'],
    [withRetry({ initialBackoff: '.5s' }), 'duration_grammar'],
    [withRetry({ initialBackoff: '1.s' }), 'duration_grammar'],
    [withRetry({ maxBackoff: '315576000000s' }), null],
    [withRetry({ maxBackoff: '315576000001s' }), 'duration_above_protobuf_bound'],
    [withRetry({ backoffMultiplier: 0 }), null],
    [withRetry({ backoffMultiplier: -1 }), null],
    [withRetry({ backoffMultiplier: '2' }), null],
    [withRetry({ backoffMultiplier: 0.5 }), null],
    [withRetry({ backoffMultiplier: 1.0001 }), null],
    [withRetry({ backoffMultiplier: 2e6 }), null],
    [withRetry({ backoffMultiplier: 1e-9 }), null],
    [withRetry({ retryableStatusCodes: [] }), null],
    [withRetry({ retryableStatusCodes: 'UNAVAILABLE' }), null],
    [withRetry({ retryableStatusCodes: [14] }), null],
    [withRetry({ retryableStatusCodes: ['unavailable', 'Aborted', 4] }), null],
    [withRetry({ retryableStatusCodes: ['NOPE'] }), null],
    [withRetry({ retryableStatusCodes: [17] }), null],
    [withRetry({ retryableStatusCodes: [-1] }), null],
    [withRetry({ retryableStatusCodes: [14.5] }), null],
    [withRetry({ retryableStatusCodes: ['14'] }), null],
    [withRetry({ retryableStatusCodes: [true] }), null],
    [withRetry({ retryableStatusCodes: [null] }), null],
    [withRetry({ retryableStatusCodes: ['OK'] }), 'ok_in_codes'],
    [withRetry({ retryableStatusCodes: [0] }), 'ok_in_codes'],
    [withRetry({ retryableStatusCodes: ['ok', 'UNAVAILABLE'] }), 'ok_in_codes'],
    [withRetry({ retryableStatusCodes: ['UNAVAILABLE', 'UNAVAILABLE'] }), null],
    [{ methodConfig: [{ name: [{ service: 's' }], retryPolicy: null }] }, 'null_fields'],
    [
      { methodConfig: [{ name: [{ service: 's' }], retryPolicy: VALID_RETRY, hedgingPolicy: { maxAttempts: 2 } }] },
      null,
    ],
    [{ methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, hedgingDelay: '0.5s' } }] }, null],
    [{ methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3 } }] }, null],
    [{ methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 1 } }] }, null],
    [{ methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, hedgingDelay: '-1s' } }] }, null],
    [{ methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, hedgingDelay: '0s' } }] }, null],
    [
      {
        methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, nonFatalStatusCodes: ['nope'] } }],
      },
      null,
    ],
    [
      {
        methodConfig: [
          { name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, nonFatalStatusCodes: 'UNAVAILABLE' } },
        ],
      },
      'non_array_ignored',
    ],
    [
      { methodConfig: [{ name: [{ service: 's' }], hedgingPolicy: { maxAttempts: 3, nonFatalStatusCodes: [] } }] },
      null,
    ],
    [{ retryThrottling: { maxTokens: 10, tokenRatio: 0.1 } }, null],
    [{ retryThrottling: { maxTokens: 0, tokenRatio: 0.1 } }, null],
    [{ retryThrottling: { maxTokens: 1000, tokenRatio: 0.1 } }, null],
    [{ retryThrottling: { maxTokens: 1001, tokenRatio: 0.1 } }, null],
    [{ retryThrottling: { maxTokens: -1, tokenRatio: 0.1 } }, null],
    [{ retryThrottling: { maxTokens: 1.5, tokenRatio: 0.1 } }, 'max_tokens_fraction'],
    [{ retryThrottling: { maxTokens: '10', tokenRatio: 0.1 } }, null],
    [{ retryThrottling: { maxTokens: 10, tokenRatio: 0 } }, null],
    [{ retryThrottling: { maxTokens: 10, tokenRatio: -0.1 } }, null],
    [{ retryThrottling: { maxTokens: 10, tokenRatio: 0.0001 } }, null],
    [{ retryThrottling: { maxTokens: 10, tokenRatio: 20 } }, null],
    [{ retryThrottling: { maxTokens: 10 } }, null],
    [{ retryThrottling: { tokenRatio: 0.1 } }, null],
    [{ retryThrottling: null }, 'null_fields'],
    [{ methodConfig: [{ name: [{ service: 's' }] }, { name: [{ service: 's' }] }] }, null],
    [{ methodConfig: [{ name: [{}] }, { name: [{ service: '' }] }] }, null],
    [{ methodConfig: [{ name: [{ method: 'm' }] }] }, null],
    [{ methodConfig: [{ name: [{ service: '', method: 'm' }] }] }, null],
    [{ methodConfig: [{ name: [{ service: 's', method: null }] }] }, 'null_fields'],
    [{ methodConfig: [{ name: [{ service: 1 }] }] }, null],
    [{ methodConfig: [{ retryPolicy: VALID_RETRY }] }, 'method_config_without_name'],
    [{ methodConfig: [{ name: [{ service: 's' }], timeout: '1.5s' }] }, null],
    [{ methodConfig: [{ name: [{ service: 's' }], timeout: '0s' }] }, 'zero_timeout'],
    [{ methodConfig: [{ name: [{ service: 's' }], timeout: 'x' }] }, null],
    [{ methodConfig: [{ name: [{ service: 's' }], timeout: { seconds: 1, nanos: 0 } }] }, 'timeout_object'],
    [{ methodConfig: [{ name: [{ service: 's' }], waitForReady: 'yes' }] }, null],
    [{ methodConfig: {} }, 'non_array_ignored'],
    [{ loadBalancingPolicy: 1 }, null],
    [{ loadBalancingConfig: [{}] }, 'lb_config_checked'],
    [{ loadBalancingConfig: 'x' }, null],
    [
      {
        methodConfig: [
          {
            name: [{ service: 's' }],
            retry_policy: {
              max_attempts: 3,
              initial_backoff: '0.1s',
              max_backoff: '1s',
              backoff_multiplier: 2,
              retryable_status_codes: ['UNAVAILABLE'],
            },
          },
        ],
      },
      null,
    ],
  ];
  return list;
}

function randomValidationConfig(rng) {
  // A valid policy with one field replaced by a value from another field's pool, or removed.
  const pools = {
    maxAttempts: [2, 3, 5, 6, 1, 0, 2.5, '3', null, 3.0],
    initialBackoff: ['0.1s', '1s', '1.5s', '0s', '.5s', '1.s', '-1s', '1', 1, null, '0.0001s', '10s'],
    maxBackoff: ['0.1s', '1s', '30s', '0s', '1.s', '-1s', null, '0.5s'],
    backoffMultiplier: [1, 2, 1.5, 0, -1, '2', null, 0.5, 1.6],
    retryableStatusCodes: [['UNAVAILABLE'], [14], ['aborted', 4], [], ['OK'], [0], [17], ['nope'], 'UNAVAILABLE', null],
  };
  const patch = {};
  for (const key of Object.keys(pools)) {
    if (rng.chance(0.25)) patch[key] = rng.chance(0.1) ? undefined : rng.pick(pools[key]);
  }
  return withRetry(patch);
}

function explainValidation(config) {
  const policy = config.methodConfig?.[0]?.retryPolicy;
  if (!policy) return null;
  const codes = Array.isArray(policy.retryableStatusCodes) ? policy.retryableStatusCodes : [];
  if (codes.some((c) => c === 0 || (typeof c === 'string' && c.toUpperCase() === 'OK'))) return 'ok_in_codes';
  for (const key of ['initialBackoff', 'maxBackoff'])
    if (typeof policy[key] === 'string' && (/^0*(\.0*)?s$/.test(policy[key]) || /^\.\d|\d\.s$/.test(policy[key])))
      return 'duration_grammar';
  if (Object.values(policy).includes(null)) return 'null_fields';
  return null;
}

/** Compares which configs grpc-js and the engine refuse. */
export function compareValidation(grpc, engine, result, rng, randomCount) {
  const configs = validationConfigs();
  for (let i = 0; i < randomCount; i++) {
    const config = randomValidationConfig(rng);
    configs.push([config, explainValidation(config)]);
  }
  for (const [config, explained] of configs) {
    result.configs += 1;
    let theirs = null;
    let mine = null;
    try {
      grpc.serviceConfig.validateServiceConfig(structuredClone(config));
    } catch (error) {
      theirs = error.message;
    }
    try {
      engine.ServiceConfig.fromConfig(structuredClone(config)).free();
    } catch (error) {
      mine = error.message;
    }
    if ((theirs === null) !== (mine === null))
      result.note(
        explained,
        `config ${JSON.stringify(config)}: grpc-js ${theirs === null ? 'accepts' : `refuses (${theirs})`}, the engine ${mine === null ? 'accepts' : `refuses (${mine})`}`,
      );
  }
}

// ---------------------------------------------------------------- run

/** Runs `cases` call series and the validation comparison; returns the Result. */
export function run(grpc, engine, { cases = 2000, seed = 1, randomConfigs = 500 } = {}) {
  const result = new Result();
  const rng = new Rng(seed);
  const savedRandom = Math.random;
  // grpc-js's jitter is Math.random() * 0.4 + 0.8: at 0.5 its wait is the ceiling itself.
  Math.random = () => 0.5;
  try {
    for (let index = 0; index < cases; index++) replay(grpc, engine, randomCase(rng, index), result);
  } finally {
    Math.random = savedRandom;
  }
  // The bounds check cannot see an engine range narrower than grpc-js's: over enough draws its delays must come
  // near both ends of [0.8, 1.2] of the ceiling (30 uniform draws all above 0.2 of the range: 0.8^30, 0.1 %).
  for (const [key, reach] of Object.entries(result.reach)) {
    if (reach.samples >= 30 && (reach.low > 0.2 || reach.high < 0.8))
      result.differences.push(
        `${key}: over ${reach.samples} draws the engine's delays reach only [${reach.low.toFixed(3)}, ${reach.high.toFixed(3)}] of grpc-js's range`,
      );
  }
  compareValidation(grpc, engine, result, rng, randomConfigs);
  return result;
}

async function main(argv) {
  const args = { cases: 2000, seed: 1, grpcJs: bindingsJs, show: 20, randomConfigs: 500 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--cases') args.cases = Number(value);
    else if (flag === '--seed') args.seed = Number(value);
    else if (flag === '--grpc-js') args.grpcJs = resolve(value);
    else if (flag === '--show') args.show = Number(value);
    else if (flag === '--configs') args.randomConfigs = Number(value);
    else throw new Error(`unknown argument ${flag}`);
  }
  const grpc = loadGrpcJs(args.grpcJs);
  const engine = await loadEngine();
  const result = run(grpc, engine, args);
  console.log(
    `grpc-js ${grpc.version}: ${result.cases} call series, ${result.calls} calls, ${result.steps} attempts; ${result.configs} service configs`,
  );
  console.log(`calls ended by: ${JSON.stringify(result.endings)}`);
  console.log(`known deviations met: ${JSON.stringify(result.known)}`);
  console.log("fraction of grpc-js's delay range the engine reached:");
  for (const [key, reach] of Object.entries(result.reach).sort())
    console.log(`  ${key}: [${reach.low.toFixed(3)}, ${reach.high.toFixed(3)}] over ${reach.samples} draws`);
  console.log(`differences: ${result.differences.length}`);
  for (const difference of result.differences.slice(0, args.show)) console.log(`  ${difference}`);
  return result.differences.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
