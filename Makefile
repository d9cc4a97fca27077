# Every target builds its own virtual environment first; nothing is assumed installed.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test check system-deps lint demo bench clean catalogs

$(STAMP): pyproject.toml
	PYTHON=$(PYTHON) scripts/system-deps --build
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# The Debian packages the tests need (chromium, redis-server, stockfish, libcairo2,
# poppler-utils): installed when missing if we can (root or sudo), else the one command.
system-deps:
	@PYTHON=$(PYTHON) scripts/system-deps

# Everything: CI runs it (.ci/run), in two lanes at once (scripts/test-lanes): the tests
# that mostly wait (whole venues played at a fixed pace) one after another, beside the
# rest on two workers.
test: system-deps lint
	scripts/test-lanes

# The edit loop: lint, types and the fast tier (tests/conftest.py SLOW is the slow one),
# under 3 minutes on two cores.
check: system-deps lint
	$(BIN)/pytest -q -n 2 --dist worksteal -m "not slow"

# `make demo PORT=8090` serves on another port than 8080.
demo: $(STAMP)
	$(BIN)/boardwire demo$(if $(PORT), --port $(PORT))

bench: $(STAMP)
	@for b in bench/bench_*.py; do echo "== $$b"; $(BIN)/python $$b || exit 1; done

# The pages' messages, extracted from web/ (babel.cfg) and merged into every catalog in
# web/locale/ (docs/web.md: adding a language); new messages come untranslated, and the
# catalog test (tests/web/test_i18n.py) fails until each has its translation.
catalogs: $(STAMP)
	$(BIN)/pybabel extract -F babel.cfg -k N_ -k say --no-location --sort-output --omit-header -o $(VENV)/messages.pot .
	$(BIN)/pybabel update -i $(VENV)/messages.pot -d web/locale -w 100 --no-fuzzy-matching --ignore-obsolete

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
