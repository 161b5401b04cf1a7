"""Shared test fixtures: where the conformance vectors live, and the scripted local HTTP server."""

import os
import pathlib
from typing import Iterator

import pytest
from server import Server

HERE = pathlib.Path(__file__).resolve().parent


def vector_dir() -> pathlib.Path:
    """``$RETRYPLAN_VECTORS`` or the repository's ``tests/conformance``."""
    return pathlib.Path(os.environ.get("RETRYPLAN_VECTORS", HERE.parent.parent / "tests" / "conformance"))


@pytest.fixture
def vectors() -> pathlib.Path:
    """The conformance vector directory."""
    return vector_dir()


@pytest.fixture
def server() -> Iterator[Server]:
    """A scripted local HTTP server (tests/server.py), closed after the test."""
    s = Server()
    yield s
    s.close()
