"""Defects a new user hits first (issue 23): misuse raised at once as typed errors, options refused up front."""

import asyncio
from typing import Any, List

import pytest

import retryplan
from retryplan import ArgumentTypeError, GaveUpError, GiveUpReason, Outcome, Policy, Stats

POLICY = Policy(max_attempts=3, jitter={"kind": "none"}, backoff={"base_ms": 1, "cap_ms": 1})


def no_sleep(seconds: float) -> None:
    pass


async def no_async_sleep(seconds: float) -> None:
    pass


# 1. misuse inside `with attempt:` is no attempt's outcome: the operation is cancelled, the error raised unchanged


def test_misuse_inside_with_attempt_cancels_and_is_raised_unchanged() -> None:
    stats, started = Stats(), []
    with pytest.raises(ArgumentTypeError) as raised:
        for attempt in retryplan.attempts(POLICY, seed=1, stats=stats, sleep=no_sleep):
            started.append(attempt.attempt)
            with attempt:
                attempt.report("success")  # type: ignore[arg-type]
    assert started == [1], "misuse was retried as a failed attempt"
    assert raised.value.field == "outcome" and raised.value.__cause__ is None
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_misuse_inside_async_with_attempt_cancels_and_is_raised_unchanged() -> None:
    stats, started = Stats(), []

    async def main() -> None:
        async for attempt in retryplan.async_attempts(POLICY, seed=1, stats=stats, sleep=no_async_sleep):
            started.append(attempt.attempt)
            async with attempt:
                attempt.report("success")  # type: ignore[arg-type]

    with pytest.raises(ArgumentTypeError):
        asyncio.run(main())
    assert started == [1] and stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_misuse_under_retry_is_raised_at_once() -> None:
    calls: List[int] = []

    @retryplan.retry(POLICY, seed=1, sleep=no_sleep)
    def misused() -> None:
        calls.append(1)
        Outcome.failure("bogus")

    with pytest.raises(retryplan.InvalidArgumentError):
        misused()
    assert calls == [1]


def test_a_nested_operations_ending_and_the_users_errors_are_still_outcomes() -> None:
    inner = Policy(max_attempts=1)

    @retryplan.retry(inner, seed=1)
    def nested() -> None:
        raise ConnectionResetError()

    started = []
    with pytest.raises(GaveUpError) as raised:
        for attempt in retryplan.attempts(POLICY, seed=2, sleep=no_sleep):
            started.append(attempt.attempt)
            with attempt:
                nested()
    assert started == [1, 2, 3] and isinstance(raised.value.cause, GaveUpError)
    with pytest.raises(GaveUpError):
        for attempt in retryplan.attempts(POLICY, seed=2, sleep=no_sleep):
            with attempt:
                raise ValueError("the user's own")


# 2. `attempt.report()` without an outcome is a success, as the root README's `attempt.report(result=...)` is


def test_report_without_an_outcome_is_a_success_with_its_result() -> None:
    for attempt in retryplan.attempts(POLICY, seed=1):
        assert attempt.report(result="done") is True
    for attempt in retryplan.attempts(POLICY, seed=1):
        assert attempt.report() is True
    for attempt in retryplan.attempts(POLICY, seed=1):
        assert attempt.report(None, result="done") is True and attempt.reported


# 3. loop misuse is a typed error (code, blame), still a RuntimeError


def test_an_attempt_reported_twice_is_attempt_not_running() -> None:
    for attempt in retryplan.attempts(POLICY, seed=1):
        attempt.report()
        with pytest.raises(retryplan.AttemptNotRunningError) as raised:
            attempt.report()
    error = raised.value
    assert isinstance(error, RuntimeError) and (error.code, error.blame) == ("attempt_not_running", "caller")
    assert (error.attempt, error.running) == (1, []) and "already reported" in str(error)


def test_a_second_report_inside_with_attempt_cancels_and_is_raised() -> None:
    stats = Stats()
    with pytest.raises(retryplan.AttemptNotRunningError):
        for attempt in retryplan.attempts(POLICY, seed=1, stats=stats, sleep=no_sleep):
            with attempt:
                attempt.report(Outcome.http_status(503))
                attempt.report(Outcome.http_status(503))
    assert stats.gave_up[GiveUpReason.CANCELLED] == 1


def test_an_attempt_left_without_an_outcome_is_attempt_misuse() -> None:
    loop = retryplan.attempts(POLICY, seed=1)
    next(loop)
    with pytest.raises(retryplan.AttemptMisuseError) as raised:
        next(loop)
    error = raised.value
    assert isinstance(error, RuntimeError) and isinstance(error, retryplan.CallerError)
    assert (error.code, error.blame, error.attempt) == ("attempt_misuse", "caller", 1)
    assert "without an outcome" in str(error)


def test_an_attempt_under_retry_cannot_report() -> None:
    calls: List[int] = []

    @retryplan.retry(POLICY, seed=1, sleep=no_sleep)
    def reports() -> None:
        calls.append(1)
        attempt = retryplan.current_attempt()
        assert attempt is not None
        attempt.report()

    with pytest.raises(retryplan.AttemptMisuseError, match="under @retry") as raised:
        reports()
    assert calls == [1] and isinstance(raised.value, RuntimeError) and raised.value.blame == "caller"


# 4. an attempt loop has no `outcome_of_result`: it reports each outcome itself


@pytest.mark.parametrize("loop", ["attempts", "async_attempts"])
def test_an_attempt_loop_refuses_outcome_of_result(loop: str) -> None:
    def hook(value: object) -> None:
        raise AssertionError("never called")

    with pytest.raises(ArgumentTypeError, match="is not an option of this helper") as raised:
        getattr(retryplan, loop)(POLICY, outcome_of_result=hook)
    assert raised.value.field == "outcome_of_result"


# 5. httpx: a per-request option that is not one is refused, naming it, before anything is sent


def _sent_to(sent: List[Any]) -> Any:
    import httpx

    def handler(request: Any) -> Any:
        sent.append(request)
        return httpx.Response(503)

    return handler


@pytest.mark.parametrize("key", ["deadline_ms", "idempotnet"])
def test_httpx_refuses_an_unknown_per_request_option(key: str) -> None:
    import httpx

    from retryplan.httpx import AsyncRetryTransport, RetryTransport

    sent: List[Any] = []
    client = httpx.Client(transport=RetryTransport(httpx.MockTransport(_sent_to(sent)), policy=POLICY, sleep=no_sleep))
    with pytest.raises(ArgumentTypeError, match="is not an option of this helper") as raised:
        client.post("http://example.test/", extensions={"retryplan": {key: 5}})
    assert raised.value.field == key and sent == []

    async def main() -> None:
        transport = AsyncRetryTransport(httpx.MockTransport(_sent_to(sent)), policy=POLICY)
        async with httpx.AsyncClient(transport=transport) as client:
            await client.get("http://example.test/", extensions={"retryplan": {key: 5}})

    with pytest.raises(ArgumentTypeError) as raised:
        asyncio.run(main())
    assert raised.value.field == key and sent == []


def test_httpx_refuses_per_request_options_that_are_not_a_dict() -> None:
    import httpx

    from retryplan.httpx import RetryTransport

    sent: List[Any] = []
    client = httpx.Client(transport=RetryTransport(httpx.MockTransport(_sent_to(sent)), policy=POLICY, sleep=no_sleep))
    with pytest.raises(ArgumentTypeError, match="must be a dict") as raised:
        client.get("http://example.test/", extensions={"retryplan": 5})
    assert raised.value.field == 'extensions["retryplan"]' and sent == []
    response = client.get("http://example.test/", extensions={"retryplan": {"idempotent": True}})
    assert response.status_code == 503 and len(sent) == 3


# 6. a `transport=` that is not one is refused when the transport is made, not inside the first attempt


@pytest.mark.parametrize("helper", ["RetryTransport", "AsyncRetryTransport"])
def test_httpx_refuses_a_transport_that_is_not_one(helper: str) -> None:
    import retryplan.httpx

    with pytest.raises(ArgumentTypeError, match="httpx") as raised:
        getattr(retryplan.httpx, helper)(policy=POLICY, transport=1)
    assert raised.value.field == "transport"


# 7. options of the wrong type that failed only mid-run are refused when the helper is made


def _helpers_given(**wrong: Any) -> Any:
    import retryplan.httpx
    import retryplan.requests

    return {
        "retry": lambda: retryplan.retry(POLICY, **wrong)(lambda: None),
        "attempts": lambda: retryplan.attempts(POLICY, **wrong),
        "async_attempts": lambda: retryplan.async_attempts(POLICY, **wrong),
        "RetryTransport": lambda: retryplan.httpx.RetryTransport(policy=POLICY, **wrong),
        "AsyncRetryTransport": lambda: retryplan.httpx.AsyncRetryTransport(policy=POLICY, **wrong),
        "RetryAdapter": lambda: retryplan.requests.RetryAdapter(policy=POLICY, **wrong),
    }


HELPERS = ["retry", "attempts", "async_attempts", "RetryTransport", "AsyncRetryTransport", "RetryAdapter"]


@pytest.mark.parametrize("option", ["sleep", "logger"])
@pytest.mark.parametrize("helper", HELPERS)
def test_every_helper_refuses_a_sleep_or_logger_of_the_wrong_type(helper: str, option: str) -> None:
    if helper in ("attempts", "async_attempts") and option == "logger":
        retryplan._run._LOOPS.clear()  # checked once per set of arguments
    with pytest.raises(ArgumentTypeError, match="must be") as raised:
        _helpers_given(**{option: 1})[helper]()
    assert raised.value.field == option


@pytest.mark.parametrize("helper", ["RetryTransport", "AsyncRetryTransport", "RetryAdapter"])
def test_an_http_helper_refuses_a_wall_clock_of_the_wrong_type(helper: str) -> None:
    with pytest.raises(ArgumentTypeError, match="Unix time") as raised:
        _helpers_given(wall_clock=1)[helper]()
    assert raised.value.field == "wall_clock"


def test_a_logger_adapter_and_a_default_sleep_are_fine() -> None:
    import logging

    adapter = logging.LoggerAdapter(logging.getLogger("retryplan.test"), {})
    for make in _helpers_given(logger=adapter).values():
        make()


# 8. a time past 2^53-1 ms is refused by every function, as the README says and JS does


@pytest.mark.parametrize(
    "field, call",
    [
        ("deadline_ms", lambda: retryplan.explain(POLICY, 2**64 - 1)),
        ("deadline_ms", lambda: retryplan.explain(POLICY, 2**53)),
        ("first_attempt_at_ms", lambda: retryplan.explain(POLICY, 1000, first_attempt_at_ms=2**60)),
        ("total_timeout_ms", lambda: retryplan._native.policy_from_urllib3({}, 2**53)),
    ],
)
def test_a_time_past_the_safe_integers_is_refused(field: str, call: Any) -> None:
    with pytest.raises(retryplan.InvalidArgumentError) as raised:
        call()
    assert raised.value.field == field
    retryplan.explain(POLICY, 2**53 - 1, first_attempt_at_ms=0)


# 9. an anonymous function's operation is named `operation` in its ending, as in JS and Kotlin


def test_a_lambdas_operation_is_named_operation_and_a_functions_by_its_qualname() -> None:
    never = Outcome.application("not_retryable")
    with pytest.raises(GaveUpError) as raised:
        retryplan.retry(POLICY, seed=1, outcome_of_error=lambda error: never)(lambda: 1 / 0)()
    assert str(raised.value).startswith("retryplan: operation: ") and "<lambda>" not in str(raised.value)

    def divide() -> float:
        return 1 / 0

    with pytest.raises(GaveUpError) as raised:
        retryplan.retry(POLICY, seed=1, outcome_of_error=lambda error: never)(divide)()
    assert str(raised.value).startswith(f"retryplan: {divide.__qualname__}: ")


# 10. the deprecated alias last_exception warns, as last_result does


def test_last_exception_is_deprecated_and_warns() -> None:
    with pytest.raises(GaveUpError) as raised:
        for attempt in retryplan.attempts(Policy(max_attempts=1), seed=1):
            with attempt:
                raise ConnectionResetError()
    with pytest.warns(DeprecationWarning, match="renamed OperationFailedError.cause"):
        assert raised.value.last_exception is raised.value.cause


# a sleep of the wrong kind, and sequential_attempts where it cannot hold (found by the third review)

SYNC_HELPERS = ["retry", "attempts", "RetryTransport", "RetryAdapter"]


@pytest.mark.parametrize("helper", SYNC_HELPERS)
def test_a_sync_helper_refuses_a_coroutine_function_for_sleep(helper: str) -> None:
    """A sync helper calls its sleep without awaiting: ``asyncio.sleep`` there made a busy wait of never-awaited
    coroutines until the wake time."""
    with pytest.raises(ArgumentTypeError, match="such as time.sleep, got a coroutine function") as raised:
        _helpers_given(sleep=asyncio.sleep)[helper]()
    assert raised.value.field == "sleep"


def test_an_async_helper_refuses_a_sleep_that_returns_no_awaitable() -> None:
    """``time.sleep`` given to an async helper returned None to ``await`` (a bare TypeError mid-run); now the
    operation ends (``cancelled``) with the ArgumentTypeError naming ``sleep``."""
    slept: List[float] = []
    stats = Stats()

    def sync_sleep(seconds: float) -> None:  # returns None, as time.sleep does
        slept.append(seconds)

    @retryplan.retry(POLICY, sleep=sync_sleep, seed=1, stats=stats)
    async def flaky() -> None:
        raise ConnectionResetError

    async def loop() -> None:
        async for attempt in retryplan.async_attempts(POLICY, sleep=sync_sleep, seed=1, stats=stats):
            async with attempt:
                raise ConnectionResetError

    for call in (flaky, loop):
        with pytest.raises(
            ArgumentTypeError, match="returns an awaitable, such as asyncio.sleep, got a function that "
        ):
            asyncio.run(call())
    assert len(slept) == 2 and stats.gave_up[GiveUpReason.CANCELLED] == 2


@pytest.mark.parametrize("helper", ["retry", "AsyncRetryTransport"])
def test_a_helper_that_hedges_refuses_sequential_attempts(helper: str) -> None:
    """``sequential_attempts=True`` is the one-at-a-time helpers' opt-in: a helper that runs attempts as tasks
    ignored it and hedged all the same."""
    import retryplan.httpx

    async def call() -> None:
        pass

    make = {
        "retry": lambda: retryplan.retry(POLICY, sequential_attempts=True)(call),
        "AsyncRetryTransport": lambda: retryplan.httpx.AsyncRetryTransport(policy=POLICY, sequential_attempts=True),
    }[helper]
    with pytest.raises(ArgumentTypeError, match="one attempt at a time") as raised:
        make()
    assert raised.value.field == "sequential_attempts"
