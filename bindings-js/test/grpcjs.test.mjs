// grpc-js's own retry logic (its RetryingCall, RetryThrottler and service-config
// validation, the pinned devDependency @grpc/grpc-js) against the engine's gRPC
// dialect: a seeded sample of scripts/grpcjs_replay.mjs. Every difference must
// be a documented deviation (its KNOWN table, core/src/compatibility/grpc_aws.md).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KNOWN, loadEngine, loadGrpcJs, run } from '../../scripts/grpcjs_replay.mjs';

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
