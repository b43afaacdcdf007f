# Speedheim Table. `make play` and `make test` set everything up on a fresh machine.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed-dev
PLAYSTAMP := $(VENV)/.installed

.PHONY: play test fuzz bench check render clean

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(PLAYSTAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e .
	touch $@

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $@ $(PLAYSTAMP)

# make play BOT=2: you are player 1 against the bot; BOT="1 2": the bot plays both sides;
# BOT_NAME=planner: the bot that searches against your reply (about a second a turn);
# with no BOT (two players at one screen), the bot the hint (I) asks.
play: $(PLAYSTAMP)
	$(PY) -m game play $(SCENARIO) $(foreach p,$(BOT),--bot $(p)) $(if $(BOT_NAME),--bot-name $(BOT_NAME))

# pytest-xdist: one worker per core and one more, since some tests wait on other processes
# (pip, a window left open 5 s, a killed run); --dist loadfile keeps a file's tests on one
# worker, so module fixtures (the wheel build, a shared report) are made once.
WORKERS ?= $(shell echo $$(( $$(nproc) + 1 )))
test: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) -m pytest -n $(WORKERS) --dist loadfile

# the property tests with new examples each run (make test draws the same ones every run)
FUZZ_TESTS = $(shell grep -l "@given" tests/*.py)
fuzz: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy HYPOTHESIS_PROFILE=explore $(PY) -m pytest -n $(WORKERS) --dist loadfile $(FUZZ_TESTS)

bench: $(STAMP)
	SDL_VIDEODRIVER=dummy SDL_AUDIODRIVER=dummy $(PY) tools/bench.py

check: $(PLAYSTAMP)
	$(PY) -m game check maps/*.yaml

render: $(PLAYSTAMP)
	mkdir -p out
	$(PY) -m game render maps/default.yaml -o out/default.png

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis out
