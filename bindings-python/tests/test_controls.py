"""The control handles: a Dependency's budget, breaker and retry slots, the
grants each issues (single use, owned by the control that issued them, as in
the core's ``grant`` module) and the counters of grants still out."""

import threading
import warnings
from typing import Any, Callable, List

import pytest

import retryplan
from retryplan import (
    BreakerPermit,
    CircuitBreaker,
    Dependency,
    InvalidArgumentError,
    RetryBudget,
    RetryCharge,
    RetrySlot,
    RetrySlots,
)

QUOTA = {"kind": "quota", "capacity": 20, "retry_cost": 5, "timeout_retry_cost": 5, "success_increment": 1}
BREAKER = {"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 1000, "half_open_probes": 2}


def refused(name: str, call: Callable[[], Any]) -> InvalidArgumentError:
    with pytest.raises(InvalidArgumentError) as raised:
        call()
    assert (raised.value.code, raised.value.field) == ("invalid_argument", name), raised.value
    assert not isinstance(raised.value, TypeError), "a misused grant is not a wrong type"
    return raised.value


def test_a_dependency_exposes_its_three_controls_under_the_core_names() -> None:
    dependency = Dependency(budget=QUOTA, breaker=BREAKER, retry_slots=2)
    assert isinstance(dependency.budget, RetryBudget)
    assert isinstance(dependency.breaker, CircuitBreaker)
    slots = dependency.retry_slots
    assert isinstance(slots, RetrySlots) and (slots.in_use, slots.capacity) == (0, 2)
    empty = Dependency()
    assert (empty.budget, empty.breaker, empty.retry_slots) == (None, None, None)


def test_the_old_names_are_read_for_one_release() -> None:
    with pytest.warns(DeprecationWarning, match="ConcurrencyLimit is renamed retryplan.RetrySlots"):
        old = retryplan.ConcurrencyLimit
    assert old is RetrySlots
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        from retryplan import ConcurrencyLimit  # noqa: F401  (the old name, imported as callers did)
    assert [str(warning.message) for warning in caught] == [
        "retryplan.ConcurrencyLimit is renamed retryplan.RetrySlots; the old name goes in the next release"
    ]
    assert caught[0].filename == __file__  # the caller's line, not importlib's
    assert "ConcurrencyLimit" not in retryplan.__all__
    assert Dependency(max_concurrent_retries=2).retry_slots.capacity == 2  # type: ignore[union-attr]
    with pytest.raises(retryplan.RetryplanError) as raised:
        Dependency(retry_slots=2, max_concurrent_retries=2)
    assert getattr(raised.value, "field", None) == "max_concurrent_retries"
    assert "both `retry_slots` and its old name `max_concurrent_retries`" in str(raised.value)


def test_handles_share_the_dependency_state() -> None:
    dependency = Dependency(budget=QUOTA, breaker=BREAKER, retry_slots=1)
    slot = dependency.retry_slots.try_acquire()  # type: ignore[union-attr]
    assert isinstance(slot, RetrySlot)
    assert dependency.retry_slots.try_acquire() is None  # type: ignore[union-attr]
    assert dependency.snapshot(now_ms=0)["retry_slots_in_use"] == 1
    charge = dependency.budget.try_retry(now_ms=0)  # type: ignore[union-attr]
    assert isinstance(charge, RetryCharge) and dependency.snapshot(now_ms=0)["budget"]["available"] == 15
    dependency.retry_slots.release(slot)  # type: ignore[union-attr]
    dependency.budget.on_success(charge=charge, now_ms=1)  # type: ignore[union-attr]
    assert dependency.snapshot(now_ms=1)["retry_slots_in_use"] == 0
    assert dependency.snapshot(now_ms=1)["budget"]["available"] == 20


def test_a_breaker_permit_reported_twice_is_refused_and_counts_once() -> None:
    breaker = CircuitBreaker(BREAKER)
    breaker.on_failure(0.0, breaker.try_acquire(0.0))  # type: ignore[arg-type]
    first, second = breaker.try_acquire(now_ms=1000), breaker.try_acquire(now_ms=1000)
    assert isinstance(first, BreakerPermit) and first.probe and breaker.permits_outstanding == 2
    breaker.on_success(1.01, first)
    refused("permit", lambda: breaker.on_success(1.02, first))
    refused("permit", lambda: breaker.on_failure(1.02, first))
    refused("permit", lambda: breaker.release(first))
    snapshot = breaker.snapshot(now_ms=1020)
    assert (snapshot["state"], snapshot["probes_running"], breaker.permits_outstanding) == ("half_open", 1, 1)
    breaker.on_success(1.03, second)
    assert breaker.snapshot(now_ms=1030)["state"] == "closed" and breaker.permits_outstanding == 0


def test_a_charge_is_settled_once_by_a_refund_a_failure_or_a_spend() -> None:
    budget = RetryBudget(QUOTA)
    charges = [budget.try_retry(now_ms=0) for _ in range(3)]
    assert [c.cost for c in charges if c] == [5, 5, 5] and budget.charges_outstanding == 3
    budget.on_success(now_ms=1, charge=charges[0])
    budget.on_failure(now_ms=1, charge=charges[1])
    budget.spend(charges[2])  # type: ignore[arg-type]
    assert budget.charges_outstanding == 0 and budget.snapshot(now_ms=1)["available"] == 10
    for charge in charges:
        refused("charge", lambda: budget.on_success(now_ms=2, charge=charge))
        refused("charge", lambda: budget.on_failure(now_ms=2, charge=charge))
        refused("charge", lambda: budget.spend(charge))  # type: ignore[arg-type]
    assert budget.snapshot(now_ms=2)["available"] == 10, "no refund went through twice"


def test_a_slot_released_twice_is_refused() -> None:
    slots = RetrySlots(1)
    slot = slots.try_acquire()
    assert slot is not None and slots.in_use == 1 and slots.try_acquire() is None
    slots.release(slot)
    other = slots.try_acquire()
    assert other is not None
    refused("slot", lambda: slots.release(slot))
    assert slots.in_use == 1, "the second release did not free the slot another holder took"
    slots.release(other)
    assert slots.in_use == 0


def test_a_grant_of_another_control_is_refused_and_changes_neither() -> None:
    breaker_a, breaker_b = CircuitBreaker(BREAKER), CircuitBreaker(BREAKER)
    permit = breaker_a.try_acquire(now_ms=0)
    refused("permit", lambda: breaker_b.on_failure(0.0, permit))  # type: ignore[arg-type]
    assert breaker_b.snapshot(now_ms=0)["state"] == "closed" and breaker_a.snapshot(now_ms=0)["state"] == "closed"
    assert breaker_a.permits_outstanding == 0, "the refused permit went back to A"
    refused("permit", lambda: breaker_a.on_failure(0.0, permit))  # type: ignore[arg-type]

    budget_a, budget_b = RetryBudget(QUOTA), RetryBudget(QUOTA)
    budget_b.try_retry(now_ms=0)
    charge = budget_a.try_retry(now_ms=0)
    refused("charge", lambda: budget_b.on_success(now_ms=1, charge=charge))
    assert budget_b.snapshot(now_ms=1)["available"] == 15, "B refunded nothing"
    assert budget_a.snapshot(now_ms=1)["available"] == 15 and budget_a.charges_outstanding == 0

    slots_a, slots_b = RetrySlots(1), RetrySlots(1)
    slot, held = slots_a.try_acquire(), slots_b.try_acquire()
    refused("slot", lambda: slots_b.release(slot))  # type: ignore[arg-type]
    assert (slots_a.in_use, slots_b.in_use) == (0, 1)
    slots_b.release(held)  # type: ignore[arg-type]

    dependency_a, dependency_b = Dependency(retry_slots=1), Dependency(retry_slots=1)
    slot = dependency_a.retry_slots.try_acquire()  # type: ignore[union-attr]
    refused("slot", lambda: dependency_b.retry_slots.release(slot))  # type: ignore[union-attr,arg-type]


def test_a_grant_of_another_kind_is_a_type_error_naming_the_argument() -> None:
    breaker, budget, slots = CircuitBreaker(BREAKER), RetryBudget(QUOTA), RetrySlots(1)
    charge, slot = budget.try_retry(now_ms=0), slots.try_acquire()
    for call, name in [
        (lambda: breaker.on_success(0.0, charge), "permit"),
        (lambda: budget.on_success(0.0, slot), "charge"),
        (lambda: slots.release(breaker.try_acquire(0.0)), "slot"),
        (lambda: budget.spend(None), "charge"),
    ]:
        with pytest.raises(retryplan.ArgumentTypeError) as raised:
            call()  # type: ignore[no-untyped-call]
        assert (raised.value.code, raised.value.field) == ("invalid_argument", name)


def test_a_grant_dropped_unsettled_is_given_back() -> None:
    breaker, budget, slots = CircuitBreaker(BREAKER), RetryBudget(QUOTA), RetrySlots(1)
    breaker.try_acquire(now_ms=0)
    budget.try_retry(now_ms=0)
    slots.try_acquire()
    assert (breaker.permits_outstanding, budget.charges_outstanding, slots.in_use) == (0, 0, 0)
    assert budget.snapshot(now_ms=0)["available"] == 15, "a dropped charge stays spent"


def test_a_raw_quota_amount_is_the_aws_acquire_and_release_only() -> None:
    budget = RetryBudget(QUOTA)
    assert budget.acquire(19) and not budget.acquire(2)
    budget.release(100)
    assert budget.snapshot(now_ms=0)["available"] == 20, "never above capacity"
    with pytest.raises(InvalidArgumentError):
        RetryBudget(kind="token_bucket", max_tokens=10, token_ratio=0.1).release(1)
    assert not hasattr(budget, "refund") and not hasattr(budget, "charge")


def run_threads(count: int, work: Callable[[int], None]) -> None:
    barrier = threading.Barrier(count)
    errors: List[BaseException] = []

    def body(index: int) -> None:
        try:
            barrier.wait()
            work(index)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)

    threads = [threading.Thread(target=body, args=(index,)) for index in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


def test_threads_settling_one_grant_succeed_exactly_once() -> None:
    for _ in range(20):
        budget, breaker, slots = RetryBudget(QUOTA), CircuitBreaker(BREAKER), RetrySlots(1)
        charge, permit, slot = budget.try_retry(now_ms=0), breaker.try_acquire(now_ms=0), slots.try_acquire()
        settled: List[str] = []

        def settle(index: int) -> None:
            for name, call in [
                ("charge", lambda: budget.on_success(now_ms=1, charge=charge)),
                ("permit", lambda: breaker.on_success(now_ms=1, permit=permit)),
                ("slot", lambda: slots.release(slot)),  # type: ignore[arg-type]
            ]:
                try:
                    call()
                    settled.append(name)
                except InvalidArgumentError as error:
                    assert error.field == name

        run_threads(4, settle)
        assert sorted(settled) == ["charge", "permit", "slot"]
        assert budget.snapshot(now_ms=1)["available"] == 20, "refunded once, not four times"
        assert (budget.charges_outstanding, breaker.permits_outstanding, slots.in_use) == (0, 0, 0)


def test_threads_sharing_a_dependency_never_exceed_its_retry_slots_and_leak_nothing() -> None:
    dependency = Dependency(budget=QUOTA, breaker=BREAKER, retry_slots=2)
    slots, budget, breaker = dependency.retry_slots, dependency.budget, dependency.breaker
    assert slots is not None and budget is not None and breaker is not None
    peak: List[int] = []

    def work(index: int) -> None:
        for _ in range(200):
            slot = slots.try_acquire()
            if slot is None:
                continue
            peak.append(slots.in_use)
            permit = breaker.try_acquire(now_ms=0)
            charge = budget.try_retry(now_ms=0)
            if charge is not None:
                budget.on_success(now_ms=0, charge=charge)
            if permit is not None:
                breaker.on_success(now_ms=0, permit=permit)
            slots.release(slot)

    run_threads(4, work)
    assert peak and max(peak) <= 2
    assert (slots.in_use, budget.charges_outstanding, breaker.permits_outstanding) == (0, 0, 0)
    assert budget.snapshot(now_ms=0)["available"] == 20
