"""A TLS error is a failed handshake (the request never left) only when raised inside the handshake.

requests and urllib3 wrap every ``ssl.SSLError`` in their own ``SSLError``, the ones raised while reading the
response too. The table read those wrappers as a failed handshake, so an unkeyed POST whose connection broke
after it was sent was sent again (three times under ``max_attempts: 3``), where httpx, JS and Kotlin reconcile.
"""

import os
import socket
import ssl
import subprocess
import threading
from pathlib import Path
from typing import Any, Iterator, List, Tuple

import pytest

import retryplan
from retryplan import Outcome, ReconcileRequiredError

requests = pytest.importorskip("requests")
urllib3_exceptions = pytest.importorskip("urllib3.exceptions")


def _ssl_error_raised_in(function: str) -> ssl.SSLError:
    """An ``ssl.SSLError`` raised inside a function named ``function`` (``do_handshake``, or a read)."""
    scope: dict = {"ssl": ssl}
    exec(f"def {function}():\n    raise ssl.SSLError(1, 'bad record mac')", scope)  # noqa: S102 - a test's frame name
    try:
        scope[function]()
    except ssl.SSLError as error:
        return error
    raise AssertionError("unreachable")


def _as_requests_raises(inner: ssl.SSLError) -> BaseException:
    """``inner`` wrapped as urllib3 2 and requests wrap it: ``SSLError(e)`` made inside the ``except`` (never
    raised, so no context), the reason of a MaxRetryError, which requests raises its own SSLError over."""
    wrapper = urllib3_exceptions.SSLError(inner)
    retries = urllib3_exceptions.MaxRetryError(None, "https://x/", wrapper)  # type: ignore[arg-type]
    try:
        try:
            raise retries
        except urllib3_exceptions.MaxRetryError as error:
            raise requests.exceptions.SSLError(error) from None
    except requests.exceptions.SSLError as error:
        error.__context__ = retries  # as requests raises it: inside `except MaxRetryError`
        return error


@pytest.mark.parametrize(
    ("function", "failure"), [("do_handshake", "tls_handshake_failed"), ("recv_into", "connection_lost")]
)
def test_the_table_reads_the_ssl_error_a_requests_or_urllib3_ssl_error_wraps(function: str, failure: str) -> None:
    inner = _ssl_error_raised_in(function)
    outcome = Outcome.failure(failure)
    assert retryplan.default_outcome_of_exception(urllib3_exceptions.SSLError(inner)) == outcome
    assert retryplan.default_outcome_of_exception(_as_requests_raises(inner)) == outcome
    # A wrapper with nothing inside it (made by hand) is still read as a failed handshake.
    assert retryplan.default_outcome_of_exception(requests.exceptions.SSLError()) == Outcome.failure(
        "tls_handshake_failed"
    )


@pytest.fixture(scope="module")
def tls_files(tmp_path_factory: pytest.TempPathFactory) -> Tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    subprocess.run(
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=127.0.0.1".split()
        + ["-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    return cert, key


@pytest.fixture()
def breaks_after_the_request(tls_files: Tuple[Path, Path]) -> Iterator[Tuple[int, List[bytes]]]:
    """A TLS 1.2 server that completes the handshake, reads the request, then answers a record with a bad MAC."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*tls_files)
    context.maximum_version = ssl.TLSVersion.TLSv1_2
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    requests_seen: List[bytes] = []

    def serve() -> None:
        while True:
            try:
                raw, _ = listener.accept()
            except OSError:
                return
            try:
                tls = context.wrap_socket(raw, server_side=True)
                requests_seen.append(tls.recv(65536).split(b"\r\n", 1)[0])
                with socket.socket(fileno=os.dup(tls.fileno())) as plain:
                    plain.sendall(b"\x17\x03\x03\x00\x20" + b"\x00" * 32)  # application data, a bad MAC
                tls.close()
            except (OSError, ssl.SSLError):
                pass

    threading.Thread(target=serve, daemon=True).start()
    yield listener.getsockname()[1], requests_seen
    listener.close()


def test_an_unkeyed_post_whose_tls_connection_breaks_after_it_was_sent_is_sent_once(
    breaks_after_the_request: Any,
) -> None:
    from retryplan.requests import RetryAdapter

    port, seen = breaks_after_the_request
    policy = retryplan.Policy(max_attempts=3, total_timeout_ms=5000, backoff={"base_ms": 1, "cap_ms": 1})
    session = requests.Session()
    session.trust_env = False
    session.mount("https://", RetryAdapter(policy=policy))
    with pytest.warns(Warning):  # urllib3's InsecureRequestWarning: the test's certificate is its own
        with pytest.raises(ReconcileRequiredError) as raised:
            session.post(f"https://127.0.0.1:{port}/orders", data=b"{}", verify=False)
    assert seen == [b"POST /orders HTTP/1.1"]
    assert raised.value.last_outcome == Outcome.failure("connection_lost")
