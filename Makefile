# One way to run everything, the same for people, CI and hooks.
#   make run    set up .venv from requirements.lock (first time or when it changed), migrate, serve
#   make test   set up .venv from requirements-dev.lock, run the whole test suite
#   make check  format check, lint, import contracts, type check, the engine's fast tests with
#               their coverage of agent_core (fails below the floor in pyproject.toml)
#   make lock   regenerate both lock files from pyproject.toml (after changing a dependency)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
LOCK     := requirements.lock
DEV_LOCK := requirements-dev.lock
PORT   ?= 3000
export REFLEX_USE_NPM := 1
export PATH := $(abspath $(BIN)):$(PATH)

.PHONY: install install-run run test test-fast check lint typecheck format bench migrate lock clean

# Install a lock file into .venv: exactly its versions, each checked against its hashes
# (pip's hash-checking mode). Reinstall only when the lock changed (its hash is kept beside
# the venv, one stamp per lock). Needs Python 3.11 and pip only.
define install_lock
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@want=$$(sha256sum $(1) | cut -d' ' -f1); \
	 have=$$(cat $(VENV)/.$(1).sha256 2>/dev/null); \
	 if [ "$$want" != "$$have" ]; then \
	   echo "installing $(1) into $(VENV)"; \
	   $(BIN)/python -m pip install --quiet --upgrade pip && \
	   $(BIN)/python -m pip install --quiet --require-hashes -r $(1) && \
	   echo "$$want" > $(VENV)/.$(1).sha256; \
	 fi
endef

# The runtime and the tests and tooling (requirements-dev.lock holds both).
install:
	$(call install_lock,$(DEV_LOCK))

# The runtime only: what `make run` needs.
install-run:
	$(call install_lock,$(LOCK))

# Both locks from pyproject.toml ([project.dependencies] and the dev group), for every
# platform, with hashes; the runtime lock takes the dev lock's versions, so the two agree.
lock: install
	$(BIN)/uv pip compile pyproject.toml --group dev --universal --python-version 3.11 \
	  --generate-hashes --custom-compile-command "make lock" -o $(DEV_LOCK) -q
	$(BIN)/uv pip compile pyproject.toml --constraint $(DEV_LOCK) --universal --python-version 3.11 \
	  --generate-hashes --custom-compile-command "make lock" -o $(LOCK) -q

migrate: install-run
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
	$(BIN)/python -m pytest -q -m "not browser and not slow" --cov --cov-report=term \
	  tests/agent_core tests/test_layering.py tests/test_docs.py tests/test_dependencies.py \
	  tests/test_module_attributes.py

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
	$(BIN)/python -m bench.redaction

clean:
	rm -rf $(VENV) .web .states
