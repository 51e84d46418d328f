# Headroom: `make run` opens the dashboard, `make serve` serves it to a team, `make test` runs every test.
# Each creates .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501
ADDRESS ?= 0.0.0.0
SERVE_OPTIONS ?=
REPLICAS ?= 1

.PHONY: run serve test test-fast fuzz lint format typecheck bench screenshots calibrate fidelity docs clean

$(BIN)/.runtime: requirements.txt
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(BIN)/.dev: requirements-dev.txt requirements.txt $(BIN)/.runtime
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

run: $(BIN)/.runtime
	$(BIN)/python -m deploy.launch run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

# Streamlit's production options (README: "Running it for a team"): headless, XSRF protection, 1 MB uploads (a
# config.json), no usage statistics, no tracebacks to visitors, no file watching. make serve, its replicas behind
# nginx, the compose file and the Kubernetes manifest all take them from here (deploy/config.py reads this line).
SERVE_FLAGS := --server.headless true --server.enableXsrfProtection true --server.enableCORS true \
	--server.maxUploadSize 1 --server.fileWatcherType none --server.runOnSave false \
	--browser.gatherUsageStats false --client.showErrorDetails none --client.toolbarMode minimal

# Serve the dashboard to colleagues on every interface. SERVE_OPTIONS adds Streamlit options (e.g.
# "--server.baseUrlPath headroom" behind a proxy's path prefix). REPLICAS=N (N > 1) starts N Streamlit processes,
# one per core, behind nginx on ADDRESS:PORT with sticky sessions (deploy/serve.py; needs Debian's nginx).
serve: $(BIN)/.runtime
ifeq ($(REPLICAS),1)
	$(BIN)/python -m deploy.launch run app.py --server.address $(ADDRESS) --server.port $(PORT) $(SERVE_FLAGS) $(SERVE_OPTIONS)
else
	$(BIN)/python -m deploy.serve --replicas $(REPLICAS) --address $(ADDRESS) --port $(PORT) -- \
		$(SERVE_FLAGS) $(SERVE_OPTIONS)
endif

test: $(BIN)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The fast tier: the planner, the catalog, the pure UI modules, the engine registry, the hostile-input cases and
# the house rules (no AppTest, no browser, no fuzzing, nothing marked slow); about 25 s on two cores (26-28 s measured on 2026-12-02).
test-fast: $(BIN)/.dev
	$(BIN)/python -m pytest -q -m "not apptest and not browser and not slow and not fuzz" tests/core tests/planning tests/deploy tests/assessment tests/sources tests/cli tests/calibration tests/catalog tests/ui tests/engines tests/hostile tests/test_architecture.py

# The fuzz suite alone (tests/fuzz and the Hub and log fuzzers; part of make test): under a minute.
# HEADROOM_FUZZ_EXAMPLES=2000 make fuzz runs it deeper.
fuzz: $(BIN)/.dev
	$(BIN)/python -m pytest -q -m fuzz

lint: $(BIN)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(BIN)/.dev
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(BIN)/.dev
	$(BIN)/mypy

bench: $(BIN)/.dev
	$(BIN)/python -m bench

calibrate: $(BIN)/.dev
	$(BIN)/python -m bench.calibrate

fidelity: $(BIN)/.dev
	$(BIN)/python -m bench.fidelity

# Every generated file and section of the docs (catalog, JSON schemas, deployment manifests, fidelity and advisor
# tables, the README's figures), rewritten from the code; tests/test_docs.py fails while any is stale.
docs: $(BIN)/.dev
	$(BIN)/python -m bench.docs

screenshots: $(BIN)/.dev
	$(BIN)/python -m tests.browser.screenshots

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
