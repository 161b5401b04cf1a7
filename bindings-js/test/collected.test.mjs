// Objects dropped without free() are freed by the garbage collector (the
// FinalizationRegistry of lib/objects.js), and what they held from a shared
// control goes back: operations holding all of a dependency's retry slots,
// a driver's, and the slots' own grants. The collector is reached through
// V8's --expose-gc, turned on here; collections are repeated a bounded number
// of times, waiting a turn of the event loop for the finalizers each time.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Dependency, Driver, Operation, Outcome, Policy, RetrySlots } from 'retryplan';

setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc');

const policy = Policy.fromConfig({
  maxAttempts: 3,
  totalTimeoutMs: 100000,
  attemptTimeout: { fixedMs: 1000 },
  backoff: { kind: 'constant', baseMs: 10, capMs: 10 },
  jitter: { kind: 'none' },
});
const refused = Outcome.fromFailure('connection_refused');

/** An operation on `dependency` whose retry has started (holding one of its slots), or the decision that refused it. */
function retrying(dependency) {
  const operation = new Operation(policy, 0, { dependency });
  operation.onOutcome(1, operation.poll(0).attempt, refused);
  return [operation, operation.poll(20)];
}

/** Collects until `done()` holds, at most 20 times; whether it came to hold. */
async function collectUntil(done) {
  for (let round = 0; round < 20 && !done(); round += 1) {
    collect();
    await new Promise((resolve) => setImmediate(resolve));
  }
  return done();
}

test('forgotten operations give their retry slots back when collected', async () => {
  const dependency = Dependency.fromConfig({ retrySlots: 4 });
  const slots = dependency.retrySlots;
  (() => {
    for (let i = 0; i < 4; i += 1) assert.equal(retrying(dependency)[1].type, 'start_attempt');
  })();
  assert.equal(slots.inUse, 4, 'the dropped operations still hold every slot');
  const [blocked, refusedRetry] = retrying(dependency);
  assert.deepEqual([refusedRetry.type, refusedRetry.reason], ['gave_up', 'no_retry_slot']);
  blocked.free();
  assert.ok(await collectUntil(() => slots.inUse === 0), `still ${slots.inUse} slots in use after collecting`);
  const [operation, retry] = retrying(dependency);
  assert.equal(retry.type, 'start_attempt', 'a new operation can retry again');
  operation.free();
});

test('a forgotten driver gives its retry slot back when collected', async () => {
  const dependency = Dependency.fromConfig({ retrySlots: 1 });
  const slots = dependency.retrySlots;
  (() => {
    const driver = new Driver(policy, 0, { dependency });
    const start = driver.pollAction(0);
    driver.handleResult(1, start.attempt, refused);
    assert.equal(driver.pollAction(20).type, 'start_attempt');
  })();
  assert.equal(slots.inUse, 1);
  assert.ok(await collectUntil(() => slots.inUse === 0), 'the slot came back');
});

test('forgotten grants go back to their control when collected', async () => {
  const slots = new RetrySlots(2);
  (() => {
    assert.ok(slots.tryAcquire() !== undefined);
    assert.ok(slots.tryAcquire() !== undefined);
  })();
  assert.equal(slots.tryAcquire(), undefined, 'both slots are out');
  assert.ok(await collectUntil(() => slots.inUse === 0), 'both slots came back');
  assert.ok(slots.tryAcquire() !== undefined);
});

test('a freed operation lends its weight to the next one made; live ones never share one', () => {
  // The weight (lib/objects.js): what an Operation or Driver counts for on the collector's books.
  const weightOf = (object) =>
    object[Object.getOwnPropertySymbols(object).find((symbol) => symbol.description === 'retryplan.weight')];
  const first = new Operation(policy, 0, { seed: 1 });
  const weight = weightOf(first);
  assert.ok(weight instanceof ArrayBuffer && weight.byteLength === 512, 'each holds 512 B');
  first.free();
  assert.equal(weightOf(first), undefined, 'a freed one holds none');
  const second = new Operation(policy, 0, { seed: 2 });
  const third = new Driver(policy, 0, { seed: 3 });
  assert.equal(weightOf(second), weight, "the next one holds the freed one's");
  assert.ok(weightOf(third) instanceof ArrayBuffer && weightOf(third) !== weight, 'the one after holds its own');
  second.free();
  second.free(); // a second free() gives nothing back twice
  const fourth = new Operation(policy, 0, { seed: 4 });
  const fifth = new Operation(policy, 0, { seed: 5 });
  assert.notEqual(weightOf(fourth), weightOf(fifth));
  for (const object of [third, fourth, fifth]) object.free();
});
