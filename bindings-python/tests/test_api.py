"""The engine surface: types, conversions and typed errors for bad input."""

import json
import math
import pickle

import pytest

import retryplan
from retryplan import (
    ArgumentTypeError,
    AttemptNotRunningError,
    ConfigViolationsError,
    Decision,
    GiveUpReason,
    InvalidArgumentError,
    InvalidConfigError,
    InvalidHeaderError,
    Operation,
    OperationEndedError,
    Outcome,
    Policy,
    Pushback,
    RetryplanError,
    Stats,
    UnknownProfileError,
)
from retryplan._run import Config  # `retryplan._run` loads on first use: a test of it imports it itself

NO_JITTER = {"jitter": {"kind": "none"}}


def started(**kwargs: object) -> Operation:
    op = Operation(Policy(**NO_JITTER), now_ms=0, seed=7, **kwargs)  # type: ignore[arg-type]
    op.poll(now_ms=0)
    return op


def test_enums_match_the_engine() -> None:
    assert tuple(r.value for r in GiveUpReason) == retryplan.GIVE_UP_REASONS
    assert tuple(c.value for c in retryplan.GrpcCode) == retryplan.GRPC_CODES
    for failure in retryplan.TransportFailure:
        assert Outcome.transport(failure).to_dict() == {"type": "transport", "failure": failure.value}
    for verdict in retryplan.Verdict:
        assert Outcome.application(verdict).to_dict()["verdict"] == verdict.value
    for idempotency in retryplan.Idempotency:
        assert Policy(idempotency=idempotency.value).idempotency == idempotency


def test_decision_classes_are_frozen_matchable_and_exact() -> None:
    op = Operation(Policy(**NO_JITTER), 0.0, seed=7)
    start = op.poll(0.0)
    assert isinstance(start, retryplan.StartAttempt) and isinstance(start, Decision)
    assert start.kind == "start_attempt" and not start.is_final
    with pytest.raises(AttributeError):
        start.attempt = 5  # type: ignore[misc]
    wait = op.on_outcome(0.12, start.attempt, Outcome.http_status(503))
    assert retryplan.Wait.__match_args__ == ("retry", "delay_ms", "until_ms", "retry_after_ms", "remaining_ms")
    assert (wait.retry, wait.delay_ms, wait.until_ms, wait.retry_after_ms) == (0, 100, 220, None)
    assert wait == Decision.from_dict(wait.to_dict()) and hash(wait) == hash(Decision.from_dict(wait.to_dict()))
    assert op.poll(0.15) == Decision.from_dict({**wait.to_dict(), "delay_ms": 70, "remaining_ms": 9800})
    second = op.poll(0.22)
    assert op.poll(0.3).to_dict() == {"type": "await_outcome", "running": 1, "until_ms": second.abort_at_ms}
    done = op.on_outcome(0.3, second.attempt, Outcome.success())
    assert type(done) is retryplan.Succeeded and done.is_final and done.attempts == 2
    assert op.next_wakeup_ms() is None and op.is_ended


def test_a_decisions_renamed_fields_keep_their_old_names_for_one_release() -> None:
    """One name per concept (issue 28): the old attribute names warn; the old dict keys are read as the new."""
    wait = Decision.from_dict(
        {"type": "wait", "retry": 0, "delay_ms": 5, "until_ms": 9, "server_delay_ms": 4, "remaining_ms": 7}
    )
    assert (
        wait.retry_after_ms == 4 and wait.to_dict()["retry_after_ms"] == 4 and "server_delay_ms" not in wait.to_dict()
    )
    awaiting = Decision.from_dict({"type": "await_outcome", "in_flight": 2, "until_ms": 9})
    assert awaiting == Decision.from_dict({"type": "await_outcome", "running": 2, "until_ms": 9})
    with pytest.warns(DeprecationWarning, match="renamed Wait.retry_after_ms"):
        assert wait.server_delay_ms == 4
    with pytest.warns(DeprecationWarning, match="renamed AwaitOutcome.running"):
        assert awaiting.in_flight == 2
    with pytest.warns(DeprecationWarning):
        assert awaiting.server_delay_ms is None


def test_every_kind_of_decision_reads_back_from_its_dict() -> None:
    """``from_dict`` is the core's one reader of a decision: what ``to_dict`` writes reads back as itself."""
    hedged = Policy(**NO_JITTER, idempotency="idempotent", hedging={"delay_ms": 10, "max_hedged_attempts": 1})
    op = Operation(hedged, now_ms=0, seed=7)
    decisions = [op.poll(now_ms=0), op.poll(now_ms=5), op.poll(now_ms=10)]
    decisions.append(op.on_outcome(attempt=2, outcome=Outcome.success(), now_ms=20))
    decisions.append(started().on_outcome(attempt=1, outcome=Outcome.http_status(503), now_ms=1))
    conflict = Outcome.application(retryplan.Verdict.CONFLICT)
    decisions.append(started().on_outcome(attempt=1, outcome=conflict, now_ms=1))
    decisions.append(started().cancel(now_ms=1))
    decisions.append(Decision.from_dict({"type": "reconcile", "attempts": 1, "remaining_ms": 5}))
    assert [d.kind for d in decisions] == [
        "start_attempt",
        "await_outcome",
        "start_attempt",
        "succeeded",
        "wait",
        "restart",
        "gave_up",
        "reconcile",
    ]
    assert decisions[3].abort_attempts == (1,)
    for decision in decisions:
        assert Decision.from_dict(decision.to_dict()) == decision
        assert Decision.from_dict(json.loads(json.dumps(decision.to_dict()))) == decision


START = {"type": "start_attempt", "attempt": 1, "timeout_ms": 5, "abort_at_ms": 5, "remaining_ms": 9, "hedge": False}


@pytest.mark.parametrize(
    "fields, field, rule",
    [
        (
            {**START, "request_id": "xyz"},
            "request_id",
            'expected a request id of 16 hex digits, found the string "xyz"',
        ),
        (START, "request_id", "missing field `request_id`"),
        (
            {**START, "request_id": "0123456789abcdef", "hedge": 0},
            "hedge",
            "expected true or false, found the number 0",
        ),
        ({"type": "await_outcome", "running": -1, "until_ms": 9}, "running", "expected a whole number from 0 to"),
        ({"type": "await_outcome", "running": 1, "until_ms": 2.5}, "until_ms", "a whole number of milliseconds"),
        ({"type": "await_outcome", "running": 1, "in_flight": 1, "until_ms": 9}, "in_flight", "keep `running` only"),
        ({"type": "waiting"}, "type", "unknown variant `waiting`, expected one of `start_attempt`, `wait`"),
        ({"running": 1}, "type", "missing field `type`"),
        ({"type": "gave_up", "reason": "bored", "attempts": 1, "remaining_ms": 0}, "reason", "unknown variant `bored`"),
        (
            {"type": "reconcile", "attempts": 1, "remaining_ms": 0, "abort_attempts": [0]},
            "abort_attempts",
            "abort_attempts[0] (0) must be a whole number in 1..=128",
        ),
        (
            {"type": "reconcile", "attempts": 1, "remaining_ms": 0, "abort_attempts": 1},
            "abort_attempts",
            "expected a list, found the number 1",
        ),
        (
            {"type": "reconcile", "attempts": 1, "remaining_ms": 0, "winner": 1},
            "decision",
            "unknown field `winner`, expected one of `type`, `attempts`, `remaining_ms`, `abort_attempts`",
        ),
    ],
)
def test_a_bad_decision_dict_is_refused_naming_its_field_and_rule(fields: dict, field: str, rule: str) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        Decision.from_dict(fields)
    assert raised.value.code == "invalid_argument" and raised.value.field == field, str(raised.value)
    assert rule in str(raised.value) and isinstance(raised.value, ValueError)


def test_seconds_convert_to_whole_milliseconds_exactly() -> None:
    policy = Policy()
    for ms in (0, 1, 1005, 123_456_789, 2**40, 2**52 - 1, 4_503_599_627_370_000, 4_499_999_999_999_999):
        assert Operation(policy, ms / 1000.0, seed=1).started_at_ms == ms  # every ms below 2^52, as the README says
    assert Operation(policy, 0.0019999, seed=1).started_at_ms == 1  # floor
    assert Operation(policy, 5, seed=1).started_at_ms == 5000  # an int is seconds too


@pytest.mark.parametrize(
    "value, fragment",
    [
        (math.nan, "nan"),
        (math.inf, "finite"),
        (-math.inf, "finite"),
        (-0.5, ">= 0"),
        (1e16, "at most"),
        (2**80, "at most"),
    ],
)
def test_bad_clock_values_are_typed_errors_naming_the_argument(value: float, fragment: str) -> None:
    with pytest.raises(InvalidArgumentError) as raised:
        Operation(Policy(), value, seed=1)
    assert raised.value.code == "invalid_argument" and raised.value.field == "now" and fragment in str(raised.value)
    op = started()
    with pytest.raises(InvalidArgumentError, match="deadline"):
        Operation(Policy(), 0.0, seed=1, deadline=value)
    with pytest.raises(InvalidArgumentError) as raised:
        op.poll(value)
    assert raised.value.field == "now"


def test_a_clock_reading_past_the_range_says_the_limit_in_seconds() -> None:
    # It said "at most 9007199254740991 ms (2^53 - 1) as seconds, got 9007199254740991": the number it refused
    # read as the limit (seconds and milliseconds mixed), and 1e300 printed with 301 digits.
    limit = "must be at most 9007199254740.991 seconds (2^53 - 1 ms)"
    Operation(Policy(), 9007199254740.991, seed=1)  # the limit itself is a reading
    for value, got in [(9007199254740991, "9007199254740991"), (9007199254741.0, "9007199254741"), (1e300, "1e300")]:
        with pytest.raises(InvalidArgumentError) as raised:
            Operation(Policy(), value, seed=1)
        assert str(raised.value) == f"invalid argument `now`: {limit}, got {got}"


@pytest.mark.parametrize("value", ["1.0", b"1", None, True, [1], object()])
def test_wrong_types_are_argument_type_errors(value: object) -> None:
    op = started()
    with pytest.raises((ArgumentTypeError, InvalidArgumentError)) as raised:
        op.poll(value)  # type: ignore[arg-type]
    assert raised.value.code == "invalid_argument" and raised.value.field == "now"
    if value is not None:
        assert isinstance(raised.value, TypeError)


def test_integer_arguments_reject_negative_huge_and_wrong_types() -> None:
    op = started()
    for bad in (-1, 2**32, 2**64):
        with pytest.raises(InvalidArgumentError, match="attempt"):
            op.on_outcome(0.1, bad, Outcome.success())
    with pytest.raises(ArgumentTypeError):
        op.on_outcome(0.1, 1.0, Outcome.success())  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="outcome"):
        op.on_outcome(0.1, 1, {"type": "success"})  # type: ignore[arg-type]
    for bad_ms in (-1, 2**64, 1.5, "5"):
        with pytest.raises(InvalidArgumentError):
            op.poll(now_ms=bad_ms)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgumentError, match="not both"):
        op.poll(1.0, now_ms=1000)
    with pytest.raises(InvalidArgumentError, match="required"):
        op.poll()
    with pytest.raises(InvalidArgumentError, match="status"):
        Outcome.http_status(70_000)
    with pytest.raises(InvalidArgumentError, match="seed"):
        Operation(Policy(), 0.0, seed=-1)
    with pytest.raises(ArgumentTypeError, match="policy"):
        Operation({"max_attempts": 3}, 0.0)  # type: ignore[arg-type]


def test_misuse_of_the_operation_is_a_typed_error_and_changes_nothing() -> None:
    op = started()
    with pytest.raises(AttemptNotRunningError) as raised:
        op.on_outcome(0.1, 2, Outcome.success())
    assert (raised.value.attempt, raised.value.running, raised.value.code) == (2, [1], "attempt_not_running")
    assert raised.value.blame == "caller"
    with pytest.raises(InvalidArgumentError, match="status"):
        op.on_outcome(0.1, 1, Outcome.http_status(42))
    assert op.poll(0.1).kind == "await_outcome"
    op.cancel(0.2)
    with pytest.raises(OperationEndedError) as ended:
        op.cancel(0.3)
    assert ended.value.code == "operation_ended" and isinstance(ended.value, RuntimeError)


def test_unknown_enum_names_are_invalid_arguments() -> None:
    with pytest.raises(InvalidArgumentError, match="failure"):
        Outcome.transport("exploded")
    with pytest.raises(InvalidArgumentError, match="verdict"):
        Outcome.application("maybe")
    with pytest.raises(InvalidArgumentError, match="code"):
        Outcome.grpc_status(17)
    assert (
        Outcome.grpc_status(14)
        == Outcome.grpc_status("unavailable")
        == Outcome.grpc_status(retryplan.GrpcCode.UNAVAILABLE)
    )
    with pytest.raises(ArgumentTypeError, match="pushback"):
        Outcome.grpc_status("unavailable", 100)  # type: ignore[arg-type]


def test_policy_errors_name_every_field() -> None:
    with pytest.raises(ConfigViolationsError) as raised:
        Policy(max_attempts=0, backoff={"base_ms": 200, "cap_ms": 100}, jitter={"kind": "proportional", "ratio": 2.0})
    assert raised.value.fields == ("max_attempts", "backoff.cap_ms", "jitter.ratio")
    assert raised.value.violations[1].message == "backoff.cap_ms (100) must be >= backoff.base_ms (200)"
    assert isinstance(raised.value, ValueError) and raised.value.code == "config_violations"
    assert raised.value.config == "policy"


@pytest.mark.parametrize(
    "config, field",
    [
        ({"max_attemps": 3}, "max_attemps"),
        ({"total_timeout_ms": 800.5}, "total_timeout_ms"),
        ({"total_timeout_ms": -1}, "total_timeout_ms"),
        ({"total_timeout_ms": 2**64}, "total_timeout_ms"),
        ({"backoff": {"kind": "fibonacci"}}, "backoff.kind"),
        ({"idempotency": True}, "idempotency"),
        ({"retry_on": {"http_statuses": [503, "504"]}}, "retry_on.http_statuses[1]"),
        ({"total_timeout_ms": {1, 2}}, "total_timeout_ms"),  # a set is not plain data: the field is named
    ],
)
def test_unreadable_policies_name_the_field(config: dict, field: str) -> None:
    with pytest.raises(InvalidConfigError) as raised:
        Policy.from_dict(config)
    assert raised.value.field == field and raised.value.code == "invalid_config"


def test_a_number_beyond_a_float_in_json_text_names_its_field() -> None:
    """The JSON parser refuses 1e400 before any reader sees it; the error still names the field, as
    ``from_dict`` with ``float("inf")`` there does and as JS does."""
    with pytest.raises(InvalidConfigError) as text:
        Policy.from_json('{"retry_on": {"http_statuses": [503, 1e400]}}')
    with pytest.raises(InvalidConfigError) as data:
        Policy.from_dict({"retry_on": {"http_statuses": [503, float("inf")]}})
    assert text.value.field == data.value.field == "retry_on.http_statuses[1]"


def test_every_field_of_a_core_error_reaches_its_exception() -> None:
    """One conversion for every error (the core's ``Error::fields``): typed fields, ``message`` as ``detail``,
    a header error's fields for its kind only."""
    with pytest.raises(InvalidConfigError) as unreadable:
        Policy.from_json("{")
    assert unreadable.value.detail and str(unreadable.value).endswith(unreadable.value.detail)
    assert (unreadable.value.config, unreadable.value.field, unreadable.value.blame) == ("policy", "", "configuration")
    with pytest.raises(InvalidHeaderError) as malformed:
        retryplan.parse_retry_after("soon", 0.0)
    assert (malformed.value.expected is not None, malformed.value.limit) == (True, None)
    with pytest.raises(InvalidHeaderError) as out_of_range:
        retryplan.parse_grpc_timeout("123456789m")
    assert (out_of_range.value.header, out_of_range.value.value) == ("grpc-timeout", "123456789m")
    assert (out_of_range.value.expected, out_of_range.value.limit is not None) == (None, True)
    with pytest.raises(ConfigViolationsError) as broken:
        Policy(max_attempts=0)
    (violation,) = broken.value.violations
    assert isinstance(violation, retryplan.Violation) and violation.field == "max_attempts" and violation.message
    # The class takes a violation as a pair, or as the mapping the core gives.
    pairs = ConfigViolationsError("m", "budget", [("a", "x"), {"field": "b", "message": "y"}])
    assert pairs.violations == (("a", "x"), ("b", "y")) and pairs.fields == ("a", "b")


def test_a_whole_number_spelt_as_a_float_is_read_as_in_every_language() -> None:
    # JavaScript cannot tell 800 from 800.0, so no binding refuses the float spelling.
    assert Policy.from_dict({"total_timeout_ms": 800.0}).total_timeout_ms == 800


def test_nan_in_a_policy_is_unreadable() -> None:
    with pytest.raises(InvalidConfigError):
        Policy(total_timeout_ms=math.nan)


def test_huge_policy_numbers_are_rules_not_clamps() -> None:
    with pytest.raises(ConfigViolationsError) as raised:
        Policy(total_timeout_ms=2**53)
    assert raised.value.fields == ("total_timeout_ms",)


def test_policy_round_trips_and_pickles(tmp_path) -> None:  # type: ignore[no-untyped-def]
    policy = Policy.from_profile("checkout")
    assert Policy.from_dict(policy.to_dict()) == policy == Policy.from_json(policy.to_json())
    assert pickle.loads(pickle.dumps(policy)) == policy
    assert retryplan.profile("checkout") == policy.to_dict()
    assert set(retryplan.PROFILE_NAMES) >= {"read", "checkout", "write_keyed", "write_strict", "background"}
    with pytest.raises(UnknownProfileError) as raised:
        Policy.from_profile("nope")
    assert raised.value.profile == "nope" and "read" in raised.value.known and isinstance(raised.value, LookupError)
    assert raised.value.known == list(retryplan.PROFILE_NAMES) and raised.value.blame == "configuration"
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"max_attempts": 5}))
    assert Policy.from_file(path).max_attempts == 5
    path.write_text('{"max_attempts": 5,}')
    with pytest.raises(InvalidConfigError):
        Policy.from_file(str(path))


def test_a_policy_file_not_utf8_or_with_a_bom_is_an_invalid_config_said_where(tmp_path) -> None:  # type: ignore[no-untyped-def]
    # Both raised a builtin (UnicodeDecodeError) or a cryptic JSON error; the CLI's words, for the same files.
    path = tmp_path / "policy.json"
    path.write_bytes(b'{"max_attempts": 3, "idempotency": "\xff"}')
    with pytest.raises(InvalidConfigError) as raised:
        Policy.from_file(path)
    assert (raised.value.config, raised.value.field) == ("policy", "")
    assert (
        str(raised.value) == "invalid policy configuration: not valid UTF-8: the byte at offset 36 starts no character"
    )
    path.write_bytes(b'\xef\xbb\xbf{"max_attempts": 3}')
    with pytest.raises(InvalidConfigError, match=r"not valid JSON: the file starts with a byte order mark \(U\+FEFF\)"):
        Policy.from_file(path)
    # A TOML file too (it raised the builtin from tomllib).
    toml_path = tmp_path / "policy.toml"
    toml_path.write_bytes(b'max_attempts = 3\nidempotency = "\xff"\n')
    with pytest.raises(
        InvalidConfigError, match="^invalid policy configuration: not valid UTF-8: the byte at offset 32 "
    ):
        Policy.from_file(toml_path)
    toml_path.write_bytes(b"\xef\xbb\xbfmax_attempts = 3\n")
    with pytest.raises(InvalidConfigError, match=r"not valid TOML: the file starts with a byte order mark \(U\+FEFF\)"):
        Policy.from_file(toml_path)


def _has_toml() -> bool:
    import importlib.util

    return any(importlib.util.find_spec(name) is not None for name in ("tomllib", "tomli"))


@pytest.mark.skipif(not _has_toml(), reason="TOML needs tomllib (3.11+) or tomli")
def test_policy_from_toml(tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "policy.toml"
    path.write_text(
        'max_attempts = 4\ntotal_timeout_ms = 2000\n[backoff]\nbase_ms = 50\ncap_ms = 400\n[jitter]\nkind = "none"\n'
    )
    policy = Policy.from_file(path)
    assert policy.max_attempts == 4 and policy.to_dict()["backoff"]["cap_ms"] == 400
    path.write_text("max_attempts = [")
    with pytest.raises(InvalidConfigError):
        Policy.from_file(path)
    path.write_text("max_attempts = 0\n")
    with pytest.raises(ConfigViolationsError):
        Policy.from_file(path)


def test_headers_and_deadlines() -> None:
    assert retryplan.parse_retry_after("120", 0.0) == 120_000
    assert retryplan.parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784_111_747.0) == 30_000
    with pytest.raises(InvalidHeaderError) as raised:
        retryplan.parse_retry_after("soon", 0.0)
    assert (raised.value.header, raised.value.kind, raised.value.value) == ("retry-after", "malformed", "soon")
    assert retryplan.parse_retry_after_ms_header("1500") == 1500
    assert retryplan.parse_grpc_pushback("100") == Pushback.retry_after(100)
    assert retryplan.parse_grpc_pushback("-1").is_do_not_retry
    assert retryplan.encode_grpc_timeout(1500) == "1500m" and retryplan.parse_grpc_timeout("2S") == 2000
    with pytest.raises(InvalidHeaderError) as raised:
        retryplan.parse_grpc_timeout("123456789m")
    assert raised.value.kind == "out_of_range"
    assert retryplan.remaining_ms(0.8, 0.5, reserve_ms=50) == 250
    assert retryplan.remaining_ms(deadline_ms=800, now_ms=900, reserve_ms=50) == 0
    verdict = retryplan.admit(1.0, 0.9, reserve_ms=0, minimum_useful_ms=150)
    assert not verdict.admitted and verdict.to_dict() == {
        "type": "reject",
        "remaining_ms": 100,
        "minimum_useful_ms": 150,
    }
    with pytest.raises(ArgumentTypeError):
        retryplan.parse_retry_after(120, 0.0)  # type: ignore[arg-type]


def test_classify_explain_and_stats() -> None:
    policy = Policy()
    lost = retryplan.classify(policy, Outcome.transport("connection_lost"))
    assert (lost.kind, lost.ambiguous) == ("retryable", True)
    timeline = retryplan.explain(
        Policy.from_dict(
            {
                "max_attempts": 3,
                "total_timeout_ms": 2000,
                "attempt_timeout": {"fixed_ms": 1000},
                "response_reserve_ms": 0,
                "backoff": {"base_ms": 100, "cap_ms": 2000},
                "jitter": {"kind": "none"},
            }
        )
    )
    assert timeline.unbounded_worst_case_ms == 3300 and timeline.attempts_that_fit == 2
    assert timeline.warning_messages[0] == "max_attempts is 3 but only 2 attempts fit in 2000 ms"
    assert isinstance(timeline.ending, retryplan.GaveUp)
    assert retryplan.backoff_ceilings_ms(Policy(backoff={"base_ms": 100, "cap_ms": 2000}), 7) == [
        100,
        200,
        400,
        800,
        1600,
        2000,
        2000,
    ]
    stats = Stats()
    op = Operation(policy, 0.0, seed=1)
    for decision in (op.poll(0.0), op.on_outcome(0.1, 1, Outcome.http_status(404))):
        stats.record(decision)
    other = Stats()
    other.merge(stats)
    assert other.gave_up[GiveUpReason.NOT_RETRYABLE] == 1 and other.to_dict()["attempts"] == 1
    with pytest.raises(ArgumentTypeError):
        stats.record("gave_up")  # type: ignore[arg-type]


def test_entropy_seeds_and_keys_differ_per_operation() -> None:
    first, second = Operation(Policy(), 0.0), Operation(Policy(), 0.0)
    assert first.idempotency_key != second.idempotency_key and len(first.idempotency_key) == 36
    assert Operation(Policy(), 0.0, idempotency_key="order-1").idempotency_key == "order-1"
    with pytest.raises(InvalidArgumentError, match="idempotency_key"):
        Operation(Policy(), 0.0, idempotency_key="has space")


def test_every_exception_is_a_retryplan_error_and_shadows_no_builtin() -> None:
    import builtins

    for name in retryplan.__all__:
        assert not hasattr(builtins, name), name
        value = getattr(retryplan, name)
        if isinstance(value, type) and issubclass(value, BaseException) and value is not retryplan.AttemptFailed:
            assert issubclass(value, RetryplanError), name
        assert getattr(value, "__doc__", None) or not callable(value), f"{name} has no docstring"


def test_the_stub_declares_every_native_name() -> None:
    import ast
    import pathlib

    import retryplan._native as native

    stub = pathlib.Path(retryplan.__file__).with_name("_native.pyi")
    tree = ast.parse(stub.read_text(encoding="utf-8"))
    declared = set()
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef)):
            declared.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            declared.add(node.target.id)
    public = {name for name in dir(native) if not name.startswith("_")} | {"__version__"}
    assert public <= declared, public - declared


def test_shared_controls_and_redelivery() -> None:
    budget = retryplan.RetryBudget(kind="token_bucket", max_tokens=10, token_ratio=0.1)
    for _ in range(4):
        budget.on_failure(0.0)
    charge = budget.try_retry(0.0)
    assert charge is not None and charge.cost == 0
    budget.on_failure(now_ms=0)
    assert budget.try_retry(now_ms=0) is None
    assert budget.snapshot(0.0)["tokens_milli"] == 5000
    with pytest.raises(ConfigViolationsError) as raised:
        retryplan.RetryBudget(kind="token_bucket", max_tokens=0, token_ratio=0.1)
    assert (raised.value.config, raised.value.fields) == ("budget", ("max_tokens",))
    with pytest.raises(InvalidConfigError):
        retryplan.RetryBudget({"kind": "token_bucket", "max_tokens": -1, "token_ratio": 0.1})
    with pytest.raises(InvalidConfigError):
        retryplan.Dependency(budgets={})

    breaker = retryplan.CircuitBreaker(trip={"kind": "consecutive", "failures": 1}, open_ms=100, half_open_probes=1)
    permit = breaker.try_acquire(0.0)
    assert permit is not None and not permit.probe
    breaker.on_failure(0.0, permit)
    assert breaker.try_acquire(0.05) is None and breaker.snapshot(0.05)["state"] == "open"
    with pytest.raises(ArgumentTypeError, match="permit"):
        breaker.on_success(0.2, "permit")  # type: ignore[arg-type]

    policy = Policy(
        max_attempts=5, total_timeout_ms=3_600_000, redelivery={"delays_ms": [5000, 30000], "max_age_ms": 3_600_000}
    )
    verdict = retryplan.redeliver(policy, 2, Outcome.http_status(503), first_seen_ms=0, now_ms=10_000)
    assert (verdict.kind, verdict.delay_ms, verdict.redeliver_at_ms) == ("redeliver_after", 30_000, 40_000)
    assert retryplan.redeliver(policy, 1, Outcome.success(), 0.0, 1.0).kind == "acknowledge"
    with pytest.raises(InvalidArgumentError, match="attempts"):
        retryplan.redeliver(policy, 0, Outcome.success(), 0.0, 1.0)

    assert Outcome.from_http(503, "2", "oops", now_unix=0.0) == Outcome.http_status(503, 2000)
    assert Outcome.from_http(503, "soon", None, now_unix_ms=0) == Outcome.http_status(503)


# ---------------------------------------------------------------- what bad input gets (issue 16 item 8)


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, 10**400], ids=["nan", "inf", "-inf", "10**400"])
@pytest.mark.parametrize("path", [("total_timeout_ms",), ("backoff", "base_ms"), ("jitter", "ratio")])
def test_unrepresentable_numbers_in_a_policy_dict_name_the_field(value: object, path: tuple) -> None:
    config: dict = {"jitter": {"kind": "proportional", "ratio": 0.5}}
    inner = config
    for key in path[:-1]:
        inner = inner.setdefault(key, {})
    inner[path[-1]] = value
    with pytest.raises(InvalidConfigError) as raised:
        Policy.from_dict(config)
    assert raised.value.field == ".".join(path)


@pytest.mark.parametrize("clock", ["now_ms", "deadline_ms"])
def test_millisecond_clock_readings_stop_at_2_to_the_53_minus_1(clock: str) -> None:
    readings = {"now_ms": 0, clock: 2**53 - 1}
    Operation(Policy(), seed=1, **readings)  # type: ignore[call-overload]
    for beyond in (2**53, 2**64 - 1):
        readings[clock] = beyond
        with pytest.raises(InvalidArgumentError) as raised:
            Operation(Policy(), seed=1, **readings)  # type: ignore[call-overload]
        assert raised.value.field == clock and "2^53 - 1" in str(raised.value)
    with pytest.raises(InvalidArgumentError) as raised:
        started().poll(now_ms=2**53)
    assert raised.value.field == "now_ms"


LONE = "\ud800"


def test_lone_surrogates_are_typed_errors_naming_the_argument_or_field() -> None:
    for call, name in [
        (lambda: Policy.from_json(LONE), "json"),
        (lambda: Policy.from_profile(LONE), "name"),
        (lambda: Operation(Policy(), 0.0, idempotency_key="key" + LONE), "idempotency_key"),
        (lambda: Outcome.transport(LONE), "failure"),
        (lambda: retryplan.parse_retry_after(LONE, 0.0), "value"),
        (lambda: Outcome.from_http_response(503, {"retry-after": LONE}, now_unix=0.0), "headers"),
    ]:
        with pytest.raises(InvalidArgumentError) as raised:
            call()
        assert raised.value.field == name and "surrogate" in str(raised.value)
    for config, field in [({"idempotency": LONE}, "idempotency"), ({"backoff": {LONE: 1}}, "backoff")]:
        with pytest.raises(InvalidConfigError) as unreadable:
            Policy.from_dict(config)
        assert unreadable.value.field == field and "surrogate" in str(unreadable.value)


def test_a_huge_bad_config_value_is_cut_in_the_error() -> None:
    huge = "x" * 50_000_000
    for call in (
        lambda: Policy.from_dict({"idempotency": huge}),
        lambda: Policy.from_dict({"total_timeout_ms": huge}),
        lambda: Policy.from_dict({huge: 1}),
        lambda: Policy.from_json('{"idempotency": "' + huge + '"}'),
        lambda: retryplan.Dependency(budget={"kind": huge}),
    ):
        with pytest.raises(InvalidConfigError) as raised:
            call()
        assert len(str(raised.value)) < 1_000 and len(raised.value.field) < 100


def test_every_error_class_states_the_cores_blame_for_its_code() -> None:
    # The core writes its blame table to tests/messages/rules.json; every class
    # Python raises (including the ones Python raises itself) must agree with it.
    from conftest import vector_dir

    blames = json.loads((vector_dir().parent / "messages" / "rules.json").read_text())["blames"]
    classes = {
        cls.code: cls
        for cls in vars(retryplan).values()
        if isinstance(cls, type) and issubclass(cls, retryplan.RetryplanError) and cls.code in blames
    }
    assert classes.keys() == blames.keys()
    assert {code: cls.blame for code, cls in classes.items()} == blames
    assert set(retryplan._errors.__all__) >= {cls.__name__ for cls in classes.values()}


BLAME_CLASSES = {
    "caller": retryplan.CallerError,
    "configuration": retryplan.ConfigurationError,
    "server": retryplan.ServerDataError,
    "environment": retryplan.PlatformError,
}


def test_every_error_class_sits_under_the_class_of_its_blame() -> None:
    # h11's split: one class per blame between RetryplanError and the concrete
    # classes, each concrete class keeping its builtin base too.
    from conftest import vector_dir

    blames = json.loads((vector_dir().parent / "messages" / "rules.json").read_text())["blames"]
    assert set(BLAME_CLASSES) == set(blames.values())
    for blame, cls in BLAME_CLASSES.items():
        assert cls.__mro__[1] is retryplan.RetryplanError and cls.blame == blame
        assert cls.__name__ in retryplan.__all__ and cls.__name__ in retryplan._errors.__all__
    builtin = {
        "ConfigViolationsError": ValueError,
        "InvalidConfigError": ValueError,
        "UnknownProfileError": LookupError,
        "UnsupportedError": ValueError,
        "OperationEndedError": RuntimeError,
        "AttemptNotRunningError": RuntimeError,
        "InvalidArgumentError": ValueError,
        "ArgumentTypeError": TypeError,
        "InvalidHeaderError": ValueError,
        "InvalidRequestHeaderError": ValueError,
        "EntropyUnavailableError": OSError,
    }
    for name, base in builtin.items():
        cls = getattr(retryplan, name)
        under = [blame for blame, blame_class in BLAME_CLASSES.items() if issubclass(cls, blame_class)]
        assert under == [blames[cls.code]] == [cls.blame], name
        assert issubclass(cls, base), name
    assert not issubclass(retryplan.OperationFailedError, tuple(BLAME_CLASSES.values()))


def test_a_reading_error_names_the_configuration_it_read() -> None:
    cases = [
        ("policy", "max_attemps", lambda: Policy.from_dict({"max_attemps": 3})),
        ("policy", "", lambda: Policy.from_json("not json")),
        ("dependency", "budget.kind", lambda: retryplan.Dependency({"budget": {"kind": "leaky"}})),
        ("dependency", "", lambda: retryplan.Dependency.from_json("[")),
        ("budget", "kind", lambda: retryplan.RetryBudget({"kind": "leaky"})),
        ("breaker", "trip", lambda: retryplan.CircuitBreaker({"open_ms": 1, "half_open_probes": 1})),
        ("service_config", "methodConfig", lambda: retryplan.ServiceConfig({"methodConfig": {}})),
        ("service_config", "", lambda: retryplan.ServiceConfig("{")),
    ]
    words = {"service_config": "gRPC service"}
    for config, field, call in cases:
        with pytest.raises(InvalidConfigError) as raised:
            call()
        error = raised.value
        assert (error.code, error.blame, error.config, error.field) == (
            "invalid_config",
            "configuration",
            config,
            field,
        )
        # An error of the whole text (not JSON) names no field, nor an empty one.
        at = f" at `{field}`" if field else ""
        assert str(error).startswith(f"invalid {words.get(config, config)} configuration{at}: "), error
        assert isinstance(error, retryplan.ConfigurationError) and isinstance(error, ValueError)


def test_a_broken_rule_names_the_configuration_it_broke() -> None:
    zero_tokens = {"kind": "token_bucket", "max_tokens": 0, "token_ratio": 0.5}
    cases = [
        ("policy", ("max_attempts",), "invalid policy: ", lambda: Policy(max_attempts=0)),
        (
            "dependency",
            ("budget.max_tokens",),
            "invalid dependency configuration: ",
            lambda: retryplan.Dependency({"budget": zero_tokens}),
        ),
        ("budget", ("max_tokens",), "invalid budget configuration: ", lambda: retryplan.RetryBudget(zero_tokens)),
        (
            "breaker",
            ("open_ms",),
            "invalid breaker configuration: ",
            lambda: retryplan.CircuitBreaker(
                {"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 0, "half_open_probes": 1}
            ),
        ),
        (
            "service_config",
            ("retryThrottling.maxTokens",),
            "invalid gRPC service configuration: ",
            lambda: retryplan.ServiceConfig({"retryThrottling": {"maxTokens": 0, "tokenRatio": 0.1}}),
        ),
    ]
    for config, fields, start, call in cases:
        with pytest.raises(ConfigViolationsError) as raised:
            call()
        error = raised.value
        assert (error.code, error.blame, error.config, error.fields) == (
            "config_violations",
            "configuration",
            config,
            fields,
        )
        assert str(error).startswith(start), error
        assert isinstance(error, retryplan.ConfigurationError) and isinstance(error, ValueError)


def test_the_endings_old_names_are_deprecated_aliases_for_one_release() -> None:
    """The endings are named as in JS (issue 28: one name per concept); the old names warn."""
    import warnings

    for old_name, new_name in (
        ("OperationFailed", "OperationFailedError"),
        ("ReconcileRequired", "ReconcileRequiredError"),
        ("RestartRequired", "RestartRequiredError"),
    ):
        new = getattr(retryplan, new_name)
        assert new.__name__ == new_name and new.__module__ == "retryplan"
        assert new_name in retryplan.__all__ and old_name not in retryplan.__all__
        for module in (retryplan, retryplan._errors):
            with pytest.warns(DeprecationWarning, match=f"{old_name} is renamed (retryplan\\.)?{new_name}"):
                assert getattr(module, old_name) is new
    assert issubclass(retryplan.GaveUpError, retryplan.OperationFailedError)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from retryplan import ReconcileRequiredError  # the new name never warns  # noqa: F401


def test_the_old_names_are_deprecated_aliases_for_one_release() -> None:
    import warnings

    for module in (retryplan, retryplan._errors):
        with pytest.warns(DeprecationWarning, match="InvalidConfigError"):
            alias = module.InvalidPolicyJsonError
        assert alias is InvalidConfigError
    assert "InvalidPolicyJsonError" not in retryplan.__all__
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        from retryplan import InvalidConfigError as again  # the new name never warns
    assert again is InvalidConfigError
    with pytest.warns(DeprecationWarning):
        from retryplan import InvalidPolicyJsonError  # noqa: F401
    with pytest.raises(InvalidPolicyJsonError):
        Policy.from_json("{")
    for module in (retryplan, retryplan._errors):
        with pytest.warns(DeprecationWarning, match="ConfigViolationsError"):
            old = module.InvalidPolicyError
        assert old is ConfigViolationsError
    assert "InvalidPolicyError" not in retryplan.__all__
    with pytest.warns(DeprecationWarning):
        from retryplan import InvalidPolicyError
    with pytest.raises(InvalidPolicyError) as raised:
        Policy(max_attempts=0)
    assert (raised.value.config, raised.value.fields) == ("policy", ("max_attempts",))
    assert raised.value.violations[0].field == "max_attempts"


def test_from_json_reads_json_and_its_old_keyword_text_warns_for_one_release() -> None:
    import warnings

    config = '{"max_attempts": 2}'
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new name never warns
        assert Policy.from_json(json=config).to_json() == Policy.from_json(config).to_json()
        assert Policy.from_json(json=config).to_json() == Policy(max_attempts=2).to_json()
        assert isinstance(retryplan.Dependency.from_json(json="{}"), retryplan.Dependency)
    for cls in (Policy, retryplan.Dependency):
        with pytest.warns(DeprecationWarning, match=r"from_json\(text=\.\.\.\) is renamed from_json\(json=\.\.\.\)"):
            made = cls.from_json(text=config if cls is Policy else "{}")  # type: ignore[call-arg]
        assert type(made) is cls
        with pytest.raises(TypeError, match="not both"):
            cls.from_json("{}", text="{}")  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="missing 1 required argument: 'json'"):
            cls.from_json()  # type: ignore[call-arg]
    with pytest.warns(DeprecationWarning), pytest.raises(InvalidArgumentError) as raised:
        Policy.from_json(text=LONE)  # type: ignore[call-arg]
    assert raised.value.field == "json"


def test_the_input_an_error_blames_is_field_and_a_profile_profile_and_name_warns_for_one_release() -> None:
    import warnings

    with pytest.raises(InvalidArgumentError) as argument:
        started().poll(now_ms=2**53)
    with pytest.raises(UnknownProfileError) as profile:
        Policy.from_profile("raed")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the new names never warn
        field, fields = argument.value.field, argument.value.fields
        assert (field, fields, profile.value.profile) == ("now_ms", ("now_ms",), "raed")
    with pytest.warns(DeprecationWarning, match=r"InvalidArgumentError\.name is renamed InvalidArgumentError\.field"):
        assert argument.value.name == "now_ms"
    with pytest.warns(DeprecationWarning, match=r"UnknownProfileError\.name is renamed UnknownProfileError\.profile"):
        assert profile.value.name == "raed"


# ---------------------------------------------------------------- the typed Driver: odd statuses and tokens


@pytest.mark.parametrize("status", [-1, 0, 70000, 2**80, -(2**80)])
def test_the_driver_reads_any_int_status_as_the_platform_gave_it(status: int) -> None:
    # No validation and no clamp in the binding: the core reads a status outside 100..=599 as malformed_response.
    driver = retryplan.Driver(Policy.from_dict({"jitter": {"kind": "none"}}), now_ms=0, seed=7, record_events=True)
    assert driver.poll_action(now_ms=0).kind == "start_attempt"
    receipt = driver.handle_response(attempt=1, status=status, headers={}, now_ms=30, now_unix_ms=0, token=5)
    assert receipt == "accepted"
    events = list(iter(driver.poll_event, None))
    assert events[-1].after.outcome == Outcome.failure("malformed_response")
    assert driver.poll_action(now_ms=30).kind == "sleep"  # a GET's malformed response is retried


def test_the_driver_says_which_token_to_release_and_which_one_the_ending_returns() -> None:
    policy = Policy.from_dict({"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}})
    driver = retryplan.Driver(policy, now_ms=0, seed=7, returns_responses=True)
    assert driver.poll_action(now_ms=0).kind == "start_attempt"
    assert driver.handle_response(attempt=1, status=503, headers={}, now_ms=40, now_unix_ms=0, token=11) == "accepted"
    sleep = driver.poll_action(now_ms=40)
    assert isinstance(sleep, retryplan.Sleep)
    assert driver.poll_action(now_ms=sleep.until_ms).kind == "start_attempt"
    assert driver.handle_result(now_ms=200, attempt=2, outcome=Outcome.success(), token=12, held="value") == "accepted"
    release = driver.poll_action(now_ms=200)
    assert isinstance(release, retryplan.Release) and release.token == 11
    ending = driver.poll_action(now_ms=200)
    assert isinstance(ending, retryplan.Ending) and ending.result is not None
    assert (ending.result.token, ending.result.returned) == (12, True)


def test_every_action_names_its_kind_and_shows_its_class_and_fields() -> None:
    """The kind is the core's (``Action::kind``), the JSON ``type``; the repr is the class with the JSON fields.
    A host of responses: the 503 it holds when the caller cancels is released (closed), not raised with."""
    policy = Policy.from_dict({"jitter": {"kind": "none"}})
    driver = retryplan.Driver(policy, now_ms=0, seed=1, returns_responses=True)
    actions = [driver.poll_action(now_ms=0)]
    driver.handle_result(now_ms=10, attempt=1, outcome=Outcome.http_status(503), token=7)
    actions.append(driver.poll_action(now_ms=10))
    actions.append(driver.poll_action(now_ms=actions[-1].to_dict()["until_ms"]))
    driver.handle_cancel(now_ms=5_000)
    while actions[-1].kind != "finish":
        actions.append(driver.poll_action(now_ms=5_000))
    kinds = [action.kind for action in actions]
    assert kinds == ["start_attempt", "sleep", "start_attempt", "release", "abort_attempt", "finish"]
    assert all(action.to_dict()["type"] == action.kind for action in actions)
    assert [repr(action).partition("(")[0] for action in actions] == [type(action).__name__ for action in actions]
    assert (repr(actions[1]), repr(actions[3])) == ("Sleep(until_ms=110)", "Release(token=7)")
    assert repr(actions[4]) == "AbortAttempt(attempt=2, reason='cancelled')"


def test_a_decision_shows_its_class_and_fields() -> None:
    op = Operation(Policy.from_profile("checkout"), now_ms=0, seed=1)
    assert repr(op.poll(now_ms=50)).startswith("StartAttempt(attempt=1, timeout_ms=200, abort_at_ms=250, request_id=")
    wait = op.on_outcome(0.25, 1, Outcome.http_status(503))
    assert repr(wait) == "Wait(retry=0, delay_ms=44, until_ms=294, remaining_ms=500)"


def test_the_driver_refuses_a_held_kind_without_a_token_and_an_unknown_one() -> None:
    driver = retryplan.Driver(Policy.from_dict({}), now_ms=0, seed=7)
    driver.poll_action(now_ms=0)
    with pytest.raises(retryplan.InvalidArgumentError, match="held"):
        driver.handle_result(now_ms=1, attempt=1, outcome=Outcome.success(), held="error")
    with pytest.raises(retryplan.InvalidArgumentError, match="held"):
        driver.handle_result(now_ms=1, attempt=1, outcome=Outcome.success(), token=1, held="response")


@pytest.mark.parametrize("concurrency", ["parallel", "Sequential", ""])
def test_an_unknown_concurrency_is_refused_by_the_driver_and_the_helpers(concurrency: str) -> None:
    with pytest.raises(retryplan.InvalidArgumentError, match="concurrency"):
        retryplan.Driver(Policy.from_dict({}), now_ms=0, concurrency=concurrency)  # type: ignore[arg-type]
    config = Config(Policy.from_dict({}))
    with pytest.raises(retryplan.InvalidArgumentError, match="concurrency"):
        retryplan._native.Settings(
            config, config.policy, concurrency, True, None, None, False, None, config.clock, None, "operation"
        )


def test_the_wire_carries_a_poll_and_a_result_by_the_cores_own_tables() -> None:
    from retryplan import _wire

    policy = Policy.from_dict({"jitter": {"kind": "none"}, "attempt_timeout": {"fixed_ms": 300}})
    driver = retryplan.Driver(policy, now_ms=0, seed=7, returns_responses=True)
    out = driver.exchange(_wire.input_record("poll", 0))
    assert out[_wire.OUTPUT["action_kind"]] == _wire.kind("action_kinds", "start_attempt")
    assert (out[_wire.OUTPUT["attempt"]], out[_wire.OUTPUT["abort_at_ms"]]) == (1, 300)
    status = {
        "outcome_kind": _wire.kind("outcome_kinds", "http_status"),
        "outcome_code": 503,
        "outcome_retry_after_ms": -1,
    }
    out = driver.exchange(_wire.input_record("result", 120, attempt=1, token=11, held=0, **status))
    assert out[_wire.OUTPUT["receipt"]] == _wire.kind("receipts", "accepted")
    assert out[_wire.OUTPUT["action_kind"]] == _wire.kind("action_kinds", "sleep")
    assert out[_wire.OUTPUT["until_ms"]] == 220
    with pytest.raises(retryplan.InvalidArgumentError, match="input_kind"):
        driver.exchange([99] + [0] * 7)  # no such input kind
    with pytest.raises(TypeError, match=r"`words`: must be a sequence of ints, each in -2\^63\.\.=2\^63-1, got list"):
        driver.exchange([2**64 - 1] * 8)  # ints, one of which no word holds


def test_the_old_names_of_the_total_timeout_are_read_for_one_release() -> None:
    assert Policy(total_budget_ms=2000).total_timeout_ms == 2000
    assert Policy.from_dict({"total_budget_ms": 2000}).to_dict()["total_timeout_ms"] == 2000
    with pytest.raises(retryplan.InvalidConfigError) as raised:
        Policy(total_timeout_ms=2000, total_budget_ms=2000)
    assert raised.value.field == "total_budget_ms"
    assert "both `total_timeout_ms` and its old name `total_budget_ms`" in str(raised.value)
    policy = Policy(total_timeout_ms=1500)
    with pytest.warns(DeprecationWarning, match="total_budget_ms is renamed Policy.total_timeout_ms"):
        assert policy.total_budget_ms == 1500
    with pytest.warns(DeprecationWarning, match="remaining_budget_ms is renamed retryplan.remaining_ms"):
        old = retryplan.remaining_budget_ms
    assert old is retryplan.remaining_ms and "remaining_budget_ms" not in retryplan.__all__
    operation = retryplan.Operation(policy, now_ms=0)
    with pytest.warns(DeprecationWarning, match="remaining_budget_ms is renamed Operation.remaining_ms"):
        assert operation.remaining_budget_ms(now_ms=100) == operation.remaining_ms(now_ms=100) == 1350
