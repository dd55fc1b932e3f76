"""The JAX options of a sandbox that shares a compilation cache folder with other sandboxes."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def compilation_cache_settings(cache: Path | str, *, writes: bool) -> dict[str, Any]:
    """The JAX options of a process that reads a store's ``xla/`` folder (and, with ``writes``,
    fills it). Every process sharing one needs these exact values: some of them enter the
    compile options, and so every cache key (without ``enable_xla_caches="none"`` in one of
    them, no program matched and each compiled the course again). As environment variables:
    ``{name.upper(): str(value)}``."""
    return {
        "jax_compilation_cache_dir": str(cache),
        "jax_compilation_cache_max_size": -1,  # no eviction: a read writes nothing
        "jax_persistent_cache_enable_xla_caches": "none",  # (GPU autotune files)
        "jax_persistent_cache_min_entry_size_bytes": 0,
        "jax_persistent_cache_min_compile_time_secs": 0 if writes else 1e9,
    }
