# Two commands: `make run` (a working site on 127.0.0.1:8000, with its Celery worker and beat:
# core/embedded.py) and `make test` (the fast suite; `make test-all` adds the slow tests).
# Both need only python3; they create .venv and install the pinned requirements on first use
# (`make run` the runtime ones only; `make test` adds the test tools).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000

.PHONY: run test test-slow test-all fuzz lint venv venv-dev clean load faults prodcheck

# Two markers: a running site needs only requirements.txt; the test, lint, fuzz and
# load tools of requirements-dev.txt come with the first `make test`.
$(VENV)/.installed-run: requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-run requirements-dev.txt
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed-run
venv-dev: $(VENV)/.installed-dev

run: venv
	@$(PY) manage.py migrate --no-input --verbosity 0
	@$(PY) manage.py seed_demo --if-empty
	@echo
	@echo "  Interview Kit is starting on http://$(HOST)/"
	@echo "  Sign in as demo-recruiter (build and decide loops), demo-interviewer-1 (run an"
	@echo "  interview and score it) or demo-lead (the bank and calibration); password: demo."
	@echo "  The README's 'Two commands' table says where each one starts."
	@echo "  Beside the web server run a Celery worker and beat (reminders of overdue"
	@echo "  scorecards every 15 minutes, the sweeps, the nightly calibration); emails are"
	@echo "  printed here, by the worker. Ctrl-C stops all three."
	@echo
	@$(PY) -m core.embedded $(HOST)

# The suite, on as many processes as the machine has cores (pytest-xdist). `make test`
# is every test not marked slow (one of each kind of promise stays in it); `make
# test-slow` the slow ones only (Monte Carlo and deep evidence, the fuzz's other
# personas, long journeys); `make test-all` both in one run. CI runs test and test-slow.
# The deep API fuzz runs in `make fuzz`; `make test` keeps a quick pass of it.
# A module that builds its data once goes to one worker whole (`--dist loadgroup`;
# tests/conftest.py's pytest_collection_modifyitems), every other test on its own.
TEST_PROCESSES ?= auto
XDIST = -n $(TEST_PROCESSES) --dist loadgroup
test: venv-dev
	$(PY) -m pytest $(XDIST) -m "not slow" $(ARGS)

test-slow: venv-dev
	$(PY) -m pytest $(XDIST) -m slow $(ARGS)

test-all: venv-dev
	$(PY) -m pytest $(XDIST) $(ARGS)

fuzz: venv-dev
	FUZZ=deep $(PY) -m pytest -p no:xdist tests/fuzz $(ARGS)

# Load bench and fault scenarios on a private PostgreSQL cluster, Redis, gunicorn and
# Celery worker (bench/load.py, bench/faults.py): `make load ARGS="--duration 10"`.
load: venv-dev
	$(PY) bench/load.py $(ARGS)

faults: venv-dev
	$(PY) bench/faults.py $(ARGS)

# The README's production commands on a private stack, then every page of every persona
# crawled in Chromium: no 5xx, no missing asset, no CSP violation (bench/production.py).
prodcheck: venv-dev
	$(PY) bench/production.py $(ARGS)

lint: venv-dev
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

clean:
	rm -rf $(VENV) db.sqlite3 db.sqlite3-wal db.sqlite3-shm var staticfiles
