"""The base of the plain values the engine hands back (``retryplan._values``, generated from the core's types).

A value is its JSON form (``fields``) under a class keyed by what it is: frozen, compared by its fields,
``to_dict()`` returning the JSON form again. Each field is a read-only property reading its key.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict, List, Tuple


def _copy(value: Any) -> Any:
    """A copy of JSON-shaped data, so that no caller changes a value."""
    if type(value) is dict:
        return {key: _copy(item) for key, item in value.items()}
    if type(value) is list:
        return [_copy(item) for item in value]
    return value


class _Field:
    """One field of a value's JSON form: at class creation, a read-only property reading the key (the attribute's
    name unless given); ``default`` is what an absent key reads (without one, it is always there); ``read`` turns
    what the key holds into the attribute (a copy of a list, a Decision)."""

    def __init__(self, doc: str, key: str, default: Any, read: str) -> None:
        self.doc, self.key, self.default, self.read = doc, key, default, read

    def __set_name__(self, owner: type, name: str) -> None:
        key, default, convert = self.key or name, self.default, _READERS[self.read]
        if default is _Field:
            read = lambda value: convert(value._fields[key])  # noqa: E731
        else:
            read = lambda value: convert(value._fields.get(key, default))  # noqa: E731
        setattr(owner, name, property(read, doc=self.doc))


def _decision(fields: Any) -> Any:
    from ._native import Decision

    return Decision.from_dict(fields)


_READERS = {"": lambda value: value, "copy": _copy, "decision": _decision}


def field(doc: str, key: str = "", default: Any = _Field, read: str = "") -> Any:
    """A read-only field (typed by the annotation it is assigned to)."""
    return _Field(doc, key, default, read)


class Data:
    """A frozen value from its JSON form (``fields``); ``_tag`` is the key naming its kind, if it has kinds."""

    __slots__ = ("_fields",)
    _fields: Dict[str, Any]
    _tag = ""

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

    def __repr__(self) -> str:
        tag = self._tag
        name = f"{type(self).__name__}[{self._fields[tag]}]" if tag else type(self).__name__
        fields = ", ".join(f"{key}={value!r}" for key, value in self._fields.items() if key != tag)
        return f"{name}({fields})"


class AdmissionData(Data):
    """An admission's base: what a server does with the request."""

    __slots__ = ()

    @property
    def admitted(self) -> bool:
        """True when the request should be served."""
        return bool(self._fields["type"] == "admit")


class TimelineData(Data):
    """A timeline's base: its warnings in words too (lists inside: not hashable)."""

    __slots__ = ("_messages",)
    __hash__ = None  # type: ignore[assignment]
    _messages: Tuple[str, ...]

    def __init__(self, fields: Dict[str, Any], messages: List[str]) -> None:
        super().__init__(fields)
        object.__setattr__(self, "_messages", tuple(messages))

    @property
    def warning_messages(self) -> List[str]:
        """The warnings in words."""
        return list(self._messages)

    def __repr__(self) -> str:
        fields, warnings = self._fields, len(self._messages)
        fit = f"{fields['attempts_that_fit']}/{fields['configured_attempts']}"
        return f"<Timeline deadline_ms={fields['deadline_ms']} attempts_that_fit={fit} warnings={warnings}>"
