"""httpx ``files=`` uploads through the retry transports: sent again whole where httpx renders them again (bytes,
text, a file object it rewinds: ``FileField.render_data`` seeks it to 0), once where it cannot (a pipe). Against
``httpx.MockTransport`` with a fake sleep and clock: no network, no real waiting."""

import asyncio
import io
import os
from typing import Any, Dict, Iterator, List

import httpx
import pytest
from httpx._multipart import MultipartStream

import retryplan
from retryplan import GaveUpError, GiveUpReason, Policy
from retryplan.httpx import AsyncRetryTransport, RetryTransport

POLICY = Policy(max_attempts=3, jitter={"kind": "none"})
URL = "http://retryplan.test/upload"
#: More than httpx's 64 KiB chunk: a first attempt that fails mid-body leaves the file mid-way.
PAYLOAD = bytes(range(256)) * 800
DATA = {"note": "hello"}


def expected_body(request: httpx.Request, files: Dict[str, Any]) -> bytes:
    """The multipart body httpx renders for ``files`` (fresh copies) and DATA under the request's boundary."""
    boundary = request.headers["content-type"].partition("boundary=")[2].encode()
    return b"".join(MultipartStream(data=DATA, files=files, boundary=boundary))


class Upload(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """A fake transport that reads the body as a connection sends it, chunk after chunk (httpx.MockTransport reads
    it whole first): the first attempt sends three chunks, then its connection fails; later attempts send the body
    whole and are answered 200. Records every attempt's body."""

    def __init__(self) -> None:
        self.bodies: List[bytes] = []
        self.requests: List[httpx.Request] = []

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        chunks = iter(request.stream)  # type: ignore[arg-type]
        if len(self.requests) == 1:
            self.bodies.append(next(chunks) + next(chunks) + next(chunks))  # the head, then the file in part
            raise httpx.ConnectError("the connection broke mid-upload")
        self.bodies.append(b"".join(chunks))
        return httpx.Response(200)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        chunks: List[bytes] = []
        async for chunk in request.stream:  # type: ignore[union-attr]
            chunks.append(chunk)
            if len(self.requests) == 1 and len(chunks) == 3:
                self.bodies.append(b"".join(chunks))
                raise httpx.ConnectError("the connection broke mid-upload")
            await asyncio.sleep(0)
        self.bodies.append(b"".join(chunks))
        return httpx.Response(200)


def fake_clock() -> Any:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    return sleep, (lambda: now[0])


def post(upload: Upload, files: Dict[str, Any], policy: Policy = POLICY) -> httpx.Response:
    sleep, clock = fake_clock()
    transport = RetryTransport(upload, policy=policy, sleep=sleep, clock=clock)
    with httpx.Client(transport=transport) as client:
        return client.post(URL, data=DATA, files=files)


@pytest.mark.parametrize(
    "files",
    [
        lambda: {"file": ("payload.bin", io.BytesIO(PAYLOAD), "application/octet-stream")},
        lambda: {"file": ("payload.bin", PAYLOAD)},  # bytes
        lambda: {"file": ("payload.txt", PAYLOAD.hex())},  # text
        lambda: {"a": ("a.bin", io.BytesIO(PAYLOAD)), "b": ("b.bin", io.BytesIO(PAYLOAD[::-1]))},
    ],
    ids=["file object", "bytes", "text", "two files"],
)
def test_a_files_upload_is_sent_again_whole_after_a_failed_attempt(files: Any) -> None:
    upload = Upload()
    response = post(upload, files())
    assert response.status_code == 200 and len(upload.requests) == 2
    whole = expected_body(upload.requests[1], files())
    assert upload.bodies[1] == whole and len(whole) == int(upload.requests[1].headers["content-length"])
    assert upload.bodies[0] != whole  # the first attempt broke mid-body


def test_a_file_on_disk_is_sent_again_whole(tmp_path: Any) -> None:
    path = tmp_path / "payload.bin"
    path.write_bytes(PAYLOAD)
    upload = Upload()
    with open(path, "rb") as file:
        assert post(upload, {"file": file}).status_code == 200
    with open(path, "rb") as again:
        assert upload.bodies[1] == expected_body(upload.requests[1], {"file": again})


def test_the_async_transport_sends_a_files_upload_again_whole() -> None:
    upload = Upload()

    async def sleep(seconds: float) -> None:
        pass

    async def send() -> httpx.Response:
        transport = AsyncRetryTransport(upload, policy=POLICY, sleep=sleep)
        async with httpx.AsyncClient(transport=transport) as client:
            return await client.post(URL, data=DATA, files={"file": ("p.bin", io.BytesIO(PAYLOAD))})

    assert asyncio.run(send()).status_code == 200 and len(upload.requests) == 2
    assert upload.bodies[1] == expected_body(upload.requests[1], {"file": ("p.bin", io.BytesIO(PAYLOAD))})


class Unrewindable(io.RawIOBase):
    """A file whose position cannot be set (a pipe's, stdin's): httpx's seek(0) is an UnsupportedOperation it
    passes over, so a second rendering carries on from where the first stopped."""

    def __init__(self, data: bytes) -> None:
        self.data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self.data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


class ReadOnly:
    """A file-like object with ``read`` alone: httpx reads it, never rewinds it."""

    def __init__(self, data: bytes) -> None:
        self.data = io.BytesIO(data)

    def read(self, size: int = -1) -> bytes:
        return self.data.read(size)


def _pipe() -> Any:
    read, write = os.pipe()
    os.write(write, PAYLOAD[:4096])  # within the pipe's buffer
    os.close(write)
    return os.fdopen(read, "rb")


@pytest.mark.parametrize(
    "make", [lambda: Unrewindable(PAYLOAD), lambda: ReadOnly(PAYLOAD), _pipe], ids=["unseekable", "read only", "pipe"]
)
def test_a_file_httpx_cannot_rewind_is_sent_once(make: Any) -> None:
    upload = Upload()
    file = make()
    with pytest.raises(GaveUpError) as raised:
        post(upload, {"file": ("f.bin", file)})
    assert raised.value.reason == GiveUpReason.BODY_NOT_REPLAYABLE and len(upload.requests) == 1
    if hasattr(file, "close"):
        file.close()


def test_httpx_itself_renders_an_unrewindable_file_once_and_a_file_object_again() -> None:
    # What the transport follows, in the installed httpx: a file object rendered twice is rendered whole twice
    # (FileField.render_data seeks to 0); an unseekable one carries on from where the first rendering stopped.
    rewound = MultipartStream(data={}, files={"f": ("f.bin", io.BytesIO(PAYLOAD))})
    assert b"".join(rewound) == b"".join(rewound)
    once = MultipartStream(data={}, files={"f": ("f.bin", Unrewindable(PAYLOAD))})
    first, second = b"".join(once), b"".join(once)
    assert PAYLOAD in first and PAYLOAD not in second


def _interleaved(streams: List[Any]) -> List[bytes]:
    """Reads the streams a chunk at a time in turn (two attempts at once: a hedge beside its attempt, or an attempt
    abandoned at its abort time whose worker thread is still reading), each to its end."""
    iterators: List[Iterator[bytes]] = [iter(stream) for stream in streams]
    bodies: List[List[bytes]] = [[] for _ in streams]
    live = set(range(len(streams)))
    while live:
        for index in sorted(live):
            chunk = next(iterators[index], None)
            if chunk is None:
                live.discard(index)
            else:
                bodies[index].append(chunk)
    return [b"".join(body) for body in bodies]


def test_two_attempts_reading_one_upload_at_once_each_send_it_whole() -> None:
    from retryplan.httpx import _Body

    request = httpx.Request("POST", URL, data=DATA, files={"file": ("p.bin", io.BytesIO(PAYLOAD))})
    whole = expected_body(request, {"file": ("p.bin", io.BytesIO(PAYLOAD))})
    body = _Body(request.stream)
    assert _interleaved([body.for_attempt(), body.for_attempt()]) == [whole, whole]
    # httpx's own stream, read by two attempts at once, moves one file position for both: neither is whole.
    shared = _interleaved([request.stream, request.stream])
    assert shared[0] != whole and shared[1] != whole


def test_a_hedged_upload_sends_each_attempt_whole() -> None:
    hedged = Policy(
        max_attempts=2,
        jitter={"kind": "none"},
        hedging={"delay_ms": 1, "max_hedged_attempts": 2},
        retry_methods=["POST"],
    )
    bodies: Dict[int, bytes] = {}

    class Slow(httpx.AsyncBaseTransport):
        """The first attempt stalls mid-body until the hedge has started; then both read a chunk in turn, and neither
        answers before both read their whole body (the first answer ends the other attempt, however the two ran)."""

        def __init__(self) -> None:
            self.hedged = asyncio.Event()
            self.started = 0
            self.read = {1: asyncio.Event(), 2: asyncio.Event()}

        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            self.started += 1
            attempt = self.started
            if attempt == 2:
                self.hedged.set()
            chunks = []
            async for chunk in request.stream:  # type: ignore[union-attr]
                chunks.append(chunk)
                if attempt == 1 and len(chunks) == 3:
                    await asyncio.wait_for(self.hedged.wait(), 10)  # a guard, never reached: the hedge starts
                await asyncio.sleep(0)  # the other attempt reads between two chunks of this one
            bodies[attempt] = b"".join(chunks)
            self.read[attempt].set()
            await asyncio.wait_for(self.read[3 - attempt].wait(), 10)
            return httpx.Response(200)

    async def send() -> httpx.Response:
        transport = AsyncRetryTransport(Slow(), policy=hedged)
        async with httpx.AsyncClient(transport=transport) as client:
            files = {"file": ("p.bin", io.BytesIO(PAYLOAD))}
            return await client.post(URL, data=DATA, files=files, extensions={"retryplan": {"idempotent": True}})

    response = asyncio.run(send())
    whole = expected_body(response.request, {"file": ("p.bin", io.BytesIO(PAYLOAD))})
    assert bodies == {1: whole, 2: whole}


def test_content_given_as_a_file_is_still_sent_once() -> None:
    # httpx streams content=<file> as it comes (never rewinds it): one-shot, as before.
    sleep, clock = fake_clock()
    upload = Upload()
    transport = RetryTransport(upload, policy=POLICY, sleep=sleep, clock=clock)
    with httpx.Client(transport=transport) as client, pytest.raises(GaveUpError) as raised:
        client.post(URL, content=io.BytesIO(PAYLOAD))
    assert raised.value.reason == GiveUpReason.BODY_NOT_REPLAYABLE and len(upload.requests) == 1


def test_the_decision_rides_on_the_response_of_an_upload() -> None:
    upload = Upload()
    response = post(upload, {"file": ("p.bin", io.BytesIO(PAYLOAD))})
    decision = response.extensions["retryplan_decision"]
    assert isinstance(decision, retryplan.Succeeded) and decision.attempts == 2
