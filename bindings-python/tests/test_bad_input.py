"""What bad input gets: one row per kind of bad input, each a typed error with
the core's code and the argument or field it names (the same code and field
the Kotlin binding gives for the same input, and the conformance vectors pin
for the core). The README's "What bad input gets" table is these rows: a test
below reads it and compares."""

import math
import pathlib
from typing import Any, Callable, List, NamedTuple, Optional

import pytest

import retryplan
from retryplan import (
    CircuitBreaker,
    Dependency,
    InvalidArgumentError,
    InvalidConfigError,
    Operation,
    Policy,
    RetryBudget,
    RetryplanError,
    RetrySlots,
)

NO_ERROR = "none"
BREAKER = {"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 1000, "half_open_probes": 1}
QUOTA = {"kind": "quota", "capacity": 20, "retry_cost": 5, "timeout_retry_cost": 5, "success_increment": 1}
HUGE = "x" * 10_000_000


class Row(NamedTuple):
    """A README row: the input, what it raises (class, code, field), and a call that gives it."""

    label: str
    error: str
    code: str
    field: str
    call: Callable[[], Any]


def other_version() -> bytes:
    """The default policy's compiled form, its version byte (offset 3) one past this engine's."""
    form = bytearray(Policy().to_compiled())
    form[3] = (retryplan.FORM_VERSION + 1) % 256
    return bytes(form)


def op() -> Operation:
    operation = Operation(Policy(), now_ms=0, seed=1)
    operation.poll(now_ms=0)
    return operation


def ended() -> Operation:
    operation = op()
    operation.cancel(now_ms=1)
    return operation


def reported_twice() -> None:
    breaker = CircuitBreaker(BREAKER)
    permit = breaker.try_acquire(now_ms=0)
    breaker.on_success(now_ms=1, permit=permit)
    breaker.on_success(now_ms=2, permit=permit)


def foreign_slot() -> None:
    mine, other = RetrySlots(1), RetrySlots(1)
    other.release(mine.try_acquire())  # type: ignore[arg-type]


def clock_backwards() -> None:
    operation = op()
    operation.on_outcome(0.5, 1, retryplan.Outcome.http_status(503))
    assert operation.poll(0.3) == operation.poll(0.5), "the earlier reading counts as no time: 0.5 s"


def clock_far_ahead() -> None:
    breaker = CircuitBreaker(BREAKER)
    breaker.on_failure(now_ms=1_700_000_000_000, permit=breaker.try_acquire(now_ms=100))
    assert breaker.try_acquire(now_ms=200) is None, "open for the 1000 ms it had left"
    assert breaker.try_acquire(now_ms=1200) is not None, "not for 55 years"
    budget = RetryBudget(kind="ratio", retry_ratio=0.5, min_retries_per_second=0, window_ms=1000)
    budget.on_request(now_ms=2**53 - 1)
    budget.on_request(now_ms=0)
    assert budget.snapshot(now_ms=0)["requests"] == 2, "the clock restarted at 0 with both counts"
    assert budget.snapshot(now_ms=1000)["requests"] == 0, (
        "and they leave the window 1000 ms later, not in 285,000 years"
    )


ROWS: List[Row] = [
    Row("NaN clock reading", "InvalidArgumentError", "invalid_argument", "now", lambda: op().poll(math.nan)),
    Row("+Infinity clock reading", "InvalidArgumentError", "invalid_argument", "now", lambda: op().poll(math.inf)),
    Row("-Infinity clock reading", "InvalidArgumentError", "invalid_argument", "now", lambda: op().poll(-math.inf)),
    Row("negative clock reading", "InvalidArgumentError", "invalid_argument", "now_ms", lambda: op().poll(now_ms=-1)),
    Row(
        "clock reading beyond 2^53 - 1 ms",
        "InvalidArgumentError",
        "invalid_argument",
        "now_ms",
        lambda: op().poll(now_ms=2**53),
    ),
    Row(
        "clock reading beyond 2^64",
        "InvalidArgumentError",
        "invalid_argument",
        "now_ms",
        lambda: op().poll(now_ms=2**64),
    ),
    Row(
        "retry_after_ms beyond 2^53 - 1 ms",
        "InvalidArgumentError",
        "invalid_argument",
        "retry_after_ms",
        lambda: retryplan.Outcome.http_status(503, 2**63),
    ),
    Row(
        "negative attempt number",
        "InvalidArgumentError",
        "invalid_argument",
        "attempt",
        lambda: op().on_outcome(now_ms=0, attempt=-1, outcome=retryplan.Outcome.success()),
    ),
    Row("wrong type for an argument", "ArgumentTypeError", "invalid_argument", "now", lambda: op().poll("1.0")),  # type: ignore[arg-type]
    Row("None for a required argument", "InvalidArgumentError", "invalid_argument", "now", lambda: op().poll(None)),
    Row(
        "wrong type for a helper's argument",
        "ArgumentTypeError",
        "invalid_argument",
        "stats",
        lambda: retryplan.retry(Policy.from_profile("read"), stats=3)(print),
    ),  # type: ignore[arg-type]
    Row(
        "an option a helper does not have",
        "ArgumentTypeError",
        "invalid_argument",
        "outcome_of_eror",
        lambda: retryplan.attempts(Policy.from_profile("read"), outcome_of_eror=None),
    ),  # type: ignore[call-arg]
    Row("negative count", "InvalidArgumentError", "invalid_argument", "capacity", lambda: RetrySlots(-1)),
    Row("count beyond 32 bits", "InvalidArgumentError", "invalid_argument", "capacity", lambda: RetrySlots(2**32)),
    Row(
        "NaN in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "attempt_timeout.fraction_of_remaining",
        lambda: Policy.from_dict({"attempt_timeout": {"fraction_of_remaining": math.nan}}),
    ),
    Row(
        "Infinity in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "attempt_timeout.fraction_of_remaining",
        lambda: Policy.from_dict({"attempt_timeout": {"fraction_of_remaining": math.inf}}),
    ),
    Row(
        "negative number in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "backoff.base_ms",
        lambda: Policy.from_dict({"backoff": {"base_ms": -5}}),
    ),
    Row(
        "time beyond 2^53 - 1 ms in a configuration",
        "ConfigViolationsError",
        "config_violations",
        "total_timeout_ms",
        lambda: Policy.from_dict({"total_timeout_ms": 2**53}),
    ),
    Row(
        "number beyond 2^64 in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "total_timeout_ms",
        lambda: Policy.from_json('{"total_timeout_ms": 18446744073709551616}'),
    ),
    Row(
        "wrong type in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "max_attempts",
        lambda: Policy.from_json('{"max_attempts": "3"}'),
    ),
    Row(
        "null in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "total_timeout_ms",
        lambda: Policy.from_json('{"total_timeout_ms": null}'),
    ),
    Row(
        "unknown field",
        "InvalidConfigError",
        "invalid_config",
        "max_attemps",
        lambda: Policy.from_json('{"max_attemps": 3}'),
    ),
    Row(
        "duplicate field",
        "InvalidConfigError",
        "invalid_config",
        "max_attempts",
        lambda: Policy.from_json('{"max_attempts": 3, "max_attempts": 4}'),
    ),
    Row(
        "lone surrogate in an argument",
        "InvalidArgumentError",
        "invalid_argument",
        "idempotency_key",
        lambda: Operation(Policy(), now_ms=0, seed=1, idempotency_key="key\ud800"),
    ),
    Row(
        "lone surrogate in a configuration",
        "InvalidConfigError",
        "invalid_config",
        "idempotency",
        lambda: Policy.from_dict({"idempotency": "\ud800"}),
    ),
    Row(
        "huge string in a configuration (10 MB)",
        "InvalidConfigError",
        "invalid_config",
        "idempotency",
        lambda: Policy.from_json('{"idempotency": "' + HUGE + '"}'),
    ),
    Row(
        "bytes that are not a compiled form",
        "NotACompiledFormError",
        "not_a_compiled_form",
        NO_ERROR,
        lambda: Policy.from_compiled(b'{"max_attempts": 3}'),
    ),
    Row(
        "compiled form of another version",
        "CompiledFormVersionError",
        "compiled_form_version",
        NO_ERROR,
        lambda: Policy.from_compiled(other_version()),
    ),
    Row(
        "damaged compiled form",
        "CompiledFormDamagedError",
        "compiled_form_damaged",
        NO_ERROR,
        lambda: Policy.from_compiled(Policy().to_compiled()[:-1]),
    ),
    Row(
        "compiled form of another kind",
        "CompiledFormKindError",
        "compiled_form_kind",
        NO_ERROR,
        lambda: Dependency.from_compiled(Policy().to_compiled()),
    ),
    Row("clock backwards (an operation)", NO_ERROR, NO_ERROR, NO_ERROR, clock_backwards),
    Row("clock far ahead (a breaker, a budget)", NO_ERROR, NO_ERROR, NO_ERROR, clock_far_ahead),
    Row("call after the end", "OperationEndedError", "operation_ended", NO_ERROR, lambda: ended().poll(now_ms=2)),
    Row("grant used twice", "InvalidArgumentError", "invalid_argument", "permit", reported_twice),
    Row("grant of another control", "InvalidArgumentError", "invalid_argument", "slot", foreign_slot),
    Row(
        "malformed propagation header (a served request: the middleware answers 400)",
        "InvalidRequestHeaderError",
        "invalid_request_header",
        "grpc-timeout",
        lambda: retryplan.IncomingContext.read(Policy(), {"grpc-timeout": "1.5S"}, now_ms=0),
    ),
]


@pytest.mark.parametrize("row", ROWS, ids=[row.label for row in ROWS])
def test_bad_input_gets_a_typed_error_with_the_code_and_field(row: Row) -> None:
    if row.error == NO_ERROR:
        row.call()
        return
    with pytest.raises(RetryplanError) as raised:
        row.call()
    error = raised.value
    assert type(error).__name__ == row.error and error.code == row.code, error
    field: Optional[str] = (
        getattr(error, "field", None) or getattr(error, "profile", None) or getattr(error, "header", None)
    )
    if isinstance(error, retryplan.ConfigViolationsError):
        field = ",".join(error.fields)
    assert (field or NO_ERROR) == row.field, error
    assert len(str(error)) < 1000, "a bad value is excerpted, never copied whole"


@pytest.mark.parametrize("helper", ["async_attempts", "RetryTransport", "AsyncRetryTransport", "RetryAdapter"])
def test_every_helper_names_an_option_it_does_not_have(helper: str) -> None:
    import retryplan.httpx
    import retryplan.requests

    policy, misspelled = Policy.from_profile("read"), {"sead": 1}  # seed, misspelled
    make: Callable[[], Any] = {
        "async_attempts": lambda: retryplan.async_attempts(policy, **misspelled),
        "RetryTransport": lambda: retryplan.httpx.RetryTransport(policy=policy, **misspelled),
        "AsyncRetryTransport": lambda: retryplan.httpx.AsyncRetryTransport(policy=policy, **misspelled),
        "RetryAdapter": lambda: retryplan.requests.RetryAdapter(policy=policy, **misspelled),
    }[helper]
    with pytest.raises(retryplan.ArgumentTypeError, match="`sead`: is not an option of this helper") as raised:
        make()
    assert raised.value.field == "sead"


def test_range_messages_state_the_arguments_own_range() -> None:
    for ms in (2**53, 2**63, 2**64, -1):
        with pytest.raises(InvalidArgumentError) as raised:
            retryplan.Outcome.http_status(503, ms)
        assert str(raised.value) == (
            "invalid argument `retry_after_ms`: must be a whole number of milliseconds in 0..=2^53 - 1 "
            f"(9007199254740991), got {ms}"
        )
    with pytest.raises(InvalidArgumentError) as raised:
        op().poll(now_ms=-1)
    assert "0..=2^53 - 1" in str(raised.value), "every clock reading says the same range"
    with pytest.raises(InvalidArgumentError) as raised:
        op().on_outcome(now_ms=0, attempt=-1, outcome=retryplan.Outcome.success())
    assert str(raised.value).endswith("must be a whole number in 0..=4294967295, got -1"), str(raised.value)


def test_a_grpc_code_of_neither_type_names_both() -> None:
    for code in (True, 1.5, None, b"UNAVAILABLE"):
        with pytest.raises(retryplan.ArgumentTypeError) as raised:
            retryplan.Outcome.grpc_status(code)  # type: ignore[arg-type]
        assert "must be a str (a gRPC code's name) or an int in 0..=16" in str(raised.value), str(raised.value)
        assert raised.value.field == "code"
    assert retryplan.Outcome.grpc_status(14) == retryplan.Outcome.grpc_status("unavailable")


def test_a_huge_value_is_quoted_as_an_excerpt() -> None:
    with pytest.raises(InvalidConfigError) as raised:
        Policy.from_json('{"idempotency": "' + HUGE + '"}')
    assert "x" * 64 in str(raised.value) and "x" * 65 not in str(raised.value)


def test_a_dependency_reads_its_controls_with_the_same_codes() -> None:
    for text, field in [
        ('{"retry_slots": 4294967296}', "retry_slots"),
        ('{"retry_slots": 1.5}', "retry_slots"),
        ('{"breaker": {"open_ms": 1000, "open_ms": 2000}}', "breaker.open_ms"),
        ('{"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1, "extra": 1}}', "budget.extra"),
    ]:
        with pytest.raises(InvalidConfigError) as raised:
            Dependency.from_json(text)
        assert (raised.value.config, raised.value.field) == ("dependency", field)
        assert str(raised.value).startswith(f"invalid dependency configuration at `{field}`: ")
    with pytest.raises(InvalidArgumentError) as amount:
        RetryBudget(QUOTA).acquire(-1)
    assert amount.value.field == "amount"


def readme_rows() -> List[tuple]:
    readme = pathlib.Path(__file__).resolve().parents[1] / "README.md"
    section = readme.read_text(encoding="utf-8").split("\n## What bad input gets\n", 1)[1].split("\n## ", 1)[0]
    rows = []
    for line in section.splitlines():
        cells = [cell.strip().strip("`") for cell in line.strip().strip("|").split("|")]
        if not line.startswith("| ") or cells[0] in ("input", "") or set(cells[0]) <= set("-: "):
            continue
        rows.append(tuple(cells))
    return rows


def test_the_readme_table_is_these_rows() -> None:
    assert readme_rows() == [(row.label, row.error, row.code, row.field) for row in ROWS]


def test_every_row_label_is_unique() -> None:
    assert len({row.label for row in ROWS}) == len(ROWS)


@pytest.mark.parametrize("reading", [math.nan, -5.0, "soon"], ids=["NaN", "negative", "a string"])
def test_a_helpers_clock_that_answers_no_time_is_refused_naming_the_callers_option(reading: object) -> None:
    # It was blamed on `now`, an argument of the engine's the caller never gave; the caller gave `clock=`.
    policy = retryplan.Policy(max_attempts=2, total_timeout_ms=1000)
    with pytest.raises(retryplan.RetryplanError) as raised:
        retryplan.retry(policy, clock=lambda: reading)(lambda: 1)()
    assert raised.value.code == "invalid_argument" and raised.value.field == "clock"
