# Two commands on a fresh machine: `make demo` (set up, build, grade the examples) and
# `make test` (set up, run every test, validation included). Both create .venv from the pins.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-$(shell cat requirements/lock.txt | cksum | cut -d' ' -f1)
DEMO   := out/demo

.PHONY: venv demo test lint build validate bench bench-dask gpu-env clean

$(STAMP): requirements/lock.txt
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "Python 3.11 or newer is needed (PYTHON=$(PYTHON))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/lock.txt
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

venv: $(STAMP)

demo: venv
	$(BIN)/python -m autograder build
	$(BIN)/python -m autograder grade 01-broadcasting examples/01-broadcasting --out $(DEMO) --regrade --seed 20261123
	@echo
	@$(BIN)/python -c "import csv,sys; from tabulate import tabulate; r=list(csv.reader(open('$(DEMO)/gradebook.csv'))); print(tabulate([x[:-1] for x in r[1:]], headers=r[0][:-1]))"
	@echo
	@echo "gradebook: $(DEMO)/gradebook.csv   feedback: $(DEMO)/feedback/   report: $(DEMO)/report.html"

test: venv
	$(BIN)/python -m pytest

lint: venv
	$(BIN)/ruff check .

build: venv
	$(BIN)/python -m autograder build

validate: venv
	$(BIN)/python -m autograder validate

# Figure 4 of `make bench` is grading on Dask (2 LocalCluster workers against --jobs 2);
# `make bench-dask` measures it alone.
bench: venv
	$(BIN)/python bench/grading_speed.py

bench-dask: venv
	$(BIN)/python bench/grading_speed.py --dask-only

# The GPU grading environment (a Linux machine with an NVIDIA GPU): see docs/instructors.md.
gpu-env: venv
	$(BIN)/python -m pip install --quiet -r requirements/gpu.txt

clean:
	rm -rf build out .pytest_cache .ruff_cache
