# tablecam: the two commands of the README, and the pieces they are made of.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test lint bench clean

$(BIN)/tablecam: pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

setup: $(BIN)/tablecam

# The main job on a bundled default: referee a shipped example game and say the verdicts.
demo: setup
	$(BIN)/tablecam replay examples/logs/slapjack.jsonl --say

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest

bench: setup
	$(BIN)/python bench/replay.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache *.egg-info
