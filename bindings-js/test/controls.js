// The control handles, run in Node (test/controls.test.mjs, both entries) and
// in Chromium (test/browser/page.js): a Dependency's budget, breaker and
// retrySlots, the grants each issues (single use, owned by the control that
// issued them, as in the core's `grant` module: a second report, another
// control's grant or a freed one is `invalid_argument` naming `permit`,
// `charge` or `slot`), the counters of grants still out, and a freed control
// that leaves a grant handed to it unsettled. The same rows as
// bindings-python/tests/test_controls.py. No node: imports: `controlChecks`
// returns its failures, one line each (an empty list when all hold).

const QUOTA = { kind: 'quota', capacity: 20, retryCost: 5, timeoutRetryCost: 5, successIncrement: 1 };
const BREAKER = { trip: { kind: 'consecutive', failures: 1 }, openMs: 1000, halfOpenProbes: 2 };

/** Every check against `api` (an entry: `retryplan` or `retryplan/tools`): the failures. */
export function controlChecks(api) {
  const failures = [];
  const { CircuitBreaker, RetrySlots, Dependency, RetryBudget } = api;
  const expect = (holds, what) => holds || failures.push(what);
  const same = (actual, wanted, what) =>
    expect(
      JSON.stringify(actual) === JSON.stringify(wanted),
      `${what}: ${JSON.stringify(actual)}, expected ${JSON.stringify(wanted)}`,
    );
  /** `call` must throw the RetryplanError invalid_argument naming `field`. */
  const refused = (field, call, what) => {
    try {
      call();
      failures.push(`${what}: accepted, expected invalid_argument naming ${field}`);
    } catch (error) {
      const ok = error instanceof api.RetryplanError && error.code === 'invalid_argument' && error.field === field;
      expect(
        ok,
        `${what}: ${error?.name} ${error?.code} field ${error?.field} (${error?.message}), expected invalid_argument naming ${field}`,
      );
    }
  };
  // The quota units left (tools: the snapshot; the default entry: how many units the raw call can take, given back).
  const available = (budget) => {
    if (budget.snapshot) return budget.snapshot(0).available;
    let units = 0;
    while (units < QUOTA.capacity && budget.acquire(units + 1)) budget.release(units++ + 1);
    return units;
  };

  // A dependency exposes its three controls under the core's names.
  const dependency = Dependency.fromConfig({ budget: QUOTA, breaker: BREAKER, retrySlots: 2 });
  expect(dependency.budget instanceof RetryBudget, 'dependency.budget is a RetryBudget');
  expect(dependency.breaker instanceof CircuitBreaker, 'dependency.breaker is a CircuitBreaker');
  expect(dependency.retrySlots instanceof RetrySlots, 'dependency.retrySlots is a RetrySlots');
  same([dependency.retrySlots.inUse, dependency.retrySlots.capacity], [0, 2], 'retrySlots in use, capacity');
  const empty = Dependency.fromConfig({});
  expect(
    [empty.budget, empty.breaker, empty.retrySlots].every((control) => control === undefined),
    'absent controls are undefined',
  );

  // Handles share the dependency's state.
  {
    const shared = Dependency.fromConfig({ budget: QUOTA, retrySlots: 1 });
    const slot = shared.retrySlots.tryAcquire();
    expect(slot instanceof api.RetrySlot, 'tryAcquire gives a RetrySlot');
    same(shared.retrySlots.tryAcquire(), undefined, 'no second slot of 1');
    same(shared.retrySlots.inUse, 1, 'another handle sees the slot taken');
    const charge = shared.budget.tryRetry(0);
    same(
      [charge.cost, shared.budget.chargesOutstanding, available(shared.budget)],
      [5, 1, 15],
      'charged through one handle, seen by another',
    );
    shared.retrySlots.release(slot);
    shared.budget.onSuccess(1, charge);
    same(
      [shared.retrySlots.inUse, shared.budget.chargesOutstanding, available(shared.budget)],
      [0, 0, 20],
      'settled through other handles',
    );
  }

  // A permit reported twice is refused and counts once.
  {
    const breaker = new CircuitBreaker(BREAKER);
    breaker.onFailure(0, breaker.tryAcquire(0));
    const [first, second] = [breaker.tryAcquire(1000), breaker.tryAcquire(1000)];
    same([first.probe, breaker.permitsOutstanding], [true, 2], 'two probes out');
    breaker.onSuccess(1001, first);
    refused('permit', () => breaker.onSuccess(1002, first), 'a probe success reported twice');
    refused('permit', () => breaker.onFailure(1002, first), 'a settled permit reported as a failure');
    refused('permit', () => breaker.release(first), 'a settled permit released');
    same(breaker.permitsOutstanding, 1, 'one permit still out');
    if (breaker.snapshot) same(breaker.snapshot(1020).state, 'half_open', 'one success of two closes nothing');
    breaker.onSuccess(1003, second);
    same(breaker.permitsOutstanding, 0, 'no permit out');
    if (breaker.snapshot) same(breaker.snapshot(1030).state, 'closed', 'two successes close it');
  }

  // A charge is settled once: by a refund, a failure or a spend.
  {
    const budget = new RetryBudget(QUOTA);
    const charges = [budget.tryRetry(0), budget.tryRetry(0), budget.tryRetry(0)];
    same([charges.map((charge) => charge.cost), budget.chargesOutstanding], [[5, 5, 5], 3], 'three charges out');
    budget.onSuccess(1, charges[0]);
    budget.onFailure(1, charges[1]);
    budget.spend(charges[2]);
    same([budget.chargesOutstanding, available(budget)], [0, 10], 'one refunded, two spent');
    for (const [index, charge] of charges.entries()) {
      refused('charge', () => budget.onSuccess(2, charge), `charge ${index} refunded again`);
      refused('charge', () => budget.onFailure(2, charge), `charge ${index} failed again`);
      refused('charge', () => budget.spend(charge), `charge ${index} spent again`);
    }
    same(available(budget), 10, 'no refund went through twice');
  }

  // A slot released twice is refused, and frees nobody else's.
  {
    const slots = new RetrySlots(1);
    const slot = slots.tryAcquire();
    same([slots.inUse, slots.tryAcquire()], [1, undefined], 'one slot of 1');
    slots.release(slot);
    const other = slots.tryAcquire();
    expect(other instanceof api.RetrySlot, 'the freed slot is taken again');
    refused('slot', () => slots.release(slot), 'a slot released twice');
    same(slots.inUse, 1, 'the second release did not free the slot another holder took');
    slots.release(other);
    same(slots.inUse, 0, 'all given back');
  }

  // Another control's grant is refused and changes neither control.
  {
    const [breakerA, breakerB] = [new CircuitBreaker(BREAKER), new CircuitBreaker(BREAKER)];
    const permit = breakerA.tryAcquire(0);
    refused('permit', () => breakerB.onFailure(0, permit), "breaker A's permit given to B");
    same([breakerA.permitsOutstanding, breakerB.permitsOutstanding], [0, 0], 'the refused permit went back to A');
    same([breakerB.tryAcquire(1) !== undefined], [true], 'B stays closed');
    refused('permit', () => breakerA.onFailure(0, permit), 'the refused permit is used up');

    const [budgetA, budgetB] = [new RetryBudget(QUOTA), new RetryBudget(QUOTA)];
    budgetB.tryRetry(0);
    const charge = budgetA.tryRetry(0);
    refused('charge', () => budgetB.onSuccess(1, charge), "budget A's charge given to B");
    same(
      [available(budgetA), available(budgetB), budgetA.chargesOutstanding],
      [15, 15, 0],
      'B refunded nothing; A spent',
    );

    const [slotsA, slotsB] = [new RetrySlots(1), new RetrySlots(1)];
    const [slot, held] = [slotsA.tryAcquire(), slotsB.tryAcquire()];
    refused('slot', () => slotsB.release(slot), "slots A's slot given to B");
    same([slotsA.inUse, slotsB.inUse], [0, 1], 'the foreign slot went back to A; B keeps its own');
    slotsB.release(held);

    const [dependencyA, dependencyB] = [
      Dependency.fromConfig({ retrySlots: 1 }),
      Dependency.fromConfig({ retrySlots: 1 }),
    ];
    const taken = dependencyA.retrySlots.tryAcquire();
    refused('slot', () => dependencyB.retrySlots.release(taken), "dependency A's slot given to B");
  }

  // A grant of another kind (or none) is invalid_argument naming the argument.
  {
    const [breaker, budget, slots] = [new CircuitBreaker(BREAKER), new RetryBudget(QUOTA), new RetrySlots(1)];
    const [charge, slot] = [budget.tryRetry(0), slots.tryAcquire()];
    refused('permit', () => breaker.onSuccess(0, charge), 'a charge as a permit');
    refused('charge', () => budget.onSuccess(0, slot), 'a slot as a charge');
    refused('slot', () => slots.release(breaker.tryAcquire(0)), 'a permit as a slot');
    refused('charge', () => budget.spend(undefined), 'spend without a charge');
    refused('slot', () => slots.release(), 'release without a slot');
    refused('permit', () => breaker.onSuccess(0, { probe: false }), 'a look-alike permit');
  }

  // A grant freed unsettled is given back; a freed grant is refused, never read as absent.
  {
    const [breaker, budget, slots] = [new CircuitBreaker(BREAKER), new RetryBudget(QUOTA), new RetrySlots(1)];
    const [permit, charge, slot] = [breaker.tryAcquire(0), budget.tryRetry(0), slots.tryAcquire()];
    for (const grant of [permit, charge, slot]) grant.free();
    same(
      [breaker.permitsOutstanding, budget.chargesOutstanding, slots.inUse],
      [0, 0, 0],
      'freed grants are given back',
    );
    same(available(budget), 15, 'a freed charge stays spent');
    refused('permit', () => breaker.onSuccess(1, permit), 'a freed permit');
    refused('charge', () => budget.onSuccess(1, charge), 'a freed charge (not a first attempt)');
    refused('charge', () => budget.spend(charge), 'a freed charge spent');
    refused('slot', () => slots.release(slot), 'a freed slot');
    same([available(budget), slots.inUse], [15, 0], 'nothing refunded or released by a freed grant');
  }

  // A freed control refuses the grant handed to it and leaves it unsettled, for a live handle.
  {
    const shared = Dependency.fromConfig({ budget: QUOTA, breaker: BREAKER, retrySlots: 1 });
    const [budget, breaker, slots] = [shared.budget, shared.breaker, shared.retrySlots];
    const [charge, permit, slot] = [budget.tryRetry(0), breaker.tryAcquire(0), slots.tryAcquire()];
    for (const control of [budget, breaker, slots]) control.free();
    refused('budget', () => budget.onSuccess(1, charge), 'a freed budget');
    refused('breaker', () => breaker.onSuccess(1, permit), 'a freed breaker');
    refused('retrySlots', () => slots.release(slot), 'freed retry slots');
    refused('retrySlots', () => slots.tryAcquire(), 'freed retry slots asked for a slot');
    same(
      [shared.budget.chargesOutstanding, shared.breaker.permitsOutstanding, shared.retrySlots.inUse],
      [1, 1, 1],
      'the grants are still out',
    );
    shared.budget.onSuccess(1, charge);
    shared.breaker.onSuccess(1, permit);
    shared.retrySlots.release(slot);
    same(
      [available(shared.budget), shared.breaker.permitsOutstanding, shared.retrySlots.inUse],
      [20, 0, 0],
      'a live handle settles them, refunded in full',
    );
  }

  // The raw quota calls are the AWS acquire and release only.
  {
    const budget = new RetryBudget(QUOTA);
    same([budget.acquire(19), budget.acquire(2)], [true, false], 'acquire takes units while they last');
    budget.release(100);
    same(available(budget), 20, 'release never above capacity');
    refused('amount', () => budget.acquire(-1), 'a negative amount');
    let threw = false;
    try {
      new RetryBudget({ kind: 'token_bucket', maxTokens: 10, tokenRatio: 0.1 }).release(1);
    } catch (error) {
      threw = error instanceof api.RetryplanError && error.code === 'invalid_argument';
    }
    expect(threw, 'release on a token bucket is invalid_argument');
    expect(!('refund' in budget) && !('charge' in budget), 'no refund or charge call');
  }
  return failures;
}
