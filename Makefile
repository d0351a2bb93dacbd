# The two commands of the README: `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin

.PHONY: demo test install install-dev env browser-test-deps

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

# A local .env for development (DEBUG on, random secrets, the demo's local model server
# allowed), never committed; lines an older .env lacks are added, none is changed.
env:
	@$(BIN)/python scripts/dev-env .env

# Start the platform with the demo study on SQLite, Celery eager: `make demo PORT=8080
# MODEL_PORT=8012` when 8000 or the demo's local model server's 8011 are taken.
PORT ?= 8000
MODEL_PORT ?= 8011
demo: $(VENV)/.installed env
	$(BIN)/python manage.py migrate --no-input -v 0
	SITE_URL=http://127.0.0.1:$(PORT) $(BIN)/python manage.py load_demo --evaluators --model-port $(MODEL_PORT)
	SITE_URL=http://127.0.0.1:$(PORT) $(BIN)/python manage.py runserver 127.0.0.1:$(PORT)

# The whole test suite (SQLite unless DATABASE_URL is set; browser tests need chromium), on
# TEST_PROCESSES processes (pytest-xdist, each with a test database of its own);
# TEST_PROCESSES=0 runs it in one process, for a debugger or print() (docs/decisions.md).
TEST_PROCESSES ?= 2
test: $(VENV)/.installed-dev browser-test-deps
	scripts/ensure-chromium
	$(BIN)/python -m pytest -n $(TEST_PROCESSES)

# The browser tests' JavaScript (axe-core for tests/browser/audit.py), pinned in
# tests/browser/package-lock.json and installed from the npm registry; never fetched by a test.
tests/browser/node_modules/.installed: tests/browser/package.json tests/browser/package-lock.json
	npm ci --prefix tests/browser --no-audit --no-fund
	touch $@

browser-test-deps: tests/browser/node_modules/.installed
