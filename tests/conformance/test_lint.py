#!/usr/bin/env python3
"""Self-test of lint.py (standard library unittest; the schema checks also run when jsonschema is installed).

Usage: python3 tests/conformance/test_lint.py

Every vector file must pass, and each deliberately broken case below must be reported:
lint.py reads its rules from schema.json, so these prove the rules it reads are the ones
the vectors follow.
"""

import copy
import json
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import lint  # noqa: E402

SCHEMA = json.loads((HERE / "schema.json").read_text(encoding="utf-8"))
VECTORS = {
    path.stem: json.loads(path.read_text(encoding="utf-8"))
    for path in sorted(HERE.glob("*.json"))
    if path.name != "schema.json"
}


def example(kind, where=lambda case: True):
    """A copy of the first vector case of this kind that `where` accepts, and its file's topic."""
    for topic, document in VECTORS.items():
        for case in document["cases"]:
            if kind in (None, case["kind"]) and where(case):
                return copy.deepcopy(case), topic
    raise LookupError(f"no {kind} case in the vectors")


def step_of(case, call):
    return next(step for step in case["steps"] if step["call"] == call)


def lint_cases(cases, topic, schema=SCHEMA, text=None):
    """The problems lint.py reports for one vector file holding these cases (stdlib checks only)."""
    linter = lint.Linter(lint.Rules(schema))
    document = {"schema": "retryplan-vectors/1", "description": "self-test", "cases": cases}
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / f"{topic}.json"
        path.write_text(text if text is not None else lint.canonical(document) + "\n", encoding="utf-8")
        linter.check_file(path)
    return linter.problems


class VectorFiles(unittest.TestCase):
    def test_every_vector_file_passes(self):
        linter, note = lint.lint(HERE)
        self.assertEqual(linter.problems, [])
        self.assertEqual(linter.files, len(VECTORS))
        self.assertTrue(note)

    def test_an_unbroken_example_passes(self):
        case, topic = example("policy")
        self.assertEqual(lint_cases([case], topic), [])


class BrokenCases(unittest.TestCase):
    """Each broken case is reported, with a message naming what is wrong."""

    def assertReported(self, cases, topic, *needles, schema=SCHEMA):
        problems = lint_cases(cases if isinstance(cases, list) else [cases], topic, schema)
        for needle in needles:
            self.assertTrue(any(needle in problem for problem in problems), f"{needle!r} not in {problems}")

    def test_unknown_key(self):
        case, topic = example("policy")
        case["bogus"] = 1
        self.assertReported(case, topic, "policy case has unknown keys ['bogus']")

    def test_missing_required_field(self):
        case, topic = example("redelivery")
        del case["now_ms"]
        self.assertReported(case, topic, "redelivery case lacks ['now_ms']")

    def test_missing_common_field(self):
        case, topic = example("policy")
        del case["description"]
        self.assertReported(case, topic, "lacks ['description']")

    def test_unknown_kind(self):
        case, topic = example("policy")
        case["kind"] = "polciy"
        self.assertReported(case, topic, "kind must be one of")

    def test_wrong_step_call(self):
        case, topic = example("operation")
        case["steps"][0]["call"] = "frobnicate"
        self.assertReported(case, topic, "a operation step's call must be one of")

    def test_step_call_of_another_kind(self):
        case, topic = example("budget", lambda case: "steps" in case)
        case["steps"][0]["call"] = "try_acquire"  # a breaker call
        self.assertReported(case, topic, "a budget step's call must be one of")

    def test_step_missing_and_unknown_fields(self):
        case, topic = example("budget", lambda case: any(step["call"] == "acquire" for step in case.get("steps", [])))
        step = step_of(case, "acquire")
        del step["amount"]
        step["permit_step"] = 0
        self.assertReported(
            case, topic, "acquire step lacks ['amount']", "acquire step has unknown keys ['permit_step']"
        )

    def test_unknown_failure(self):
        case, topic = example("driver", lambda case: any("failure" in step for step in case.get("steps", [])))
        next(step for step in case["steps"] if "failure" in step)["failure"] = "gremlins"
        self.assertReported(case, topic, "failure must be one of")

    def test_result_hands_in_two_things(self):
        case, topic = example("driver", lambda case: any("failure" in step for step in case.get("steps", [])))
        next(step for step in case["steps"] if "failure" in step)["outcome"] = {"type": "success"}
        self.assertReported(case, topic, "a result step hands in exactly one of outcome / failure / response")

    def test_response_without_status(self):
        case, topic = example("driver", lambda case: any("response" in step for step in case.get("steps", [])))
        del next(step for step in case["steps"] if "response" in step)["response"]["status"]
        self.assertReported(case, topic, "response lacks ['status']")

    def test_unknown_error_code(self):
        case, topic = example("retry_after", lambda case: "expect_error" in case)
        case["expect_error"] = {"code": "oops"}
        self.assertReported(case, topic, "expect_error.code 'oops' is not one of")

    def test_error_without_fields_where_required(self):
        case, topic = example("policy", lambda case: "expect_error" in case)
        case["expect_error"] = {"code": "config_violations", "config": "policy"}
        self.assertReported(case, topic, "expect_error for config_violations needs a non-empty list of field paths")

    def test_error_with_fields_where_none(self):
        case, topic = example("retry_after", lambda case: "expect_error" in case)
        case["expect_error"] = {"code": "invalid_argument", "fields": ["value"]}
        self.assertReported(case, topic, "expect_error for invalid_argument has no fields list")

    def test_error_with_unknown_key(self):
        case, topic = example("retry_after", lambda case: "expect_error" in case)
        case["expect_error"]["why"] = "because"
        self.assertReported(case, topic, "expect_error has unknown keys ['why']")

    def test_both_expectations(self):
        case, topic = example("retry_after", lambda case: "expect" in case)
        case["expect_error"] = {"code": "invalid_header"}
        self.assertReported(case, topic, "needs exactly one of expect / expect_error")

    def test_error_where_the_kind_cannot_fail(self):
        case, topic = example("admit")
        del case["expect"]
        case["expect_error"] = {"code": "invalid_argument"}
        self.assertReported(case, topic, "this kind cannot fail")

    def test_step_that_returns_nothing_with_a_value(self):
        case, topic = example(
            "budget", lambda case: any(step["call"] == "on_request" for step in case.get("steps", []))
        )
        step_of(case, "on_request")["expect"] = {}
        self.assertReported(case, topic, "on_request returns nothing: its expect must be null")

    def test_step_that_returns_a_value_with_null(self):
        case, topic = example("budget", lambda case: any(step["call"] == "snapshot" for step in case.get("steps", [])))
        step_of(case, "snapshot")["expect"] = None
        self.assertReported(case, topic, "snapshot returns a value: its expect cannot be null")

    def test_step_that_cannot_fail_with_an_error(self):
        case, topic = example("breaker", lambda case: "steps" in case)
        step = step_of(case, "try_acquire")
        del step["expect"]
        step["expect_error"] = {"code": "invalid_argument"}
        self.assertReported(case, topic, "try_acquire cannot fail")

    def test_permit_of_a_step_that_is_not_a_grant(self):
        case, topic = example("breaker", lambda case: any("permit_step" in step for step in case.get("steps", [])))
        step = next(step for step in case["steps"] if "permit_step" in step)
        step["permit_step"] = case["steps"].index(step)
        self.assertReported(case, topic, "permit_step must be the index of an earlier step")

    def test_steps_and_error_together(self):
        case, topic = example("budget", lambda case: "steps" in case)
        case["expect_error"] = {"code": "config_violations", "config": "budget", "fields": ["max_tokens"]}
        self.assertReported(case, topic, "a budget case has steps (valid configuration) or expect_error (invalid one)")

    def test_integer_beyond_its_bound(self):
        case, topic = example("redelivery")
        case["attempts"] = 2**32
        self.assertReported(case, topic, "attempts must be an integer in 0..=2^32-1")

    def test_integer_beyond_2_53(self):
        case, topic = example("admit")
        case["now_ms"] = 2**53
        self.assertReported(case, topic, "is beyond 2^53 - 1", "now_ms must be an integer in 0..=2^53-1")

    def test_string_field_of_another_type(self):
        case, topic = example("retry_after")
        case["value"] = 5
        self.assertReported(case, topic, "value must be a string")

    def test_enum_field(self):
        case, topic = example("retry_after")
        case["reading"] = "sloppy"
        self.assertReported(case, topic, "reading must be one of ['lenient', 'strict']")

    def test_headers_of_strings(self):
        case, topic = example("http_response")
        case["headers"] = {"retry-after": 5}
        self.assertReported(case, topic, "headers must be an object of strings")

    def test_outcome_without_a_type(self):
        case, topic = example("classify")
        case["outcome"] = {}
        self.assertReported(case, topic, "outcome must be an object with a type")

    def test_idempotent_request_without_method(self):
        case, topic = example("driver", lambda case: "idempotent_request" in case)
        case["idempotent_request"] = "yes"
        case.pop("method")
        self.assertReported(case, topic, "idempotent_request must be true or false", "idempotent_request needs method")

    def test_named_dependency_where_only_a_configuration_goes(self):
        case, topic = example("driver", lambda case: "steps" in case)
        case["dependency"] = "aws_standard"
        self.assertReported(case, topic, "dependency must be an object")

    def test_unknown_named_dependency(self):
        case, topic = example("operation")
        case["dependency"] = "aws_legacy"
        self.assertReported(case, topic, "dependency must be an object or one of ['aws_standard', 'aws_standard_2026']")

    def test_policy_sources(self):
        case, topic = example("policy", lambda case: "policy" in case)
        case["profile"] = "standard"
        self.assertReported(case, topic, "needs exactly one of policy / profile / grpc_service_config")

    def test_service_config_fields_without_a_service_config(self):
        case, topic = example("policy", lambda case: "policy" in case)
        case["max_attempts_cap"] = 3
        self.assertReported(case, topic, "max_attempts_cap needs grpc_service_config")

    def test_service_config_without_method(self):
        case, topic = example(None, lambda case: "grpc_method" in case)
        del case["grpc_method"]
        self.assertReported(case, topic, "grpc_service_config needs grpc_method")

    def test_ids_and_descriptions(self):
        case, topic = example("policy")
        twin, bad, stray = copy.deepcopy(case), copy.deepcopy(case), copy.deepcopy(case)
        bad["id"], stray["id"] = "Policy.Upper", "budget.elsewhere"
        case["description"] = "The policy should be valid."
        self.assertReported(
            [case, twin, bad, stray],
            topic,
            "id already used",
            "id must match",
            "id must start with the file's topic",
            "without 'should'",
        )

    def test_operation_series_operation(self):
        case, topic = example("operation_series")
        case["operations"][0]["seed"] = 1
        self.assertReported(case, topic, "an operation is {start_ms, steps}")

    def test_file_format(self):
        case, topic = example("policy")
        document = {"schema": "retryplan-vectors/1", "description": "self-test", "cases": [case]}
        problems = lint_cases([case], topic, text=json.dumps(document, indent=4) + "\n")
        self.assertTrue(any("not canonically formatted" in problem for problem in problems), problems)
        problems = lint_cases([case], topic, text='{"schema": 1, "schema": 2}\n')
        self.assertTrue(any("duplicate key 'schema'" in problem for problem in problems), problems)


class RulesComeFromTheSchema(unittest.TestCase):
    """Changing schema.json changes what lint.py accepts: it keeps no copy of its own."""

    def test_a_new_error_code_in_the_schema_is_accepted(self):
        case, topic = example("retry_after", lambda case: "expect_error" in case)
        case["expect_error"] = {"code": "made_up"}
        self.assertTrue(lint_cases([case], topic))
        schema = copy.deepcopy(SCHEMA)
        schema["$defs"]["error"]["properties"]["code"]["enum"].append("made_up")
        self.assertEqual(lint_cases([case], topic, schema), [])

    def test_a_field_dropped_from_the_schema_is_refused(self):
        case, topic = example("redelivery")
        schema = copy.deepcopy(SCHEMA)
        del schema["$defs"]["redeliveryCase"]["properties"]["first_seen_ms"]
        schema["$defs"]["redeliveryCase"]["required"].remove("first_seen_ms")
        self.assertTrue(
            any("unknown keys ['first_seen_ms']" in problem for problem in lint_cases([case], topic, schema))
        )

    def test_a_schema_lint_cannot_read_is_a_problem(self):
        with tempfile.TemporaryDirectory() as directory:
            (Path(directory) / "schema.json").write_text('{"$defs": {}}', encoding="utf-8")
            linter, _ = lint.lint(Path(directory))
        self.assertTrue(any(problem.startswith("schema.json: not in the shape") for problem in linter.problems))


@unittest.skipUnless(lint.schema_validator(lint.Linter(None), SCHEMA)[0] is not None, "jsonschema is not installed")
class SchemaStatesWhatLintChecks(unittest.TestCase):
    """The rules once only in lint.py are in schema.json, so jsonschema enforces them too."""

    @staticmethod
    def validator(definition):
        schema = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": f"#/$defs/{definition}"}
        return lint.schema_validator(lint.Linter(None), schema)[0]

    def test_error_fields_by_code(self):
        validator = self.validator("error")
        violations = {"code": "config_violations", "config": "policy"}
        for error, valid in [
            (violations, False),
            ({**violations, "fields": ["x"]}, True),
            ({"code": "config_violations", "fields": ["x"]}, False),
            ({"code": "invalid_argument", "fields": ["x"]}, False),
            ({"code": "unsupported"}, False),
        ]:
            self.assertEqual(validator.is_valid(error), valid, error)

    def test_dependent_fields(self):
        validator = self.validator("case")
        case, _ = example("policy", lambda case: "policy" in case)
        case["max_attempts_cap"] = 3
        self.assertFalse(validator.is_valid(case))
        case, _ = example("driver", lambda case: "idempotent_request" in case)
        self.assertTrue(validator.is_valid(case))
        del case["method"]
        self.assertFalse(validator.is_valid(case))


if __name__ == "__main__":
    unittest.main()
