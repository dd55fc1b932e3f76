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

A :class:`References` is one batch's reference side: it reads what the batch needs from its
store, or runs the instructor's code to fill the store first. The :class:`~.grader.Grader`
holds one and only reads from it.
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import functools
import hashlib
import json
import os
import platform
import re
import shutil
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import GradingFailed
from ..probing import ProbeResult, ProbeSet, decode_outputs, encode_outputs, probe_seed
from ..sandbox.run import RunOutcome
from .cache_folder import cache_root as cache_root  # where the stores live
from .gates import GATES_DIGEST
from .mistakes import Mistake, mistake_id, mistakes_probes_source
from .records import atomic_write
from .sandboxes import REFERENCE_SLOT, STUB_SLOT, SandboxPool
from .spec import GradingSpec

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


class References:
    """One batch's reference side: every probe's outputs on the reference solution, the known
    mistakes' outputs on the same inputs, and the public compilation cache submissions read. Each
    is read from this host's :class:`Store`, or made there first by a run of the instructor's own
    code in a sandbox that never runs student code, under the course's own limits.

    ``outputs`` and ``known``: what a grader that must not run the solution is given instead (a
    Dask worker's: its spec has no master cells). ``sources``: the source probes' outcomes on
    some cells, as the grader's gates read them (kept here for the master's)."""

    def __init__(
        self,
        spec: GradingSpec,
        out: Path,
        probes: ProbeSet,
        sandboxes: SandboxPool,
        sources: Callable[[Sequence[str]], dict[str, ProbeResult]],
        *,
        outputs: dict[str, ProbeResult] | None = None,
        known: dict[str, ProbeResult] | None = None,
    ):
        self.spec, self.out, self.probes, self.sandboxes = spec, out, probes, sandboxes
        self._sources = sources
        self._outputs = outputs
        self._known = known
        self._known_lock = threading.Lock()

    @functools.cached_property
    def store(self) -> Store:
        """Where this assignment's reference results are kept for this job and host: the user's
        cache folder, or ``OUT/.cache`` where that cannot be written, or where sandboxes run as
        other users who could not read it."""
        key = host_key(self.spec.store_digests)
        root = cache_root()
        try:
            root.mkdir(parents=True, exist_ok=True)
            usable = os.access(root, os.W_OK | os.X_OK)
        except OSError:
            usable = False
        if not usable:
            root = self.out / ".cache"
        return Store(root / f"{self.spec.assignment.id}-{key}")

    def outputs(self) -> dict[str, ProbeResult]:
        """Every probe's outputs on the reference solution, from the store, or computed there
        first (the stub's run, which fills the public cache, beside it)."""
        if self._outputs is not None:
            return self._outputs
        store = self.store
        seed = self.spec.seed
        with store.locked():  # a grader beside this one may be filling the same store
            outputs = store.load(seed)
            runs = [self._warm_public_cache] if not store.public_warmed.exists() else []
            runs += [self._run_reference] if outputs is None else []
            # The stub's run and the reference's share nothing: side by side, in two sandboxes.
            with ThreadPoolExecutor(max_workers=2) as pool:
                for done in [pool.submit(run, store) for run in runs]:
                    done.result()
            if outputs is None:
                outputs = store.load(seed)
                if outputs is None:
                    raise GradingFailed(f"the reference results in {store.path} cannot be read back")
                prune(store.path.parent, keep=store.path)
            store.touch()
            outputs.update(self._master_sources(store))
        self._outputs = outputs
        return outputs

    def stored(self) -> bool:
        """Whether :meth:`outputs` can load them instead of running the solution."""
        return self._outputs is not None or (
            self.store.public_warmed.exists() and self.store.outputs_file(self.spec.seed).exists()
        )

    def known_mistakes(self) -> dict[str, ProbeResult]:
        """Every known mistake's outcomes on this batch's inputs (:func:`.mistakes.mistake_id`),
        from the store, or run there first (:meth:`_run_mistakes`), once per batch seed and only
        when a submission first loses points: a class that only earns full marks never pays for
        them. A grader without the known-wrong answers' code (a Dask worker) has what its build
        gave it, or none."""
        with self._known_lock:
            if self._known is None:
                self._known = {}
                if self.spec.mistakes and self.spec.mistake_sources is not None:
                    store = self.store
                    with store.locked():
                        found = store.load_mistakes(self.spec.seed, self.mistakes_digest)
                        if found is None:
                            try:
                                self._run_mistakes(store)
                            except Exception:  # noqa: BLE001 - naming mistakes must never cost a row
                                pass
                            found = store.load_mistakes(self.spec.seed, self.mistakes_digest) or {}
                    self._known = found
            return self._known

    @functools.cached_property
    def mistakes_digest(self) -> str:
        """sha256 of the known-wrong answers' statements (and, on the instructor's machine, their
        code): a change to either makes their outputs run again."""
        data = [self.spec.mistakes, self.spec.mistake_sources or {}]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def warm(self) -> None:
        """Fill this host's public compilation cache if no grader did yet (a worker's first step:
        the instructor's machine fills its own in :meth:`outputs`)."""
        store = self.store
        with store.locked():
            if not store.public_warmed.exists():
                self._warm_public_cache(store)
            store.touch()

    # -- the instructor's own runs --------------------------------------------------------------

    def _run(
        self, cells: list[str], slot: int, source: str, requests: list[tuple[str, int]], cache: Path
    ) -> RunOutcome:
        """Run ``cells``, then ``requests`` of the probes in ``source``, in a sandbox that fills
        ``cache``: the course's own code, which compiles every program cold, so under the
        course's limits (:attr:`GradingSpec.trusted_limits`), never the tighter ones flags set."""
        return self.sandboxes.run(cells, slot, source, requests, self.spec.trusted_limits, cache, writes=True)

    def _requests(self) -> list[tuple[str, int]]:
        """Every sandbox probe (the source probes run in the grader) with its input seed."""
        return [
            (p.id, probe_seed(self.spec.seed, p.id))
            for p in self.probes.probes
            if p.question in self.spec.questions and not p.source
        ]

    def _warm_public_cache(self, store: Store) -> None:
        """Fill the compilation cache that submissions read from a run of the student's stub:
        public code only, so no program there can reproduce the reference solution."""
        self._run(self.spec.stub, STUB_SLOT, self.spec.probes_source, self._requests(), store.public_xla)
        store.public_warmed.touch()

    def _run_reference(self, store: Store) -> None:
        # The reference's own programs go to a cache only reference runs ever read.
        requests = self._requests()
        outcome = self._run(
            self._master_cells(), REFERENCE_SLOT, self.spec.probes_source, requests, store.reference_xla
        )
        failed = [pid for pid, r in outcome.results.items() if not r["ok"]]
        if outcome.ended != "ok" or outcome.cell_errors or failed or len(outcome.results) != len(requests):
            why = outcome.detail or (outcome.cell_errors[0][1] if outcome.cell_errors else "")
            if failed:
                why = f"{failed[0]}: {outcome.results[failed[0]]['error']}"
            raise GradingFailed(
                f"the reference solution of {self.spec.assignment.id} did not run cleanly "
                f"({outcome.ended} at {outcome.where or 'the end'}: {why})"
            )
        store.save(outcome, self.spec.seed)

    def _run_mistakes(self, store: Store) -> None:
        """Every known-wrong answer's outcomes of its question's sandbox probes, on the batch's
        inputs (:func:`.mistakes.mistakes_probes_source`), kept in the store. Run on the
        reference's side only, under its limits: a run that stops (a mistake that loops, crashes
        or runs out of time) goes on in a fresh sandbox after the probe it stopped at. A mistake
        that cannot run is never named; grading goes on either way."""
        sources = self.spec.mistake_sources or {}
        known = [
            Mistake(m, m.split("_", 1)[0], self.spec.mistakes.get(m, ""), src) for m, src in sources.items()
        ]
        requests = [
            (mistake_id(p.id, m.id), probe_seed(self.spec.seed, p.id))
            for m in known
            for p in self.probes.probes
            if p.question == m.question and not p.source
        ]
        source = mistakes_probes_source(self.spec.probes_source, known)
        results: dict[str, ProbeResult] = {}
        todo = requests
        while todo:
            outcome = self._run(self._master_cells(), REFERENCE_SLOT, source, todo, store.reference_xla)
            results.update(outcome.results)
            rest = [r for r in todo if r[0] not in outcome.results]
            if not rest:
                break
            stopped = rest[0][0] == outcome.where
            for rid, _ in rest[: 1 if stopped else len(rest)]:
                results[rid] = {"ok": False, "error": f"stopped: {outcome.ended} {outcome.detail}"[:200]}
            todo = rest[1:] if stopped else []
        store.save_mistakes(results, self.spec.seed, self.mistakes_digest)

    def _master_sources(self, store: Store) -> dict[str, ProbeResult]:
        """The source probes' outcomes on the master, kept in the store: reading the master's
        gates takes about a second, which would otherwise stand before every batch's first
        sandbox (a one-file regrade's included)."""
        found = store.load_sources(self.spec.seed, GATES_DIGEST)
        if found is None:
            found = self._sources(self._master_cells())
            store.save_sources(found, self.spec.seed, GATES_DIGEST)
        return found

    def _master_cells(self) -> list[str]:
        if self.spec.master_cells is None:
            raise GradingFailed(f"this grader of {self.spec.assignment.id} has no reference solution to run")
        return self.spec.master_cells
