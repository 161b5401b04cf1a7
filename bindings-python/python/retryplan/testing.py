"""Fake time for testing code that uses retryplan's helpers: ``with fake_time() as time:``.

The helpers go by their clock, not by their sleep having returned: the clock decides when the next attempt
starts, when an attempt times out and when the operation's deadline passes. Patching ``time.sleep`` (or
``asyncio.sleep``) alone fakes the wait but not the clock, so a helper either waits for real or (now) refuses a
sleep that did not move its clock. :func:`fake_time` fakes both::

    from retryplan.testing import fake_time

    def test_fetch_retries():
        with fake_time() as time:
            assert fetch_price("x") == 42      # decorated with @retryplan.retry(policy) at import
        assert time.slept == [2.0, 2.0]        # no real second passed

While it is active, every helper that was not given its own ``clock=`` or ``sleep=`` (sync and async ``@retry``,
``attempts()``, ``async_attempts()``, the httpx transports, the requests adapter), made before or inside the
block, reads the fake clock and sleeps by advancing it (an async helper's sleep also yields to the event loop
once). A helper given its own ``clock=`` or ``sleep=`` keeps it. The fake clock moves only when a helper sleeps
or the test calls :meth:`FakeTime.advance`: a running attempt takes no fake time, except that an async helper
whose attempts are still running when their abort or hedge time comes (waited on the event loop's timer, as
without a fake) moves the fake clock to that time. The wall clock Retry-After dates are read against is not
faked: freeze it with freezegun or time-machine (the helpers read ``time.time()`` when they read a date).

Scope: process-wide, as a library author's test switch is (``stamina.set_testing()``, freezegun and
time-machine are process-wide too), not a ``ContextVar``: the code under test may run a helper in a worker
thread (a ``ThreadPoolExecutor``, ``loop.run_in_executor``), in a task or a fixture's context, and a
context-local fake would silently miss it and wait for real. The fake is active only inside the ``with`` block:
leaving it (by an error too) restores what was before (the real clock, or an enclosing ``fake_time()``), so tests
do not leak it into each other. Blocks nest; the innermost one is active. The default clock stays native: when
no fake is active, reading it costs one atomic load more, no Python call.
"""

from __future__ import annotations

import asyncio
import math
import threading

from ._native import Settings
from ._run import FAKES

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from types import TracebackType
    from typing import List, Optional, Type

__all__ = ["FakeTime", "fake_time"]

_ACTIVATING = threading.Lock()  # entering and leaving blocks: the stack and the engine's fake clock change together


class FakeTime:
    """A fake monotonic clock and the sleeps that advance it (what :func:`fake_time` yields).

    ``now`` is the fake monotonic time (float seconds); ``slept`` lists the seconds each helper's sleep waited,
    in order; :meth:`advance` moves the clock by hand (time an attempt takes, say). The time is kept in integer
    nanoseconds, so a sleep to a wake time lands on it exactly. Safe to share between threads.
    """

    def __init__(self, start: float = 0.0) -> None:
        self._ns = _nanoseconds("start", start)
        self._lock = threading.Lock()
        self.slept: List[float] = []
        """The seconds each helper's sleep waited, in order (the real time they took: none)."""

    @property
    def now(self) -> float:
        """The fake monotonic time, float seconds (as ``time.monotonic()`` reads)."""
        return self._ns / 1e9

    def monotonic(self) -> float:
        """The fake monotonic time: the clock the helpers read (pass it as a helper's ``clock=`` too)."""
        return self._ns / 1e9

    def advance(self, seconds: float) -> None:
        """Moves the fake clock ``seconds`` forward (>= 0; InvalidArgumentError naming ``seconds`` otherwise)."""
        step = _nanoseconds("seconds", seconds)
        with self._lock:
            self._ns += step

    def advance_to(self, when: float) -> None:
        """Moves the fake clock to ``when`` (float seconds), unless it is there or later already."""
        target = _nanoseconds("when", when)
        with self._lock:
            self._ns = max(self._ns, target)

    def sleep(self, seconds: float) -> None:
        """The sync helpers' sleep while this fake is active: records ``seconds`` and advances the clock by them."""
        step = _nanoseconds("seconds", seconds)
        with self._lock:
            self.slept.append(seconds)
            self._ns += step

    async def async_sleep(self, seconds: float) -> None:
        """The async helpers' sleep while this fake is active: as :meth:`sleep`, then yields to the event loop once."""
        self.sleep(seconds)
        await asyncio.sleep(0)

    def __repr__(self) -> str:
        return f"<FakeTime now={self.now!r} slept={self.slept!r}>"


class fake_time:  # noqa: N801 - used as a function: `with fake_time() as time:`
    """Fakes the helpers' clock and sleep inside ``with fake_time(start) as time:`` (see the module doc).

    ``start`` is the fake monotonic time at the start, float seconds (default 0.0). The block's value is the
    :class:`FakeTime`; leaving the block restores what was active before.
    """

    def __init__(self, start: float = 0.0) -> None:
        self.fake = FakeTime(start)

    def __enter__(self) -> FakeTime:
        with _ACTIVATING:
            if self.fake in FAKES:
                from ._errors import ArgumentTypeError

                rule = "is already active: make a new fake_time() for each block"
                raise ArgumentTypeError(f"invalid argument `fake_time`: {rule}", field="fake_time", rule=rule)
            FAKES.append(self.fake)
            Settings.fake_clock(self.fake.monotonic)
        return self.fake

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        with _ACTIVATING:
            if self.fake in FAKES:
                FAKES.remove(self.fake)
            Settings.fake_clock(FAKES[-1].monotonic if FAKES else None)


def _nanoseconds(name: str, seconds: float) -> int:
    """``seconds`` (finite, >= 0) in integer nanoseconds, else InvalidArgumentError naming ``name``."""
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        from ._errors import ArgumentTypeError

        rule = "must be a number of seconds"
        message = f"invalid argument `{name}`: {rule}, got {type(seconds).__name__}"
        raise ArgumentTypeError(message, field=name, rule=rule)
    if not math.isfinite(seconds) or seconds < 0:
        from ._errors import InvalidArgumentError

        rule = "must be a finite number of seconds >= 0"
        raise InvalidArgumentError(f"invalid argument `{name}`: {rule}, got {seconds!r}", field=name, rule=rule)
    return round(seconds * 1e9)
