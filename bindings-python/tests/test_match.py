"""Decisions work with structural pattern matching (Python 3.10+; skipped on 3.9 by conftest)."""

import retryplan
from retryplan import Operation, Outcome, Policy


def describe(decision: retryplan.Decision) -> str:
    match decision:
        case retryplan.StartAttempt(attempt, timeout_ms):
            return f"start {attempt} for {timeout_ms} ms"
        case retryplan.Wait(until_ms=until_ms, retry_after_ms=None):
            return f"wait until {until_ms}"
        case retryplan.GaveUp(reason=retryplan.GiveUpReason.NOT_RETRYABLE, attempts=n):
            return f"not retryable after {n}"
        case retryplan.Decision(kind=kind):
            return kind
    return "?"


def test_match_on_decisions() -> None:
    op = Operation(Policy(jitter={"kind": "none"}), now_ms=0, seed=7)
    assert describe(op.poll(now_ms=0)) == "start 1 for 3000 ms"
    assert describe(op.on_outcome(now_ms=120, attempt=1, outcome=Outcome.http_status(503))) == "wait until 220"
    assert describe(op.poll(now_ms=220)) == "start 2 for 3000 ms"
    assert describe(op.on_outcome(now_ms=300, attempt=2, outcome=Outcome.http_status(404))) == "not retryable after 2"
