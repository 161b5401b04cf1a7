#!/usr/bin/env python3
"""Checks the retryplan conformance vectors (Python 3.9+, standard library; jsonschema if installed).

Usage: python3 tests/conformance/lint.py [DIR]   (DIR defaults to this file's directory)

Every *.json file in DIR except schema.json is a vector file. For each one it checks:

- it is UTF-8 JSON without duplicate object keys;
- the top level is exactly {"schema": "retryplan-vectors/1", "description", "cases"};
- every case has id, kind and description, plus exactly the fields its kind allows, and
  every step exactly the fields its call allows (the tables below mirror schema.json;
  keep them in step); a breaker step's permit_step names an earlier granted try_acquire, a budget step's charge_step an earlier granted try_retry;
- ids are unique across all files, match ^[a-z0-9_]+(\\.[a-z0-9_]+)+$, and start with
  the file's topic (its name, or the name's first word: "seed" for seed_scenarios.json);
- every integer is within +/- 9007199254740991 (2^53 - 1), so JavaScript reads it exactly;
- every case has exactly one of expect / expect_error, except that operation cases carry
  them per step and budget / breaker cases have either steps (each with its own) or an
  expect_error; a step whose call returns nothing has "expect": null; an expect_error is
  {"code"} or, for policy errors, {"code", "fields"};
- descriptions state facts: the word "should" is not used;
- the file text is canonical: what the Rust runner's fill mode writes (serde_json pretty
  printing, two-space indent, UTF-8 unescaped, a final newline). That equals
  json.dumps(obj, indent=2, ensure_ascii=False) + "\\n" except for one detail: serde_json
  writes a float's negative exponent without padding (1e-7 where Python writes 1e-07),
  so this script formats floats that way;
- when the jsonschema package is importable, every file also validates against
  schema.json (draft 2020-12); without it that check is skipped, and the summary says which.

Exits 1 with one line per problem, or prints a summary such as
"lint: 80 cases in 11 files OK (validated against schema.json with jsonschema 4.23.0)".
"""

import importlib.metadata
import json
import math
import re
import sys
from pathlib import Path

SCHEMA_TAG = "retryplan-vectors/1"
MAX_EXACT = 2**53 - 1
ID_PATTERN = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")
SHOULD = re.compile(r"\bshould\b", re.IGNORECASE)

COMMON = {"id", "kind", "description"}
NAMED_DEPENDENCIES = {"aws_standard", "aws_standard_2026"}  # built-in dependencies, by name
POLICY_SOURCE = {"policy", "profile", "grpc_service_config"}  # exactly one of them
SERVICE_CONFIG_SOURCE = {"grpc_method", "max_attempts_cap"}  # with grpc_service_config (grpc_method required)
EXPECTATION = {"expect", "expect_error"}  # exactly one of them (expect only, where noted)

# kind -> (required fields, optional fields, takes a policy/profile, may expect an error).
# Kinds in STEP_CALLS run steps: operation cases always (expectations per step), budget and
# breaker cases unless their configuration is invalid (then expect_error and no steps).
KINDS = {
    "operation": (
        {"seed", "start_ms", "steps"},
        {"deadline_ms", "idempotency_key", "expect_idempotency_key", "dependency"},
        True,
        None,
    ),
    "driver": (
        {"seed", "start_ms"},
        {"steps", "deadline_ms", "idempotency_key", "dependency", "method", "idempotent_request", "concurrency"},
        True,
        True,
    ),
    "operation_series": ({"seed", "operations"}, {"dependency"}, True, None),
    "grpc_service_config": ({"grpc_service_config"}, {"max_attempts_cap", "lookups"}, False, True),
    "grpc_timeout_ns_encode": ({"timeout_ns"}, set(), False, False),
    "grpc_timeout_ns_parse": ({"value"}, set(), False, True),
    "aws_error_code": (set(), {"errortype_header", "body"}, False, False),
    "budget": ({"budget"}, {"steps"}, False, True),
    "breaker": ({"breaker"}, {"steps"}, False, True),
    "dependency": ({"dependency"}, set(), False, True),
    "redelivery": ({"attempts", "first_seen_ms", "now_ms", "outcome"}, set(), True, True),
    "policy": (set(), set(), True, True),
    "backoff_ceilings": ({"retries"}, set(), True, True),
    "classify": ({"outcome"}, set(), True, True),
    "explain": (set(), {"deadline_ms", "first_attempt_at_ms"}, True, True),
    "retry_after": ({"value", "now_unix_ms"}, {"reading"}, False, True),
    "rate_limit": ({"value"}, {"policy_value"}, False, True),
    "rate_limit_reset": ({"value", "now_unix_ms"}, set(), False, True),
    "http_response": ({"status", "headers", "now_unix_ms"}, {"reading"}, False, False),
    "retry_after_ms": ({"value"}, set(), False, True),
    "http_outcome": ({"status", "now_unix_ms"}, {"retry_after", "retry_after_ms"}, False, False),
    "grpc_pushback": ({"value"}, set(), False, False),
    "grpc_timeout_encode": ({"timeout_ms"}, set(), False, False),
    "grpc_timeout_parse": ({"value"}, set(), False, True),
    "admit": ({"deadline_ms", "now_ms", "reserve_ms", "minimum_useful_ms"}, set(), False, False),
}
INTEGER_FIELDS = {
    "seed", "start_ms", "deadline_ms", "retries", "now_unix_ms", "timeout_ms",
    "first_attempt_at_ms", "now_ms", "reserve_ms", "minimum_useful_ms", "attempts", "first_seen_ms",
}
OBJECT_FIELDS = {"budget", "breaker"}  # configurations read by serde in the runner: always objects
STRING_FIELDS = {"value", "profile", "idempotency_key", "expect_idempotency_key", "method", "timeout_ns", "errortype_header", "body", "policy_value"}
READINGS = {"strict", "lenient"}
CONCURRENCY = {"concurrent", "sequential", "sequential_without_hedging"}

# What a call's step expects: EITHER a value or an error, a VALUE (never an error, never
# null), or NOTHING ("expect": null, the call returns nothing).
EITHER, VALUE, NOTHING, NOTHING_OR_ERROR = "either", "value", "nothing", "nothing_or_error"

# kind -> call -> (required step fields besides the expectation, optional fields, what it expects)
STEP_CALLS = {
    "operation": {
        "poll": ({"at_ms", "call"}, set(), EITHER),
        "cancel": ({"at_ms", "call"}, set(), EITHER),
        "outcome": ({"at_ms", "call", "attempt", "outcome"}, set(), EITHER),
        "dependency_snapshot": ({"at_ms", "call"}, set(), VALUE),
        "budget_on_failure": ({"at_ms", "call"}, set(), NOTHING),
    },
    "driver": {
        "poll": ({"at_ms", "call"}, set(), VALUE),
        "result": ({"at_ms", "call", "attempt"}, {"outcome", "failure", "response", "now_unix_ms"}, EITHER),
        "cancel": ({"at_ms", "call"}, set(), NOTHING),
        "events": ({"at_ms", "call"}, set(), VALUE),
        "stats": ({"at_ms", "call"}, set(), VALUE),
    },
    "budget": {
        "on_request": ({"at_ms", "call"}, set(), NOTHING),
        "try_retry": ({"at_ms", "call"}, {"after_timeout"}, VALUE),
        "on_success": ({"at_ms", "call"}, {"charge_step"}, NOTHING_OR_ERROR),
        "on_failure": ({"at_ms", "call"}, {"charge_step"}, NOTHING_OR_ERROR),
        "snapshot": ({"at_ms", "call"}, set(), VALUE),
        "acquire": ({"at_ms", "call", "amount"}, set(), VALUE),
        "release": ({"at_ms", "call", "amount"}, set(), NOTHING),
    },
    "breaker": {
        "try_acquire": ({"at_ms", "call"}, set(), VALUE),
        "on_success": ({"at_ms", "call", "permit_step"}, set(), NOTHING_OR_ERROR),
        "on_failure": ({"at_ms", "call", "permit_step"}, set(), NOTHING_OR_ERROR),
        "release": ({"at_ms", "call", "permit_step"}, set(), NOTHING_OR_ERROR),
        "snapshot": ({"at_ms", "call"}, set(), VALUE),
    },
}
ERROR_CODES = {
    "invalid_policy", "invalid_policy_json", "unknown_profile", "operation_ended",
    "attempt_not_running", "invalid_argument", "invalid_header", "entropy_unavailable", "unsupported",
}
ERRORS_WITH_FIELDS = {"invalid_policy", "invalid_policy_json", "unsupported"}
# The failure vocabulary (core/src/failure.rs): what a driver result may name.
FAILURES = {
    "dns_lookup_failed", "connection_refused", "unreachable", "connect_timeout", "tls_handshake_failed",
    "pool_timeout", "write_failed", "connection_lost", "read_timeout", "body_broken", "malformed_response",
    "attempt_timed_out", "cancelled",
}


class DuplicateKey(ValueError):
    pass


def no_duplicates(pairs):
    seen = {}
    for key, value in pairs:
        if key in seen:
            raise DuplicateKey(f"duplicate key {key!r}")
        seen[key] = value
    return seen


def canonical_float(value):
    if not math.isfinite(value):
        raise ValueError(f"non-finite number {value!r}")
    text = repr(value)
    # serde_json (ryu) writes 1e-7 where Python writes 1e-07; positive exponents agree (1e+16).
    return re.sub(r"e-0+(\d)", r"e-\1", text)


def canonical(value, indent=0):
    """The text serde_json::to_string_pretty writes for this value (no final newline)."""
    pad = "  " * (indent + 1)
    end = "  " * indent
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = [f"{pad}{json.dumps(k, ensure_ascii=False)}: {canonical(v, indent + 1)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + end + "}"
    if isinstance(value, list):
        if not value:
            return "[]"
        return "[\n" + ",\n".join(pad + canonical(v, indent + 1) for v in value) + "\n" + end + "]"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return canonical_float(value)
    return json.dumps(value, ensure_ascii=False)


def is_uint(value):
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_EXACT


def schema_validator(linter, schema):
    """A draft 2020-12 validator for schema.json and a note for the summary; no validator
    without the jsonschema package (or with one too old for draft 2020-12)."""
    try:
        import jsonschema
    except ImportError:
        return None, "schema validation skipped: the jsonschema package is not installed"
    try:
        version = importlib.metadata.version("jsonschema")
    except importlib.metadata.PackageNotFoundError:
        version = "(unknown version)"
    validator_class = getattr(jsonschema, "Draft202012Validator", None)
    if validator_class is None:
        return None, f"schema validation skipped: jsonschema {version} has no draft 2020-12 support"
    try:
        validator_class.check_schema(schema)
    except jsonschema.exceptions.SchemaError as error:
        linter.fail("schema.json", f"not a valid draft 2020-12 schema: {error.message}")
        return None, f"schema validation skipped: schema.json is invalid (jsonschema {version})"
    return validator_class(schema), f"validated against schema.json with jsonschema {version}"


# Fields that say which branch of a oneOf an object is meant for: a branch whose tag
# does not match is not what the author meant, so its errors are not reported.
DISCRIMINATORS = {"kind", "type", "call", "class", "granted"}


def most_specific(error):
    """The error to report for a failed oneOf: the nested error of the branch whose tag
    (kind, type, call...) matches, recursively; jsonschema's best_match otherwise."""
    from jsonschema.exceptions import best_match

    if not error.context:
        return error
    branches = {}
    for sub_error in error.context:
        branches.setdefault(sub_error.relative_schema_path[0], []).append(sub_error)
    def tag_mismatch(sub_error):
        path = list(sub_error.relative_path)
        return sub_error.validator in ("const", "enum") and len(path) == 1 and path[0] in DISCRIMINATORS

    meant = [errors for errors in branches.values() if not any(map(tag_mismatch, errors))]
    candidates = [e for errors in meant for e in errors] if meant else list(error.context)
    return most_specific(best_match(candidates))


def schema_message(error):
    if error.validator == "oneOf" and not error.context:
        # jsonschema's own message would print the whole instance
        message = f"matches more than one alternative of {json.dumps(error.validator_value)}"
    else:
        message = error.message
    return message if len(message) <= 240 else message[:237] + "..."


class Linter:
    MAX_SCHEMA_ERRORS_PER_FILE = 10

    def __init__(self):
        self.problems = []
        self.ids = {}
        self.cases = 0
        self.files = 0
        self.validator = None

    def fail(self, where, message):
        self.problems.append(f"{where}: {message}")

    def check_numbers(self, where, value, path="$"):
        if isinstance(value, bool) or value is None or isinstance(value, str):
            return
        if isinstance(value, int):
            if abs(value) > MAX_EXACT:
                self.fail(where, f"{path} = {value} is beyond 2^53 - 1 (JavaScript cannot hold it exactly)")
        elif isinstance(value, float):
            if not math.isfinite(value) or abs(value) > MAX_EXACT:
                self.fail(where, f"{path} = {value!r} is not a finite number within 2^53 - 1")
        elif isinstance(value, dict):
            for key, item in value.items():
                self.check_numbers(where, item, f"{path}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.check_numbers(where, item, f"{path}[{index}]")

    def check_expectation(self, where, holder, error_allowed=True):
        present = EXPECTATION & holder.keys()
        if len(present) != 1:
            self.fail(where, f"needs exactly one of expect / expect_error, has {sorted(present) or 'neither'}")
            return
        if "expect_error" in holder:
            if not error_allowed:
                self.fail(where, "this kind cannot fail: use expect, not expect_error")
            error = holder["expect_error"]
            if not isinstance(error, dict) or "code" not in error:
                self.fail(where, "expect_error must be an object with a code")
                return
            unknown = set(error) - {"code", "fields"}
            if unknown:
                self.fail(where, f"expect_error has unknown keys {sorted(unknown)}")
            code = error["code"]
            if code not in ERROR_CODES:
                self.fail(where, f"expect_error.code {code!r} is not one of {sorted(ERROR_CODES)}")
            if code in ERRORS_WITH_FIELDS:
                fields = error.get("fields")
                if not isinstance(fields, list) or not fields or not all(isinstance(f, str) for f in fields):
                    self.fail(where, f"expect_error for {code} needs a non-empty list of field paths")
            elif "fields" in error:
                self.fail(where, f"expect_error for {code} has no fields list")

    def check_step(self, where, step, kind, case, steps, index):
        if not isinstance(step, dict):
            self.fail(where, "a step must be an object")
            return
        calls = STEP_CALLS[kind]
        call = step.get("call")
        if call not in calls:
            self.fail(where, f"a {kind} step's call must be one of {sorted(calls)}, got {call!r}")
            return
        required, optional, expects = calls[call]
        allowed = required | optional | EXPECTATION
        missing = required - step.keys()
        unknown = step.keys() - allowed
        if missing:
            self.fail(where, f"{call} step lacks {sorted(missing)}")
        if unknown:
            self.fail(where, f"{call} step has unknown keys {sorted(unknown)}")
        if "at_ms" in step and not is_uint(step["at_ms"]):
            self.fail(where, "at_ms must be a non-negative integer")
        for key in ("attempt",):
            if key in step and not (is_uint(step[key]) and step[key] <= 2**32 - 1):
                self.fail(where, f"{key} must be a non-negative 32-bit integer")
        if "after_timeout" in step and not isinstance(step["after_timeout"], bool):
            self.fail(where, "after_timeout must be true or false")
        if "outcome" in step and not (isinstance(step["outcome"], dict) and isinstance(step["outcome"].get("type"), str)):
            self.fail(where, "outcome must be an object with a type")
        if call == "result" and len({"outcome", "failure", "response"} & step.keys()) != 1:
            self.fail(where, "a result step hands in exactly one of outcome / failure / response")
        if "failure" in step and step["failure"] not in FAILURES:
            self.fail(where, f"failure must be one of {sorted(FAILURES)}, got {step['failure']!r}")
        if "response" in step and not (
            isinstance(step["response"], dict) and is_uint(step["response"].get("status"))
            and isinstance(step["response"].get("headers", {}), dict)
        ):
            self.fail(where, "response must be {status, headers?} with an integer status")
        if "now_unix_ms" in step and not is_uint(step["now_unix_ms"]):
            self.fail(where, "now_unix_ms must be a non-negative integer")
        if "permit_step" in step:
            self.check_grant(where, "permit_step", "try_acquire", step["permit_step"], steps, index)
        if "charge_step" in step:
            self.check_grant(where, "charge_step", "try_retry", step["charge_step"], steps, index)
        if call in ("dependency_snapshot", "budget_on_failure"):
            dependency = case.get("dependency")
            if (isinstance(dependency, str) and dependency in NAMED_DEPENDENCIES) or (dependency is None and "grpc_service_config" in case):
                pass  # an AWS standard quota, or the service config's throttling
            elif not isinstance(dependency, dict):
                self.fail(where, f"{call} needs the case's dependency")
            elif call == "budget_on_failure" and not isinstance(dependency.get("budget"), dict):
                self.fail(where, "budget_on_failure needs a budget in the case's dependency")
        if expects == EITHER or (expects == NOTHING_OR_ERROR and "expect_error" in step):
            self.check_expectation(where, step)
        elif expects == NOTHING_OR_ERROR and ("expect" not in step or step["expect"] is not None):
            self.fail(where, f"{call} returns nothing: it needs expect null, or expect_error")
        elif "expect_error" in step or "expect" not in step:
            self.fail(where, f"{call} cannot fail: it needs expect (and no expect_error)")
        elif expects == NOTHING and step["expect"] is not None:
            self.fail(where, f"{call} returns nothing: its expect must be null")
        elif expects == VALUE and step["expect"] is None:
            self.fail(where, f"{call} returns a value: its expect cannot be null")

    def check_grant(self, where, key, granting_call, grant_step, steps, index):
        """permit_step / charge_step names an earlier try_acquire / try_retry step that was granted (its expect says so)."""
        if not (is_uint(grant_step) and grant_step < index):
            self.fail(where, f"{key} must be the index of an earlier step")
            return
        target = steps[grant_step]
        if not (isinstance(target, dict) and target.get("call") == granting_call):
            self.fail(where, f"{key} {grant_step} is not a {granting_call} step")
        elif isinstance(target.get("expect"), dict) and target["expect"].get("granted") is not True:
            self.fail(where, f"{key} {grant_step} was not granted: there is nothing to hand back")

    def check_case(self, where, case, topic):
        if not isinstance(case, dict):
            self.fail(where, "a case must be an object")
            return
        self.cases += 1
        missing_common = COMMON - case.keys()
        if missing_common:
            self.fail(where, f"lacks {sorted(missing_common)}")
        case_id = case.get("id")
        if isinstance(case_id, str):
            where = f"{where} ({case_id})"
            if not ID_PATTERN.match(case_id):
                self.fail(where, "id must match ^[a-z0-9_]+(\\.[a-z0-9_]+)+$")
            elif topic not in (case_id.split(".")[0],) and not topic.startswith(case_id.split(".")[0] + "_"):
                self.fail(where, f"id must start with the file's topic {topic!r}")
            if case_id in self.ids:
                self.fail(where, f"id already used in {self.ids[case_id]}")
            else:
                self.ids[case_id] = where.split(" ")[0]
        elif "id" in case:
            self.fail(where, "id must be a string")
        description = case.get("description")
        if "description" in case and not (isinstance(description, str) and description.strip()):
            self.fail(where, "description must be a non-empty string")
        elif isinstance(description, str) and SHOULD.search(description):
            self.fail(where, "description must state a fact, without 'should'")
        kind = case.get("kind")
        if kind not in KINDS:
            self.fail(where, f"kind must be one of {sorted(KINDS)}, got {kind!r}")
            return
        required, optional, takes_policy, error_allowed = KINDS[kind]
        allowed = COMMON | required | optional
        if takes_policy:
            allowed |= POLICY_SOURCE
            sources = POLICY_SOURCE & case.keys()
            if len(sources) != 1:
                self.fail(where, f"needs exactly one of policy / profile / grpc_service_config, has {sorted(sources) or 'neither'}")
            if "grpc_service_config" in case:
                allowed |= SERVICE_CONFIG_SOURCE
                if not isinstance(case.get("grpc_method"), dict):
                    self.fail(where, "grpc_service_config needs grpc_method {service, method}")
        if kind not in STEP_CALLS and kind != "operation_series":
            allowed |= EXPECTATION
        elif kind not in ("operation", "operation_series"):
            allowed.add("expect_error")
        missing = required - case.keys()
        unknown = case.keys() - allowed
        if missing:
            self.fail(where, f"{kind} case lacks {sorted(missing)}")
        if unknown:
            self.fail(where, f"{kind} case has unknown keys {sorted(unknown)}")
        for key in INTEGER_FIELDS & case.keys():
            if not is_uint(case[key]):
                self.fail(where, f"{key} must be an integer in 0..=2^53-1")
        for key in STRING_FIELDS & case.keys():
            if not isinstance(case[key], str):
                self.fail(where, f"{key} must be a string")
        for key in OBJECT_FIELDS & case.keys():
            if not isinstance(case[key], dict):
                self.fail(where, f"{key} must be an object")
        if "reading" in case and case["reading"] not in READINGS:
            self.fail(where, f"reading must be one of {sorted(READINGS)}")
        if "headers" in case and not (
            isinstance(case["headers"], dict) and all(isinstance(value, str) for value in case["headers"].values())
        ):
            self.fail(where, "headers must be an object of strings")
        if "concurrency" in case and case["concurrency"] not in CONCURRENCY:
            self.fail(where, f"concurrency must be one of {sorted(CONCURRENCY)}")
        if "idempotent_request" in case and not isinstance(case["idempotent_request"], bool):
            self.fail(where, "idempotent_request must be true or false")
        if "idempotent_request" in case and "method" not in case:
            self.fail(where, "idempotent_request needs a method")
        if kind in ("operation", "operation_series", "driver") and "dependency" in case and not (
            isinstance(case["dependency"], dict) or (isinstance(case["dependency"], str) and case["dependency"] in NAMED_DEPENDENCIES)
        ):
            self.fail(where, f"dependency must be an object (a valid dependency configuration) or one of {sorted(NAMED_DEPENDENCIES)}")
        if "attempts" in case and is_uint(case["attempts"]) and case["attempts"] > 2**32 - 1:
            self.fail(where, "attempts must be a 32-bit integer")
        if "outcome" in case and not (isinstance(case["outcome"], dict) and isinstance(case["outcome"].get("type"), str)):
            self.fail(where, "outcome must be an object with a type")
        if kind == "operation":
            self.check_steps(where, case, kind)
        elif kind == "operation_series":
            operations = case.get("operations")
            if not isinstance(operations, list) or not operations:
                self.fail(where, "operations must be a non-empty list")
                return
            for index, operation in enumerate(operations):
                if not (isinstance(operation, dict) and operation.keys() == {"start_ms", "steps"}):
                    self.fail(f"{where} operation {index}", "an operation is {start_ms, steps}")
                    continue
                self.check_steps(f"{where} operation {index}", {**case, **operation}, "operation")
        elif kind in STEP_CALLS:
            if ("steps" in case) == ("expect_error" in case):
                self.fail(where, f"a {kind} case has steps (valid configuration) or expect_error (invalid one), one of them")
            elif "steps" in case:
                self.check_steps(where, case, kind)
            else:
                self.check_expectation(where, case, error_allowed)
        else:
            self.check_expectation(where, case, error_allowed)

    def check_steps(self, where, case, kind):
        steps = case.get("steps")
        if not isinstance(steps, list) or not steps:
            self.fail(where, "steps must be a non-empty list")
            return
        for index, step in enumerate(steps):
            self.check_step(f"{where} step {index}", step, kind, case, steps, index)

    def check_file(self, path):
        self.files += 1
        where = path.name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            self.fail(where, f"cannot read: {error}")
            return
        try:
            document = json.loads(text, object_pairs_hook=no_duplicates)
        except (ValueError, DuplicateKey) as error:
            self.fail(where, f"not valid JSON: {error}")
            return
        try:
            expected = canonical(document) + "\n"
        except ValueError as error:
            self.fail(where, str(error))
            expected = text
        if text != expected:
            got_lines, want_lines = text.split("\n"), expected.split("\n")
            line = next((i for i, (a, b) in enumerate(zip(got_lines, want_lines)) if a != b), min(len(got_lines), len(want_lines)))
            self.fail(where, f"not canonically formatted (first difference at line {line + 1}); "
                             "rewrite it with the runner's fill mode or json.dumps(obj, indent=2, ensure_ascii=False)")
        self.check_numbers(where, document)
        if not isinstance(document, dict):
            self.fail(where, "the top level must be an object")
            return
        keys = set(document)
        if keys != {"schema", "description", "cases"}:
            self.fail(where, f"top-level keys must be schema, description, cases; got {sorted(keys)}")
        if document.get("schema") != SCHEMA_TAG:
            self.fail(where, f"schema must be {SCHEMA_TAG!r}")
        if not (isinstance(document.get("description"), str) and document["description"].strip()):
            self.fail(where, "description must be a non-empty string")
        cases = document.get("cases")
        if not isinstance(cases, list) or not cases:
            self.fail(where, "cases must be a non-empty list")
            return
        for index, case in enumerate(cases):
            self.check_case(f"{where} case {index}", case, path.stem)
        if self.validator is not None:
            self.check_schema(where, document)

    def check_schema(self, where, document):
        errors = sorted(self.validator.iter_errors(document), key=lambda error: list(map(str, error.absolute_path)))
        for error in errors[: self.MAX_SCHEMA_ERRORS_PER_FILE]:
            error = most_specific(error)
            path = list(error.absolute_path)
            location = where
            if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
                case = document["cases"][path[1]]
                case_id = case.get("id") if isinstance(case, dict) else None
                location = f"{where} case {path[1]}" + (f" ({case_id})" if isinstance(case_id, str) else "")
                path = path[2:]
            pointer = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path) or "$"
            self.fail(location, f"schema: at {pointer}: {schema_message(error)}")
        if len(errors) > self.MAX_SCHEMA_ERRORS_PER_FILE:
            self.fail(where, f"schema: {len(errors) - self.MAX_SCHEMA_ERRORS_PER_FILE} more schema error(s) not shown")


def check_readme_counts(linter, directory, paths):
    """The README's table of files must list every file with its case count."""
    readme = directory / "README.md"
    if not readme.exists():
        return
    listed = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        match = re.match(r"^\| `([a-z0-9_]+\.json)` \|.*\| (\d+) \|$", line)
        if match:
            listed[match.group(1)] = int(match.group(2))
    for path in paths:
        try:
            count = len(json.loads(path.read_text(encoding="utf-8")).get("cases", []))
        except (ValueError, AttributeError):
            continue
        if path.name not in listed:
            linter.fail("README.md", f"the table of files does not list {path.name}")
        elif listed[path.name] != count:
            linter.fail("README.md", f"the table says {path.name} has {listed[path.name]} cases; it has {count}")


def main(argv):
    directory = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent
    linter = Linter()
    schema_path = directory / "schema.json"
    note = "schema validation skipped: no schema.json"
    if schema_path.exists():
        try:
            schema = json.loads(schema_path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)
        except (ValueError, DuplicateKey) as error:
            linter.fail("schema.json", f"not valid JSON: {error}")
            note = "schema validation skipped: schema.json is not valid JSON"
        else:
            linter.validator, note = schema_validator(linter, schema)
    paths = sorted(p for p in directory.glob("*.json") if p.name != "schema.json")
    if not paths:
        linter.fail(str(directory), "no vector files found")
    for path in paths:
        linter.check_file(path)
    check_readme_counts(linter, directory, paths)
    if linter.problems:
        for problem in linter.problems:
            print(f"lint: {problem}", file=sys.stderr)
        print(f"lint: {len(linter.problems)} problem(s) in {linter.cases} cases in {linter.files} files ({note})",
              file=sys.stderr)
        return 1
    print(f"lint: {linter.cases} cases in {linter.files} files OK ({note})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
