"""Where the grader keeps what it computes once per host: the user's cache folder."""

from __future__ import annotations

import os
from pathlib import Path


def cache_root() -> Path:
    """``$AUTOGRADER_CACHE_DIR``, else the platform's user cache folder for this tool."""
    override = os.environ.get("AUTOGRADER_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("jax-course-autograder"))
