"""Values the engine hands back that hold no engine state: its JSON form, typed.

The engine serializes each one (the vectors' shape) and this module gives it
a class keyed by what it is: frozen, compared by its fields, ``to_dict()``
returning the JSON form again. The engine builds them (``classify``,
``admit``, ``redeliver``, ``explain``); there is nothing to construct by hand.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Literal, Optional, Tuple

    from ._native import Decision

__all__ = ["Admission", "Classification", "Redelivery", "Timeline"]


def _copy(value: Any) -> Any:
    """A copy of JSON-shaped data, so that no caller changes a value."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


class _Data:
    """A frozen value from its JSON form (``fields``)."""

    __slots__ = ("_fields",)
    _fields: Dict[str, Any]

    def __init__(self, fields: Dict[str, Any]) -> None:
        object.__setattr__(self, "_fields", fields)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen: cannot delete {name!r}")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._fields == self._fields  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(sorted(self._fields.items()))))

    def to_dict(self) -> Dict[str, Any]:
        """The JSON form."""
        return _copy(self._fields)  # type: ignore[no-any-return]

    def _repr(self, name: str, skip: str = "type") -> str:
        fields = ", ".join(f"{key}={value!r}" for key, value in self._fields.items() if key != skip)
        return f"{name}({fields})"


class Classification(_Data):
    """What an outcome means under a policy: ``kind`` is ``success``, ``retryable``, ``not_retryable``,
    ``conflict`` or ``cancelled``; ``ambiguous`` is True when a retryable request may have been processed."""

    __slots__ = ()

    @property
    def kind(self) -> Literal["success", "retryable", "not_retryable", "conflict", "cancelled"]:
        """The class of the outcome."""
        return self._fields["class"]  # type: ignore[no-any-return]

    @property
    def ambiguous(self) -> bool:
        """True when a retryable request may have been processed."""
        return bool(self._fields.get("ambiguous", False))

    @property
    def throttling(self) -> bool:
        """True when the server throttled the request (an AWS throttling error code)."""
        return bool(self._fields.get("throttling", False))

    def __repr__(self) -> str:
        return f"Classification(kind={self.kind!r}, ambiguous={self.ambiguous})"


class Admission(_Data):
    """A server's verdict on a request with a propagated deadline: ``admitted``, the time left, and (when
    rejected) the least time the work needs."""

    __slots__ = ()

    @property
    def kind(self) -> Literal["admit", "reject"]:
        """``admit`` or ``reject``."""
        return self._fields["type"]  # type: ignore[no-any-return]

    @property
    def admitted(self) -> bool:
        """True when the request should be served."""
        return self.kind == "admit"

    @property
    def remaining_ms(self) -> int:
        """Time left for the work, in ms."""
        return self._fields["remaining_ms"]  # type: ignore[no-any-return]

    @property
    def minimum_useful_ms(self) -> Optional[int]:
        """The least time the work needs (rejections only), in ms."""
        return self._fields.get("minimum_useful_ms")

    def __repr__(self) -> str:
        return self._repr(f"Admission[{self.kind}]")


class Redelivery(_Data):
    """What to do with a queued message after one delivery: ``kind`` is ``acknowledge``, ``redeliver_after``
    (with ``delay_ms``, ``redeliver_at_ms``) or ``dead_letter`` (with ``reason``)."""

    __slots__ = ()

    @property
    def kind(self) -> Literal["acknowledge", "redeliver_after", "dead_letter"]:
        """``acknowledge``, ``redeliver_after`` or ``dead_letter``."""
        return self._fields["type"]  # type: ignore[no-any-return]

    @property
    def delay_ms(self) -> Optional[int]:
        """The delay before the next delivery, in ms (redeliver_after only)."""
        return self._fields.get("delay_ms")

    @property
    def redeliver_at_ms(self) -> Optional[int]:
        """When to deliver again, in ms (redeliver_after only)."""
        return self._fields.get("redeliver_at_ms")

    @property
    def reason(self) -> Optional[str]:
        """Why the message goes to the dead-letter queue (dead_letter only)."""
        return self._fields.get("reason")

    def __repr__(self) -> str:
        return self._repr(f"Redelivery[{self.kind}]")


class Timeline(_Data):
    """A policy's worst-case timeline (every attempt failing at its timeout, every wait at its longest)."""

    __slots__ = ("_messages",)
    __hash__ = None  # type: ignore[assignment]
    _messages: Tuple[str, ...]

    def __init__(self, fields: Dict[str, Any], messages: List[str]) -> None:
        super().__init__(fields)
        object.__setattr__(self, "_messages", tuple(messages))

    @property
    def deadline_ms(self) -> int:
        """The deadline used, in ms from the start."""
        return self._fields["deadline_ms"]  # type: ignore[no-any-return]

    @property
    def first_attempt_at_ms(self) -> int:
        """When the first attempt starts, in ms from the operation's start."""
        return self._fields["first_attempt_at_ms"]  # type: ignore[no-any-return]

    @property
    def response_reserve_ms(self) -> int:
        """The response reserve kept at the end, in ms."""
        return self._fields["response_reserve_ms"]  # type: ignore[no-any-return]

    @property
    def configured_attempts(self) -> int:
        """``max_attempts``."""
        return self._fields["configured_attempts"]  # type: ignore[no-any-return]

    @property
    def attempts_that_fit(self) -> int:
        """Attempts that start in the worst case."""
        return self._fields["attempts_that_fit"]  # type: ignore[no-any-return]

    @property
    def steps(self) -> List[Dict[str, Any]]:
        """Attempts and waits in order, as JSON-shaped dicts (``type`` is ``attempt`` or ``wait``)."""
        return _copy(self._fields["steps"])  # type: ignore[no-any-return]

    @property
    def ending(self) -> Decision:
        """How the worst case ends."""
        from ._native import Decision

        return Decision.from_dict(self._fields["ending"])

    @property
    def unbounded_worst_case_ms(self) -> Optional[int]:
        """All attempts at their fixed timeout plus the longest waits, ignoring the deadline."""
        return self._fields.get("unbounded_worst_case_ms")

    @property
    def warnings(self) -> List[Dict[str, Any]]:
        """Warnings as JSON-shaped dicts."""
        return _copy(self._fields["warnings"])  # type: ignore[no-any-return]

    @property
    def warning_messages(self) -> List[str]:
        """The warnings in words."""
        return list(self._messages)

    def __repr__(self) -> str:
        fit, configured, warnings = self.attempts_that_fit, self.configured_attempts, len(self._messages)
        return f"<Timeline deadline_ms={self.deadline_ms} attempts_that_fit={fit}/{configured} warnings={warnings}>"


for _class in (Admission, Classification, Redelivery, Timeline):
    _class.__module__ = "retryplan"
