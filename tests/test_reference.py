"""The reference store: outputs round-trip as plain data, keys are per host, old stores go."""

from __future__ import annotations

import hashlib
import json
import os
import platform
import time
from pathlib import Path

import numpy as np
import pytest

from autograder.grading import reference
from autograder.grading.reference import STORE_TTL_DAYS, Store, prune, store_key
from autograder.probing import PlainArray
from autograder.sandbox.run import RunOutcome


def test_outputs_round_trip_and_a_damaged_file_reads_as_missing(tmp_path: Path) -> None:
    store = Store(tmp_path / "01-broadcasting-0123456789abcdef0123")
    outcome = RunOutcome(
        results={
            "q2.values": {"ok": True, "outputs": {"": PlainArray(np.arange(6.0, dtype=np.float32))}},
            "q2.keys": {"ok": True, "outputs": {"k": PlainArray(np.array([1, 2], np.uint32), key=True)}},
            "q1.shape": {"ok": True, "outputs": {"shape": [2, 3]}},
        }
    )
    assert store.load(7) is None
    store.save(outcome, 7)
    assert store.load(8) is None  # outputs are per batch seed
    loaded = store.load(7)
    assert loaded is not None and set(loaded) == {"q2.values", "q2.keys", "q1.shape"}
    values = loaded["q2.values"]["outputs"][""]
    assert values.value.dtype == np.float32 and values.value.tolist() == list(range(6))
    assert loaded["q2.keys"]["outputs"]["k"].key is True
    assert loaded["q1.shape"]["outputs"]["shape"] == [2, 3]
    store.outputs_file(7).write_text('{"q1.shape": {"meta": 3}}')
    assert store.load(7) is None


def test_the_masters_source_readings_are_kept_per_seed_and_per_gates_code(tmp_path: Path) -> None:
    """The gates' reading of the master is kept beside the outputs; gates of other code (another
    digest) or another seed never read it, and a damaged file reads as missing (read again)."""
    store = Store(tmp_path / "01-broadcasting-0123456789abcdef0123")
    results = {"q2.no_loops": {"ok": True, "outputs": {"loops": 0}}}
    store.save_sources(results, 7, "a" * 64)
    assert store.load_sources(7, "a" * 64) == results
    assert store.load_sources(7, "b" * 64) is None and store.load_sources(8, "a" * 64) is None
    store.sources_file(7, "a" * 64).write_text("[")
    assert store.load_sources(7, "a" * 64) is None


def test_the_known_mistakes_outcomes_are_kept_private_per_seed_and_per_their_code(tmp_path: Path) -> None:
    """Beside the reference's and as private (0600: where Landlock is missing, a sandbox's user
    cannot read them); another seed or other known-wrong answers (another digest) run again."""
    store = Store(tmp_path / "01-broadcasting-0123456789abcdef0123")
    results = {"q8.values@q8_adds": {"ok": True, "outputs": {"": PlainArray(np.ones(3, np.float32))}}}
    assert store.load_mistakes(7, "a" * 64) is None
    store.save_mistakes(results, 7, "a" * 64)
    assert store.mistakes_file(7, "a" * 64).stat().st_mode & 0o777 == 0o600
    loaded = store.load_mistakes(7, "a" * 64)
    assert loaded is not None and loaded["q8.values@q8_adds"]["outputs"][""].value.tolist() == [1, 1, 1]
    assert store.load_mistakes(8, "a" * 64) is None and store.load_mistakes(7, "b" * 64) is None


def test_the_key_names_the_host(monkeypatch: pytest.MonkeyPatch) -> None:
    """An XLA:CPU program is compiled for the CPU it ran on; a shared home folder must not hand
    it to another machine."""
    here = store_key([b"master", b"probes"])
    assert store_key([b"master", b"probes"]) == here
    assert store_key([b"master", b"other probes"]) != here
    monkeypatch.setattr(reference.platform, "node", lambda: "another-host")
    assert store_key([b"master", b"probes"]) != here


def test_a_dask_worker_names_the_same_store_from_the_digests_alone() -> None:
    """A worker receives the digests of the key's parts, never the parts (the master is one);
    on the instructor's host it must find the instructor's store, under the name it always had."""
    parts = [b"master", b"probes"]
    before = hashlib.sha256()
    for part in (*parts, platform.node().encode(), platform.machine().encode()):
        before.update(hashlib.sha256(part).digest())
    assert store_key(parts) == before.hexdigest()[:20]
    assert reference.host_key([hashlib.sha256(p).hexdigest() for p in parts]) == store_key(parts)


def test_outcomes_travel_as_plain_data_failed_ones_included() -> None:
    results = {
        "q1.gate": {"ok": False, "error": "q1 `f`: not a plain function"},
        "q2.values": {"ok": True, "outputs": {"x": [1, 2], "y": 3.5}},
    }
    assert reference.decode_results(json.loads(json.dumps(reference.encode_results(results)))) == results


def test_prune_deletes_only_stores_unused_for_the_ttl(tmp_path: Path) -> None:
    old = time.time() - (STORE_TTL_DAYS + 1) * 86400
    names = {
        "stale": "02-prng-00000000000000000000",
        "fresh": "02-prng-11111111111111111111",
        "kept": "03-autodiff-22222222222222222222",
        "not_a_store": "notes",
    }
    for label, name in names.items():
        (tmp_path / name).mkdir()
        if label != "fresh":
            os.utime(tmp_path / name, (old, old))
    gone = prune(tmp_path, keep=tmp_path / names["kept"])
    assert gone == [tmp_path / names["stale"]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        names[k] for k in ("fresh", "kept", "not_a_store")
    )


def test_the_cache_folder_can_be_set(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("AUTOGRADER_CACHE_DIR", str(tmp_path / "stores"))
    assert reference.cache_root() == tmp_path / "stores"
    monkeypatch.delenv("AUTOGRADER_CACHE_DIR")
    assert reference.cache_root().name == "jax-course-autograder"


@pytest.mark.parametrize("changed", ["sandbox/execution.py", "notebooks.py", "probing/plain.py"])
def test_a_change_to_the_code_that_runs_the_reference_makes_a_new_store(
    changed: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stored outputs are reused only by the code that made them: the cells' runner (sandbox),
    how a cell's source is read (notebooks) and the probes' codec (probing) are in the key."""
    import shutil

    from autograder.config import load_course
    from autograder.grading import spec

    course = load_course()
    a = course.assignment("01-broadcasting")
    before = spec.GradingSpec.for_course(course, a, seed=0).store_digests
    copy = tmp_path / "autograder"
    shutil.copytree(spec.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(spec, "PACKAGE", copy)
    assert spec.GradingSpec.for_course(course, a, seed=0).store_digests == before
    (copy / changed).write_text((copy / changed).read_text() + "\n# changed\n")
    assert spec.GradingSpec.for_course(course, a, seed=0).store_digests != before
