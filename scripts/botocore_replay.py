#!/usr/bin/env python3
"""Differential replay of the AWS standard-mode profiles against botocore itself.

Random call series (HTTP statuses, error codes, `x-amz-retry-after` values,
connect/read timeouts, connection errors, other exceptions; several calls
sharing one quota) run through botocore's own standard retry handler, built by
`botocore.retries.standard.register_retry_handler` on a stand-in client, and
through the engine (`retryplan.Operation` with the matching profile and
dependency). After every attempt both sides must agree on:

- retry or not, and the reason when not (botocore's `MaxAttemptsReached` /
  `RetryQuotaReached` metadata, or no retryable condition);
- the delay: botocore's `ExponentialBackoff.delay_amount` is monotone in its
  `random()`, so the engine's delay (whole ms) must be what botocore computes
  for some `random()` in [0, 1] (within 1 ms); over a run, the largest fraction
  of its range each (kind, retry) reached is reported, so a range that is too
  wide shows as well as one too narrow;
- the quota's available units after the step (the engine takes a retry's
  units when the retry starts, botocore when it decides: both are compared
  once the retry has started);
- the quota after a call ends (refunds on a 2xx).

Which revision: botocore 1.44 and later has only the 2026 revision (2.1;
`NEW_RETRIES_ENABLED` is `True`), with a 429 that matches no modeled error
counted as throttling (`ThrottlingStatusCodeChecker`). Before 1.44 the classic
mode is the default and 2.1 is opt-in (`AWS_NEW_RETRIES_2026=true`, read at
import into `configprovider.NEW_RETRIES_ENABLED`); this script switches it by
setting `botocore.retries.standard.NEW_RETRIES_ENABLED`, so a 1.43 install
replays both (`--revision classic` / `2026`).

Known, documented deviations (core/src/compatibility/grpc_aws.md) are counted
apart, by name, instead of failing: see `KNOWN`.

Usage: python3 scripts/botocore_replay.py [--cases N] [--seed S] [--revision classic|2026|all]
(with `retryplan` and `botocore` importable). Exits 1 on any difference that is
not a known deviation. bindings-python/tests/test_botocore_compat.py runs a
bounded sample of it against the pinned botocore.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import types
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import botocore
import botocore.exceptions as bexc
from botocore.retries import standard

import retryplan

# The generator's codes are botocore's own tables (an independent source: the engine's are compared against them).
THROTTLING_CODES = list(standard.ThrottledRetryableChecker._THROTTLED_ERROR_CODES)
TRANSIENT_CODES = list(standard.TransientRetryableChecker._TRANSIENT_ERROR_CODES)
OTHER_CODES = [
    "ValidationException",
    "AccessDenied",
    "InternalError",
    "ServiceUnavailable",
    "RequestTimeTooSkewed",
    "TooManyRequests",
    "throttling",
    "ResourceNotFoundException",
]
STATUSES = [200, 200, 200, 201, 204, 304, 400, 400, 403, 404, 408, 413, 429, 429, 500, 502, 503, 504, 501, 509, 599]
RETRY_AFTER_VALUES = [
    "0",
    "1",
    "250",
    "1500",
    "4999",
    "5000",
    "20000",
    "26000",
    "100000",
    "0015",
    " 1500",
    "1500 ",
    "-1",
    "-1500",
    "abc",
    "",
    "1.5",
    "1e3",
    "0x10",
    "99999999999999999999",
]
# Values botocore's int() reads and the engine's digit grammar does not: a documented deviation.
RETRY_AFTER_GRAMMAR_DEVIATIONS = {"+1500", "1_500", "\uff11\uff15\uff10\uff10"}
EXCEPTIONS = ["connect_timeout", "read_timeout", "endpoint_connection", "connection_closed", "other"]

# Documented deviations, by name (each a row of core/src/compatibility/grpc_aws.md). The replay's operation is
# never a long-polling one (the engine's other deviation: it does not sleep before giving up there).
KNOWN = {
    "connect_timeout_cost": "classic: a connect timeout is transport not_sent, which costs 5 where botocore's "
    "ConnectTimeoutError costs 10",
    "refund_on_3xx": "the engine refunds on any success (1xx-3xx); botocore on a 2xx only",
    "retry_after_grammar": "x-amz-retry-after values int() reads and the digit grammar does not (+1500, 1_500, "
    "non-ASCII digits) are no guidance",
    "idp_communication_error": "IDPCommunicationError from STS is not in the tables",
    "pre_1_44_429": "2026 revision under botocore before 1.44 (no ThrottlingStatusCodeChecker): the profile follows "
    "1.44, where a 429 is a throttling error whatever its code",
}


@dataclass
class Attempt:
    """One attempt's result, described once and handed to both sides."""

    kind: str  # "http" or an EXCEPTIONS name
    status: int = 0
    code: Optional[str] = None
    retry_after: Optional[str] = None

    def describe(self) -> str:
        if self.kind != "http":
            return self.kind
        parts = [str(self.status)]
        if self.code is not None:
            parts.append(self.code)
        if self.retry_after is not None:
            parts.append(f"x-amz-retry-after={self.retry_after!r}")
        return " ".join(parts)


@dataclass
class Case:
    """A call series: one quota, several calls, one service."""

    revision: str  # "classic" or "2026"
    service: str
    seed: int
    calls: List[List[Attempt]]
    initial_quota: int = 500


@dataclass
class Result:
    steps: int = 0
    known: collections.Counter = field(default_factory=collections.Counter)
    differences: List[str] = field(default_factory=list)
    reach: Dict[Tuple[str, str, int], float] = field(default_factory=dict)
    endings: collections.Counter = field(default_factory=collections.Counter)
    samples: collections.Counter = field(default_factory=collections.Counter)


def botocore_version() -> Tuple[int, ...]:
    return tuple(int(p) for p in botocore.__version__.split(".")[:3])


def revisions_available() -> List[str]:
    """Revisions the installed botocore has: 1.44+ only the 2026 one."""
    if hasattr(standard.RetryQuotaChecker, "_TIMEOUT_RETRY_REQUEST"):
        return ["classic", "2026"]
    return ["2026"]


def has_throttling_status_checker() -> bool:
    return hasattr(standard, "ThrottlingStatusCodeChecker")


# ---------------------------------------------------------------- botocore side


class _Events:
    def __init__(self) -> None:
        self.handlers: Dict[str, Callable[..., Any]] = {}

    def register(self, name: str, handler: Callable[..., Any], unique_id: Optional[str] = None) -> None:
        self.handlers[name.split(".")[0]] = handler


def _client(service: str) -> Any:
    service_id = types.SimpleNamespace(hyphenize=lambda: service)
    meta = types.SimpleNamespace(service_model=types.SimpleNamespace(service_id=service_id), events=_Events())
    return types.SimpleNamespace(meta=meta)


def _operation_model(service: str) -> Any:
    # No modeled errors: the engine has no service models.
    return types.SimpleNamespace(name="Op", error_shapes=[], service_model=types.SimpleNamespace(service_name=service))


class _Headers(dict):
    pass


class _HttpResponse:
    def __init__(self, status: int, headers: Dict[str, str]) -> None:
        self.status_code = status
        self.headers = _Headers(headers)
        self.content = b"{}"


def _exception(kind: str) -> BaseException:
    if kind == "connect_timeout":
        return bexc.ConnectTimeoutError(endpoint_url="https://example.amazonaws.com")
    if kind == "read_timeout":
        return bexc.ReadTimeoutError(endpoint_url="https://example.amazonaws.com")
    if kind == "endpoint_connection":
        return bexc.EndpointConnectionError(endpoint_url="https://example.amazonaws.com")
    if kind == "connection_closed":
        return bexc.ConnectionClosedError(endpoint_url="https://example.amazonaws.com")
    return ValueError("not an HTTP client error")


class Botocore:
    """botocore's handler for one client (one quota), as register_retry_handler wires it."""

    def __init__(self, revision: str, service: str) -> None:
        if "classic" in revisions_available():
            standard.NEW_RETRIES_ENABLED = revision == "2026"
        elif revision != "2026":
            raise SystemExit(f"botocore {botocore.__version__} has no classic standard mode")
        client = _client(service)
        self.handler = standard.register_retry_handler(client)
        self.after_call = client.meta.events.handlers["after-call"]
        self.quota = self.handler._retry_quota._quota
        self.backoff = self.handler._retry_policy._retry_backoff
        self.conditions = self.handler._retry_policy._retry_checker
        self.operation = _operation_model(service)
        self.backoff._random = lambda: 0.5

    def kwargs(self, attempt: Attempt, number: int, context: Dict[str, Any]) -> Dict[str, Any]:
        if attempt.kind == "http":
            headers = {}
            if attempt.retry_after is not None:
                headers["x-amz-retry-after"] = attempt.retry_after
            http = _HttpResponse(attempt.status, headers)
            parsed: Dict[str, Any] = {"ResponseMetadata": {"HTTPStatusCode": attempt.status}}
            if attempt.status >= 300:
                parsed["Error"] = {"Code": attempt.code or "", "Message": ""}
            return dict(
                response=(http, parsed),
                attempts=number,
                operation=self.operation,
                caught_exception=None,
                request_dict={"context": context},
            )
        return dict(
            response=None,
            attempts=number,
            operation=self.operation,
            caught_exception=_exception(attempt.kind),
            request_dict={"context": context},
        )

    def delay_for(self, kwargs: Dict[str, Any], fraction: float) -> float:
        context = standard.RetryEventAdapter().create_retry_context(**kwargs)
        saved = self.backoff._random
        self.backoff._random = lambda: fraction
        try:
            return self.backoff.delay_amount(context)
        finally:
            self.backoff._random = saved

    def retryable_ignoring_attempts(self, kwargs: Dict[str, Any]) -> bool:
        context = standard.RetryEventAdapter().create_retry_context(**kwargs)
        return self.conditions._additional_checkers.is_retryable(context)


# ---------------------------------------------------------------- engine side


def profile_name(revision: str, service: str) -> str:
    if revision == "classic":
        return "aws_standard"
    if service in ("dynamodb", "dynamodb-streams"):
        return "aws_standard_2026_dynamodb"
    return "aws_standard_2026"


def engine_outcome(attempt: Attempt, policy: retryplan.Policy) -> retryplan.Outcome:
    if attempt.kind == "http":
        headers = {}
        if attempt.retry_after is not None:
            headers["x-amz-retry-after"] = attempt.retry_after
        if attempt.code is not None and attempt.status >= 300:
            headers["x-amzn-errortype"] = attempt.code
        return retryplan.Outcome.from_http_response(attempt.status, headers, now_unix_ms=0, policy=policy)
    failure = {
        "connect_timeout": "connect_timeout",
        "read_timeout": "read_timeout",
        "endpoint_connection": "connection_refused",
        "connection_closed": "connection_lost",
    }.get(attempt.kind)
    if failure is None:
        return retryplan.Outcome.application("not_retryable")
    return retryplan.Outcome.failure(failure)


def quota_of(dependency: retryplan.Dependency, now_ms: int) -> int:
    return dependency.snapshot(now_ms=now_ms)["budget"]["available"]


# ---------------------------------------------------------------- one case


def known_for(case: Case, attempt: Attempt) -> Optional[str]:
    """The documented deviation an attempt may show, if any."""
    if attempt.kind == "connect_timeout" and case.revision == "classic":
        return "connect_timeout_cost"
    if attempt.kind == "http" and 300 <= attempt.status < 400:
        return "refund_on_3xx"
    if attempt.kind == "http" and attempt.retry_after in RETRY_AFTER_GRAMMAR_DEVIATIONS:
        return "retry_after_grammar"
    if attempt.kind == "http" and attempt.code == "IDPCommunicationError" and case.service == "sts":
        return "idp_communication_error"
    if (
        case.revision == "2026"
        and attempt.kind == "http"
        and attempt.status == 429
        and not has_throttling_status_checker()
    ):
        return "pre_1_44_429"
    return None


def note(result: Result, explained: Optional[str], difference: str) -> None:
    """Counts a difference under the known deviation that explains it, or records it."""
    if explained is not None:
        result.known[explained] += 1
    else:
        result.differences.append(difference)


def replay(case: Case, result: Result) -> None:
    """Runs one case on both sides, recording every difference (or the known deviation that explains it)."""
    boto = Botocore(case.revision, case.service)
    policy = retryplan.Policy.from_profile(profile_name(case.revision, case.service))
    dependency = (
        retryplan.aws_standard_dependency() if case.revision == "classic" else retryplan.aws_standard_2026_dependency()
    )
    now = 0
    for call_index, call in enumerate(case.calls):
        where = f"{case.revision} {case.service} seed={case.seed} call {call_index}"
        operation = retryplan.Operation(policy, now_ms=now, seed=case.seed * 1000 + call_index, dependency=dependency)
        decision = operation.poll(now_ms=now).to_dict()
        context: Dict[str, Any] = {"retries": {}}
        explained: Optional[str] = None
        for number, attempt in enumerate(call, start=1):
            result.steps += 1
            here = f"{where} attempt {number} ({attempt.describe()}; so far {[a.describe() for a in call[:number]]})"
            explained = explained or known_for(case, attempt)
            if decision["type"] != "start_attempt":
                result.differences.append(f"{here}: engine did not start an attempt: {decision}")
                return
            kwargs = boto.kwargs(attempt, number, context)
            boto_delay = boto.handler.needs_retry(**kwargs)
            metadata = kwargs["response"][1].get("ResponseMetadata", {}) if kwargs["response"] else {}
            now += 10
            decision = operation.on_outcome(attempt=number, outcome=engine_outcome(attempt, policy), now_ms=now)
            decision = decision.to_dict()
            boto_retries = boto_delay is not None and boto_delay is not False
            engine_retries = decision["type"] == "wait" or decision["type"] == "start_attempt"

            def differ(what: str, explained: Optional[str] = explained, here: str = here) -> None:
                note(result, explained, f"{here}: {what}")

            if boto_retries != engine_retries:
                differ(
                    f"botocore {'retries' if boto_retries else 'does not retry'} ({boto_delay!r}, {metadata}), "
                    f"the engine: {decision}"
                )
                return
            if not boto_retries:
                # Why not: attempts, quota, or nothing retryable.
                if kwargs["response"] is not None and metadata.get("RetryQuotaReached"):
                    reason = "budget_exhausted"
                elif (
                    boto.retryable_ignoring_attempts(kwargs)
                    and number >= boto.conditions._max_attempts_checker._max_attempts
                ):
                    reason = "attempts_exhausted"
                elif boto.retryable_ignoring_attempts(kwargs):
                    reason = "budget_exhausted"
                else:
                    reason = None
                if decision["type"] == "succeeded":
                    engine_reason = None
                else:
                    engine_reason = decision.get("reason")
                    if engine_reason == "not_retryable":
                        engine_reason = None
                result.endings[
                    f"{case.revision}: {reason or 'success' if decision['type'] == 'succeeded' else reason or 'not_retryable'}"
                ] += 1
                if reason != engine_reason and not (reason is None and engine_reason is None):
                    differ(f"gives up: botocore {reason}, the engine {decision}")
                # The call ends: after-call releases on a 2xx.
                if attempt.kind == "http":
                    boto.after_call(context=context, http_response=kwargs["response"][0])
                now += 1
                boto_quota, engine_quota = boto.quota.available_capacity, quota_of(dependency, now)
                if boto_quota != engine_quota:
                    differ(f"quota after the call: botocore {boto_quota}, the engine {engine_quota}")
                    return
                break
            # A retry: compare the delay, then start it and compare the quota.
            delay_ms = decision["delay_ms"] if decision["type"] == "wait" else 0
            low, high = boto.delay_for(kwargs, 0.0) * 1000, boto.delay_for(kwargs, 1.0) * 1000
            if not (low - 1 <= delay_ms <= high + 1):
                differ(f"delay {delay_ms} ms outside botocore's [{low:.3f}, {high:.3f}] ms")
                return
            if high > low and attempt.retry_after is None:
                key = (profile_name(case.revision, case.service), classify_key(attempt, case), number)
                result.reach[key] = max(result.reach.get(key, 0.0), (delay_ms - low) / (high - low))
                result.samples[key] += 1
            if decision["type"] == "wait":
                now = decision["until_ms"]
                decision = operation.poll(now_ms=now).to_dict()
            boto_quota, engine_quota = boto.quota.available_capacity, quota_of(dependency, now)
            if boto_quota != engine_quota:
                differ(f"quota once the retry starts: botocore {boto_quota}, the engine {engine_quota}")
                return
        else:
            # The series ran out of attempts before either side stopped: end the call cleanly.
            if decision["type"] == "start_attempt":
                operation.cancel(now_ms=now)
        now += 1000


def classify_key(attempt: Attempt, case: Case) -> str:
    if attempt.kind != "http":
        return attempt.kind
    if attempt.code in THROTTLING_CODES:
        return "throttling_code"
    if attempt.status == 429 and has_throttling_status_checker() and case.revision == "2026":
        return "429"
    return "transient"


# ---------------------------------------------------------------- generation


def random_attempt(rng: random.Random, revision: str) -> Attempt:
    roll = rng.random()
    if roll < 0.15:
        return Attempt(kind=rng.choice(EXCEPTIONS))
    status = rng.choice(STATUSES)
    if status < 300:
        return Attempt(kind="http", status=status)
    code_roll = rng.random()
    if code_roll < 0.25:
        code = None
    elif code_roll < 0.55:
        code = rng.choice(THROTTLING_CODES)
    elif code_roll < 0.7:
        code = rng.choice(TRANSIENT_CODES)
    elif code_roll < 0.75:
        code = "IDPCommunicationError"
    else:
        code = rng.choice(OTHER_CODES)
    retry_after = None
    if revision == "2026" and rng.random() < 0.4:
        retry_after = rng.choice(RETRY_AFTER_VALUES + sorted(RETRY_AFTER_GRAMMAR_DEVIATIONS))
    return Attempt(kind="http", status=status, code=code, retry_after=retry_after)


def random_case(rng: random.Random, revision: str, seed: int) -> Case:
    service = rng.choice(["s3", "sqs", "ec2", "sts", "dynamodb", "kinesis"])
    calls = []
    for _ in range(rng.randint(1, 6)):
        calls.append([random_attempt(rng, revision) for _ in range(5)])
    return Case(revision=revision, service=service, seed=seed, calls=calls)


def drain_case(rng: random.Random, revision: str, seed: int) -> Case:
    """Enough failing calls to empty the quota, then a few successes and mixed calls: the quota's edges."""
    failing = [Attempt(kind="http", status=503)] * 5
    throttled = [Attempt(kind="http", status=400, code="Throttling")] * 5
    calls = [rng.choice([failing, throttled]) for _ in range(rng.randint(30, 60))]
    calls += [[Attempt(kind="http", status=200)] for _ in range(rng.randint(0, 5))]
    calls += [[random_attempt(rng, revision) for _ in range(5)] for _ in range(rng.randint(1, 10))]
    return Case(revision=revision, service=rng.choice(["s3", "dynamodb"]), seed=seed, calls=calls)


def run(cases: int, seed: int, revisions: List[str]) -> Result:
    result = Result()
    rng = random.Random(seed)
    for index in range(cases):
        revision = revisions[index % len(revisions)]
        case = drain_case(rng, revision, index) if index % 20 >= 18 else random_case(rng, revision, index)
        replay(case, result)
    # The bounds check above cannot see a botocore range wider than the engine's: over enough draws the engine's
    # delays must come near the top of botocore's range (the largest of 30 uniform draws is below 0.8 with
    # probability 0.8^30, about 0.1 %).
    for key, reach in sorted(result.reach.items()):
        if result.samples[key] >= 30 and reach < 0.8:
            result.differences.append(
                f"{key[0]}, retry {key[2]} after {key[1]}: over {result.samples[key]} draws the engine's delays reach only "
                f"{reach:.3f} of botocore's range"
            )
    return result


# ---------------------------------------------------------------- error codes


CODE_FORMS = [
    lambda code: code,
    lambda code: f"aws.protocoltests.restjson#{code}",
    lambda code: f"{code}:http://internal.amazon.com/coral/com.amazon.coral.validate/",
    lambda code: f"com.amazon.coral#{code}:extra",
]


def random_error_response(rng: random.Random) -> Tuple[str, int, Dict[str, str], bytes, str]:
    """A protocol, a status, headers and a body of an AWS error response, and the code it carries."""
    code = rng.choice(
        THROTTLING_CODES + TRANSIENT_CODES + OTHER_CODES + ["IDPCommunicationError", "InvalidInstanceID.Malformed"]
    )
    status = rng.choice([400, 403, 404, 429, 500, 503])
    protocol = rng.choice(["json", "rest-json", "query", "ec2", "rest-xml"])
    namespace = rng.choice(["", ' xmlns="https://sqs.amazonaws.com/doc/2012-11-05/"'])
    headers: Dict[str, str] = {}
    if protocol in ("json", "rest-json"):
        form = rng.choice(CODE_FORMS)(code)
        where = rng.choice(["__type", "code", "Code", "header"] if protocol == "rest-json" else ["__type"])
        if where == "header":
            headers["x-amzn-errortype"] = form
            body = json.dumps({"message": "m"})
        else:
            body = json.dumps({where: form, "message": "m"})
        if protocol == "json" and rng.random() < 0.5:
            headers["x-amzn-errortype"] = form  # awsJson services send both, alike
    elif protocol == "query":
        body = (
            f"<ErrorResponse{namespace}><Error><Type>Sender</Type><Code>{code}</Code><Message>m</Message></Error>"
            "<RequestId>r</RequestId></ErrorResponse>"
        )
    elif protocol == "ec2":
        body = f"<Response><Errors><Error><Code>{code}</Code><Message>m</Message></Error></Errors><RequestID>r</RequestID></Response>"
    else:
        body = rng.choice(
            [
                f"<Error><Code>{code}</Code><Message>m</Message><RequestId>r</RequestId></Error>",
                f"<ErrorResponse{namespace}><Error><Type>Sender</Type><Code>{code}</Code><Message>m</Message></Error>"
                "<RequestId>r</RequestId></ErrorResponse>",
            ]
        )
    return protocol, status, headers, body.encode(), code


def compare_error_codes(cases: int, seed: int) -> Tuple[int, List[str]]:
    """botocore's parsers (`create_parser(protocol).parse`) against `aws_error_code_from_response`."""
    from botocore.parsers import create_parser

    rng = random.Random(seed)
    differences = []
    for _ in range(cases):
        protocol, status, headers, body, code = random_error_response(rng)
        parsed = create_parser(protocol).parse({"status_code": status, "headers": headers, "body": body}, None)
        theirs = parsed.get("Error", {}).get("Code") or None
        if theirs == str(status):
            theirs = None  # botocore's stand-in when it finds no code
        mine = retryplan.aws_error_code_from_response(headers.get("x-amzn-errortype"), body.decode())
        if theirs != mine:
            differences.append(
                f"{protocol} {status} {headers} {body.decode()!r}: botocore {theirs!r}, the engine {mine!r}"
            )
    return cases, differences


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--revision", choices=["classic", "2026", "all"], default="all")
    parser.add_argument("--show", type=int, default=20, help="differences to print")
    parser.add_argument("--codes", type=int, default=2000, help="error responses parsed by both sides")
    args = parser.parse_args(argv)
    available = revisions_available()
    revisions = available if args.revision == "all" else [args.revision]
    result = run(args.cases, args.seed, revisions)
    print(f"botocore {botocore.__version__}, revisions {revisions}: {args.cases} call series, {result.steps} attempts")
    print(f"calls ended by: {dict(sorted(result.endings.items()))}")
    print(f"known deviations met: {dict(result.known)}")
    print("largest fraction of botocore's delay range reached:")
    for key in sorted(result.reach):
        print(f"  {key}: {result.reach[key]:.3f} over {result.samples[key]} draws")
    for line in result.differences[: args.show]:
        print("DIFFERENCE", line)
    print(f"{len(result.differences)} differences")
    parsed, code_differences = compare_error_codes(args.codes, args.seed)
    print(f"error codes: {parsed} responses parsed by botocore's parsers and the engine's reader")
    for line in code_differences[: args.show]:
        print("CODE DIFFERENCE", line)
    print(f"{len(code_differences)} error-code differences")
    return 1 if result.differences or code_differences else 0


if __name__ == "__main__":
    sys.exit(main())
