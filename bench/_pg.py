"""Shared set-up for the PostgreSQL benches: a fresh database and a ratings file."""

import os
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
SERVER = os.environ.get("BENCH_PG", "postgres://postgres@127.0.0.1:5432")


def fresh_database(name: str) -> str:
    """Drop and create database `name`; return its URL."""
    with psycopg.connect(f"{SERVER}/postgres", autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"{SERVER}/{name}"


def setup_django(url: str) -> None:
    # Settings read DATABASE_URL when imported, so set it before django.setup().
    os.environ["DATABASE_URL"] = url
    os.environ.pop("CELERY_BROKER_URL", None)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0, interactive=False)


def ratings_file(path: Path, *, candidates: int, interviewers: int, questions: int) -> int:
    """Write (or reuse) a simulated ratings CSV; return its number of rows."""
    sys.path.insert(0, str(ROOT))
    from tests.integration.data import write_ratings_csv

    if path.exists():
        with path.open() as handle:
            return sum(1 for _ in handle) - 1
    # Panels of 4 asking 5 questions each: 50,000 candidates give a million ratings.
    return write_ratings_csv(
        path, candidates=candidates, interviewers=interviewers, questions=questions,
        questions_per_interview=5,
    )  # fmt: skip
