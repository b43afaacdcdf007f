# Speedheim Table. `make play` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-dev
PLAYSTAMP := $(VENV)/.installed
RUFF   := $(VENV)/bin/ruff
LINTED := game tests tools

.PHONY: play edit test test-fast lint format fuzz bench check render clean

# The first run sets up .venv: one line a step, then pip's own words only if something fails.
$(PY):
	@echo "setting up .venv (once; a minute or two in all)..."
	@$(PYTHON) -m venv $(VENV)
	@echo "updating pip in .venv..."
	@$(PY) -m pip install --quiet --upgrade pip

$(PLAYSTAMP): pyproject.toml | $(PY)
	@echo "installing Speedheim Table and the libraries it uses into .venv (a minute or two)..."
	@$(PY) -m pip install --quiet -e .
	@touch $@
	@echo ".venv is ready: speedheim is $(VENV)/bin/speedheim"

$(STAMP): pyproject.toml | $(PY)
	@echo "installing Speedheim Table with its test tools into .venv (a minute or two)..."
	@$(PY) -m pip install --quiet -e ".[dev]"
	@touch $@ $(PLAYSTAMP)
	@echo ".venv is ready: speedheim is $(VENV)/bin/speedheim"

# make play BOT=2: you are player 1 against the bot; BOT="1 2": the bot plays both sides;
# BOT_NAME=planner: the bot that searches against your reply (about a second a turn);
# with no BOT (two players at one screen), the bot the hint (I) asks.
play: $(PLAYSTAMP)
	$(PY) -m game play $(SCENARIO) $(foreach p,$(BOT),--bot $(p)) $(if $(BOT_NAME),--bot-name $(BOT_NAME))

# make edit: a new map (Ctrl+S asks for its name); make edit FILE=my-raid.yaml opens or starts that file
# (SCENARIO= works too, as for play).
edit: $(PLAYSTAMP)
	$(PY) -m game edit $(or $(FILE),$(SCENARIO))

# pytest-xdist: one worker per core and one more, since some tests wait on other processes
# (pip, a window left open 5 s, a killed run); --dist loadfile keeps a file's tests on one
# worker, so module fixtures (the wheel build, a shared report) are made once.
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: $(STAMP)
	$(RUFF) format --check $(LINTED)
	$(RUFF) check $(LINTED)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) -m pytest -n $(WORKERS) --dist loadfile

# make test-fast: the same run without the tests marked slow (whole bot games, studies, the
# long property and legality sweeps: each over ~10 s) and without the install tests (a wheel
# built and installed in a fresh virtualenv); for iterating. make test still runs them all.
test-fast: $(STAMP)
	$(RUFF) format --check $(LINTED)
	$(RUFF) check $(LINTED)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) -m pytest -n $(WORKERS) --dist loadfile -m "not slow and not install"

# make lint: the formatter's check and the lint rules (pyproject.toml [tool.ruff]), which make test
# and make test-fast run first; make format: reformat, then apply ruff's safe fixes (read the diff).
lint: $(STAMP)
	$(RUFF) format --check $(LINTED)
	$(RUFF) check $(LINTED)

format: $(STAMP)
	$(RUFF) format $(LINTED)
	$(RUFF) check --fix $(LINTED)

# the property tests with new examples each run (make test draws the same ones every run)
FUZZ_TESTS = $(shell grep -l "@given" tests/*.py)
fuzz: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy HYPOTHESIS_PROFILE=explore $(PY) -m pytest -n $(WORKERS) --dist loadfile $(FUZZ_TESTS)

# make bench: every area (tools/bench_*.py) on this tree and on the previous commit, side by side,
# 3 rounds alternating, written to docs/benchmarks.md (slow: the ladder alone plays 72 games a tree).
# BASE=REV: another baseline; BASE=none: this tree only; QUICK=1: one round and fewer games;
# AREAS="sim ladder": those areas only; LADDER_GAMES=N: N seeds per ladder arrangement (default 1).
bench: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) tools/bench.py $(AREAS) $(if $(QUICK),--quick) \
		$(if $(filter none,$(BASE)),--no-base,$(if $(BASE),--base $(BASE)))

# make check: every bundled map; make check FILE=my-raid.yaml (or FILE="a.yaml b.yaml"): those files
check: $(PLAYSTAMP)
	$(PY) -m game check $(or $(FILE),maps/*.yaml)

render: $(PLAYSTAMP)
	mkdir -p out
	$(PY) -m game render maps/default.yaml -o out/default.png

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis out
