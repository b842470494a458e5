"""Production settings come from the environment alone and pass Django's deploy checks."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DEBUG", "SECRET_KEY", "DATABASE_URL", "DJANGO_ALLOW_ASYNC_UNSAFE")
    }
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_check_deploy_with_production_environment():
    result = manage(
        "check",
        "--deploy",
        "--fail-level",
        "WARNING",
        DEBUG="False",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="kit.example.com",
    )
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_it_refuses_to_start_in_production_without_a_secret_key():
    result = manage("check", DEBUG="False")
    assert result.returncode != 0
    assert "SECRET_KEY (or SECRET_KEY_FILE) must be set when DEBUG is off" in result.stderr


def test_it_rejects_a_misspelt_boolean():
    result = manage("check", DEBUG="Flase")
    assert result.returncode != 0
    assert "DEBUG='flase' is not a boolean" in result.stderr


def test_it_reads_the_secret_key_from_a_file(tmp_path):
    key_file = tmp_path / "secret"
    key_file.write_text(secrets.token_urlsafe(50))
    result = manage(
        "check", "--deploy", DEBUG="False", SECRET_KEY_FILE=str(key_file), ALLOWED_HOSTS="x.example"
    )
    assert result.returncode == 0, result.stderr
