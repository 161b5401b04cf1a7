"""Compiled policies and dependencies: ``Policy.to_compiled`` / ``Policy.from_compiled``,
``compile_dependency`` / ``Dependency.from_compiled``, and the refused forms' errors, each
the core's code (``core/src/policy/compiled/form.md``). The vector suite runs every case
again through compiled forms (``test_conformance.py``)."""

import base64
import json
import pathlib
from typing import Any, Callable

import pytest

import retryplan
from retryplan import (
    FORM_VERSION,
    ArgumentTypeError,
    CompiledFormDamagedError,
    CompiledFormError,
    CompiledFormKindError,
    CompiledFormVersionError,
    ConfigurationError,
    ConfigViolationsError,
    Dependency,
    NotACompiledFormError,
    Outcome,
    Policy,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: What `retryplan compile examples/policies/checkout.json` and `retryplan compile examples/checkout.json
#: --dependency` print: tests/compiled/*.b64, which cli/test.sh checks against the CLI (and says how to
#: write them again when the form changes).
CLI_CHECKOUT_POLICY = (ROOT / "tests/compiled/checkout.policy.b64").read_text().strip()
CLI_CHECKOUT_DEPENDENCY = (ROOT / "tests/compiled/checkout.dependency.b64").read_text().strip()


def test_every_profile_reads_back_equal_from_bytes_bytearray_and_memoryview() -> None:
    for name in retryplan.PROFILE_NAMES:
        policy = Policy.from_profile(name)
        form = policy.to_compiled()
        assert type(form) is bytes and form[:3] == b"rpp" and form[3] == FORM_VERSION, (name, form)
        assert Policy.from_compiled(form) == policy
        assert Policy.from_compiled(bytearray(form)) == policy
        assert Policy.from_compiled(memoryview(form)) == policy
        assert Policy.from_compiled(memoryview(b"xx" + form)[2:]) == policy, "a sliced view reads its own bytes"
        assert Policy.from_compiled(form).to_json() == policy.to_json()


def test_a_compiled_policy_decides_as_its_json_does() -> None:
    policy = Policy(max_attempts=4, total_timeout_ms=2000, jitter={"kind": "full"})
    compiled = Policy.from_compiled(policy.to_compiled())
    decisions = []
    for candidate in (policy, compiled):
        operation = retryplan.Operation(candidate, now_ms=0, seed=7)
        steps = [operation.poll(now_ms=0).to_dict()]
        steps.append(operation.on_outcome(attempt=1, outcome=Outcome.http_status(503), now_ms=40).to_dict())
        steps.append(operation.poll(now_ms=steps[-1]["until_ms"]).to_dict())
        decisions.append(steps)
    assert decisions[0] == decisions[1]
    assert decisions[0][1]["type"] == "wait", decisions[0]


def test_the_clis_compiled_line_loads_as_the_policy_its_json_is() -> None:
    form = base64.b64decode(CLI_CHECKOUT_POLICY)
    assert form[3] == FORM_VERSION, "the pinned form is of another version: compile it again (see above)"
    from_json = Policy.from_file(ROOT / "examples" / "policies" / "checkout.json")
    assert Policy.from_compiled(form) == from_json
    assert from_json.to_compiled() == form, "Python writes the bytes the CLI writes"


def test_the_clis_compiled_dependency_builds_the_controls_its_json_does() -> None:
    form = base64.b64decode(CLI_CHECKOUT_DEPENDENCY)
    config = json.loads((ROOT / "examples" / "checkout.json").read_text(encoding="utf-8"))["dependency"]
    assert retryplan.compile_dependency(config) == form
    assert Dependency.from_compiled(form).snapshot(now_ms=0) == Dependency(config).snapshot(now_ms=0)


def test_compile_dependency_takes_a_dict_or_keywords_and_refuses_an_invalid_one() -> None:
    budget = {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}
    form = retryplan.compile_dependency(budget=budget, retry_slots=4)
    assert form == retryplan.compile_dependency({"budget": budget, "retry_slots": 4})
    assert form[:3] == b"rpd"
    dependency = Dependency.from_compiled(bytearray(form))
    assert dependency.snapshot(now_ms=0) == Dependency(budget=budget, retry_slots=4).snapshot(now_ms=0)
    assert dependency.retry_slots is not None and dependency.retry_slots.capacity == 4
    with pytest.raises(ConfigViolationsError) as caught:
        retryplan.compile_dependency(budget={"kind": "token_bucket", "max_tokens": 0, "token_ratio": 0.1})
    assert caught.value.fields == ("budget.max_tokens",)


def refusal(call: Callable[[Any], object], form: object) -> CompiledFormError:
    with pytest.raises(CompiledFormError) as caught:
        call(form)
    return caught.value


def test_a_refused_form_raises_its_code_as_the_core_words_it() -> None:
    form = Policy.from_profile("checkout").to_compiled()

    error = refusal(Policy.from_compiled, b'{"max_attempts": 3}')
    assert type(error) is NotACompiledFormError and error.code == "not_a_compiled_form"
    assert "not a compiled policy: 19 bytes" in str(error)
    assert type(refusal(Policy.from_compiled, base64.b64encode(form))) is NotACompiledFormError, "base64 text"

    other_version = bytearray(form)
    other_version[3] = (FORM_VERSION + 1) % 256
    error = refusal(Policy.from_compiled, other_version)
    assert type(error) is CompiledFormVersionError and error.code == "compiled_form_version"
    assert str(error) == (
        f"the compiled policy is form version {(FORM_VERSION + 1) % 256} and this retryplan reads version "
        f"{FORM_VERSION}: compile the policy again with this version"
    )

    damaged = bytearray(form)
    damaged[-1] ^= 1
    error = refusal(Policy.from_compiled, damaged)
    assert type(error) is CompiledFormDamagedError and error.code == "compiled_form_damaged"
    assert "checksum" in str(error)
    error = refusal(Policy.from_compiled, form[:-1])
    assert type(error) is CompiledFormDamagedError, "a form cut short"

    error = refusal(Dependency.from_compiled, form)
    assert type(error) is CompiledFormKindError and error.code == "compiled_form_kind"
    assert str(error) == "expected a compiled dependency, got a compiled policy"
    error = refusal(Policy.from_compiled, retryplan.compile_dependency(retry_slots=1))
    assert type(error) is CompiledFormKindError
    assert str(error) == "expected a compiled policy, got a compiled dependency"

    # Who must act, and the classes a caller catches it by.
    assert error.blame == "configuration"
    assert isinstance(error, ConfigurationError) and isinstance(error, ValueError)


def test_every_code_of_the_core_has_its_class() -> None:
    from retryplan._errors import BY_CODE

    codes = ("not_a_compiled_form", "compiled_form_version", "compiled_form_damaged", "compiled_form_kind")
    for code in codes:
        cls = BY_CODE[code]
        assert issubclass(cls, CompiledFormError) and cls.code == code
        assert getattr(retryplan, cls.__name__) is cls and cls.__name__ in retryplan.__all__


@pytest.mark.parametrize("form", ["cnBw", 42, None, [114, 112]])
def test_a_form_that_is_not_binary_is_an_argument_type_error(form: object) -> None:
    with pytest.raises(ArgumentTypeError) as caught:
        Policy.from_compiled(form)  # type: ignore[arg-type]
    assert caught.value.field == "form"
    assert "must be bytes, bytearray or memoryview" in str(caught.value)
    with pytest.raises(ArgumentTypeError):
        Dependency.from_compiled(form)  # type: ignore[arg-type]
