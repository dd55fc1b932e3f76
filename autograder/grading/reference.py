"""The reference run's results, kept between grading runs.

The reference solution runs once per batch seed and grading environment, not once per
``--out`` folder. A *store* is named by a key over everything that could change what it holds:
the master, the probes, the probe runtime, the job (device, device count, matmul precision),
JAX's version and this host (an XLA:CPU program is compiled for the CPU it ran on, and a home
folder may be shared between machines). It holds:

- ``public-xla/``: the XLA programs compiled by a run of the *student's stub* (the master with
  its solutions replaced by ``...``) and its probes. Submissions read it, and so skip compiling
  the notebook's demos and the probes' own array code; it holds nothing a stub could not make.
- ``reference-xla/``: the programs of the reference solution, read and written only by
  reference runs. A submission never sees it: a program there *is* the solution.
- ``reference-<seed>.json``: the probes' outputs on the reference for one batch seed.
- ``mistakes-<seed>-<digest>.json``: the known-wrong answers' outputs on the same inputs
  (:mod:`autograder.grading.mistakes`), run on the reference's side only, for the known-wrong
  answers of that digest.
- ``sources-<seed>-<gates>.json``: the source probes' outcomes on the master for one batch seed,
  as the grader's gates (the digest of their code) read it.

Only runs of the instructor's own code write a store.

Stores live in the user's cache folder, or under ``$AUTOGRADER_CACHE_DIR``. A store unused for
:data:`STORE_TTL_DAYS` days is deleted when another one is made; deleting any by hand is safe.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..probing import ProbeResult, decode_outputs, encode_outputs
from .cache_folder import cache_root as cache_root  # where the stores live
from .records import atomic_write

if TYPE_CHECKING:
    from ..sandbox.run import RunOutcome

STORE_TTL_DAYS = 30
_STORE_NAME = re.compile(r"^[0-9]{2}-[a-z0-9-]+-[0-9a-f]{20}$")


def store_key(parts: Iterable[bytes]) -> str:
    """20 hex digits over ``parts`` and this host."""
    return host_key([hashlib.sha256(part).hexdigest() for part in parts])


def host_key(digests: Iterable[str]) -> str:
    """:func:`store_key` from the sha256 hex digests of its parts: how a Dask worker names the
    store of its own host without the parts themselves (the master notebook is one)."""
    h = hashlib.sha256()
    for digest in digests:
        h.update(bytes.fromhex(digest))
    for part in (platform.node().encode(), platform.machine().encode()):
        h.update(hashlib.sha256(part).digest())
    return h.hexdigest()[:20]


@dataclass(frozen=True)
class Store:
    """One reference run's results: ``reference.json`` and the compilation cache ``xla/``."""

    path: Path

    @property
    def public_xla(self) -> Path:
        return self.path / "public-xla"

    @property
    def public_warmed(self) -> Path:
        """Exists once the stub's run has filled :attr:`public_xla`."""
        return self.path / "public-xla.done"

    @property
    def reference_xla(self) -> Path:
        return self.path / "reference-xla"

    def outputs_file(self, seed: int) -> Path:
        return self.path / f"reference-{seed}.json"

    @contextlib.contextmanager
    def locked(self) -> Iterator[None]:
        """Held while the store is read or filled: two graders that need the same reference
        run it once, the second waiting for the first."""
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "a") as f:
            fcntl.flock(f, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f, fcntl.LOCK_UN)

    def sources_file(self, seed: int, gates: str) -> Path:
        return self.path / f"sources-{seed}-{gates[:16]}.json"

    def mistakes_file(self, seed: int, digest: str) -> Path:
        return self.path / f"mistakes-{seed}-{digest[:16]}.json"

    def load_mistakes(self, seed: int, digest: str) -> dict[str, ProbeResult] | None:
        """The known mistakes' outcomes (:meth:`save_mistakes`), or ``None``."""
        return _read_results(self.mistakes_file(seed, digest))

    def save_mistakes(self, results: Mapping[str, ProbeResult], seed: int, digest: str) -> None:
        text = json.dumps(encode_results(results), sort_keys=True)
        atomic_write(self.mistakes_file(seed, digest), text, private=True)

    def load(self, seed: int) -> dict[str, ProbeResult] | None:
        """Every probe's decoded reference outcome for ``seed``, or ``None`` if missing or damaged."""
        return _read_results(self.outputs_file(seed))

    def load_sources(self, seed: int, gates: str) -> dict[str, ProbeResult] | None:
        """The source probes' outcomes on the master (:meth:`save_sources`), or ``None``."""
        return _read_results(self.sources_file(seed, gates))

    def save_sources(self, results: Mapping[str, ProbeResult], seed: int, gates: str) -> None:
        text = json.dumps(encode_results(results), sort_keys=True)
        atomic_write(self.sources_file(seed, gates), text, private=True)

    def touch(self) -> None:
        """Mark the store as used now, so that :func:`prune` keeps it."""
        os.utime(self.path)

    def save(self, outcome: RunOutcome, seed: int) -> None:
        """Keep the outputs of a reference run that passed every probe."""

        # 0600: where Landlock is missing, file modes alone keep sandboxes (other user ids) out.
        atomic_write(
            self.outputs_file(seed), json.dumps(encode_results(outcome.results), sort_keys=True), private=True
        )


def _read_results(path: Path) -> dict[str, ProbeResult] | None:
    try:
        return decode_results(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def encode_results(results: Mapping[str, ProbeResult]) -> dict[str, Any]:
    """Decoded probe outcomes (``{"ok": True, "outputs": ...}`` or ``{"ok": False, "error":
    ...}``, by probe id) as JSON-able data: a store's file, or what a Dask worker receives."""
    data: dict[str, Any] = {}
    for pid, r in results.items():
        if not r["ok"]:
            data[pid] = {"error": str(r["error"])}
            continue
        values = {path: (v.value if hasattr(v, "value") else v) for path, v in r["outputs"].items()}
        keys = {path for path, v in r["outputs"].items() if getattr(v, "key", False)}
        meta, blobs = encode_outputs(values)
        for path in keys:
            meta[path]["key"] = True
        data[pid] = {"meta": meta, "blobs": {k: base64.b64encode(b).decode() for k, b in blobs.items()}}
    return data


def decode_results(data: Mapping[str, Any]) -> dict[str, ProbeResult]:
    """:func:`encode_results` undone (never unpickles); ``ValueError`` and the like if malformed."""
    results: dict[str, ProbeResult] = {}
    for pid, r in data.items():
        if "error" in r:
            results[pid] = {"ok": False, "error": str(r["error"])}
        else:
            blobs = {k: base64.b64decode(b) for k, b in r["blobs"].items()}
            results[pid] = {"ok": True, "outputs": decode_outputs(r["meta"], blobs)}
    return results


def prune(root: Path, *, keep: Path, now: float | None = None) -> list[Path]:
    """Delete the stores under ``root`` unused for :data:`STORE_TTL_DAYS` days (never ``keep``,
    never anything that is not a store); returns what was deleted."""
    cutoff = (time.time() if now is None else now) - STORE_TTL_DAYS * 86400
    gone = []
    for p in root.iterdir() if root.is_dir() else []:
        if p != keep and _STORE_NAME.match(p.name) and p.is_dir() and p.stat().st_mtime < cutoff:
            shutil.rmtree(p, ignore_errors=True)
            gone.append(p)
    return gone
