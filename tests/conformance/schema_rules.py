"""The conformance vector format's rules, read from schema.json (Python 3.9+, standard library).

lint.py checks the vectors with these; schema.json is their one source of truth, so
nothing here names a kind, a field, a call or an error code. Rules(schema) reads:

- the top level's tag and keys, the id pattern, the largest exact integer ($defs.uint);
- every case kind (a branch of $defs.case.oneOf, named by its kind const): its required
  and allowed fields, whether it takes a policy source ($defs.onePolicySource) and may
  expect an error, the fields other fields need (dependentRequired), each field's type;
- each kind's step calls (the branches of its step def's oneOf, by call const or enum):
  their fields and what they expect (a value, nothing: "expect" of type null, either of
  them or an error: an expect_error property), and the keys of which exactly one is given;
- the error codes and which of them carry fields ($defs.error's if/then).
"""

import re

# What a call's step expects, read from its branch of the schema: EITHER a value or an
# error, a VALUE (never an error, never null), NOTHING ("expect": null, the call returns
# nothing) or NOTHING_OR_ERROR.
EITHER, VALUE, NOTHING, NOTHING_OR_ERROR = "either", "value", "nothing", "nothing_or_error"


def resolve(defs, node):
    """node with its local "$ref": "#/$defs/NAME" chain followed."""
    while isinstance(node, dict) and "$ref" in node:
        node = defs[node["$ref"][len("#/$defs/") :]]
    return node


def exactly_one_groups(defs, node):
    """The groups node's allOf says exactly one of: oneOf lists whose branches only require keys."""
    groups = []
    for part in map(lambda part: resolve(defs, part), node.get("allOf", [])):
        branches = part.get("oneOf", [])
        if branches and all(set(branch) == {"required"} for branch in branches):
            groups.append([branch["required"] for branch in branches])
    return groups


def dependent_required(defs, node):
    """dependentRequired of node and of its allOf parts: key -> the keys it needs."""
    needs = dict(node.get("dependentRequired", {}))
    for part in node.get("allOf", []):
        needs.update(resolve(defs, part).get("dependentRequired", {}))
    return needs


class Field:
    """What a field's value must be, as far as the standard library checks it: an
    integer within bounds, a string, a boolean, one of an enum, or an object (with the
    string tags every alternative requires, of strings only, or with its own fields)."""

    def __init__(self, rules, node):
        node = resolve(rules.defs, node)
        self.type, self.names, self.tags, self.strings, self.object = None, [], [], False, None
        branches = [resolve(rules.defs, branch) for branch in node.get("oneOf", [])]
        if "enum" in node:
            self.type, self.names = "enum", node["enum"]
        elif branches:
            objects = [branch for branch in branches if branch.get("type") == "object"]
            self.names = [branch["const"] for branch in branches if "const" in branch]
            if objects and len(objects) + len(self.names) == len(branches):
                self.type = "object"
                self.tags = sorted(set.intersection(*(set(branch.get("required", [])) for branch in objects)))
        elif node.get("type") == "integer":
            self.type, self.minimum, self.maximum = (
                "integer",
                node.get("minimum", 0),
                node.get("maximum", rules.max_exact),
            )
        elif node.get("type") in ("string", "boolean"):
            self.type = node["type"]
        elif node.get("type") == "object":
            self.type = "object"
            self.strings = node.get("additionalProperties") == {"type": "string"}
            if "properties" in node:
                self.object = Shape(rules, node)

    def problems(self, key, value):
        """What is wrong with value as this field, one message each."""
        if self.type == "integer":
            if not (is_int(value) and self.minimum <= value <= self.maximum):
                bound = {2**53 - 1: "2^53-1", 2**32 - 1: "2^32-1"}.get(self.maximum, str(self.maximum))
                yield f"{key} must be an integer in {self.minimum}..={bound}"
        elif self.type == "string" and not isinstance(value, str):
            yield f"{key} must be a string"
        elif self.type == "boolean" and not isinstance(value, bool):
            yield f"{key} must be true or false"
        elif self.type == "enum" and value not in self.names:
            yield f"{key} must be one of {sorted(self.names)}, got {value!r}"
        elif self.type == "object" and not (isinstance(value, str) and value in self.names):
            if not isinstance(value, dict):
                yield f"{key} must be an object" + (f" or one of {sorted(self.names)}" if self.names else "")
            elif not all(isinstance(value.get(tag), str) for tag in self.tags):
                yield f"{key} must be an object with a {' and '.join(self.tags)}"
            elif self.strings and not all(isinstance(item, str) for item in value.values()):
                yield f"{key} must be an object of strings"
            elif self.object is not None:
                yield from self.object.problems(value, key + ".")


class Shape:
    """An object's required and allowed keys and its fields' rules."""

    def __init__(self, rules, node, skip=()):
        properties = node["properties"]
        self.required = set(node.get("required", []))
        self.allowed = set(properties) if node.get("additionalProperties") is False else None
        self.fields = {}
        for key, schema in properties.items():
            if key not in skip:
                field = Field(rules, schema)
                if field.type is not None:
                    self.fields[key] = field

    def problems(self, value, prefix=""):
        missing = self.required - value.keys()
        if missing:
            yield f"{prefix.rstrip('.')} lacks {sorted(missing)}"
        if self.allowed is not None and value.keys() - self.allowed:
            yield f"{prefix.rstrip('.')} has unknown keys {sorted(value.keys() - self.allowed)}"
        yield from self.field_problems(value, prefix)

    def field_problems(self, value, prefix=""):
        for key, field in self.fields.items():
            if key in value:
                yield from field.problems(prefix + key, value[key])


class Call:
    """One step call (one branch of a step's oneOf): its fields and what it expects."""

    def __init__(self, rules, branch):
        properties = branch["properties"]
        self.shape = Shape(rules, branch, skip={"call"} | rules.expectation)
        self.required = set(branch["required"]) - rules.expectation
        self.allowed = set(properties) | rules.expectation
        returns_nothing = resolve(rules.defs, properties.get("expect", {})).get("type") == "null"
        if "expect_error" in properties:
            self.expects = NOTHING_OR_ERROR if returns_nothing else EITHER
        else:
            self.expects = NOTHING if returns_nothing else VALUE
        self.one_of = [
            sum(group, []) for group in exactly_one_groups(rules.defs, branch) if group != rules.expectation_group
        ]


def step_branches(rules, step):
    """The branches of a step definition's oneOf, a branch that is itself a oneOf of steps
    (propagatedDriverStep names driverStep's) replaced by its own branches."""
    for branch in (resolve(rules.defs, branch) for branch in resolve(rules.defs, step)["oneOf"]):
        if "properties" in branch:
            yield branch
        else:
            yield from step_branches(rules, branch)


def step_calls(rules, step):
    """call name -> Call, from a step definition's oneOf."""
    calls = {}
    for branch in step_branches(rules, step):
        call = branch["properties"]["call"]
        for name in call["enum"] if "enum" in call else [call["const"]]:
            calls[name] = Call(rules, branch)
    return calls


class Kind:
    """One case kind (one branch of $defs.case.oneOf)."""

    def __init__(self, rules, node):
        properties = node["properties"]
        self.name = properties["kind"]["const"]
        groups = exactly_one_groups(rules.defs, node)
        self.takes_policy = rules.policy_group in groups
        self.required = set(node["required"]) - rules.common - rules.expectation
        self.allowed = set(properties)
        self.may_fail = "expect_error" in properties
        self.needs = dependent_required(rules.defs, node)
        self.shape = Shape(rules, node, skip=rules.common | rules.expectation | {"steps", "operations"})
        self.calls, self.operation = None, None
        if "steps" in properties:
            self.calls = step_calls(rules, properties["steps"]["items"])
        elif "operations" in properties:
            self.operation = resolve(rules.defs, properties["operations"]["items"])
            self.operation_shape = Shape(rules, self.operation, skip={"steps"})
            self.calls = step_calls(rules, self.operation["properties"]["steps"]["items"])
        # Budget, breaker and driver cases: steps for a valid configuration, or expect_error.
        self.steps_or_error = self.calls is not None and self.may_fail
        if self.calls is None:
            self.allowed |= rules.expectation  # so an expect_error where none may be is named as such

    @property
    def dependencies(self):
        """The built-in dependencies this kind's dependency field may name."""
        field = self.shape.fields.get("dependency")
        return field.names if field is not None else []


class Rules:
    """The vector format as schema.json states it."""

    def __init__(self, schema):
        self.defs = defs = schema["$defs"]
        self.schema_tag = schema["properties"]["schema"]["const"]
        self.top_level = schema["required"]
        self.id_pattern = defs["id"]["pattern"]
        self.id_regex = re.compile(self.id_pattern)
        self.max_exact = defs["uint"]["maximum"]
        self.policy_group = exactly_one_groups(defs, {"allOf": [defs["onePolicySource"]]})[0]
        self.expectation_group = exactly_one_groups(defs, {"allOf": [defs["oneExpectation"]]})[0]
        self.expectation = {group[0] for group in self.expectation_group}
        error = defs["error"]
        self.error_keys = set(error["properties"])
        self.error_codes = error["properties"]["code"]["enum"]
        self.errors_with_fields = [
            code
            for part in error["allOf"]
            if "fields" in part["then"].get("required", [])
            for code in part["if"]["properties"]["code"]["enum"]
        ]
        self.blames = error["properties"]["blame"]["enum"]
        self.blame_of_code = {
            code: part["then"]["properties"]["blame"]["const"]
            for part in error["allOf"]
            if "blame" in part["then"].get("properties", {})
            for code in part["if"]["properties"]["code"]["enum"]
        }
        cases = [resolve(defs, case) for case in defs["case"]["oneOf"]]
        self.common = set.intersection(*(set(case["required"]) for case in cases))
        self.kinds = {kind.name: kind for kind in (Kind(self, case) for case in cases)}


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)
