"""The tests' fake monotonic clock: it moves only when told (an attempt's work) or when a helper sleeps on it."""

from typing import List


class FakeClock:
    """A monotonic clock (seconds) that only moves when the helper sleeps (``sleep``, recorded in ``slept``) or a
    test moves ``now``."""

    def __init__(self) -> None:
        self.now = 100.0
        self.slept: List[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds
