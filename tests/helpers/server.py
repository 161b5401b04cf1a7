#!/usr/bin/env python3
"""The one local test server every language's HTTP helper runs the scenarios against.

Usage: python3 tests/helpers/server.py [SCENARIOS_JSON]

Listens on 127.0.0.1 (an ephemeral port) and prints one line, ``listening
127.0.0.1:PORT``, once it accepts connections; then serves until stdin closes
(so a test runner that dies takes the server with it) or it is killed.

Requests to ``/s/<scenario id>`` are answered as that scenario's ``server``
list says: the n-th request of a scenario (1-based, counted since the last
reset) gets entry n, and the last entry repeats. An entry is an object with:

- ``status`` (int; any number, even outside 100..=599) and ``headers``
  (object; a value ``"@date+N"`` is sent as the IMF-fixdate N seconds from
  now, rounded up to the next whole second) and ``body`` (text);
- ``delay_ms``: wait before sending anything;
- ``hang``: never answer (until the client goes away, at most 60 s);
- ``reset``: read the whole request, then reset the connection (RST);
- ``reset_mid_body``: read the head and the first 64 KiB of the body, then
  reset the connection while the client is still sending it;
- ``drip_body_ms``: send the head with the full Content-Length, then the body
  one byte every that many ms;
- ``drip_head_ms``: send the head itself one byte every that many ms.

Control: ``POST /__reset`` forgets every request seen; ``GET /__log/<id>``
returns the requests a scenario saw as JSON: a list of ``{"method", "path",
"idempotency_key", "request_id", "at_ms"}`` (``at_ms`` since the reset; a
missing header is ``null``).

Standard library only, Python 3.9+.
"""

import asyncio
import email.utils
import json
import math
import os
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

REASONS = {
    200: "OK",
    201: "Created",
    409: "Conflict",
    429: "Too Many Requests",
    500: "Internal Server Error",
    503: "Service Unavailable",
}


class Scenarios:
    def __init__(self, path: Path) -> None:
        document = json.loads(path.read_text(encoding="utf-8"))
        self.by_id: Dict[str, Dict[str, Any]] = {s["id"]: s for s in document["scenarios"]}
        self.seen: Dict[str, List[Dict[str, Any]]] = {}
        self.reset_at = time.monotonic()

    def reset(self) -> None:
        self.seen.clear()
        self.reset_at = time.monotonic()

    def record(self, scenario_id: str, method: str, path: str, headers: Dict[str, str]) -> Dict[str, Any]:
        """Records a request and returns the server entry that answers it."""
        seen = self.seen.setdefault(scenario_id, [])
        seen.append(
            {
                "method": method,
                "path": path,
                "idempotency_key": headers.get("idempotency-key"),
                "request_id": headers.get("x-request-id"),
                "at_ms": round((time.monotonic() - self.reset_at) * 1000),
            }
        )
        entries = self.by_id[scenario_id]["server"]
        return entries[min(len(seen), len(entries)) - 1]


def http_date(seconds_from_now: float) -> str:
    return email.utils.formatdate(math.ceil(time.time() + seconds_from_now), usegmt=True)


async def read_head(reader: asyncio.StreamReader) -> Optional[Tuple[str, str, Dict[str, str]]]:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, target, _ = lines[0].split(" ", 2)
    headers: Dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return method, target, headers


async def read_body(reader: asyncio.StreamReader, headers: Dict[str, str], limit: Optional[int] = None) -> bytes:
    """The request body (at most ``limit`` bytes of it, when given)."""
    if "content-length" in headers:
        length = int(headers["content-length"])
        return await reader.readexactly(length if limit is None else min(length, limit))
    body = b""
    if headers.get("transfer-encoding", "").lower() == "chunked":
        while limit is None or len(body) < limit:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            chunk = await reader.readexactly(size + 2)
            if size == 0:
                break
            body += chunk[:-2]
    return body


def reset_connection(writer: asyncio.StreamWriter) -> None:
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def answer(writer: asyncio.StreamWriter, entry: Dict[str, Any]) -> bool:
    """Carries out one server entry; False when the connection is gone."""
    if entry.get("delay_ms"):
        await asyncio.sleep(entry["delay_ms"] / 1000)
    if entry.get("hang"):
        await asyncio.sleep(60)
        return False
    if entry.get("reset"):
        reset_connection(writer)
        return False
    status = int(entry.get("status", 200))
    body = entry.get("body", "").encode()
    headers = {"Content-Type": "text/plain", "Content-Length": str(len(body))}
    for name, value in entry.get("headers", {}).items():
        if isinstance(value, str) and value.startswith("@date+"):
            value = http_date(float(value[len("@date+") :]))
        headers[name] = value
    head = f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}\r\n"
    head += "".join(f"{name}: {value}\r\n" for name, value in headers.items()) + "\r\n"
    if entry.get("drip_head_ms"):
        for byte in head.encode():
            writer.write(bytes([byte]))
            await writer.drain()
            await asyncio.sleep(entry["drip_head_ms"] / 1000)
    else:
        writer.write(head.encode())
    if entry.get("drip_body_ms"):
        await writer.drain()
        for byte in body:
            await asyncio.sleep(entry["drip_body_ms"] / 1000)
            writer.write(bytes([byte]))
            await writer.drain()
    else:
        writer.write(body)
    await writer.drain()
    return True


def control(scenarios: Scenarios, method: str, path: str) -> Tuple[int, Any]:
    if method == "POST" and path == "/__reset":
        scenarios.reset()
        return 200, {"reset": True}
    if method == "GET" and path.startswith("/__log/"):
        return 200, scenarios.seen.get(path[len("/__log/") :], [])
    return 404, {"error": f"no control endpoint {method} {path}"}


async def serve_connection(scenarios: Scenarios, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:
            head = await read_head(reader)
            if head is None:
                return
            method, target, headers = head
            path = target.split("?", 1)[0]
            if path.startswith("/s/") and path[3:] in scenarios.by_id:
                entry = scenarios.record(path[3:], method, path, headers)
                if entry.get("reset_mid_body"):
                    await read_body(reader, headers, limit=64 * 1024)
                    reset_connection(writer)
                    return
                await read_body(reader, headers)
                if not await answer(writer, entry):
                    return
                continue
            await read_body(reader, headers)
            status, payload = control(scenarios, method, path)
            body = json.dumps(payload).encode()
            writer.write(
                f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            await writer.drain()
    except (ConnectionError, asyncio.IncompleteReadError):
        return
    finally:
        if not writer.transport.is_closing():
            writer.close()


async def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("scenarios.json")
    scenarios = Scenarios(path)
    server = await asyncio.start_server(lambda r, w: serve_connection(scenarios, r, w), "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    print(f"listening 127.0.0.1:{port}", flush=True)
    loop = asyncio.get_running_loop()
    stdin_closed = loop.run_in_executor(None, sys.stdin.read)
    await asyncio.wait(
        [asyncio.ensure_future(stdin_closed), asyncio.ensure_future(server.serve_forever())],
        return_when=asyncio.FIRST_COMPLETED,
    )
    # Stdin closed: the runner is done. Exit at once, without waiting for
    # connections still held open by hanging scenarios (Python 3.12+ would
    # wait for them when the server closes).
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        pass
