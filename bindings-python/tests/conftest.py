"""Shared test fixtures: where the conformance vectors live."""

import os
import pathlib

import pytest

HERE = pathlib.Path(__file__).resolve().parent


def vector_dir() -> pathlib.Path:
    """``$RETRYPLAN_VECTORS`` or the repository's ``tests/conformance``."""
    return pathlib.Path(os.environ.get("RETRYPLAN_VECTORS", HERE.parent.parent / "tests" / "conformance"))


@pytest.fixture
def vectors() -> pathlib.Path:
    """The conformance vector directory."""
    return vector_dir()
