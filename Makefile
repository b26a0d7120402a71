# One way to run everything, the same for people, CI and hooks.
#   make run    set up .venv (first time or when requirements.txt changed), migrate, serve
#   make test   set up .venv, migrate a scratch database, run the whole test suite
#   make check  format check, lint, import contracts, type check, the engine's fast tests

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.requirements.sha256
PORT   ?= 3000
export REFLEX_USE_NPM := 1
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: install run test test-fast check lint typecheck format bench migrate clean

# Reinstall only when requirements.txt changed (its hash is kept beside the venv).
install:
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@want=$$(sha256sum requirements.txt | cut -d' ' -f1); \
	 have=$$(cat $(STAMP) 2>/dev/null); \
	 if [ "$$want" != "$$have" ]; then \
	   echo "installing requirements into $(VENV)"; \
	   $(BIN)/python -m pip install --quiet --upgrade pip && \
	   $(BIN)/python -m pip install --quiet -r requirements.txt && \
	   echo "$$want" > $(STAMP); \
	 fi

migrate: install
	$(BIN)/python -c "from chat_app.db.migrate import migrate; migrate()"

run: migrate
	$(BIN)/reflex run --env prod --single-port --frontend-port $(PORT) --backend-port $(PORT)

test: install
	$(BIN)/python -m pytest

test-fast: install
	$(BIN)/python -m pytest -m "not browser and not slow"

# What CI runs before the tests (.ci/run): quick, and each failure names its own fix.
check: install
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/lint-imports
	$(BIN)/basedpyright
	$(BIN)/python -m pytest -q -m "not browser and not slow" tests/agent_core tests/test_layering.py tests/test_docs.py

lint: install
	$(BIN)/ruff check .
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/basedpyright

format: install
	$(BIN)/ruff format .

bench: install
	$(BIN)/python -m bench.tokens
	$(BIN)/python -m bench.accuracy
	$(BIN)/python -m bench.handoff_recall
	$(BIN)/python -m bench.continuity
	$(BIN)/python -m bench.masking
	$(BIN)/python -m bench.runtime
	$(BIN)/python -m bench.storage
	$(BIN)/python -m bench.load
	$(BIN)/python -m bench.sandbox
	$(BIN)/python -m bench.importing
	$(BIN)/python -m bench.events
	$(BIN)/python -m bench.lanes

clean:
	rm -rf $(VENV) .web .states
