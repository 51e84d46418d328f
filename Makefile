# Headroom: `make run` opens the dashboard, `make test` runs every test. Both create .venv on first use.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8501

.PHONY: run test lint format typecheck bench screenshots calibrate fidelity clean

$(BIN)/.runtime: requirements.txt
	test -d $(VENV) || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $@

$(BIN)/.dev: requirements-dev.txt requirements.txt $(BIN)/.runtime
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-dev.txt
	touch $@

run: $(BIN)/.runtime
	$(BIN)/streamlit run app.py --server.port $(PORT) --server.headless true --browser.gatherUsageStats false

test: $(BIN)/.dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

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

screenshots: $(BIN)/.dev
	$(BIN)/python -m tests.browser.screenshots

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
