"""Runs one README example with its hosts served by the local test server.

Usage: python readme_route.py PORT FILE

A request to ``https://HOST.example/PATH`` (RFC 2606 names: they never
resolve) goes to ``http://127.0.0.1:PORT/s/HOST.example/PATH`` instead, the
scenario of that name in ``tests/helpers/readme-hosts.json``. The rewrite is
made where the bytes leave: httpx's own transports (sync and async, under the
retry transports or alone) and requests' ``HTTPAdapter.send`` (under
``RetryAdapter``). Nothing else of the example changes. Prints on stderr how
many requests were routed.

It also fails the example (exit 1, naming the request) when a request sent inside an attempt whose operation
carries its idempotency key (``current_attempt().send_idempotency_key``: a keyed policy such as ``checkout``)
leaves the key out of ``Idempotency-Key``: an example that would charge a card twice, once an attempt that timed
out had in fact been processed.
"""

import runpy
import sys
from typing import Any
from urllib.parse import urlsplit

import httpx
import requests.adapters

import retryplan


def main() -> None:
    port, path = sys.argv[1], sys.argv[2]
    routed = [0]
    unkeyed = []

    def keyed(method: str, url: str, headers: Any) -> None:
        """Notes a request of a keyed attempt sent without its key."""
        attempt = retryplan.current_attempt()
        if attempt is None or not attempt.send_idempotency_key:
            return
        if headers.get("Idempotency-Key") != attempt.idempotency_key:
            unkeyed.append(f"{method} {url} (attempt {attempt.attempt}) without its Idempotency-Key")

    def route(url: str) -> str:
        parts = urlsplit(url)
        host = parts.hostname or ""
        if not host.endswith(".example"):
            return url
        routed[0] += 1
        query = f"?{parts.query}" if parts.query else ""
        return f"http://127.0.0.1:{port}/s/{host}{parts.path}{query}"

    sync_handle = httpx.HTTPTransport.handle_request
    async_handle = httpx.AsyncHTTPTransport.handle_async_request
    adapter_send = requests.adapters.HTTPAdapter.send

    def handle_request(self: httpx.HTTPTransport, request: httpx.Request) -> httpx.Response:
        keyed(request.method, str(request.url), request.headers)
        request.url = httpx.URL(route(str(request.url)))
        return sync_handle(self, request)

    async def handle_async_request(self: httpx.AsyncHTTPTransport, request: httpx.Request) -> httpx.Response:
        keyed(request.method, str(request.url), request.headers)
        request.url = httpx.URL(route(str(request.url)))
        return await async_handle(self, request)

    def send(self: requests.adapters.HTTPAdapter, request: Any, *args: Any, **kwargs: Any) -> Any:
        keyed(request.method, request.url, request.headers)
        request.url = route(request.url)
        return adapter_send(self, request, *args, **kwargs)

    httpx.HTTPTransport.handle_request = handle_request  # type: ignore[method-assign]
    httpx.AsyncHTTPTransport.handle_async_request = handle_async_request  # type: ignore[method-assign]
    requests.adapters.HTTPAdapter.send = send  # type: ignore[method-assign]
    try:
        runpy.run_path(path, run_name="__main__")
    finally:
        print(f"readme: {routed[0]} request(s) routed to the local server", file=sys.stderr)
    if unkeyed:
        sys.exit("readme: a keyed operation sent " + "; ".join(unkeyed))


if __name__ == "__main__":
    main()
