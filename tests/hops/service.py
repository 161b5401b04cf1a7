"""The middle hop of the three-hop scenario (tests/hops/hops.test.mjs): a Python ASGI service under uvicorn.

It serves the page (the Vite-built files in ``--static``: the page's fetch is then same-origin, and the browser
runtime's ``retryFetch`` sends the core's propagation headers), ``POST /api/order`` and ``GET /api/stock``, which
call the next hop (``--next``, the Node service: ``POST /reserve``, ``GET /stock``) with retryplan's httpx helper
(``AsyncRetryTransport``) under retryplan's ``AsgiMiddleware``: the page's deadline, attempt count and key become
this request's ambient context, and the helper's attempts start from it. ``GET /api/seen`` answers what each of
those requests carried and how it ended, on this process's monotonic clock (ms), for the test to judge;
``GET /api/spans`` the spans retryplan's helpers reported through OpenTelemetry (the global tracer provider,
the SDK's in-memory exporter).

Run: ``python service.py --static DIR --next URL``; prints ``{"port": N}`` once it accepts connections.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import mimetypes
import socket
import sys
import time
from pathlib import Path
from typing import Any, Dict, List

import httpx
import uvicorn
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from retryplan import Policy
from retryplan.httpx import AsyncRetryTransport
from retryplan.propagation import AsgiMiddleware, current

#: This hop's own policy toward the next hop: three attempts of 5 s each, as a service configured alone would
#: retry. Under the browser's propagated context it makes one attempt, cut to the browser's deadline less
#: ``propagation.reserve_ms`` (400 ms for the answer's way back: the test machine is shared and loaded) and its
#: 100 ms response reserve. Keyed, as the page's order is (a POST: the key makes it repeatable).
HOP_POLICY = Policy.from_dict(
    {
        "max_attempts": 3,
        "total_timeout_ms": 15000,
        "attempt_timeout": {"fixed_ms": 5000},
        "response_reserve_ms": 100,
        "minimum_useful_attempt_ms": 10,
        "backoff": {"kind": "constant", "base_ms": 1, "multiplier": 1.0, "cap_ms": 1},
        "jitter": {"kind": "none"},
        "idempotency": "keyed",
        "propagation": {"reserve_ms": 400},
    }
)

PROPAGATION_HEADERS = ("idempotency-key", "retryplan-timeout-ms", "retryplan-attempt", "retryplan-caller-retries")


def now_ms() -> float:
    """The middleware's and the helpers' clock (``time.monotonic``), in ms."""
    return time.monotonic() * 1000


def recording_spans() -> InMemorySpanExporter:
    """The global tracer provider, as an application sets it: retryplan's helpers then report every attempt's span
    through it (retryplan.otel), and the SDK's in-memory exporter keeps them for ``GET /api/spans``."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    return exporter


def span_record(span: Any) -> Dict[str, Any]:
    """A finished span as JSON: its kind, name, attributes and ids (hex, as a ``traceparent`` writes them)."""
    return {
        "kind": span.kind.name,
        "name": span.name,
        "attributes": dict(span.attributes or {}),
        "trace_id": format(span.context.trace_id, "032x"),
        "span_id": format(span.context.span_id, "016x"),
        "start_ns": span.start_time,
    }


def make_app(static: Path, next_hop: str, spans: InMemorySpanExporter) -> Any:
    seen: List[Dict[str, Any]] = []
    # One client for the service's life, as a service keeps one (its pool, its TLS context made once).
    client = httpx.AsyncClient(transport=AsyncRetryTransport(policy=HOP_POLICY))

    async def body_of(receive: Any) -> bytes:
        chunks = []
        while True:
            message = await receive()
            chunks.append(message.get("body", b""))
            if not message.get("more_body"):
                return b"".join(chunks)

    async def answer(send: Any, status: int, body: bytes, content_type: str) -> None:
        headers = [(b"content-type", content_type.encode()), (b"content-length", str(len(body)).encode())]
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    async def call(scope: Any, receive: Any, send: Any) -> None:
        served = current()
        assert served is not None, "AsgiMiddleware makes the request's context ambient"
        received = dict((name.decode("latin-1"), value.decode("latin-1")) for name, value in scope["headers"])
        record: Dict[str, Any] = {
            "path": scope["path"],
            "headers": {name: received[name] for name in PROPAGATION_HEADERS if name in received},
            "incoming": served.incoming.to_dict(),
            "deadline_ms": served.incoming.deadline_ms(HOP_POLICY),
        }
        seen.append(record)  # before the call: a request abandoned midway is still counted
        body = await body_of(receive)
        try:
            if scope["method"] == "POST":
                headers = {"content-type": "application/json"}
                reply = await client.post(f"{next_hop}/reserve", content=body, headers=headers)
            else:
                reply = await client.get(f"{next_hop}/stock")
            status, content, kind = reply.status_code, reply.content, reply.headers.get("content-type", "text/plain")
        except Exception as ending:  # the helper's typed ending (no response): answered 503 for the page to retry
            record["ending"] = f"{type(ending).__name__}: {ending}"
            status, content, kind = 503, b"", "text/plain"
        record["status"] = status
        await answer(send, status, content, kind)
        record["ended_ms"] = now_ms()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        path = scope["path"]
        if (path, scope["method"]) in (("/api/order", "POST"), ("/api/stock", "GET")):
            await call(scope, receive, send)
        elif path == "/api/seen":
            await answer(send, 200, json.dumps(seen).encode(), "application/json")
        elif path == "/api/spans":
            finished = sorted(spans.get_finished_spans(), key=lambda span: span.start_time or 0)
            await answer(send, 200, json.dumps([span_record(span) for span in finished]).encode(), "application/json")
        else:
            file = (static / path.lstrip("/")).resolve()
            if path.endswith("/"):
                file = file / "index.html"
            if static.resolve() not in file.parents or not file.is_file():
                await answer(send, 404, b"not found", "text/plain")
                return
            kind = "application/wasm" if file.suffix == ".wasm" else mimetypes.guess_type(file.name)[0]
            await answer(send, 200, file.read_bytes(), kind or "application/octet-stream")

    return AsgiMiddleware(app, policy=HOP_POLICY)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--static", type=Path, required=True)
    parser.add_argument("--next", required=True)
    args = parser.parse_args()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections wait in the backlog until uvicorn accepts them
    config = uvicorn.Config(make_app(args.static, args.next, recording_spans()), log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    print(json.dumps({"port": sock.getsockname()[1]}), flush=True)
    asyncio.run(server.serve(sockets=[sock]))
    sys.exit(0)


if __name__ == "__main__":
    main()
