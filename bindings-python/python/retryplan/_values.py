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


class _Field:
    """One field of a value's JSON form: at class creation, a read-only property reading the key (the
    attribute's name unless given); ``default`` is what an absent key reads (without one, it is always there)."""

    def __init__(self, doc: str, key: str, default: Any) -> None:
        self.doc, self.key, self.default = doc, key, default

    def __set_name__(self, owner: type, name: str) -> None:
        key, default = self.key or name, self.default
        if default is _Field:
            read = lambda value: value._fields[key]  # noqa: E731
        else:
            read = lambda value: value._fields.get(key, default)  # noqa: E731
        setattr(owner, name, property(read, doc=self.doc))


def _field(doc: str, key: str = "", default: Any = _Field) -> Any:
    """A read-only field (typed by the annotation it is assigned to)."""
    return _Field(doc, key, default)


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
    kind: Literal["success", "retryable", "not_retryable", "conflict", "cancelled"] = _field(
        "The class of the outcome.", "class"
    )
    ambiguous: bool = _field("True when a retryable request may have been processed.", default=False)
    throttling: bool = _field("True when the server throttled the request (an AWS throttling error code).", default=False)

    def __repr__(self) -> str:
        return f"Classification(kind={self.kind!r}, ambiguous={self.ambiguous})"


class Admission(_Data):
    """A server's verdict on a request with a propagated deadline: ``admitted``, the time left, and (when
    rejected) the least time the work needs."""

    __slots__ = ()
    kind: Literal["admit", "reject"] = _field("``admit`` or ``reject``.", "type")
    remaining_ms: int = _field("Time left for the work, in ms.")
    minimum_useful_ms: Optional[int] = _field("The least time the work needs (rejections only), in ms.", default=None)

    @property
    def admitted(self) -> bool:
        """True when the request should be served."""
        return self.kind == "admit"

    def __repr__(self) -> str:
        return self._repr(f"Admission[{self.kind}]")


class Redelivery(_Data):
    """What to do with a queued message after one delivery: ``kind`` is ``acknowledge``, ``redeliver_after``
    (with ``delay_ms``, ``redeliver_at_ms``) or ``dead_letter`` (with ``reason``)."""

    __slots__ = ()
    kind: Literal["acknowledge", "redeliver_after", "dead_letter"] = _field(
        "``acknowledge``, ``redeliver_after`` or ``dead_letter``.", "type"
    )
    delay_ms: Optional[int] = _field("The delay before the next delivery, in ms (redeliver_after only).", default=None)
    redeliver_at_ms: Optional[int] = _field("When to deliver again, in ms (redeliver_after only).", default=None)
    reason: Optional[str] = _field("Why the message goes to the dead-letter queue (dead_letter only).", default=None)

    def __repr__(self) -> str:
        return self._repr(f"Redelivery[{self.kind}]")


class Timeline(_Data):
    """A policy's worst-case timeline (every attempt failing at its timeout, every wait at its longest)."""

    __slots__ = ("_messages",)
    __hash__ = None  # type: ignore[assignment]
    _messages: Tuple[str, ...]
    deadline_ms: int = _field("The deadline used, in ms from the start.")
    first_attempt_at_ms: int = _field("When the first attempt starts, in ms from the operation's start.")
    response_reserve_ms: int = _field("The response reserve kept at the end, in ms.")
    configured_attempts: int = _field("``max_attempts``.")
    attempts_that_fit: int = _field("Attempts that start in the worst case.")
    unbounded_worst_case_ms: Optional[int] = _field(
        "All attempts at their fixed timeout plus the longest waits, ignoring the deadline.", default=None
    )

    def __init__(self, fields: Dict[str, Any], messages: List[str]) -> None:
        super().__init__(fields)
        object.__setattr__(self, "_messages", tuple(messages))

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
