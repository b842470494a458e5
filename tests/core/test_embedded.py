"""The embedded default (`make run`, core/embedded.py): its environment, and its processes
stopped together, their children too."""

import os
import signal
import subprocess
import sys
from pathlib import Path

from core import embedded

ROOT = Path(__file__).resolve().parents[2]


def setting(name: str, **env: str) -> str:
    """`name` from config.settings, loaded in a fresh process with `env` over this one's."""
    clean = {k: v for k, v in os.environ.items() if k not in ("CELERY_BROKER_URL", "DATABASE_URL")}
    result = subprocess.run(
        [sys.executable, "-c", f"import config.settings as s; print(repr(s.{name}))"],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_its_site_url_follows_its_host() -> None:
    env = embedded.environment("127.0.0.1:8101", {"PATH": "/bin"})
    assert env["SITE_URL"] == "http://127.0.0.1:8101"
    assert embedded.site_url("8101") == "http://127.0.0.1:8101"  # runserver's port alone
    assert embedded.site_url("0.0.0.0:9000") == "http://0.0.0.0:9000"


def test_a_site_url_or_a_broker_already_set_is_kept() -> None:
    env = embedded.environment(
        "127.0.0.1:8101",
        {"SITE_URL": "https://kit.example.com", "CELERY_BROKER_URL": "redis://r:6379/0"},
    )
    assert (env["SITE_URL"], env["CELERY_BROKER_URL"]) == (
        "https://kit.example.com",
        "redis://r:6379/0",
    )


def test_its_processes_get_the_file_system_broker_and_tasks_stop_running_eagerly() -> None:
    env = embedded.environment("127.0.0.1:8000", {})
    assert env["CELERY_BROKER_URL"] == "filesystem://localhost/"
    broker = {"CELERY_BROKER_URL": env["CELERY_BROKER_URL"]}
    assert setting("CELERY_TASK_ALWAYS_EAGER", **broker) == "False"
    assert setting("CELERY_RESULT_BACKEND", **broker) == "None"  # files keep no results
    folder = str(ROOT / "var" / "broker")
    options = setting("CELERY_BROKER_TRANSPORT_OPTIONS", **broker)
    assert f"'data_folder_in': '{folder}'" in options
    assert f"'data_folder_out': '{folder}'" in options


def test_without_a_broker_tasks_run_eagerly_as_in_the_tests() -> None:
    assert setting("CELERY_TASK_ALWAYS_EAGER") == "True"
    assert "data_folder_in" not in setting("CELERY_BROKER_TRANSPORT_OPTIONS")


def test_sqlite_waits_for_a_writer_instead_of_failing_at_once() -> None:
    options = setting("DATABASES['default']['OPTIONS']")
    assert "'timeout': 20" in options
    assert "journal_mode=WAL" in options
    assert "'transaction_mode': 'IMMEDIATE'" in options


def test_it_runs_the_three_with_production_s_schedule_and_one_task_at_a_time() -> None:
    commands = embedded.commands("127.0.0.1:8123", python="py")
    assert commands["web"] == ["py", "manage.py", "runserver", "127.0.0.1:8123"]
    assert commands["worker"][:5] == ["py", "-m", "celery", "--app", "config"]
    assert "worker" in commands["worker"] and "solo" in commands["worker"]
    assert commands["beat"][5:] == [
        "beat",
        "--loglevel",
        "INFO",
        "--schedule",
        str(embedded.BEAT_SCHEDULE_FILE),
    ]


# --- its processes, stopped together -------------------------------------------------------

# A process that starts a child of its own (as runserver's autoreloader does), prints both
# pids and sleeps.
PARENT = (
    "import os, subprocess, sys, time\n"
    "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'])\n"
    "print('pids', os.getpid(), child.pid, flush=True)\n"
    "time.sleep(600)\n"
)
SLEEPER = "import os, time; print('pids', os.getpid(), flush=True); time.sleep(600)"
RUNNER = "import sys; from core.embedded import run; sys.exit(run({processes!r}, {{}}))"


def start(processes: dict[str, list[str]]) -> tuple[subprocess.Popen[str], list[int], list[str]]:
    """Start the runner on `processes`; wait until each has printed its pids."""
    runner = subprocess.Popen(
        [sys.executable, "-c", RUNNER.format(processes=processes)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert runner.stdout is not None
    pids: list[int] = []
    lines: list[str] = []
    while len(lines) < len(processes):
        line = runner.stdout.readline()
        assert line, "the runner stopped before its processes started"
        lines.append(line)
        pids += [int(pid) for pid in line.split("pids", 1)[1].split()]
    return runner, pids, lines


def gone(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return True
    return "State:\tZ" in status  # ended, waiting for whoever adopted it to reap it


def test_a_signal_stops_every_process_and_its_children_and_prefixes_their_output() -> None:
    python = sys.executable
    runner, pids, lines = start({"web": [python, "-c", PARENT], "beat": [python, "-c", SLEEPER]})
    assert len(pids) == 3
    assert sorted(line.split("|")[0].strip() for line in lines) == ["beat", "web"]

    runner.send_signal(signal.SIGINT)  # Ctrl-C

    assert runner.wait(timeout=60) == 0
    assert [pid for pid in pids if not gone(pid)] == []


def test_one_process_stopping_stops_the_others(tmp_path: Path) -> None:
    python = sys.executable
    started = tmp_path / "beat-started"
    sleeper = f"open({str(started)!r}, 'w').close()\n{SLEEPER}"
    # Web quits once beat is up, so that both have printed their pids.
    quits = (
        f"import os, pathlib, time\n"
        f"while not pathlib.Path({str(started)!r}).exists(): time.sleep(0.05)\n"
        f"print('pids', os.getpid(), flush=True)\n"
        f"raise SystemExit(3)\n"
    )
    runner, pids, _ = start({"beat": [python, "-c", sleeper], "web": [python, "-c", quits]})

    assert runner.wait(timeout=60) == 1
    assert runner.stdout is not None
    assert "web stopped (exit 3); stopping" in runner.stdout.read()
    assert [pid for pid in pids if not gone(pid)] == []
