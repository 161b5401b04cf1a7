#!/usr/bin/env python3
"""Checks the retryplan conformance vectors (Python 3.9+, standard library; jsonschema if installed).

Usage: python3 tests/conformance/lint.py [DIR]   (DIR defaults to this file's directory)

schema.json is the one source of truth for the vector format: this script reads its
rules from it at load time (the kinds, their required and allowed fields, the field
types, the step calls and what each expects, the error codes and which carry fields,
the failure names, the id pattern, the integer limit...). Every other *.json file in
DIR is a vector file. For each one it checks:

- it is UTF-8 JSON without duplicate object keys;
- the top level is exactly the schema's {"schema", "description", "cases"};
- every case has id, kind and description, plus exactly the fields its kind allows, and
  every step exactly the fields its call allows, each of the schema's type (integer
  within its bounds, string, boolean, enum, object); a breaker step's permit_step names
  an earlier granted try_acquire, a budget step's charge_step an earlier granted try_retry;
- ids are unique across all files, match the schema's id pattern, and start with the
  file's topic (its name, or the name's first word: "seed" for seed_scenarios.json);
- every integer is within +/- 9007199254740991 (2^53 - 1), so JavaScript reads it exactly;
- every case has exactly one of expect / expect_error, except that operation cases carry
  them per step and budget / breaker / driver cases have either steps (each with its own)
  or an expect_error; a step whose call returns nothing has "expect": null; an
  expect_error is {"code"} or, for the codes the schema names, {"code", "fields"},
  optionally with the "blame" the schema states for its code;
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
test_lint.py (next to this file) feeds it broken cases and checks each is reported.
"""

import importlib.metadata
import json
import math
import re
import sys
from pathlib import Path

from schema_rules import EITHER, NOTHING, NOTHING_OR_ERROR, VALUE, Rules, is_int

# lint.py's own rules, which the schema does not state.
SHOULD = re.compile(r"\bshould\b", re.IGNORECASE)  # descriptions state facts
GRANTS = {"permit_step": "try_acquire", "charge_step": "try_retry"}  # step index -> the granting call
STEP_NEEDS_DEPENDENCY = {"dependency_snapshot", "budget_on_failure"}  # calls that read the case's dependency


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

    def __init__(self, rules):
        self.rules = rules
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
        limit = self.rules.max_exact
        if isinstance(value, int):
            if abs(value) > limit:
                self.fail(where, f"{path} = {value} is beyond 2^53 - 1 (JavaScript cannot hold it exactly)")
        elif isinstance(value, float):
            if not math.isfinite(value) or abs(value) > limit:
                self.fail(where, f"{path} = {value!r} is not a finite number within 2^53 - 1")
        elif isinstance(value, dict):
            for key, item in value.items():
                self.check_numbers(where, item, f"{path}.{key}")
        elif isinstance(value, list):
            for index, item in enumerate(value):
                self.check_numbers(where, item, f"{path}[{index}]")

    def check_fields(self, where, shape, holder):
        for problem in shape.field_problems(holder):
            self.fail(where, problem)

    def check_expectation(self, where, holder, error_allowed=True):
        rules = self.rules
        present = rules.expectation & holder.keys()
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
            unknown = set(error) - rules.error_keys
            if unknown:
                self.fail(where, f"expect_error has unknown keys {sorted(unknown)}")
            code = error["code"]
            if code not in rules.error_codes:
                self.fail(where, f"expect_error.code {code!r} is not one of {sorted(rules.error_codes)}")
            if code in rules.errors_with_fields:
                fields = error.get("fields")
                if not isinstance(fields, list) or not fields or not all(isinstance(f, str) for f in fields):
                    self.fail(where, f"expect_error for {code} needs a non-empty list of field paths")
            elif "fields" in error:
                self.fail(where, f"expect_error for {code} has no fields list")
            if "blame" in error and error["blame"] != rules.blame_of_code.get(code):
                self.fail(
                    where,
                    f"expect_error.blame for {code} is {rules.blame_of_code.get(code)!r}, "
                    f"not {error['blame']!r} (one of {rules.blames})",
                )

    def check_step(self, where, step, kind, case, steps, index):
        if not isinstance(step, dict):
            self.fail(where, "a step must be an object")
            return
        call = step.get("call")
        if not isinstance(call, str) or call not in kind.calls:
            self.fail(where, f"a {kind.name} step's call must be one of {sorted(kind.calls)}, got {call!r}")
            return
        spec = kind.calls[call]
        missing = spec.required - step.keys()
        unknown = step.keys() - spec.allowed
        if missing:
            self.fail(where, f"{call} step lacks {sorted(missing)}")
        if unknown:
            self.fail(where, f"{call} step has unknown keys {sorted(unknown)}")
        self.check_fields(where, spec.shape, step)
        for group in spec.one_of:
            if len(set(group) & step.keys()) != 1:
                self.fail(where, f"a {call} step hands in exactly one of {' / '.join(group)}")
        for key, granting_call in GRANTS.items():
            if key in step:
                self.check_grant(where, key, granting_call, step[key], steps, index)
        if call in STEP_NEEDS_DEPENDENCY:
            dependency = case.get("dependency")
            if (isinstance(dependency, str) and dependency in kind.dependencies) or (
                dependency is None and "grpc_service_config" in case
            ):
                pass  # an AWS standard quota, or the service config's throttling
            elif not isinstance(dependency, dict):
                self.fail(where, f"{call} needs the case's dependency")
            elif call == "budget_on_failure" and not isinstance(dependency.get("budget"), dict):
                self.fail(where, "budget_on_failure needs a budget in the case's dependency")
        expects = spec.expects
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
        if not (is_int(grant_step) and 0 <= grant_step < index):
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
        rules = self.rules
        self.cases += 1
        missing_common = rules.common - case.keys()
        if missing_common:
            self.fail(where, f"lacks {sorted(missing_common)}")
        case_id = case.get("id")
        if isinstance(case_id, str):
            where = f"{where} ({case_id})"
            if not rules.id_regex.match(case_id):
                self.fail(where, f"id must match {rules.id_pattern}")
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
        if not isinstance(kind, str) or kind not in rules.kinds:
            self.fail(where, f"kind must be one of {sorted(rules.kinds)}, got {kind!r}")
            return
        kind = rules.kinds[kind]
        if kind.takes_policy:
            sources = {group[0] for group in rules.policy_group} & case.keys()
            if len(sources) != 1:
                names = " / ".join(group[0] for group in rules.policy_group if group[0] in kind.allowed)
                self.fail(where, f"needs exactly one of {names}, has {sorted(sources) or 'neither'}")
            for group in rules.policy_group:
                if group[0] in case and set(group) - case.keys():
                    self.fail(where, f"{group[0]} needs {' and '.join(sorted(set(group) - case.keys()))}")
        missing = kind.required - case.keys()
        unknown = case.keys() - kind.allowed
        if missing:
            self.fail(where, f"{kind.name} case lacks {sorted(missing)}")
        if unknown:
            self.fail(where, f"{kind.name} case has unknown keys {sorted(unknown)}")
        for key, needed in kind.needs.items():
            if key in case and set(needed) - case.keys():
                self.fail(where, f"{key} needs {' and '.join(sorted(set(needed) - case.keys()))}")
        self.check_fields(where, kind.shape, case)
        if kind.operation is not None:
            operations = case.get("operations")
            if not isinstance(operations, list) or not operations:
                self.fail(where, "operations must be a non-empty list")
                return
            keys = set(kind.operation["properties"])
            for index, operation in enumerate(operations):
                if not (isinstance(operation, dict) and operation.keys() == keys):
                    self.fail(f"{where} operation {index}", f"an operation is {{{', '.join(sorted(keys))}}}")
                    continue
                self.check_fields(f"{where} operation {index}", kind.operation_shape, operation)
                self.check_steps(f"{where} operation {index}", {**case, **operation}, kind)
        elif kind.steps_or_error:
            if ("steps" in case) == ("expect_error" in case):
                self.fail(
                    where,
                    f"a {kind.name} case has steps (valid configuration) or expect_error (invalid one), one of them",
                )
            elif "steps" in case:
                self.check_steps(where, case, kind)
            else:
                self.check_expectation(where, case, kind.may_fail)
        elif kind.calls is not None:
            self.check_steps(where, case, kind)
        else:
            self.check_expectation(where, case, kind.may_fail)

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
            line = next(
                (i for i, (a, b) in enumerate(zip(got_lines, want_lines, strict=False)) if a != b),
                min(len(got_lines), len(want_lines)),
            )
            self.fail(
                where,
                f"not canonically formatted (first difference at line {line + 1}); "
                "rewrite it with the runner's fill mode or json.dumps(obj, indent=2, ensure_ascii=False)",
            )
        self.check_numbers(where, document)
        if not isinstance(document, dict):
            self.fail(where, "the top level must be an object")
            return
        keys, top_level = set(document), self.rules.top_level
        if keys != set(top_level):
            self.fail(where, f"top-level keys must be {', '.join(top_level)}; got {sorted(keys)}")
        if document.get("schema") != self.rules.schema_tag:
            self.fail(where, f"schema must be {self.rules.schema_tag!r}")
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


def load_rules(linter, directory):
    """The rules from DIR/schema.json and the schema validator with its summary note;
    no rules (and a problem) when schema.json is missing, not JSON or not in the shape read here."""
    schema_path = directory / "schema.json"
    try:
        schema = json.loads(schema_path.read_text(encoding="utf-8"), object_pairs_hook=no_duplicates)
    except (OSError, UnicodeDecodeError, ValueError, DuplicateKey) as error:
        linter.fail("schema.json", f"cannot read the rules: {error}")
        return None, None, ""
    try:
        rules = Rules(schema)
    except (KeyError, TypeError, AttributeError, IndexError, ValueError, re.error) as error:
        linter.fail("schema.json", f"not in the shape lint.py reads its rules from: {type(error).__name__} {error}")
        return None, None, ""
    validator, note = schema_validator(linter, schema)
    return rules, validator, note


def lint(directory):
    """Lints every vector file in directory: the Linter with its problems, and the summary note."""
    linter = Linter(None)
    linter.rules, linter.validator, note = load_rules(linter, directory)
    if linter.rules is None:
        return linter, note
    paths = sorted(p for p in directory.glob("*.json") if p.name != "schema.json")
    if not paths:
        linter.fail(str(directory), "no vector files found")
    for path in paths:
        linter.check_file(path)
    check_readme_counts(linter, directory, paths)
    return linter, note


def main(argv):
    directory = Path(argv[1]) if len(argv) > 1 else Path(__file__).resolve().parent
    linter, note = lint(directory)
    if linter.problems:
        for problem in linter.problems:
            print(f"lint: {problem}", file=sys.stderr)
        print(
            f"lint: {len(linter.problems)} problem(s) in {linter.cases} cases in {linter.files} files ({note})",
            file=sys.stderr,
        )
        return 1
    print(f"lint: {linter.cases} cases in {linter.files} files OK ({note})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
