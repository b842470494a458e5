"""The embedded default, `make run`: the whole product on one machine with no server to install.

`python -m core.embedded [HOST]` starts three processes, as production runs them:

- web: Django's development server on HOST (127.0.0.1:8000 unless given);
- worker: a Celery worker, one task at a time (solo pool);
- beat: Celery beat, with production's schedule (config/settings.py, CELERY_BEAT_SCHEDULE):
  scorecard reminders every 15 minutes, the nightly calibration, the email and webhook sweeps.

Their broker needs no server: kombu's file-system transport (`filesystem://`), its messages
files under var/broker/. Only these processes get it; `make test` and `manage.py` run tasks
eagerly. SITE_URL, for the links in emails, follows HOST unless set. Each process's output
is printed with its name in front (emails too: the console backend prints them). Ctrl-C or
SIGTERM stops all three (a process that has not stopped after STOP_SECONDS is killed);
one of them stopping by itself (the port is taken, say) stops the others.
"""

import contextlib
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import IO

BASE_DIR = Path(__file__).resolve().parent.parent
VAR = BASE_DIR / "var"  # ignored by git
BROKER_FOLDER = VAR / "broker"  # config/settings.py, EMBEDDED_BROKER_FOLDER
BEAT_SCHEDULE_FILE = VAR / "celerybeat-schedule"
DEFAULT_HOST = "127.0.0.1:8000"
STOP_SECONDS = 15.0
# A host, though the transport needs none: without one kombu warns at each start.
BROKER_URL = "filesystem://localhost/"


def site_url(host: str) -> str:
    """The address emails link to for runserver's HOST ("8101" alone is a port on 127.0.0.1)."""
    return f"http://127.0.0.1:{host}" if host.isdigit() else f"http://{host}"


def environment(host: str, base: Mapping[str, str]) -> dict[str, str]:
    """The three processes' environment: `base` with the broker and SITE_URL unless it has them."""
    return {
        **base,
        "CELERY_BROKER_URL": base.get("CELERY_BROKER_URL") or BROKER_URL,
        "SITE_URL": base.get("SITE_URL") or site_url(host),
        "PYTHONUNBUFFERED": "1",
        "DJANGO_RUNSERVER_HIDE_WARNING": "true",
    }


def commands(host: str, *, python: str = sys.executable) -> dict[str, list[str]]:
    celery = [python, "-m", "celery", "--app", "config"]
    return {
        "web": [python, "manage.py", "runserver", host],
        "worker": [
            *celery,
            "worker",
            "--pool",
            "solo",
            "--concurrency",
            "1",
            "--loglevel",
            "INFO",
            # One worker: nothing to hear from or synchronise with.
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ],
        "beat": [*celery, "beat", "--loglevel", "INFO", "--schedule", str(BEAT_SCHEDULE_FILE)],
    }


def _forward(name: str, stream: IO[str], lock: threading.Lock) -> None:
    for line in stream:
        with lock:
            sys.stdout.write(f"{name:<6} | {line}")
            sys.stdout.flush()


def _signal_group(process: subprocess.Popen[str], signum: int) -> None:
    # Each process leads its own group: runserver's autoreloader runs the server as its
    # child, and the signal reaches both.
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signum)


def run(processes: Mapping[str, list[str]], env: Mapping[str, str]) -> int:
    """Run `processes` until a signal or until one of them stops; 0 when stopped by a signal."""
    stop = threading.Event()
    previous = {
        signum: signal.signal(signum, lambda *_: stop.set())
        for signum in (signal.SIGINT, signal.SIGTERM)
    }
    lock = threading.Lock()
    started: dict[str, subprocess.Popen[str]] = {}
    readers: list[threading.Thread] = []
    try:
        for name, command in processes.items():
            process = subprocess.Popen(
                command,
                cwd=BASE_DIR,
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                # Its own group: Ctrl-C reaches this runner only, which stops each in turn.
                start_new_session=True,
            )
            started[name] = process
            assert process.stdout is not None
            reader = threading.Thread(
                target=_forward, args=(name, process.stdout, lock), daemon=True
            )
            reader.start()
            readers.append(reader)
        while not stop.wait(0.2):
            ended = [name for name, p in started.items() if p.poll() is not None]
            if ended:
                with lock:
                    print(f"{ended[0]} stopped (exit {started[ended[0]].returncode}); stopping")
                break
    finally:
        for process in started.values():
            _signal_group(process, signal.SIGTERM)
        for process in started.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=STOP_SECONDS)
            # Whatever is left of its group (a leader killed, a child still running).
            _signal_group(process, signal.SIGKILL)
            process.wait()
        for reader in readers:
            reader.join(timeout=2)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        print("Stopped.", flush=True)
    return 0 if stop.is_set() else 1


def main(argv: list[str]) -> int:
    host = argv[0] if argv else DEFAULT_HOST
    BROKER_FOLDER.joinpath("control").mkdir(parents=True, exist_ok=True)
    return run(commands(host), environment(host, os.environ))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
