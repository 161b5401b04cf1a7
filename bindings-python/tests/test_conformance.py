"""Every conformance vector, driven through the typed Python API.

Each case builds typed objects (Policy, Outcome, Pushback) from the JSON,
calls the Python API, converts the typed answer with ``to_dict()`` (or the
plain int/str/list) and compares it with the expectation exactly (an int is
not a float, a bool is not an int). Errors compare by ``code`` and
``fields``, like ``core/tests/conformance.rs``. Operation cases run twice:
with the exact integer-ms keywords and with float seconds. Every case runs
again with each policy and dependency through its compiled form
(``Policy.to_compiled``, ``compile_dependency``), as the Rust runner's
``every_vector_passes_with_compiled_policies`` does.
"""

import json
import os
from typing import Any, Callable, Dict, List, Optional, Set

import pytest
from conftest import vector_dir

import retryplan
from retryplan import (
    CircuitBreaker,
    ConfigViolationsError,
    Dependency,
    Driver,
    IncomingContext,
    InvalidConfigError,
    Operation,
    Outcome,
    Policy,
    Pushback,
    RetryBudget,
    RetryplanError,
    Stats,
)

# Vector files this runner does not run yet (their kinds have no Python API so far): none.
NOT_YET_RUN: Set[str] = set()


def load_cases() -> List[Any]:
    cases = []
    for path in sorted(vector_dir().glob("*.json")):
        if path.name == "schema.json" or path.name in NOT_YET_RUN:
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        for case in document["cases"]:
            cases.append(pytest.param(case, id=case["id"]))
    return cases


CASES = load_cases()


def test_vectors_were_found() -> None:
    assert CASES, f"no conformance vectors found in {vector_dir()}"


def strict_equal(a: Any, b: Any) -> bool:
    """JSON equality that tells int from float and bool from int, as serde_json's Value does."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def error_value(error: RetryplanError, expected: Any) -> Dict[str, Any]:
    """The error as a vector states it; ``blame`` only when the vector states one."""
    assert error.blame == type(error).blame, (
        f"{error.code}: blame {error.blame!r}, its class says {type(error).blame!r}"
    )
    if isinstance(error, ConfigViolationsError):
        value: Dict[str, Any] = {"code": error.code, "config": error.config, "fields": list(error.fields)}
    elif isinstance(error, InvalidConfigError):
        value = {"code": error.code, "config": error.config, "fields": [error.field]}
    elif isinstance(error, retryplan.UnsupportedError):
        value = {"code": error.code, "fields": [error.field]}
    else:
        value = {"code": error.code}
    if isinstance(expected, dict) and "blame" in expected:
        value["blame"] = error.blame
    return value


def settle(holder: Dict[str, Any], call: Callable[[], Any], label: str) -> None:
    """Runs ``call`` and compares its answer (or its error) with the holder's expectation."""
    try:
        actual = ("expect", call())
    except RetryplanError as error:
        actual = ("expect_error", error_value(error, holder.get("expect_error")))
    if "expect" in holder:
        expected = ("expect", holder["expect"])
    elif "expect_error" in holder:
        expected = ("expect_error", holder["expect_error"])
    else:
        pytest.fail(f"{label}: no expectation")
    assert actual[0] == expected[0] and strict_equal(actual[1], expected[1]), (
        f"{label}: expected {expected[0]} {json.dumps(expected[1])}, got {actual[0]} {json.dumps(actual[1])}"
    )


def service_config_of(case: Dict[str, Any]) -> "retryplan.ServiceConfig":
    if "max_attempts_cap" in case:
        return retryplan.ServiceConfig(case["grpc_service_config"], max_attempts_cap=case["max_attempts_cap"])
    return retryplan.ServiceConfig(case["grpc_service_config"])


#: While the compiled pass runs: how many policies and dependencies went through their compiled form.
COMPILED: Optional[Dict[str, int]] = None


def policy_of(case: Dict[str, Any]) -> Policy:
    policy = plain_policy_of(case)
    if COMPILED is None:
        return policy
    COMPILED["policies"] += 1
    return Policy.from_compiled(policy.to_compiled())


def plain_policy_of(case: Dict[str, Any]) -> Policy:
    if "grpc_service_config" in case:
        method = case["grpc_method"]
        found = service_config_of(case).profile_for(method["service"], method["method"])
        assert found is not None, f"{case['id']}: no profile for {method}"
        return found
    has_profile, has_policy = "profile" in case, "policy" in case
    assert has_profile != has_policy, "a case needs exactly one of `profile` and `policy`"
    if has_profile:
        return Policy.from_profile(case["profile"])
    return Policy.from_dict(case["policy"])


def dependency_from(config: Any) -> Dependency:
    """A dependency from its configuration, or (in the compiled pass) from the configuration's compiled form."""
    if COMPILED is None:
        return Dependency(config)
    form = retryplan.compile_dependency(config)
    COMPILED["dependencies"] += 1
    return Dependency.from_compiled(form)


def outcome_of(value: Dict[str, Any]) -> Outcome:
    """The typed Outcome for a JSON outcome, through the public constructors."""
    kind = value["type"]
    if kind == "success":
        return Outcome.success()
    if kind == "http_status":
        return Outcome.http_status(value["status"], value.get("retry_after_ms"), value.get("error_code"))
    if kind == "grpc_status":
        pushback: Optional[Pushback] = None
        raw = value.get("pushback")
        if raw == "do_not_retry":
            pushback = Pushback.do_not_retry()
        elif raw is not None:
            pushback = Pushback.retry_after(raw["retry_after_ms"])
        return Outcome.grpc_status(value["code"], pushback)
    if kind == "transport":
        return Outcome.transport(value["failure"], value.get("retry_after_ms"))
    if kind == "application":
        return Outcome.application(value["verdict"])
    if kind == "cancelled":
        return Outcome.cancelled()
    raise AssertionError(f"unknown outcome type {kind!r}")


def seconds(ms: int) -> float:
    return ms / 1000.0


def dependency_of(case: Dict[str, Any]) -> Optional[Dependency]:
    """The case's dependency: its configuration, an AWS standard one by name, or the service config's throttling."""
    if case.get("dependency") == "aws_standard":
        return retryplan.aws_standard_dependency()
    if case.get("dependency") == "aws_standard_2026":
        return retryplan.aws_standard_2026_dependency()
    if "dependency" in case:
        return dependency_from(case["dependency"])
    if "grpc_service_config" in case:
        return service_config_of(case).throttling_dependency()
    return None


def run_operation(case: Dict[str, Any], in_seconds: bool, dependency: Optional[Dependency] = None) -> None:
    policy = policy_of(case)
    kwargs: Dict[str, Any] = {"seed": case["seed"]}
    if "idempotency_key" in case:
        kwargs["idempotency_key"] = case["idempotency_key"]
    if case.get("deadline_ms") is not None:
        if in_seconds:
            kwargs["deadline"] = seconds(case["deadline_ms"])
        else:
            kwargs["deadline_ms"] = case["deadline_ms"]
    if dependency is None:
        dependency = dependency_of(case)
    if dependency is not None:
        kwargs["dependency"] = dependency
    if in_seconds:
        operation = Operation(policy, seconds(case["start_ms"]), **kwargs)
    else:
        operation = Operation(policy, now_ms=case["start_ms"], **kwargs)
    if "expect_idempotency_key" in case:
        assert operation.idempotency_key == case["expect_idempotency_key"]
    for index, step in enumerate(case["steps"]):
        at = {"now": seconds(step["at_ms"])} if in_seconds else {"now_ms": step["at_ms"]}
        call = step["call"]
        if call == "poll":
            answer = lambda: operation.poll(**at).to_dict()  # noqa: E731
        elif call == "cancel":
            answer = lambda: operation.cancel(**at).to_dict()  # noqa: E731
        elif call == "dependency_snapshot":
            assert dependency is not None, "dependency_snapshot needs a dependency"
            answer = lambda: dependency.snapshot(**at)  # noqa: E731
        elif call == "budget_on_failure":
            assert dependency is not None and dependency.budget is not None, "budget_on_failure needs a budget"
            answer = lambda: dependency.budget.on_failure(**at)  # noqa: E731
        elif call == "outcome":
            outcome = outcome_of(step["outcome"])
            answer = lambda: operation.on_outcome(  # noqa: E731
                attempt=step["attempt"], outcome=outcome, **at
            ).to_dict()
        else:
            raise AssertionError(f"unknown call {call!r}")
        unit = "seconds" if in_seconds else "ms"
        settle(step, answer, f"{case['id']} step {index} ({unit})")


def exact_in_seconds(case: Dict[str, Any]) -> bool:
    """Whether every time in an operation case survives ms -> float seconds -> ms."""
    times = [case["start_ms"], case.get("deadline_ms") or 0] + [step["at_ms"] for step in case["steps"]]
    return max(times) < 2**40


def kind_operation(case: Dict[str, Any]) -> None:
    run_operation(case, in_seconds=False)
    if exact_in_seconds(case):
        run_operation(case, in_seconds=True)


def hand_in(driver: Driver, step: Dict[str, Any], at: Dict[str, Any]) -> Any:
    """Hands a driver step's result in, with its token when it has one: a raw response (its status as
    written, any int, and whether the client followed a redirect to get it) read by the core as every HTTP
    helper hands one in, else an outcome as written or a failure by name."""
    token = step.get("token")
    if "response" in step:
        response = step["response"]
        headers = {name.lower(): value for name, value in response["headers"].items()}  # looked up by lower-case name
        now_unix_ms = step.get("now_unix_ms", 0)
        return lambda: driver.handle_response(  # noqa: E731
            attempt=step["attempt"], status=response["status"], headers=headers, now_unix_ms=now_unix_ms, token=token,
            redirected=step.get("redirected", False), **at,
        )  # fmt: skip
    outcome = outcome_of(step["outcome"]) if "outcome" in step else Outcome.failure(step["failure"])
    held = {"held": step["held"]} if "held" in step else {}
    return lambda: driver.handle_result(attempt=step["attempt"], outcome=outcome, token=token, **held, **at)  # noqa: E731


def typed_action(action: Any) -> Any:
    """An action's JSON shape, checked against its typed fields (a release's token, an ending's result)."""
    shape = action.to_dict()
    if isinstance(action, retryplan.Release):
        assert action.token == shape["token"]
    if isinstance(action, retryplan.Ending):
        result = action.result
        typed = None if result is None else {"token": result.token, "returned": result.returned}
        if result is not None and result.readable_until_ms is not None:
            typed["readable_until_ms"] = result.readable_until_ms
        assert typed == shape.get("result"), f"Ending.result {typed} against {shape.get('result')}"
    return shape


def run_driver(case: Dict[str, Any], in_seconds: bool) -> None:
    stats = Stats()
    kwargs: Dict[str, Any] = {"seed": case["seed"], "stats": stats, "record_events": True}
    for key in (
        "idempotency_key",
        "method",
        "request_idempotency_key",
        "concurrency",
        "returns_responses",
        "one_shot_body",
    ):
        if key in case:
            kwargs[key] = case[key]
    if "idempotent_request" in case:
        kwargs["idempotent"] = case["idempotent_request"]
    if case.get("deadline_ms") is not None:
        kwargs["deadline" if in_seconds else "deadline_ms"] = (
            seconds(case["deadline_ms"]) if in_seconds else case["deadline_ms"]
        )
    if "dependency" in case:
        kwargs["dependency"] = dependency_from(case["dependency"])
    start = {"now": seconds(case["start_ms"])} if in_seconds else {"now_ms": case["start_ms"]}
    policy = policy_of(case)

    def create() -> Driver:
        if "incoming_headers" in case:  # a propagated_driver case: the request it serves, read at its start
            kwargs["incoming"] = IncomingContext.read(policy, lowered(case["incoming_headers"]), **start)
        return Driver(policy, **start, **kwargs)

    if "expect_error" in case:
        settle(case, create, case["id"])
        return
    driver = create()
    if "expect_idempotency_key" in case:
        assert driver.idempotency_key == case["expect_idempotency_key"], f"{case['id']}: idempotency key"
    for index, step in enumerate(case["steps"]):
        at = {"now": seconds(step["at_ms"])} if in_seconds else {"now_ms": step["at_ms"]}
        call = step["call"]
        if call == "poll":
            answer = lambda: typed_action(driver.poll_action(**at))  # noqa: E731
        elif call == "result":
            answer = hand_in(driver, step, at)
        elif call == "cancel":
            answer = lambda: driver.handle_cancel(**at)  # noqa: E731
        elif call == "timer_ended":
            answer = lambda: driver.handle_timer_end(**at)  # noqa: E731
        elif call == "events":
            answer = lambda: [event.to_dict() for event in iter(driver.poll_event, None)]  # noqa: E731
        elif call == "stats":
            answer = lambda: stats.to_dict()  # noqa: E731
        elif call == "outgoing_headers":
            answer = lambda: driver.outgoing_headers(step["attempt"], protocol=step["protocol"], **at)  # noqa: E731
        elif call == "answer_headers":
            answer = lambda: driver.answer_headers(step["protocol"])  # noqa: E731
        else:
            raise AssertionError(f"{case['id']}: unknown driver call {call!r}")
        unit = "seconds" if in_seconds else "ms"
        settle(step, answer, f"{case['id']} step {index} ({unit})")


def kind_driver(case: Dict[str, Any]) -> None:
    run_driver(case, in_seconds=False)
    if "steps" not in case or exact_in_seconds(case):
        run_driver(case, in_seconds=True)


def lowered(headers: Dict[str, str]) -> Dict[str, str]:
    """A vector's headers by lower-case name, as a server's lookup finds them."""
    return {name.lower(): value for name, value in headers.items()}


def kind_incoming_context(case: Dict[str, Any]) -> None:
    policy, headers = policy_of(case), lowered(case["headers"])

    def answer() -> Any:
        context = IncomingContext.read(policy, headers, now_ms=case["now_ms"])
        remaining = context.caller_remaining_ns
        typed = {
            "caller_remaining_ns": None if remaining is None else str(remaining),
            "deadline_header": context.deadline_header,
            "deadline_ms": context.deadline_ms(policy),
            "previous_attempts": context.previous_attempts,
            "idempotency_key": context.idempotency_key,
            "caller_retries": context.caller_retries,
        }
        shape = context.to_dict()
        assert shape.pop("received_at_ms") == case["now_ms"], f"{case['id']}: received_at_ms"
        assert {
            **shape,
            "caller_remaining_ns": typed["caller_remaining_ns"],
            "deadline_ms": typed["deadline_ms"],
        } == typed
        return typed

    try:
        settle(case, answer, case["id"])
    finally:
        try:
            IncomingContext.read(policy, headers, now_ms=case["now_ms"])
        except retryplan.InvalidRequestHeaderError as refused:  # it names one of the case's headers
            assert refused.header in headers, f"{case['id']}: refused {refused.header}, not a header of the case"
        except RetryplanError:
            pass


def kind_operation_series(case: Dict[str, Any]) -> None:
    dependency = dependency_of(case)
    for index, operation in enumerate(case["operations"]):
        single = {**case, **operation, "id": f"{case['id']} operation {index}"}
        run_operation(single, in_seconds=False, dependency=dependency)


def kind_grpc_service_config(case: Dict[str, Any]) -> None:
    def answer() -> Any:
        config = service_config_of(case)
        dependency = config.throttling_dependency()
        lookups = []
        for lookup in case.get("lookups", []):
            found = config.method_for(lookup["service"], lookup["method"])
            lookups.append(None if found is None else found["name"])
        return {
            "methods": [{"name": m["name"], "policy": m["policy"].to_dict()} for m in config.methods],
            "throttling": None if dependency is None else dependency.snapshot(now_ms=0),
            "warnings": config.warnings,
            "lookups": lookups,
        }

    settle(case, answer, case["id"])


def kind_grpc_timeout_ns_encode(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.encode_grpc_timeout_ns(int(case["timeout_ns"])), case["id"])


def kind_grpc_timeout_ns_parse(case: Dict[str, Any]) -> None:
    settle(case, lambda: str(retryplan.parse_grpc_timeout_ns(case["value"])), case["id"])


def kind_aws_error_code(case: Dict[str, Any]) -> None:
    settle(
        case,
        lambda: retryplan.aws_error_code_from_response(case.get("errortype_header"), case.get("body")),
        case["id"],
    )


def kind_request_name(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.request_name(case["method"], case["url"]), case["id"])


def kind_urllib3_retry(case: Dict[str, Any]) -> None:
    """``from_urllib3`` on a ``Retry()`` with each attribute of the case set (the strings ``inf``/``-inf``/``nan`` of
    a number of seconds are that float; ``RETRY_AFTER_STATUS_CODES`` on a subclass, where urllib3 reads it); a
    refusal is compared by the core error it chains."""
    from urllib3.util.retry import Retry

    from retryplan.compat import RetryNotMappable, from_urllib3

    def answer() -> Any:
        attributes = dict(case["retry"])
        if "RETRY_AFTER_STATUS_CODES" in attributes:  # a class attribute: urllib3 reads a subclass's on every response
            codes = attributes.pop("RETRY_AFTER_STATUS_CODES")
            retry = type("Retry", (Retry,), {"RETRY_AFTER_STATUS_CODES": codes})()
        else:
            retry = Retry()
        for name, value in attributes.items():
            seconds = name in ("backoff_factor", "backoff_max", "backoff_jitter", "retry_after_max")
            setattr(retry, name, float(value) if seconds and value in ("inf", "-inf", "nan") else value)
        try:
            return from_urllib3(retry, total_timeout_ms=case.get("total_timeout_ms")).to_dict()
        except (RetryNotMappable, TypeError) as error:
            assert isinstance(error.__cause__, RetryplanError), f"{error!r} chains no core error"
            if isinstance(error, RetryNotMappable):
                assert error.attribute == error.__cause__.fields[0], (error.attribute, error.__cause__.fields)
            raise error.__cause__ from None

    settle(case, answer, case["id"])


def kind_budget(case: Dict[str, Any]) -> None:
    try:
        budget = RetryBudget(case["budget"])
    except RetryplanError:
        settle(case, lambda: RetryBudget(case["budget"]), case["id"])
        return
    charges: List[Any] = []
    for index, step in enumerate(case["steps"]):
        at = step["at_ms"]
        call = step["call"]
        granted: List[Any] = [None]
        if call == "on_request":
            answer = lambda: budget.on_request(now_ms=at)  # noqa: E731
        elif call == "try_retry":

            def answer() -> Any:
                granted[0] = budget.try_retry(now_ms=at, after_timeout=step.get("after_timeout", False))
                return {"granted": False} if granted[0] is None else {"granted": True, "cost": granted[0].cost}
        elif call in ("on_success", "on_failure"):
            charge = charges[step["charge_step"]] if "charge_step" in step else None
            assert "charge_step" not in step or charge is not None, f"{case['id']} step {index}: no charge"
            answer = lambda: getattr(budget, call)(now_ms=at, charge=charge)  # noqa: E731
        elif call == "snapshot":
            answer = lambda: budget.snapshot(now_ms=at)  # noqa: E731
        elif call == "acquire":
            answer = lambda: {"granted": budget.acquire(step["amount"])}  # noqa: E731
        elif call == "release":
            answer = lambda: budget.release(step["amount"])  # noqa: E731
        else:
            raise AssertionError(f"{case['id']}: unknown budget call {call!r}")
        settle(step, answer, f"{case['id']} step {index}")
        charges.append(granted[0])


def kind_breaker(case: Dict[str, Any]) -> None:
    try:
        breaker = CircuitBreaker(case["breaker"])
    except RetryplanError:
        settle(case, lambda: CircuitBreaker(case["breaker"]), case["id"])
        return
    permits: List[Any] = []
    for index, step in enumerate(case["steps"]):
        at = step["at_ms"]
        call = step["call"]
        granted: List[Any] = [None]
        if call == "try_acquire":

            def answer() -> Any:
                granted[0] = breaker.try_acquire(now_ms=at)
                return {"granted": False} if granted[0] is None else {"granted": True, "probe": granted[0].probe}
        elif call in ("on_success", "on_failure", "release"):
            permit = permits[step["permit_step"]]
            assert permit is not None, f"{case['id']} step {index}: no permit at step {step['permit_step']}"
            if call == "release":
                answer = lambda: breaker.release(permit)  # noqa: E731
            else:
                answer = lambda: getattr(breaker, call)(now_ms=at, permit=permit)  # noqa: E731
        elif call == "snapshot":
            answer = lambda: breaker.snapshot(now_ms=at)  # noqa: E731
        else:
            raise AssertionError(f"{case['id']}: unknown breaker call {call!r}")
        settle(step, answer, f"{case['id']} step {index}")
        permits.append(granted[0])


def kind_dependency(case: Dict[str, Any]) -> None:
    settle(case, lambda: dependency_from(case["dependency"]).snapshot(now_ms=0), case["id"])


def kind_redelivery(case: Dict[str, Any]) -> None:
    settle(
        case,
        lambda: retryplan.redeliver(
            policy_of(case),
            case["attempts"],
            outcome_of(case["outcome"]),
            first_seen_ms=case["first_seen_ms"],
            now_ms=case["now_ms"],
        ).to_dict(),
        case["id"],
    )


def kind_http_outcome(case: Dict[str, Any]) -> None:
    settle(
        case,
        lambda: Outcome.from_http(
            case["status"], case.get("retry_after"), case.get("retry_after_ms"), now_unix_ms=case["now_unix_ms"]
        ).to_dict(),
        case["id"],
    )


def kind_policy(case: Dict[str, Any]) -> None:
    settle(case, lambda: policy_of(case).to_dict(), case["id"])


def kind_backoff_ceilings(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.backoff_ceilings_ms(policy_of(case), case["retries"]), case["id"])


def kind_classify(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.classify(policy_of(case), outcome_of(case["outcome"])).to_dict(), case["id"])


def kind_explain(case: Dict[str, Any]) -> None:
    settle(
        case,
        lambda: retryplan.explain(
            policy_of(case), case.get("deadline_ms"), first_attempt_at_ms=case.get("first_attempt_at_ms", 0)
        ).to_dict(),
        case["id"],
    )


def kind_retry_after(case: Dict[str, Any]) -> None:
    reading = case.get("reading", "strict")
    settle(
        case,
        lambda: retryplan.parse_retry_after(case["value"], now_unix_ms=case["now_unix_ms"], reading=reading),
        case["id"],
    )


def kind_http_date(case: Dict[str, Any]) -> None:
    reading = case.get("reading", "strict")
    settle(
        case,
        lambda: retryplan.parse_http_date(case["value"], now_unix_ms=case["now_unix_ms"], reading=reading),
        case["id"],
    )


def kind_rate_limit(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.parse_rate_limit(case["value"], case.get("policy_value")), case["id"])


def kind_rate_limit_reset(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.parse_rate_limit_reset(case["value"], now_unix_ms=case["now_unix_ms"]), case["id"])


def kind_http_response(case: Dict[str, Any]) -> None:
    headers = {name.lower(): value for name, value in case["headers"].items()}  # looked up by lower-case name
    # Only what the case gives: a reading and a policy together are refused.
    given: Dict[str, Any] = {"reading": case["reading"]} if "reading" in case else {}
    if "policy" in case:
        given["policy"] = policy_of(case)
    read = lambda: Outcome.from_http_response(  # noqa: E731
        case["status"], headers, now_unix_ms=case["now_unix_ms"], **given
    ).to_dict()
    settle(case, read, case["id"])


def kind_retry_after_ms(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.parse_retry_after_ms_header(case["value"]), case["id"])


def kind_grpc_pushback(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.parse_grpc_pushback(case["value"]).to_json_value(), case["id"])


def kind_grpc_timeout_encode(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.encode_grpc_timeout(case["timeout_ms"]), case["id"])


def kind_grpc_timeout_parse(case: Dict[str, Any]) -> None:
    settle(case, lambda: retryplan.parse_grpc_timeout(case["value"]), case["id"])


def kind_admit(case: Dict[str, Any]) -> None:
    settle(
        case,
        lambda: retryplan.admit(
            deadline_ms=case["deadline_ms"],
            now_ms=case["now_ms"],
            reserve_ms=case["reserve_ms"],
            minimum_useful_ms=case["minimum_useful_ms"],
        ).to_dict(),
        case["id"],
    )


RUNNERS: Dict[str, Callable[[Dict[str, Any]], None]] = {
    "operation": kind_operation,
    "driver": kind_driver,
    "propagated_driver": kind_driver,
    "incoming_context": kind_incoming_context,
    "budget": kind_budget,
    "breaker": kind_breaker,
    "dependency": kind_dependency,
    "redelivery": kind_redelivery,
    "http_outcome": kind_http_outcome,
    "policy": kind_policy,
    "backoff_ceilings": kind_backoff_ceilings,
    "classify": kind_classify,
    "explain": kind_explain,
    "retry_after": kind_retry_after,
    "http_date": kind_http_date,
    "retry_after_ms": kind_retry_after_ms,
    "rate_limit": kind_rate_limit,
    "rate_limit_reset": kind_rate_limit_reset,
    "http_response": kind_http_response,
    "grpc_pushback": kind_grpc_pushback,
    "grpc_timeout_encode": kind_grpc_timeout_encode,
    "grpc_timeout_parse": kind_grpc_timeout_parse,
    "admit": kind_admit,
    "operation_series": kind_operation_series,
    "grpc_service_config": kind_grpc_service_config,
    "grpc_timeout_ns_encode": kind_grpc_timeout_ns_encode,
    "grpc_timeout_ns_parse": kind_grpc_timeout_ns_parse,
    "aws_error_code": kind_aws_error_code,
    "request_name": kind_request_name,
    "urllib3_retry": kind_urllib3_retry,
}


@pytest.mark.parametrize("case", CASES)
def test_vector(case: Dict[str, Any]) -> None:
    runner = RUNNERS.get(case["kind"])
    assert runner is not None, f"{case['id']}: unknown kind {case['kind']!r}"
    runner(case)


def test_every_vector_passes_with_compiled_policies() -> None:
    """Every case again, each policy read back from its compiled form and each dependency built from its
    own: a compiled policy decides exactly as its JSON does."""
    global COMPILED
    COMPILED = {"policies": 0, "dependencies": 0}
    failures = []
    try:
        for param in CASES:
            (case,) = param.values
            try:
                RUNNERS[case["kind"]](case)
            except Exception as error:  # every case's failure listed, not the first one's alone
                failures.append(f"{case['id']}: {type(error).__name__}: {error}")
        counts = COMPILED
    finally:
        COMPILED = None
    assert not failures, f"{len(failures)} cases failed with compiled policies:\n" + "\n".join(failures)
    # The repository's vectors hold this many (another RETRYPLAN_VECTORS directory holds what it holds).
    if "RETRYPLAN_VECTORS" not in os.environ:
        assert counts["policies"] >= 300, counts
        assert counts["dependencies"] >= 30, counts
