"""Reading policy files: JSON as text (the engine reads it), TOML into a dict."""

import os
import sys
from typing import Any, Dict, Union

__all__ = ["read_policy_file"]


def read_policy_file(path: "Union[str, os.PathLike[str]]") -> Union[str, Dict[str, Any]]:
    """Return the JSON text of a ``.json`` policy file, or the table of a ``.toml`` one.

    TOML needs Python 3.11+ (``tomllib``) or the ``tomli`` package
    (``pip install retryplan[toml]``). Any other suffix is read as JSON.
    """
    from ._errors import InvalidConfigError

    path = os.fspath(path)
    toml_file = str(path).endswith(".toml")
    with open(path, "rb") as handle:
        data = handle.read()
    text, detail = "", ""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:  # said where, as the CLI says it (cli/src/file.rs `read`)
        detail = f"not valid UTF-8: the byte at offset {error.start} starts no character"
    else:
        if text.startswith("\ufeff"):
            detail = (
                "not valid TOML: the file starts with a byte order mark (U+FEFF): save it as UTF-8 without one"
                if toml_file
                else "not valid JSON: the file starts with a byte order mark (U+FEFF), which JSON has none of "
                "(RFC 8259 §8.1): save it as UTF-8 without one"
            )
    if detail:
        message = f"invalid policy configuration: {detail}"
        raise InvalidConfigError(message, config="policy", field="", detail=detail)
    if not toml_file:
        return text
    if sys.version_info >= (3, 11):
        import tomllib as toml
    else:  # pragma: no cover - depends on the interpreter
        try:
            import tomli as toml  # type: ignore[import-not-found, no-redef, unused-ignore]
        except ModuleNotFoundError as error:
            raise ModuleNotFoundError(
                "reading a TOML policy on Python < 3.11 needs tomli: pip install 'retryplan[toml]'"
            ) from error
    try:
        return dict(toml.loads(text))
    except toml.TOMLDecodeError as error:
        raise InvalidConfigError(
            f"invalid policy TOML in {path}: {error}", config="policy", field="", detail=str(error)
        ) from error
