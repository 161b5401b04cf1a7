// grpc-js's own retry logic (its RetryingCall, RetryThrottler and service-config
// validation, the pinned devDependency @grpc/grpc-js) against the engine's gRPC
// dialect: a seeded sample of scripts/grpcjs_replay.mjs. Every difference must
// be a documented deviation (its KNOWN table, core/src/compatibility/grpc_aws.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN, loadEngine, loadGrpcJs, run } from '../../scripts/grpcjs_replay.mjs';
import { KNOWN as HEDGING_KNOWN, run as runHedging } from '../../scripts/grpcjs_hedging_replay.mjs';

test('grpc-js replay: every retry, give-up and reason, delay, token count and config verdict agrees (or is KNOWN)', async () => {
  const grpc = loadGrpcJs();
  const engine = await loadEngine();
  const result = run(grpc, engine, { cases: 400, seed: 22, randomConfigs: 200 });
  assert.deepEqual(result.differences, []);
  assert.ok(result.steps > 3000, `only ${result.steps} attempts replayed`);
  for (const name of Object.keys(result.known)) assert.ok(name in KNOWN, name);
  // The sample reaches every ending, so a silent change in one of them would show.
  for (const ending of [
    'succeeded',
    'not_retryable',
    'attempts_exhausted',
    'server_declined_retry',
    'budget_exhausted',
  ])
    assert.ok(result.endings[ending] > 0, `no call ended by ${ending}`);
});

// Hedging (scripts/grpcjs_hedging_replay.mjs): grpc-js's RetryingCall in its HEDGING state against the engine's
// driver, every start, header, answer's token count, cancel and ending compared on one virtual clock.
test('grpc-js hedging replay: every hedge start, grpc-previous-rpc-attempts, token count, cancel and ending agrees (or is KNOWN)', async () => {
  const grpc = loadGrpcJs();
  const engine = await loadEngine();
  const result = runHedging(grpc, engine, { cases: 200, seed: 23 });
  assert.deepEqual(result.differences, []);
  assert.ok(result.steps > 2000, `only ${result.steps} attempts started`);
  for (const name of Object.keys(result.known)) assert.ok(name in HEDGING_KNOWN, name);
  // The sample meets every grpc-js departure it knows, and every ending.
  for (const name of Object.keys(HEDGING_KNOWN)) assert.ok(result.known[name] > 0, `no case met ${name}`);
  for (const ending of ['succeeded', 'not_retryable', 'attempts_exhausted', 'server_declined_retry', 'cancelled'])
    assert.ok(result.endings[ending] > 0, `no call ended by ${ending}`);
});

// Where grpc-js departs, the engine is compared with grpc-js corrected to A6 (a6Corrected): nothing but the
// engine's own documented whole-ms hedgingDelay may differ, so those paths are checked, not only explained.
test('grpc-js hedging replay against grpc-js corrected to A6: no difference, no departure left', async () => {
  const grpc = loadGrpcJs();
  const engine = await loadEngine();
  const result = runHedging(grpc, engine, { cases: 200, seed: 23, a6: true });
  assert.deepEqual(result.differences, []);
  assert.deepEqual(Object.keys(result.known), ['hedging_delay_whole_ms']);
  for (const ending of ['budget_exhausted', 'server_declined_retry', 'attempts_exhausted'])
    assert.ok(result.endings[ending] > 0, `no call ended by ${ending}`);
});

// The comparison can fail: a grpc-js whose throttler takes no token for a non-fatal failure, one whose hedging
// timer sends one hedge only, and an engine whose driver leaves out grpc-previous-rpc-attempts.
test('grpc-js hedging replay: a broken grpc-js or engine shows as differences', async () => {
  const grpc = loadGrpcJs();
  const engine = await loadEngine();
  const { RetryThrottler, RetryingCall } = grpc.retrying;
  const noFailureToken = {
    ...grpc,
    retrying: {
      ...grpc.retrying,
      RetryThrottler: class extends RetryThrottler {
        addCallFailed() {}
      },
    },
  };
  const oneTimedHedge = {
    ...grpc,
    retrying: {
      ...grpc.retrying,
      RetryingCall: class extends RetryingCall {
        maybeStartHedgingAttempt() {
          this.maybeStartHedgingTimer = () => {};
          try {
            super.maybeStartHedgingAttempt();
          } finally {
            delete this.maybeStartHedgingTimer;
          }
        }
      },
    },
  };
  const noHeader = {
    ...engine,
    Driver: class extends engine.Driver {
      outgoingHeaders(...args) {
        const headers = super.outgoingHeaders(...args);
        delete headers['grpc-previous-rpc-attempts'];
        return headers;
      }
    },
  };
  for (const [name, grpcJs, theEngine, shows] of [
    ['no token for a failure', noFailureToken, engine, /tokens after attempt/],
    ['one timed hedge', oneTimedHedge, engine, /attempt 3 starts: grpc-js never, the engine at/],
    ['no grpc-previous-rpc-attempts', grpc, noHeader, /grpc-previous-rpc-attempts grpc-js 1, the engine null/],
  ]) {
    const result = runHedging(grpcJs, theEngine, { cases: 60, seed: 23 });
    assert.ok(result.differences.length > 0, name);
    assert.ok(
      result.differences.some((text) => shows.test(text)),
      `${name}: ${result.differences[0]}`,
    );
  }
});
