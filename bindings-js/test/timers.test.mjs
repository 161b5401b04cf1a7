// Sleeps longer than a JS timer can hold: setTimeout fires at once for a
// delay above 2^31 - 1 ms (24.8 days), so the host loop re-arms its timer in
// steps of at most that. A fake clock and a fake setTimeout pin it: no wall
// clock is read and nothing really sleeps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Policy, run } from 'retryplan';

const MAX_TIMER_MS = 2 ** 31 - 1;
const THIRTY_DAYS_MS = 30 * 86_400_000;
const RETRYABLE = { type: 'application', verdict: 'retryable' };
class Busy extends Error {}

/** Replaces the global timers with ones that only record; `fire()` runs the earliest. */
function fakeTimers() {
  const real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  const pending = new Map();
  const armed = [];
  let next = 1;
  globalThis.setTimeout = (callback, delay) => {
    const id = next++;
    armed.push(delay);
    pending.set(id, { callback, delay });
    return id;
  };
  globalThis.clearTimeout = (id) => void pending.delete(id);
  return {
    armed,
    pending,
    fire() {
      const [id, timer] = pending.entries().next().value;
      pending.delete(id);
      timer.callback();
      return timer.delay;
    },
    restore() {
      Object.assign(globalThis, real);
    },
  };
}

/** Lets promise jobs and the host's microtask turns run (setImmediate is not faked). */
const settle = async () => {
  for (let turn = 0; turn < 20; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

test('a 30-day wait is slept as a 2^31 - 1 ms timer re-armed for the rest, never a timer that fires at once', async () => {
  const policy = Policy.fromConfig({
    maxAttempts: 2,
    totalTimeoutMs: 40 * 86_400_000,
    attemptTimeout: { fixedMs: 1000 },
    responseReserveMs: 0,
    minimumUsefulAttemptMs: 10,
    backoff: { kind: 'constant', baseMs: THIRTY_DAYS_MS, multiplier: 1, capMs: THIRTY_DAYS_MS },
    jitter: { kind: 'none' },
  });
  let clock = 0;
  const attempts = [];
  const timers = fakeTimers();
  try {
    const result = run(
      policy,
      (context) => {
        attempts.push([context.attempt, clock]);
        if (context.attempt === 1) throw new Busy('busy');
        return 'ok';
      },
      { seed: 7, clock: () => clock, outcomeOfError: (error) => (error instanceof Busy ? RETRYABLE : undefined) },
    );
    await settle();
    assert.deepEqual(attempts, [[1, 0]]);
    assert.deepEqual(timers.armed, [MAX_TIMER_MS], 'the first timer holds the most a JS timer can');

    clock += timers.fire();
    await settle();
    assert.deepEqual(attempts, [[1, 0]], 'after 2^31 - 1 ms the wait is not over: no second attempt yet');
    assert.deepEqual(timers.armed, [MAX_TIMER_MS, THIRTY_DAYS_MS - MAX_TIMER_MS], 're-armed for the rest');

    clock += timers.fire();
    assert.equal(await result, 'ok');
    assert.deepEqual(
      attempts,
      [
        [1, 0],
        [2, THIRTY_DAYS_MS],
      ],
      'the second attempt starts when the 30 days are over',
    );
  } finally {
    timers.restore();
  }
});

/** Three attempts two seconds apart, the second and third after a busy first and second. */
const TWO_SECONDS = Policy.fromConfig({
  maxAttempts: 3,
  totalTimeoutMs: 30_000,
  backoff: { kind: 'constant', baseMs: 2000, multiplier: 1, capMs: 2000 },
  jitter: { kind: 'none' },
});
const flaky = () => {
  let calls = 0;
  return () => {
    calls += 1;
    if (calls < 3) throw new Busy('busy');
    return calls;
  };
};
const BUSY_IS_RETRYABLE = { outcomeOfError: (error) => (error instanceof Busy ? RETRYABLE : undefined) };

test('a timer that fires while the clock stands still is refused by the driver, naming `clock`, not armed again forever', async () => {
  const timers = fakeTimers();
  try {
    // A test's fake timers beside a clock they do not move (here frozen): each wake-up found the wait not over
    // and armed the timer again, forever.
    const result = run(TWO_SECONDS, flaky(), { seed: 7, clock: () => 1000, ...BUSY_IS_RETRYABLE });
    const refused = assert.rejects(result, (error) => {
      assert.equal(error.code, 'invalid_argument');
      assert.equal(error.field, 'clock'); // the helper's clock, named so in every language
      assert.equal(
        error.message,
        'invalid argument `clock`: the clock moved 0 ms during a wait of 2000 ms: a fake sleep or timer needs a clock that moves with it',
      );
      return true;
    });
    await settle();
    assert.deepEqual(timers.armed, [2000]);
    timers.fire();
    await refused;
    assert.equal(timers.pending.size, 0, 'no timer armed again');
  } finally {
    timers.restore();
  }
});

test("node:test's mock timers with Date, and `clock` reading Date: the waits pass in fake time (the README's recipe)", async (t) => {
  t.mock.timers.enable({ apis: ['setTimeout', 'Date'], now: 0 });
  const result = run(TWO_SECONDS, flaky(), { seed: 7, clock: () => Date.now(), ...BUSY_IS_RETRYABLE });
  for (let wait = 0; wait < 2; wait += 1) {
    await settle();
    t.mock.timers.tick(2000);
  }
  assert.equal(await result, 3);
  assert.equal(Date.now(), 4000, 'two waits of 2 s, in fake time');
});

test('a frozen clock under waits too short to judge one by one is refused once the timers ran the wait and a quarter of a second more', async () => {
  const timers = fakeTimers();
  try {
    const tenMs = Policy.fromConfig({
      maxAttempts: 3,
      backoff: { kind: 'constant', baseMs: 10, multiplier: 1, capMs: 10 },
      jitter: { kind: 'none' },
    });
    const result = run(tenMs, flaky(), { seed: 7, clock: () => 1000, ...BUSY_IS_RETRYABLE });
    const refused = assert.rejects(result, (error) => {
      assert.equal(error.field, 'clock');
      assert.match(error.message, /the clock moved 0 ms during a wait of 10 ms/);
      return true;
    });
    let fired = 0;
    await settle();
    while (timers.pending.size > 0 && fired < 100) {
      timers.fire();
      fired += 1;
      await settle();
    }
    await refused;
    assert.equal(fired, 26, 'refused after 26 timers of 10 ms: 260 ms, the wait and a quarter of a second more');
  } finally {
    timers.restore();
  }
});
