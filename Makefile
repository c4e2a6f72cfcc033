# tablecam: the two commands of the README, and the pieces they are made of.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: setup demo test bench clean examples

$(BIN)/tablecam: pyproject.toml
	bash tools/system-packages.sh
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	touch $@

setup: $(BIN)/tablecam

# The main job on a bundled default: film a short Slapjack game (scene renderer) and audit the video with the
# shipped detector; the report is demo/audit/report.html.
demo: setup
	$(BIN)/tablecam demo out=demo

test: setup
	$(BIN)/ruff check .
	$(BIN)/pytest

bench: setup
	$(BIN)/python bench/replay.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis .ruff_cache *.egg-info demo

# Regenerate the golden example logs (tests/test_examples.py checks them); seeds chosen for short, varied games.
EXAMPLE_ARGS := snap:Ann,Bob,Cy:111 slapjack:Ann,Bob,Cy:238 speed:Ann,Bob:55 spit:Ann,Bob:243 cheat:Ann,Bob,Cy,Dee:212 paijie:Ann,Bob,Cy:40
examples: setup
	@for spec in $(EXAMPLE_ARGS); do \
	  game=$${spec%%:*}; rest=$${spec#*:}; players=$${rest%%:*}; seed=$${rest#*:}; \
	  $(BIN)/tablecam simulate game=$$game players=$$players seed=$$seed out=examples/logs/$$game.jsonl.tmp && \
	  mv examples/logs/$$game.jsonl.tmp examples/logs/$$game.jsonl && \
	  $(BIN)/tablecam replay examples/logs/$$game.jsonl > examples/logs/$$game.verdicts.jsonl || exit 1; \
	done
