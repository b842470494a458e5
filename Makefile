# Two commands: `make run` (a working site on 127.0.0.1:8000) and `make test` (the whole suite).
# Both need only python3; they create .venv and install the pinned requirements on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1:8000

.PHONY: run test lint venv clean load faults

$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

venv: $(VENV)/.installed

run: venv
	$(PY) manage.py migrate --no-input
	$(PY) manage.py seed_demo --if-empty
	@echo
	@echo "  Open http://$(HOST)/ and sign in as demo-recruiter, demo-lead or demo-interviewer-1 (password: demo)"
	@echo
	$(PY) manage.py runserver $(HOST)

test: venv
	$(PY) -m pytest $(ARGS)

# Load bench and fault scenarios on a private PostgreSQL cluster, Redis, gunicorn and
# Celery worker (bench/load.py, bench/faults.py): `make load ARGS="--duration 10"`.
load: venv
	$(PY) bench/load.py $(ARGS)

faults: venv
	$(PY) bench/faults.py $(ARGS)

lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

clean:
	rm -rf $(VENV) db.sqlite3 staticfiles
