"""OpenTelemetry: what every helper reports (retryplan.otel), read back with the SDK's in-memory exporter and
reader; and the package without OpenTelemetry (a subprocess where it cannot be imported)."""

import asyncio
import subprocess
import sys
import textwrap
from typing import Any, Dict, Iterator, List, Tuple

import httpx
import pytest
import requests
from opentelemetry import trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode
from server import Server, status

import retryplan
import retryplan.otel
from retryplan import Dependency, GaveUpError, Policy
from retryplan._telemetry_names import METRICS
from retryplan.httpx import AsyncRetryTransport, RetryTransport
from retryplan.requests import RetryAdapter

FAST = {
    "max_attempts": 3,
    "total_timeout_ms": 4000,
    "attempt_timeout": {"fixed_ms": 1000},
    "response_reserve_ms": 0,
    "minimum_useful_attempt_ms": 50,
    "backoff": {"kind": "constant", "base_ms": 5, "multiplier": 1.0, "cap_ms": 5},
    "jitter": {"kind": "none"},
}


class Telemetry:
    """The spans and counts retryplan reported during one test."""

    def __init__(self) -> None:
        self.exporter = InMemorySpanExporter()
        self.tracer_provider = TracerProvider()
        self.tracer_provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        self.reader = InMemoryMetricReader()
        self.meter_provider = MeterProvider(metric_readers=[self.reader])

    def spans(self) -> List[ReadableSpan]:
        return sorted(self.exporter.get_finished_spans(), key=lambda span: span.start_time or 0)

    def counts(self) -> Dict[Tuple[str, Tuple[Tuple[str, Any], ...]], int]:
        """Every data point: (instrument, its attributes) to its sum."""
        out: Dict[Tuple[str, Tuple[Tuple[str, Any], ...]], int] = {}
        data = self.reader.get_metrics_data()
        for resource in data.resource_metrics if data is not None else []:
            for scope in resource.scope_metrics:
                for metric in scope.metrics:
                    for point in metric.data.data_points:  # type: ignore[union-attr]
                        out[(metric.name, tuple(sorted((point.attributes or {}).items())))] = point.value  # type: ignore[union-attr]
        return out

    def units(self) -> Dict[str, str]:
        data = self.reader.get_metrics_data()
        assert data is not None
        return {m.name: m.unit for r in data.resource_metrics for s in r.scope_metrics for m in s.metrics}


@pytest.fixture
def telemetry() -> Iterator[Telemetry]:
    recorded = Telemetry()
    retryplan.otel.instrument(tracer_provider=recorded.tracer_provider, meter_provider=recorded.meter_provider)
    yield recorded
    retryplan.otel.uninstrument()


def give_ups(span: ReadableSpan) -> List[Dict[str, Any]]:
    return [dict(event.attributes or {}) for event in span.events if event.name == "retryplan.give_up"]


def traceparent(span: ReadableSpan) -> str:
    """The span's W3C traceparent, less its flags."""
    context = span.get_span_context()
    assert context is not None
    return f"00-{context.trace_id:032x}-{context.span_id:016x}-"


def check_http_attempts(telemetry: Telemetry, server: Server, statuses: List[int], method: str = "GET") -> None:
    """One CLIENT span per attempt, resend counts from the second on, each attempt's span context sent."""
    spans = telemetry.spans()
    assert len(spans) == len(statuses) == len(server.script.seen)
    host, port = server.url.split("//")[1].split(":")
    for n, (span, code, seen) in enumerate(zip(spans, statuses, server.script.seen, strict=True)):
        attributes = dict(span.attributes or {})
        assert (span.name, span.kind) == (method, SpanKind.CLIENT)
        assert attributes["http.request.method"] == method
        assert (attributes["server.address"], attributes["server.port"]) == (host, int(port))
        assert attributes["url.full"] == server.url + "/item"
        assert attributes["retryplan.attempt"] == n + 1
        assert attributes.get("http.request.resend_count") == (n if n > 0 else None)
        assert attributes["http.response.status_code"] == code
        if code >= 400:
            assert attributes["error.type"] == str(code) and span.status.status_code is StatusCode.ERROR
        else:
            assert "error.type" not in attributes and span.status.status_code is StatusCode.UNSET
        assert seen["headers"]["traceparent"].startswith(traceparent(span))


def test_httpx_sync_reports_each_attempt_as_a_client_span_with_its_resend_count(
    telemetry: Telemetry, server: Server
) -> None:
    server.script.queue(status(503), status(503), status(200))
    with httpx.Client(transport=RetryTransport(policy=Policy.from_dict(FAST))) as client:
        assert client.get(server.url + "/item").status_code == 200
    check_http_attempts(telemetry, server, [503, 503, 200])
    assert not any(give_ups(span) for span in telemetry.spans())
    counts = telemetry.counts()
    assert counts[("retryplan.attempts", (("retryplan.attempt.kind", "first"),))] == 1
    assert counts[("retryplan.attempts", (("retryplan.attempt.kind", "retry"),))] == 2
    assert counts[("retryplan.retries", ())] == 2
    assert counts[("retryplan.operations", (("retryplan.operation.ending", "succeeded"),))] == 1
    assert telemetry.units() == {name: unit for _, name, unit, _, _ in METRICS if name in telemetry.units()}


def test_httpx_async_reports_the_same(telemetry: Telemetry, server: Server) -> None:
    server.script.queue(status(500), status(200))

    async def main() -> int:
        async with httpx.AsyncClient(transport=AsyncRetryTransport(policy=Policy.from_dict(FAST))) as client:
            return (await client.get(server.url + "/item")).status_code

    assert asyncio.run(main()) == 200
    check_http_attempts(telemetry, server, [500, 200])


def test_requests_give_up_is_an_event_on_the_last_attempts_span(telemetry: Telemetry, server: Server) -> None:
    server.script.queue(status(503), status(503), status(503))
    with requests.Session() as session:
        session.mount("http://", RetryAdapter(policy=Policy.from_dict(FAST)))
        assert session.get(server.url + "/item").status_code == 503
    check_http_attempts(telemetry, server, [503, 503, 503])
    spans = telemetry.spans()
    assert [give_ups(span) for span in spans] == [
        [],
        [],
        [{"retryplan.give_up.reason": "attempts_exhausted", "retryplan.operation.attempts": 3}],
    ]
    counts = telemetry.counts()
    assert counts[("retryplan.give_ups", (("retryplan.give_up.reason", "attempts_exhausted"),))] == 1
    assert counts[("retryplan.operations", (("retryplan.operation.ending", "gave_up"),))] == 1


def test_a_method_the_conventions_do_not_know_is_other(telemetry: Telemetry, server: Server) -> None:
    with httpx.Client(transport=RetryTransport(policy=Policy.from_dict(FAST))) as client:
        client.request("PURGE", server.url + "/item")  # the server answers 501 (unsupported method)
    span = telemetry.spans()[0]
    attributes = dict(span.attributes or {})
    assert span.name == "HTTP"
    assert (attributes["http.request.method"], attributes["http.request.method_original"]) == ("_OTHER", "PURGE")


def test_url_full_redacts_the_sensitive_query_values_of_a_presigned_url(telemetry: Telemetry, server: Server) -> None:
    # The reviewer's request: the span's url.full is the core's request name (the conventions' list redacted).
    server.script.queue(status(200))
    url = server.url.replace("http://", "http://user:pw@") + "/z?seq=200&X-Amz-Signature=SECRET&sig=abc"
    with httpx.Client(transport=RetryTransport(policy=Policy.from_dict(FAST))) as client:
        assert client.get(url).status_code == 200
    attributes = dict(telemetry.spans()[0].attributes or {})
    assert attributes["url.full"] == server.url + "/z?seq=200&X-Amz-Signature=REDACTED&sig=REDACTED"


class Declined(Exception):
    pass


def test_retry_reports_internal_spans_with_the_raised_type(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("test")

    @retryplan.retry(Policy.from_dict(FAST))
    def place_order() -> None:
        raise Declined("no")

    with tracer.start_as_current_span("checkout") as parent, pytest.raises(GaveUpError):
        place_order()
    spans = [span for span in telemetry.spans() if span.name != "checkout"]
    name = place_order.__qualname__  # the operation's name, as its ending names it
    assert all(span.kind is SpanKind.INTERNAL and span.name == name for span in spans), [s.name for s in spans]
    assert len(spans) == 3
    assert [dict(span.attributes or {}) for span in spans] == [
        {"retryplan.attempt": n, "error.type": f"{__name__}.Declined"} for n in (1, 2, 3)
    ]
    assert all(span.parent is not None and span.parent.span_id == parent.get_span_context().span_id for span in spans)
    assert give_ups(spans[-1]) == [
        {"retryplan.give_up.reason": "attempts_exhausted", "retryplan.operation.attempts": 3}
    ]


def test_a_budget_refusal_is_counted_and_its_give_up_is_on_the_failed_attempts_span(telemetry: Telemetry) -> None:
    budget = {"kind": "quota", "capacity": 5, "retry_cost": 5, "timeout_retry_cost": 5, "success_increment": 1}
    dependency = Dependency(budget=budget)
    policy = Policy.from_dict({**FAST, "max_attempts": 5})

    @retryplan.retry(
        policy, dependency=dependency, outcome_of_error=lambda _: retryplan.Outcome.application("retryable")
    )
    def call() -> None:
        raise Declined("again")

    tracer = telemetry.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("caller"), pytest.raises(GaveUpError) as raised:
        call()
    assert raised.value.decision.reason == "budget_exhausted"
    counts = telemetry.counts()
    assert counts[("retryplan.budget.refusals", ())] == 1
    assert counts[("retryplan.give_ups", (("retryplan.give_up.reason", "budget_exhausted"),))] == 1
    assert ("retryplan.breaker.refusals", ()) not in counts
    # The quota paid the first retry and cannot pay a second: refused when attempt 2's failure arrives, so
    # the give-up is on that attempt's span (a refusal with no result before it is on the caller's: below).
    *attempts, caller = telemetry.spans()[1:] + telemetry.spans()[:1]
    assert caller.name == "caller" and give_ups(caller) == []
    assert [give_ups(span) for span in attempts] == [
        [],
        [{"retryplan.give_up.reason": "budget_exhausted", "retryplan.operation.attempts": 2}],
    ]


def test_a_breaker_refusal_gives_up_on_the_callers_span(telemetry: Telemetry) -> None:
    breaker = {"trip": {"kind": "consecutive", "failures": 1}, "open_ms": 60000, "half_open_probes": 1}
    dependency = Dependency(breaker=breaker)
    policy = Policy.from_dict({**FAST, "max_attempts": 1})
    call = retryplan.retry(policy, dependency=dependency)(lambda: 1 / 0)
    with pytest.raises(GaveUpError):
        call()  # fails once: the breaker opens
    telemetry.exporter.clear()
    tracer = telemetry.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("caller"), pytest.raises(GaveUpError) as raised:
        call()
    assert raised.value.decision.reason == "circuit_open"
    (caller,) = telemetry.spans()  # no attempt started, so no attempt span
    assert give_ups(caller) == [{"retryplan.give_up.reason": "circuit_open", "retryplan.operation.attempts": 0}]
    assert telemetry.counts()[("retryplan.breaker.refusals", ())] == 1


def test_uninstrument_reports_nothing(server: Server) -> None:
    recorded = Telemetry()
    retryplan.otel.instrument(tracer_provider=recorded.tracer_provider, meter_provider=recorded.meter_provider)
    retryplan.otel.uninstrument()
    server.script.queue(status(503), status(200))
    with httpx.Client(transport=RetryTransport(policy=Policy.from_dict(FAST))) as client:
        assert client.get(server.url + "/item").status_code == 200
    assert recorded.spans() == [] and recorded.counts() == {}
    assert "traceparent" not in server.script.seen[0]["headers"]


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_global_providers_are_used_without_any_call() -> None:
    """The default: once the application sets global providers, every helper reports through them."""
    out = run_python(
        """
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        import retryplan

        policy = retryplan.Policy.from_dict({"max_attempts": 2, "jitter": {"kind": "none"},
                                             "backoff": {"kind": "constant", "base_ms": 1, "cap_ms": 1}})
        calls = []
        retryplan.retry(policy)(lambda: calls.append(1) or (len(calls) > 1 or 1 / 0))()
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        calls.clear()
        retryplan.retry(policy)(lambda: calls.append(1) or (len(calls) > 1 or 1 / 0))()
        print([(dict(s.attributes).get("retryplan.attempt"), dict(s.attributes).get("error.type"))
               for s in exporter.get_finished_spans()])
        """
    )
    assert out.strip() == "[(1, 'ZeroDivisionError'), (2, None)]"


def test_the_package_imports_and_works_without_opentelemetry() -> None:
    """No OpenTelemetry installed (its import refused): every helper works, and nothing of it is imported."""
    out = run_python(
        """
        import sys

        class Absent:
            def find_spec(self, name, path=None, target=None):
                if name == "opentelemetry" or name.startswith("opentelemetry."):
                    raise ModuleNotFoundError(f"No module named {name!r}", name=name)
                return None

        sys.meta_path.insert(0, Absent())
        import retryplan
        import retryplan.httpx, retryplan.requests

        policy = retryplan.Policy.from_dict({"max_attempts": 2, "jitter": {"kind": "none"},
                                             "backoff": {"kind": "constant", "base_ms": 1, "cap_ms": 1}})
        events = []
        calls = []
        value = retryplan.retry(policy, on_decision=events.append)(lambda: calls.append(1) or (len(calls) > 1 or 1 / 0))()
        assert value is True and len(calls) == 2 and len(events) == 4, events
        assert not any(name.startswith("opentelemetry") for name in sys.modules), sorted(sys.modules)
        try:
            import retryplan.otel
        except ModuleNotFoundError as error:
            print("otel:", error.name)
        sys.modules["opentelemetry"] = None  # a module blocked this way: still nothing breaks
        calls.clear()
        assert retryplan.retry(policy)(lambda: calls.append(1) or (len(calls) > 1 or 1 / 0))() is True
        print("ok")
        """
    )
    assert out.split() == ["otel:", "opentelemetry", "ok"]


def test_spans_are_children_of_the_span_current_where_the_operation_started(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("test")
    with tracer.start_as_current_span("parent") as parent:
        assert retryplan.retry(Policy.from_dict(FAST))(lambda: 7)() == 7
    attempt = next(span for span in telemetry.spans() if span.name != "parent")
    assert attempt.parent is not None and attempt.parent.span_id == parent.get_span_context().span_id
    assert trace.get_current_span() is trace.INVALID_SPAN


def children(telemetry: Telemetry, name: str) -> Dict[int, int]:
    """Each attempt span's number to how many ``name`` spans it is the parent of."""
    spans = telemetry.spans()
    attempts: Dict[int, Any] = {}
    for span in spans:
        attributes = dict(span.attributes or {})
        if span.context is not None and "retryplan.attempt" in attributes:
            attempts[span.context.span_id] = attributes["retryplan.attempt"]
    out: Dict[int, int] = {}
    for span in spans:
        if span.name == name:
            assert span.parent is not None and span.parent.span_id in attempts, f"{name} is not inside an attempt span"
            out[attempts[span.parent.span_id]] = out.get(attempts[span.parent.span_id], 0) + 1
    return out


def test_a_span_started_inside_an_attempt_is_a_child_of_its_attempt_span(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("test")
    calls: List[int] = []

    @retryplan.retry(Policy.from_dict(FAST))
    def charge() -> int:
        with tracer.start_as_current_span("charge card"):
            calls.append(1)
            if len(calls) < 3:
                raise Declined("busy")
            return len(calls)

    with tracer.start_as_current_span("checkout") as checkout:
        assert charge() == 3
        assert trace.get_current_span() is checkout  # every attempt span made current was left again
    assert trace.get_current_span() is trace.INVALID_SPAN
    assert children(telemetry, "charge card") == {1: 1, 2: 1, 3: 1}


def test_the_attempt_loops_make_each_attempt_span_current_inside_the_block(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("test")
    for attempt in retryplan.attempts(Policy.from_dict(FAST)):
        with attempt, tracer.start_as_current_span("sync block"):
            if attempt.attempt < 2:
                raise Declined("again")

    async def main() -> None:
        async for attempt in retryplan.async_attempts(Policy.from_dict(FAST)):
            async with attempt:
                with tracer.start_as_current_span("async block"):
                    if attempt.attempt < 3:
                        raise Declined("again")

    asyncio.run(main())
    assert trace.get_current_span() is trace.INVALID_SPAN
    assert children(telemetry, "sync block") == {1: 1, 2: 1}
    assert children(telemetry, "async block") == {1: 1, 2: 1, 3: 1}


def test_an_async_attempt_and_its_hedge_each_have_their_own_span_current(telemetry: Telemetry) -> None:
    tracer = telemetry.tracer_provider.get_tracer("test")
    hedged = Policy.from_dict({**FAST, "hedging": {"delay_ms": 20, "max_hedged_attempts": 1}})

    async def main() -> str:
        hedge_started = asyncio.Event()

        @retryplan.retry(hedged)
        async def fetch() -> str:
            attempt = retryplan.current_attempt()
            assert attempt is not None
            with tracer.start_as_current_span(f"fetch {attempt.attempt}"):
                if attempt.attempt == 1:
                    await hedge_started.wait()  # the hedge starts while this attempt runs
                    await asyncio.sleep(60)  # then loses the race: cancelled
                hedge_started.set()
                return "hedge"

        with tracer.start_as_current_span("page") as page:
            result = await fetch()
            assert trace.get_current_span() is page
        return result

    assert asyncio.run(main()) == "hedge"
    assert children(telemetry, "fetch 1") == {1: 1}
    assert children(telemetry, "fetch 2") == {2: 1}


def test_an_attempt_loop_left_before_its_attempt_reported_leaves_no_span_current(telemetry: Telemetry) -> None:
    def abandon() -> None:
        for _attempt in retryplan.attempts(Policy.from_dict(FAST)):
            break  # the attempt started (its span current), then was never reported

    abandon()  # its operation is collected on return
    assert trace.get_current_span() is trace.INVALID_SPAN
