"""A scripted HTTP server on 127.0.0.1 for the helper tests.

Each test queues the behaviour of the next requests ("503 with Retry-After
1", "stall", "drop", "200"); the server records what it saw (time, method,
path, headers) so tests can assert attempts, waits and headers.
"""

import email.utils
import http.server
import socket
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

#: The policy of the tests against this server: four attempts of 300 ms, a constant 20 ms backoff without
#: jitter, nothing reserved. A test changes what it needs: ``{**FAST, "max_attempts": 2}``.
FAST: Dict[str, Any] = {
    "max_attempts": 4,
    "total_timeout_ms": 4000,
    "attempt_timeout": {"fixed_ms": 300},
    "response_reserve_ms": 0,
    "minimum_useful_attempt_ms": 50,
    "backoff": {"kind": "constant", "base_ms": 20, "multiplier": 1.0, "cap_ms": 20},
    "jitter": {"kind": "none"},
}


class Script:
    """The queued behaviours and the requests seen, shared with the handler threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.plan: List[Tuple[str, Any]] = []
        self.seen: List[Dict[str, Any]] = []
        self.release = threading.Event()

    def queue(self, *steps: Tuple[str, Any]) -> None:
        with self.lock:
            self.plan.extend(steps)

    def next_step(self) -> Tuple[str, Any]:
        with self.lock:
            return self.plan.pop(0) if self.plan else ("status", 200)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    script: Script

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the stdlib's name
        pass

    def _serve(self) -> None:
        body = self._body()
        script = self.server.script  # type: ignore[attr-defined]
        kind, arg = script.next_step()
        with script.lock:
            script.seen.append(
                {
                    "at": time.monotonic(),
                    "method": self.command,
                    "path": self.path,
                    "headers": {k.lower(): v for k, v in self.headers.items()},
                    "body": body,
                    "kind": kind,
                }
            )
        if kind == "drop":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if kind == "stall":
            script.release.wait(arg)
            self.close_connection = True
            return
        if kind == "early_hints":  # an interim 103 before the answer (RFC 8297), then the answer `arg`
            self.wfile.write(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
            kind = "status"
        status, headers = (arg, {}) if kind == "status" else arg
        payload = f"status {status}".encode()
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def _body(self) -> bytes:
        """The request's body: Content-Length bytes, or the chunks of a chunked body (a streamed one)."""
        if "chunked" not in (self.headers.get("transfer-encoding") or "").lower():
            length = int(self.headers.get("content-length") or 0)
            return self.rfile.read(length) if length else b""
        chunks = []
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # the trailer, to its blank line
                    pass
                return b"".join(chunks)
            chunks.append(self.rfile.read(size))
            self.rfile.readline()  # the CRLF after the chunk

    do_GET = _serve
    do_POST = _serve
    do_PUT = _serve


class Server:
    """A ThreadingHTTPServer on an ephemeral loopback port."""

    def __init__(self) -> None:
        self.script = Script()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.script = self.script  # type: ignore[attr-defined]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host}:{port}"

    def close(self) -> None:
        self.script.release.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def http_date(seconds_from_now: float, now_unix: Optional[float] = None) -> str:
    """An IMF-fixdate ``seconds_from_now`` after ``now_unix`` (default: the wall clock now), whole seconds
    as HTTP dates are."""
    return email.utils.formatdate((time.time() if now_unix is None else now_unix) + seconds_from_now, usegmt=True)


def waits(seen: List[Dict[str, Any]]) -> List[float]:
    """Seconds between consecutive requests seen by the server."""
    return [b["at"] - a["at"] for a, b in zip(seen, seen[1:], strict=False)]


def retry_after(value: str, status: int = 503) -> Tuple[str, Any]:
    return ("reply", (status, {"Retry-After": value}))


def status(code: int, headers: Optional[Dict[str, str]] = None) -> Tuple[str, Any]:
    return ("reply", (code, headers or {}))
