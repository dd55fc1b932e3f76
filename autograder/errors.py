"""The tool's exceptions that end a command with one line for a person (see :mod:`autograder.cli`).

They live here, importing nothing, so that the command line can catch them without loading the
modules that raise them: ``grade`` starts its sandboxes' zygote before its own imports.
"""

from __future__ import annotations


class ConfigError(Exception):
    """``course.yml`` is wrong; the message is one line for a person."""


class UsageError(Exception):
    """SUBMISSIONS itself, or a flag, is unusable (exit status 2)."""


class NotebookError(Exception):
    """A file is not a notebook we can read; the message is one line naming the file."""


class BuildError(Exception):
    """A source is inconsistent; one line naming the file and the problem."""
