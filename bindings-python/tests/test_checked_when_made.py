"""Every helper's options are checked when the helper is made (README: "a ``RetryAdapter``'s are its own, checked
when it is made"), never at the first request, after which a wrong option would end an operation in production; and
``@retry`` refuses what it cannot retry when it decorates."""

from typing import Any, Callable, Dict, Iterator

import pytest

import retryplan
from retryplan import ArgumentTypeError, Policy
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter

HELPERS: Dict[str, Callable[..., Any]] = {
    "RetryAdapter": lambda **options: RetryAdapter(policy=Policy(), **options),
    "RetryTransport": lambda **options: RetryTransport(policy=Policy(), **options),
    "AsyncRetryTransport": lambda **options: AsyncRetryTransport(policy=Policy(), **options),
    "retry": lambda **options: retryplan.retry(Policy(), **options),
    "retry(f)": lambda **options: retryplan.retry(Policy(), **options)(lambda: None),
    "attempts": lambda **options: retryplan.attempts(Policy(), **options),
}


@pytest.mark.parametrize("value", ["yes", 0, 1, "False"])
def test_retry_adapter_refuses_an_idempotent_that_is_not_a_bool_when_made(value: Any) -> None:
    with pytest.raises(ArgumentTypeError, match=r"`idempotent`: must be a bool or None, got") as refused:
        RetryAdapter(policy=Policy(), idempotent=value)
    assert refused.value.field == "idempotent"


def test_retry_adapter_takes_a_bool_or_none_for_idempotent() -> None:
    for value in (True, False, None):
        assert RetryAdapter(policy=Policy(), idempotent=value).idempotent is value


@pytest.mark.parametrize("helper", list(HELPERS))
def test_sequential_attempts_that_is_not_a_bool_is_refused_when_made(helper: str) -> None:
    with pytest.raises(ArgumentTypeError, match=r"`sequential_attempts`: must be a bool, got str"):
        HELPERS[helper](sequential_attempts="x")


@pytest.mark.parametrize("helper", ["RetryAdapter", "RetryTransport", "AsyncRetryTransport", "retry(f)", "attempts"])
@pytest.mark.parametrize("seed", ["s", 1.5, -1])
def test_a_seed_the_engine_cannot_take_is_refused_when_made(helper: str, seed: Any) -> None:
    with pytest.raises(retryplan.InvalidArgumentError, match=r"`seed`"):
        HELPERS[helper](seed=seed)


@pytest.mark.parametrize("helper", ["retry", "retry(f)", "attempts"])
def test_a_name_that_is_not_a_str_is_refused_when_made(helper: str) -> None:
    with pytest.raises(ArgumentTypeError, match=r"`name`: must be a str, got int"):
        HELPERS[helper](name=5)


def test_retry_checks_its_options_before_it_is_given_the_function() -> None:
    with pytest.raises(ArgumentTypeError, match=r"`stats`: must be a retryplan.Stats"):
        retryplan.retry(Policy(), stats=3)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match=r"`policy`: must be a retryplan.Policy, got str"):
        retryplan.retry("checkout")  # type: ignore[arg-type]


def test_a_bare_retry_decorator_says_how_to_write_it() -> None:
    with pytest.raises(ArgumentTypeError, match=r"write @retryplan.retry\(policy\), not a bare @retryplan.retry"):

        @retryplan.retry  # type: ignore[arg-type]
        def charge() -> None:
            pass


def test_retry_refuses_to_decorate_what_it_cannot_call() -> None:
    with pytest.raises(ArgumentTypeError, match=r"`fn`: must be a function to retry, got int") as refused:
        retryplan.retry(Policy())(5)  # type: ignore[type-var]
    assert refused.value.field == "fn"


def test_retry_refuses_a_generator_function_whose_errors_it_would_never_see() -> None:
    def rows() -> Iterator[int]:
        yield 1

    async def events() -> Any:
        yield 1

    for fn in (rows, events):
        with pytest.raises(ArgumentTypeError, match=r"`fn`: must not be a generator function .* got a generator"):
            retryplan.retry(Policy())(fn)


def test_retry_still_decorates_functions_methods_and_callable_objects() -> None:
    class Charge:
        def __call__(self) -> str:
            return "called"

        def method(self) -> str:
            return "method"

    assert retryplan.retry(Policy())(Charge())() == "called"
    assert retryplan.retry(Policy())(Charge().method)() == "method"
    assert retryplan.retry(Policy())(lambda: "lambda")() == "lambda"
