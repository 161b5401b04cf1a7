"""The core's one wire encoding (``Driver.exchange``): whole numbers in, whole numbers out.

Every word position and kind number here is read from the core's own tables
(``wire_tables()``) once, at import; none is written by hand. The import fails
when the core speaks another version of the encoding than this module knows.
"""

from __future__ import annotations

from ._native import wire_tables

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from typing import Any, Dict

WIRE_VERSION = 2
"""The version of the encoding this module was written against."""

TABLES: Dict[str, Any] = wire_tables()
if TABLES["version"] != WIRE_VERSION:
    raise ImportError(f"retryplan: the engine speaks wire version {TABLES['version']}, this package {WIRE_VERSION}")

NONE: int = TABLES["none"]
INPUT: Dict[str, int] = TABLES["input"]
"""Input word positions by field name (``INPUT["now_ms"]``)."""
OUTPUT: Dict[str, int] = TABLES["output"]
"""Output word positions by field name (``OUTPUT["action_kind"]``)."""


def kind(table: str, name: str) -> int:
    """A name's number on the wire: its place in the core's table (``kind("action_kinds", "sleep")``)."""
    return int(TABLES[table].index(name))


def input_record(kind_name: str, now_ms: int, **words: int) -> list:  # type: ignore[type-arg]
    """An input record: ``kind_name`` (``poll``, ``result``, ``cancel``, ``timer_ended``) at ``now_ms``, other words by field name."""
    record = [NONE] * len(INPUT)
    record[INPUT["input_kind"]], record[INPUT["now_ms"]] = kind("input_kinds", kind_name), now_ms
    for field, word in words.items():
        record[INPUT[field]] = word
    return record
