"""Session-wide settings every test sees, command-line subprocesses included."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def reference_stores(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """One folder of reference stores for the session (see autograder/reference.py): every
    test starts from the same cold state as CI, never from the developer's own cache, and each
    assignment's reference runs once however many tests grade it."""
    before = os.environ.get("AUTOGRADER_CACHE_DIR")
    os.environ["AUTOGRADER_CACHE_DIR"] = str(tmp_path_factory.mktemp("autograder-cache"))
    yield
    if before is None:
        os.environ.pop("AUTOGRADER_CACHE_DIR", None)
    else:
        os.environ["AUTOGRADER_CACHE_DIR"] = before
