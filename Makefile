# Two commands on a fresh machine: `make demo` (set up, build, grade the examples) and
# `make test` (set up, run the test suite). Both create .venv from the pins. CI (.ci/run) runs
# `make demo`, `make test`, then `make test-course` (every assignment validated whole).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat requirements/lock.txt pyproject.toml | cksum | cut -d' ' -f1)
DEMO   := out/demo

.PHONY: venv demo test test-fast test-course test-all lint build validate bench bench-dask bench-single bench-reading gpu-env clean

$(STAMP): requirements/lock.txt pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (PYTHON=$(PYTHON))"; exit 1; }
	@echo "Setting up $(VENV) from requirements/lock.txt: about 1.4 GB of packages (JAX, matplotlib,"
	@echo "otter, nbgrader...) to download and install, a few minutes; only the first time."
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/lock.txt
	PYTHONWARNINGS=ignore $(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

venv: $(STAMP)

# grade ends with the gradebook's table and the paths of the gradebook, feedback and report.
demo: venv
	$(BIN)/autograder build
	$(BIN)/autograder grade 01-broadcasting examples/01-broadcasting --out $(DEMO) --regrade --seed 20261123

# On every core (pytest-xdist); tests that share a costly fixture stay on one worker (tests/conftest.py).
PYTEST := $(BIN)/python -m pytest -n auto --dist loadgroup --no-loadscope-reorder

# Every test but the course tier: the grader's units (gates read in-process against attacks and
# honest habits included), the commands of README and docs, the exports of 01 and 05.
test: venv
	$(PYTEST) -m "not course"

# The inner loop: every test that does not grade whole batches (gates, judge, report, LMS,
# sandbox units...), in a few minutes.
test-fast: venv
	$(PYTEST) -m "not grades and not course"

# The course tier: `validate` of every assignment (reference full marks, stub 0, each known-wrong
# answer loses points, nothing leaks), the Gradescope zips of 01 and 05 run end to end, 05-pmap on
# one and two devices, and the corpora graded by the real grader (every honest notebook keeps full
# marks, every attack earns nothing). CI runs it after `make test`; run it after changing a
# notebook, its probes or mutants, the gates or the sandbox.
test-course: venv
	$(PYTEST) -m course

# Both tiers, and every assignment through every export (the Gradescope zip and the nbgrader
# export of all six, where `make test` samples 01 and 05): before a release, or after changing an
# export.
test-all: venv
	$(PYTEST) --every-export

lint: venv
	$(BIN)/ruff check .

build: venv
	$(BIN)/autograder build

validate: venv
	$(BIN)/autograder validate

# Figure 4 of `make bench` is grading on Dask (2 LocalCluster workers against --jobs 2);
# `make bench-dask` measures it alone.
bench: venv
	$(BIN)/python bench/grading_speed.py

bench-dask: venv
	$(BIN)/python bench/grading_speed.py --dask-only

# Figure 5: one file graded as one command, against `otter run` on it.
bench-single: venv
	$(BIN)/python bench/grading_speed.py --single-only

# The gates' bounded reader: the reading bomb and the corpora's notebooks.
bench-reading: venv
	$(BIN)/python bench/reading.py

# The GPU grading environment (a Linux machine with an NVIDIA GPU): see docs/instructors.md.
gpu-env: venv
	$(BIN)/python -m pip install --quiet -r requirements/gpu.txt

clean:
	rm -rf build out .pytest_cache .ruff_cache .mypy_cache
