#!/usr/bin/env node
// Differential replay of gRPC hedging (gRFC A6 "Hedging Policy") against grpc-js itself.
//
// A random service config with a hedgingPolicy (maxAttempts, capped at 5 by
// both sides; hedgingDelay or none; nonFatalStatusCodes or none), with or
// without retryThrottling, and a series of calls on one channel (one
// throttler). Each call is a script by attempt number: attempt k answers a
// scripted time after it starts (or never), with a status code and maybe
// `grpc-retry-pushback-ms` trailers. Each call runs
// - through grpc-js's own `RetryingCall` (build/src/retrying-call.js, the code
//   a channel runs), with stub child calls that answer as scripted, every
//   timer it sets captured on a virtual clock, sharing one `RetryThrottler`;
// - through the engine's `Driver` (`ServiceConfig.fromConfig` -> `profileFor`,
//   with the config's `throttlingDependency()`), the host loop on the same
//   virtual clock: `pollAction` until it sleeps, results handed in.
// Each side runs on its own and keeps a trace; the traces must agree on:
// - when each attempt starts (the original at once, a hedge every
//   hedgingDelay, the next one at once after a non-fatal code, or after a
//   pushback), and the `grpc-previous-rpc-attempts` it carries (grpc-js's
//   metadata; the engine's `outgoingHeaders(.., 'grpc')`);
// - the throttle's tokens after every answer;
// - how and when the call ends: which attempt's status is the call's, why
//   (success, fatal code, every attempt failed non-fatally, pushback said not
//   to retry, throttled), and which running attempts are cancelled;
// - and that grpc-js reports one status per call.
// At one instant, timers (hedges due) run before answers, and answers in
// attempt order, on both sides. An answer that never comes leaves the call to
// be cancelled at HORIZON_MS after its start.
//
// The first difference in a call is explained by a known grpc-js departure
// from A6 (KNOWN, and core/src/compatibility/grpc_aws.md's gRPC sections) or
// is a difference; either way the rest of that call is not compared, and after
// a known one the next call starts from the engine's token count.
//
// With --a6, grpc-js's RetryingCall is first corrected to A6 where KNOWN says it departs (a6Corrected): then
// no difference but the engine's own documented one (whole-ms hedgingDelay) may remain, so the engine is
// checked on those paths too.
//
// Usage: node scripts/grpcjs_hedging_replay.mjs [--a6] [--cases N] [--seed S] [--grpc-js DIR] [--show N]
// Exits 1 on any difference that is not a known deviation.
// bindings-js/test/grpcjs.test.mjs runs a seeded sample.

import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';
import {
  CODE_NAMES,
  KNOWN as RETRY_KNOWN,
  MAX_TOKENS,
  PUSHBACK_PARSE_INT,
  PUSHBACK_STOP,
  PUSHBACK_VALID,
  Result,
  Rng,
  TOKEN_RATIOS,
  codeNumber,
  codeSpelling,
  loadEngine,
  loadGrpcJs,
  channelState,
  newRetryingCall,
  stubChild,
} from './grpcjs_replay.mjs';

export const KNOWN = {
  pushback_parse_int: RETRY_KNOWN.pushback_parse_int,
  pushback_several_values: RETRY_KNOWN.pushback_several_values,
  pushback_stop_fatal_no_token:
    'grpc-js takes no token for a do-not-retry pushback on a fatal code (one not in nonFatalStatusCodes); A6 ' +
    '("receive a pushback response indicating not to retry") takes one',
  hedges_not_throttled:
    'grpc-js never asks its throttler before a hedge: it sends hedges at any token count; A6 sends a hedge only ' +
    'while token_count > maxTokens / 2 ("Throttling also applies to hedged RPCs")',
  hedge_pushback_stop_ends_call:
    "a do-not-retry pushback on a non-fatal code ends grpc-js's call at once with that status, cancelling the " +
    'hedges still running; A6 sends no further hedge and waits for those ("Hedged RPCs are returned to the client ' +
    'application when all outstanding and pending requests have either received a response or been canceled")',
  hedge_pushback_beside_timer:
    "grpc-js runs a pushback's delay as its own timer beside the hedging timer: the hedging timer still sends " +
    'its hedge during the pushback, and each pushback timer sends one more when it runs out; A6 ("Summary of ' +
    'Retry and Hedging Logic" 5): the next hedge is sent after the pushback, the following ones hedgingDelay apart',
  hedging_delay_whole_ms:
    'the engine keeps hedgingDelay in whole ms, rounded up, with a warning (documented, as the backoffs): ' +
    '"0.0005s" is 1 ms, where grpc-js sets a 0.5 ms timer',
  hedge_pushback_late_status:
    "grpc-js's pushback timer also decides whether the call is over: with no attempt left to send, it reports " +
    'the failure only when the pushback runs out (A6: no further RPC, the failure is returned once every ' +
    'attempt has answered), and if the call ended meanwhile it reports that earlier status a second time',
};

/** A call left without an answer is cancelled this long after it started. */
export const HORIZON_MS = 100_000;

const NON_FATAL_CANDIDATES = [1, 2, 4, 8, 10, 13, 14, 15];
const HEDGING_DELAYS = ['0s', '0.001s', '0.005s', '0.01s', '0.02s', '0.05s', '0.1s', '0.25s', '1s'];
// Delays with a fraction of a ms, which the engine rounds up to whole ms (KNOWN.hedging_delay_whole_ms).
const HEDGING_DELAYS_FINE = ['0.0005s', '0.0025s', '0.0101s'];

// ---------------------------------------------------------------- cases

function randomHedgingPolicy(rng) {
  const policy = { maxAttempts: rng.int(2, 7) };
  if (rng.chance(0.85)) policy.hedgingDelay = rng.pick(rng.chance(0.04) ? HEDGING_DELAYS_FINE : HEDGING_DELAYS);
  if (rng.chance(0.9)) {
    const count = rng.int(0, 3);
    const codes = [...new Set(Array.from({ length: count }, () => rng.pick(NON_FATAL_CANDIDATES)))];
    policy.nonFatalStatusCodes = codes.map((code) => codeSpelling(rng, code));
  }
  return policy;
}

const delayMsOf = (policy) => Math.round(Number((policy.hedgingDelay ?? '0s').slice(0, -1)) * 1000);

function randomAnswer(rng, policy, nonFatal) {
  const delayMs = delayMsOf(policy);
  if (rng.chance(0.12)) return null;
  const afterMs = rng.chance(0.03) ? 0 : rng.int(1, Math.max(30, 3 * delayMs));
  const roll = rng.next();
  let code;
  if (roll < 0.25) code = 0;
  else if (roll < 0.75 && nonFatal.length > 0) code = rng.pick(nonFatal);
  else code = rng.int(1, 16);
  const pushback = [];
  if (code !== 0 && rng.chance(0.3)) {
    const kind = rng.next();
    if (kind < 0.5)
      pushback.push(rng.chance(0.5) ? rng.pick(PUSHBACK_VALID.slice(0, 6)) : String(rng.int(1, 4 * delayMs + 20)));
    else if (kind < 0.8) pushback.push(rng.pick(PUSHBACK_STOP));
    else pushback.push(rng.pick(PUSHBACK_PARSE_INT));
    if (rng.chance(0.05)) pushback.push(rng.pick(PUSHBACK_VALID));
  }
  return { afterMs, code, pushback };
}

export function randomCase(rng, index) {
  const hedgingPolicy = randomHedgingPolicy(rng);
  const config = { methodConfig: [{ name: [{ service: 'echo.Echo' }], hedgingPolicy }] };
  if (rng.chance(0.6)) config.retryThrottling = { maxTokens: rng.pick(MAX_TOKENS), tokenRatio: rng.pick(TOKEN_RATIOS) };
  const nonFatal = (hedgingPolicy.nonFatalStatusCodes ?? []).map(codeNumber);
  const drain = index % 10 === 9;
  const calls = [];
  const count = drain ? rng.int(6, 20) : rng.int(1, 6);
  for (let i = 0; i < count; i++) {
    const failing = drain && nonFatal.length > 0 && rng.chance(0.7);
    calls.push(
      Array.from({ length: 5 }, () =>
        failing
          ? { afterMs: rng.int(1, Math.max(30, 2 * delayMsOf(hedgingPolicy))), code: nonFatal[0], pushback: [] }
          : randomAnswer(rng, hedgingPolicy, nonFatal),
      ),
    );
  }
  return { seed: index, config, calls };
}

// ---------------------------------------------------------------- a virtual clock for grpc-js's timers

/** setTimeout/clearTimeout on a virtual clock: timers fire when `run` reaches them, in (time, creation) order. */
class VirtualTimers {
  constructor() {
    this.now = 0;
    this.pending = [];
    this.created = 0;
  }
  install() {
    this.saved = [globalThis.setTimeout, globalThis.clearTimeout];
    globalThis.setTimeout = (callback, ms, ...args) => {
      // Node waits at least 1 ms (and 1 ms for NaN); the replay keeps the delay grpc-js asks for, 0 for NaN.
      const delay = Number.isFinite(Number(ms)) ? Math.max(0, Number(ms)) : 0;
      const timer = {
        at: this.now + delay,
        order: this.created++,
        callback: () => callback(...args),
        cleared: false,
        unref() {
          return this;
        },
        ref() {
          return this;
        },
        hasRef: () => false,
      };
      this.pending.push(timer);
      return timer;
    };
    globalThis.clearTimeout = (timer) => {
      if (timer && typeof timer === 'object' && 'cleared' in timer) timer.cleared = true;
    };
  }
  uninstall() {
    [globalThis.setTimeout, globalThis.clearTimeout] = this.saved;
  }
  /** The next timer due, without taking it. */
  next() {
    this.pending = this.pending.filter((timer) => !timer.cleared);
    let best = null;
    for (const timer of this.pending)
      if (best === null || timer.at < best.at || (timer.at === best.at && timer.order < best.order)) best = timer;
    return best;
  }
  fire(timer) {
    this.pending = this.pending.filter((other) => other !== timer);
    this.now = Math.max(this.now, timer.at);
    timer.callback();
  }
}

// ---------------------------------------------------------------- grpc-js corrected to A6

/**
 * grpc-js with each of its KNOWN hedging departures corrected to A6, in the fewest lines over its own
 * RetryingCall (`--a6`): what the engine is compared with on the paths where grpc-js departs, so those are
 * checked too rather than only explained. A hedge is sent only while the throttle is above half
 * (A6 "Throttling"); a do-not-retry pushback on a non-fatal code stops hedging, the running attempts go on; a
 * pushback of n ms replaces the hedging timer (and an earlier pushback): the next hedge after n ms, then
 * hedgingDelay apart; with nothing running and no hedge left to send, the call ends at once; a do-not-retry
 * pushback on a fatal code takes a token; the pushback value is read as A6 writes it (an int32 without
 * needless zeros; several values, or any other text, mean do not retry); tokens count in thousandths. Where A6 leaves the moment of a
 * throttle's refusal open, it is when the failure arrives, as the engine decides (the page's throttle row).
 */
export function a6Corrected(grpc) {
  const { RetryingCall, RetryThrottler } = grpc.retrying;
  // Tokens in whole thousandths (A6: three decimals), where grpc-js's float sum of 15 ratios of 0.1 from 0 is
  // 1.5000000000000002, above a threshold of 1.5 it should reach.
  class A6RetryThrottler extends RetryThrottler {
    addCallSucceeded() {
      super.addCallSucceeded();
      this.tokens = Math.round(this.tokens * 1000) / 1000;
    }
    addCallFailed() {
      super.addCallFailed();
      this.tokens = Math.round(this.tokens * 1000) / 1000;
    }
  }
  class A6RetryingCall extends RetryingCall {
    a6 = true;
    getPushback(metadata) {
      const values = metadata.get('grpc-retry-pushback-ms');
      if (values.length === 0) return null;
      const text = String(values[0]);
      if (values.length > 1 || !/^(0|-?[1-9]\d{0,9})$/.test(text)) return -1;
      const ms = Number(text);
      return ms >= -(2 ** 31) && ms < 2 ** 31 ? ms : -1;
    }
    stopHedging(why) {
      this.stoppedBy = this.stoppedBy ?? why;
      clearTimeout(this.hedgingTimer);
      clearTimeout(this.pushbackTimer);
      this.hedgingTimer = null;
      this.pushbackTimer = null;
    }
    maybeStartHedgingAttempt() {
      if (this.state !== 'HEDGING' || this.stoppedBy || this.attempts >= this.maxAttempts) return;
      if (!(this.retryThrottler?.canRetryCall() ?? true)) this.stopHedging('budget_exhausted');
      else super.maybeStartHedgingAttempt();
    }
    /** Ends the call with `status` when nothing runs and no hedge is pending. */
    endIfIdle(callIndex, status) {
      if (this.state === 'HEDGING' && this.countActiveCalls() === 0 && !this.pushbackTimer) {
        this.commitCall(callIndex);
        this.reportStatus(status);
      }
    }
    handleProcessedStatus(status, callIndex, pushback) {
      if (this.state !== 'HEDGING') return super.handleProcessedStatus(status, callIndex, pushback);
      const nonFatal = this.callConfig.methodConfig.hedgingPolicy.nonFatalStatusCodes ?? [];
      if (!this.isStatusCodeInList(nonFatal, status.code)) {
        if (pushback !== null && pushback < 0) this.retryThrottler?.addCallFailed();
        this.commitCall(callIndex);
        this.reportStatus(status);
        return;
      }
      this.retryThrottler?.addCallFailed();
      this.lastPushback = pushback;
      if (pushback !== null && pushback < 0) {
        if (this.countActiveCalls() > 0) this.declinedWhileRunning = true;
        this.stopHedging('server_declined_retry');
      } else if (!this.stoppedBy && this.attempts < this.maxAttempts) {
        clearTimeout(this.hedgingTimer);
        clearTimeout(this.pushbackTimer);
        this.hedgingTimer = null;
        this.pushbackTimer = null;
        if (!pushback) this.maybeStartHedgingAttempt();
        else if (this.countActiveCalls() === 0 && !(this.retryThrottler?.canRetryCall() ?? true))
          this.stopHedging('budget_exhausted');
        else
          this.pushbackTimer = setTimeout(() => {
            this.pushbackTimer = null;
            this.maybeStartHedgingAttempt();
            this.endIfIdle(callIndex, status);
          }, pushback);
      }
      this.endIfIdle(callIndex, status);
    }
  }
  return { ...grpc, retrying: { ...grpc.retrying, RetryingCall: A6RetryingCall, RetryThrottler: A6RetryThrottler } };
}

// ---------------------------------------------------------------- grpc-js side

/** One channel's worth of grpc-js hedging state: the throttler its calls share. */
export class GrpcJsChannel {
  constructor(grpc, config) {
    this.grpc = grpc;
    Object.assign(this, channelState(grpc, config));
    this.callNumber = 0;
  }

  tokens() {
    return this.throttler?.tokens;
  }

  /** Runs one call from `startMs` to its end on the virtual clock; returns its trace. */
  runCall(script, startMs) {
    const grpc = this.grpc;
    const timers = new VirtualTimers();
    timers.now = startMs;
    const trace = { starts: [], answers: [], cancels: [], reports: [] };
    const children = [];
    const channel = {
      getOptions: () => ({}),
      createLoadBalancingCall: () => {
        const child = stubChild({
          attempt: children.length + 1,
          startedAt: timers.now,
          cancelled: false,
          answered: false,
          cancelWithStatus() {
            if (this.cancelled || this.answered) return;
            this.cancelled = true;
            trace.cancels.push({ at: timers.now, attempt: this.attempt });
          },
          getCallNumber() {
            return this.attempt;
          },
        });
        children.push(child);
        return child;
      },
    };
    timers.install();
    try {
      const call = newRetryingCall(grpc, channel, this, ++this.callNumber);
      call.reportStatus = (status) => {
        const index = call.committedCallIndex;
        trace.reports.push({ at: timers.now, code: status.code, attempt: index === null ? null : index + 1 });
      };
      let seen = 0;
      const noteStarts = () => {
        for (; seen < children.length; seen++) {
          const child = children[seen];
          const value = child.metadata.get('grpc-previous-rpc-attempts');
          trace.starts.push({ at: child.startedAt, attempt: child.attempt, previous: value.length ? value[0] : null });
        }
      };
      call.start(new grpc.Metadata(), { onReceiveMetadata() {}, onReceiveMessage() {}, onReceiveStatus() {} });
      call.sendMessageWithContext({}, Buffer.from('x'));
      call.halfClose();
      noteStarts();
      const dueAnswer = () => {
        let best = null;
        for (const child of children) {
          const answer = script[child.attempt - 1];
          if (!answer || child.cancelled || child.answered) continue;
          const at = child.startedAt + answer.afterMs;
          if (best === null || at < best.at) best = { at, child, answer };
        }
        return best;
      };
      for (;;) {
        const timer = timers.next();
        const answer = dueAnswer();
        if (timer === null && answer === null) break;
        const at = Math.min(timer?.at ?? Number.POSITIVE_INFINITY, answer?.at ?? Number.POSITIVE_INFINITY);
        if (at > startMs + HORIZON_MS) break;
        if (timer !== null && timer.at <= at) {
          timers.fire(timer);
        } else {
          timers.now = answer.at;
          const { child } = answer;
          child.answered = true;
          const metadata = new grpc.Metadata();
          for (const value of answer.answer.pushback) metadata.add('grpc-retry-pushback-ms', value);
          child.listener.onReceiveStatus({ code: answer.answer.code, details: '', metadata, progress: 'PROCESSED' });
          trace.answers.push({ at: timers.now, attempt: child.attempt, tokens: this.tokens() });
        }
        noteStarts();
      }
      if (call.a6)
        trace.a6 = {
          stoppedBy: call.stoppedBy,
          declinedWhileRunning: call.declinedWhileRunning ?? false,
          lastDeclined: call.lastPushback !== null && call.lastPushback < 0,
          attemptsLeft: call.attempts < call.maxAttempts,
        };
      if (trace.reports.length === 0) {
        timers.now = startMs + HORIZON_MS;
        call.cancelWithStatus(grpc.Status.CANCELLED, 'replay horizon');
        trace.horizon = true;
      }
      // A child cancelled by the horizon is not one the call cancelled for another attempt.
      trace.cancels = trace.cancels.filter((cancel) => !trace.horizon || cancel.at < startMs + HORIZON_MS);
    } finally {
      timers.uninstall();
    }
    return trace;
  }
}

/** Why grpc-js's call ended, in the engine's words, from its first report. */
function grpcJsEnding(trace, script, nonFatal) {
  const report = trace.reports[0];
  if (trace.horizon) return { at: null, reason: 'cancelled', attempt: null };
  const answer = script[report.attempt - 1];
  let reason;
  if (report.code === 0) reason = 'succeeded';
  else if (!nonFatal.includes(report.code)) reason = 'not_retryable';
  // The A6-corrected grpc-js, in the engine's order of reasons: a pushback that stopped hedging while attempts
  // ran, the attempts used up, a pushback on the last answer, the throttle.
  else if (trace.a6?.declinedWhileRunning) reason = 'server_declined_retry';
  else if (trace.a6 && !trace.a6.attemptsLeft) reason = 'attempts_exhausted';
  else if (trace.a6?.lastDeclined) reason = 'server_declined_retry';
  else if (trace.a6) reason = trace.a6.stoppedBy ?? 'attempts_exhausted';
  else if (answer.pushback.length > 0 && Number.parseInt(answer.pushback[0], 10) < 0) reason = 'server_declined_retry';
  else reason = 'attempts_exhausted';
  return { at: report.at, reason, attempt: report.attempt };
}

// ---------------------------------------------------------------- engine side

function engineOutcome(engine, answer) {
  const code = CODE_NAMES[answer.code].toLowerCase();
  if (answer.pushback.length === 0) return { type: 'grpc_status', code };
  // Several values at once: the host reports "do not retry" (grpc-go; the page's pushback row).
  const pushback = answer.pushback.length > 1 ? 'do_not_retry' : engine.parseGrpcPushback(answer.pushback[0]);
  return { type: 'grpc_status', code, pushback };
}

/** Runs one call through the engine's driver from `startMs`; returns its trace. */
function engineCall(engine, policy, dependency, script, startMs, seed) {
  const driver = new engine.Driver(policy, startMs, { seed, ...(dependency ? { dependency } : {}) });
  const trace = { starts: [], answers: [], cancels: [], ending: null };
  const tokens = (now) => {
    const budget = dependency?.snapshot(now).budget;
    return budget ? budget.tokensMilli / 1000 : undefined;
  };
  const running = new Map();
  let now = startMs;
  let wake = startMs;
  const drain = () => {
    for (;;) {
      const action = driver.pollAction(now);
      if (action.type === 'start_attempt') {
        const headers = driver.outgoingHeaders(now, action.attempt, 'grpc');
        trace.starts.push({
          at: now,
          attempt: action.attempt,
          previous: headers['grpc-previous-rpc-attempts'] ?? null,
        });
        running.set(action.attempt, now);
      } else if (action.type === 'abort_attempt') {
        trace.cancels.push({ at: now, attempt: action.attempt });
        running.delete(action.attempt);
      } else if (action.type === 'sleep') {
        wake = action.untilMs;
        return;
      } else if (action.type === 'finish') {
        const decision = action.decision;
        for (const attempt of decision.abortAttempts ?? []) {
          if (running.has(attempt)) trace.cancels.push({ at: now, attempt });
          running.delete(attempt);
        }
        trace.ending = {
          at: now,
          reason: decision.type === 'succeeded' ? 'succeeded' : decision.reason,
          attempt: decision.type === 'succeeded' ? decision.winner : (action.lastResult?.attempt ?? null),
        };
        return;
      } else {
        throw new Error(`unexpected driver action ${JSON.stringify(action)}`);
      }
    }
  };
  try {
    drain();
    while (trace.ending === null) {
      let next = null;
      for (const [attempt, startedAt] of running) {
        const answer = script[attempt - 1];
        if (!answer) continue;
        const at = startedAt + answer.afterMs;
        if (next === null || at < next.at) next = { at, attempt, answer };
      }
      const at = Math.min(wake, next?.at ?? Number.POSITIVE_INFINITY);
      if (at > startMs + HORIZON_MS) {
        now = startMs + HORIZON_MS;
        driver.handleCancel(now);
        running.clear();
        trace.ending = { at: null, reason: 'cancelled', attempt: null };
        break;
      }
      if (wake <= at && wake > now) {
        now = wake;
        drain();
        continue;
      }
      now = next.at;
      running.delete(next.attempt);
      driver.handleResult(now, next.attempt, engineOutcome(engine, next.answer));
      trace.answers.push({ at: now, attempt: next.attempt, tokens: tokens(now) });
      drain();
    }
  } finally {
    driver.free();
  }
  trace.tokensAfter = tokens(now);
  return trace;
}

// ---------------------------------------------------------------- comparison

/** The first place two traces part, as {at, what, text}, or null. */
function firstDifference(js, mine, jsEnding) {
  const parts = [];
  const byAttempt = (list) => new Map(list.map((entry) => [entry.attempt, entry]));
  const jsStarts = byAttempt(js.starts);
  const myStarts = byAttempt(mine.starts);
  for (let attempt = 1; attempt <= Math.max(js.starts.length, mine.starts.length); attempt++) {
    const a = jsStarts.get(attempt);
    const b = myStarts.get(attempt);
    if (a?.at !== b?.at) {
      parts.push({
        at: Math.min(a?.at ?? Number.POSITIVE_INFINITY, b?.at ?? Number.POSITIVE_INFINITY),
        what: 'start',
        attempt,
        jsAt: a?.at,
        myAt: b?.at,
        text: `attempt ${attempt} starts: grpc-js ${a ? `at ${a.at}` : 'never'}, the engine ${b ? `at ${b.at}` : 'never'}`,
      });
      break;
    }
    if (a && a.previous !== b.previous)
      parts.push({
        at: a.at,
        what: 'header',
        attempt,
        text: `attempt ${attempt}: grpc-previous-rpc-attempts grpc-js ${a.previous}, the engine ${b.previous}`,
      });
  }
  const answers = Math.max(js.answers.length, mine.answers.length);
  for (let i = 0; i < answers; i++) {
    const a = js.answers[i];
    const b = mine.answers[i];
    if (a?.attempt !== b?.attempt || a?.at !== b?.at) {
      parts.push({
        at: Math.min(a?.at ?? Number.POSITIVE_INFINITY, b?.at ?? Number.POSITIVE_INFINITY),
        what: 'answer',
        text: `answer ${i + 1}: grpc-js ${a ? `attempt ${a.attempt} at ${a.at}` : 'none'}, the engine ${b ? `attempt ${b.attempt} at ${b.at}` : 'none'}`,
      });
      break;
    }
    if (a.tokens !== undefined && Math.abs(a.tokens - b.tokens) > 1e-6) {
      parts.push({
        at: a.at,
        what: 'tokens',
        attempt: a.attempt,
        text: `tokens after attempt ${a.attempt}'s answer at ${a.at}: grpc-js ${a.tokens}, the engine ${b.tokens}`,
      });
      break;
    }
  }
  const ending = mine.ending;
  if (jsEnding.at !== ending.at || jsEnding.reason !== ending.reason || jsEnding.attempt !== ending.attempt)
    parts.push({
      at: Math.min(jsEnding.at ?? Number.POSITIVE_INFINITY, ending.at ?? Number.POSITIVE_INFINITY),
      what: 'ending',
      jsAt: jsEnding.at ?? undefined,
      myAt: ending.at,
      text: `ends: grpc-js ${JSON.stringify(jsEnding)}, the engine ${JSON.stringify(ending)}`,
    });
  const cancelled = (list) =>
    list
      .map((c) => `${c.attempt}@${c.at}`)
      .sort()
      .join(',');
  if (cancelled(js.cancels) !== cancelled(mine.cancels))
    parts.push({
      at: Math.min(...[...js.cancels, ...mine.cancels].map((c) => c.at)),
      what: 'cancels',
      text: `attempts cancelled: grpc-js [${cancelled(js.cancels)}], the engine [${cancelled(mine.cancels)}]`,
    });
  if (js.reports.length > 1)
    parts.push({
      at: js.reports[1].at,
      what: 'reports',
      text: `grpc-js reports ${js.reports.length} statuses: ${JSON.stringify(js.reports)}`,
    });
  if (parts.length === 0) return null;
  // The earliest; at one instant, the order above (starts, answers, ending, cancels, reports).
  return parts.reduce((best, part) => (part.at < best.at ? part : best));
}

/** The known deviation that explains `difference` in a call, if any. */
function explain(difference, testCase, script, js, engineTokensAt, a6) {
  const policy = testCase.config.methodConfig[0].hedgingPolicy;
  const nonFatal = (policy.nonFatalStatusCodes ?? []).map(codeNumber);
  if (HEDGING_DELAYS_FINE.includes(policy.hedgingDelay)) return 'hedging_delay_whole_ms';
  // grpc-js corrected to A6 has none of its departures left to explain a difference.
  if (a6) return null;
  // The answers grpc-js had received up to the difference.
  const received = js.answers.filter((a) => a.at <= difference.at).map((a) => script[a.attempt - 1]);
  if (received.some((a) => a.pushback.length > 1)) return 'pushback_several_values';
  if (received.some((a) => a.pushback.length === 1 && PUSHBACK_PARSE_INT.includes(a.pushback[0])))
    return 'pushback_parse_int';
  const stop = (a) => a.pushback.length === 1 && Number.parseInt(a.pushback[0], 10) < 0;
  const wait = (a) => a.pushback.length === 1 && Number.parseInt(a.pushback[0], 10) > 0;
  if (difference.what === 'tokens') {
    const answer = script[difference.attempt - 1];
    if (stop(answer) && !nonFatal.includes(answer.code)) return 'pushback_stop_fatal_no_token';
    return null;
  }
  const throttling = testCase.config.retryThrottling;
  if (
    difference.what === 'start' &&
    throttling &&
    difference.jsAt !== undefined &&
    (difference.myAt === undefined || difference.myAt > difference.jsAt) &&
    engineTokensAt(difference.jsAt) <= throttling.maxTokens / 2
  )
    return 'hedges_not_throttled';
  // grpc-js ends the call when a non-fatal answer says not to retry: its ending, its cancels, and no other answer.
  const stopAnswer = js.answers.find((a) => a.at === difference.at && stop(script[a.attempt - 1]));
  if (
    ['answer', 'ending', 'cancels'].includes(difference.what) &&
    stopAnswer &&
    nonFatal.includes(script[stopAnswer.attempt - 1].code)
  )
    return 'hedge_pushback_stop_ends_call';
  // After a non-fatal answer with a pushback: grpc-js's hedging timer sends a hedge during the wait, its pushback
  // timer one more (or, with none left to send, the call's status late, or a second time).
  const waited = received.some((a) => wait(a) && nonFatal.includes(a.code));
  const jsEarlier =
    difference.jsAt !== undefined &&
    (difference.myAt === undefined || difference.myAt === null || difference.jsAt < difference.myAt);
  const jsLater =
    difference.myAt !== undefined && difference.myAt !== null && (difference.jsAt ?? Infinity) > difference.myAt;
  if (waited && difference.what === 'start' && jsEarlier) return 'hedge_pushback_beside_timer';
  if (waited && difference.what === 'ending' && jsLater) return 'hedge_pushback_late_status';
  if (waited && difference.what === 'reports') return 'hedge_pushback_late_status';
  return null;
}

/** Runs one case on both sides, recording every difference (or the known deviation that explains it). */
export function replay(grpc, engine, testCase, result, { a6 = false } = {}) {
  result.cases += 1;
  const where = `seed=${testCase.seed} config=${JSON.stringify(testCase.config)}`;
  const channel = new GrpcJsChannel(grpc, testCase.config);
  const serviceConfig = engine.ServiceConfig.fromConfig(structuredClone(testCase.config));
  const policy = serviceConfig.profileFor('echo.Echo', 'Say');
  const dependency = serviceConfig.throttlingDependency();
  serviceConfig.free();
  const hedging = testCase.config.methodConfig[0].hedgingPolicy;
  const nonFatal = (hedging.nonFatalStatusCodes ?? []).map(codeNumber);
  let now = 0;
  try {
    for (const [callIndex, script] of testCase.calls.entries()) {
      result.calls += 1;
      const tokensBefore = dependency?.snapshot(now).budget;
      const js = channel.runCall(script, now);
      const mine = engineCall(engine, policy, dependency, script, now, testCase.seed * 1000 + callIndex);
      result.steps += js.starts.length;
      const jsEnding = grpcJsEnding(js, script, nonFatal);
      result.count('endings', jsEnding.reason);
      const difference = firstDifference(js, mine, jsEnding);
      if (difference !== null) {
        // The engine's lowest token count at instant `at` of this call: before its answers there (a hedge due
        // by the timer runs first), or after them (a hedge sent at once after a non-fatal answer).
        const engineTokensAt = (at) => {
          let value = tokensBefore ? tokensBefore.tokensMilli / 1000 : undefined;
          let lowest = Number.POSITIVE_INFINITY;
          for (const answer of mine.answers) {
            if (answer.at > at) break;
            if (answer.at === at) lowest = Math.min(lowest, value);
            value = answer.tokens;
          }
          return Math.min(lowest, value);
        };
        const known = explain(difference, testCase, script, js, engineTokensAt, a6);
        result.note(
          known,
          `${where} call ${callIndex} (script ${JSON.stringify(script)}): ${difference.text}; grpc-js ${JSON.stringify(js)}, the engine ${JSON.stringify(mine)}`,
        );
        if (!known) return;
        // Carry on from the engine's count, so the rest of the series still compares every call.
        if (channel.throttler) channel.throttler.tokens = mine.tokensAfter;
      }
      now += 2 * HORIZON_MS;
    }
  } finally {
    policy.free();
    dependency?.free();
  }
}

// ---------------------------------------------------------------- run

/** Runs `cases` call series (against grpc-js corrected to A6 with `a6`); returns the Result. */
export function run(grpc, engine, { cases = 2000, seed = 1, a6 = false } = {}) {
  const result = new Result();
  const rng = new Rng(seed);
  const grpcJs = a6 ? a6Corrected(grpc) : grpc;
  for (let index = 0; index < cases; index++) replay(grpcJs, engine, randomCase(rng, index), result, { a6 });
  return result;
}

async function main(argv) {
  const args = { cases: 2000, seed: 1, grpcJs: undefined, show: 20, a6: false };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--a6') {
      args.a6 = true;
      i -= 1;
    } else if (flag === '--cases') args.cases = Number(value);
    else if (flag === '--seed') args.seed = Number(value);
    else if (flag === '--grpc-js') args.grpcJs = resolve(value);
    else if (flag === '--show') args.show = Number(value);
    else throw new Error(`unknown argument ${flag}`);
  }
  const grpc = loadGrpcJs(args.grpcJs);
  const engine = await loadEngine();
  const result = run(grpc, engine, args);
  console.log(
    `grpc-js ${grpc.version}${args.a6 ? ' corrected to A6' : ''} hedging: ${result.cases} call series, ${result.calls} calls, ${result.steps} attempts started (grpc-js)`,
  );
  console.log(`calls ended by (grpc-js): ${JSON.stringify(result.endings)}`);
  console.log(`known deviations met: ${JSON.stringify(result.known)}`);
  console.log(`differences: ${result.differences.length}`);
  for (const difference of result.differences.slice(0, args.show)) console.log(`  ${difference}`);
  return result.differences.length === 0 ? 0 : 1;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  process.exitCode = await main(process.argv.slice(2));
}
