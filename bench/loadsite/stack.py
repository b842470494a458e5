"""A private production-shaped stack for the load bench and the fault scripts.

Everything runs on this machine's loopback, on free ports, and is stopped on exit:

* a throwaway PostgreSQL cluster (initdb into a temporary folder, as the
  ``postgres`` OS user when run as root), so restarting it touches nobody else;
* a private redis-server without persistence;
* gunicorn serving config.wsgi and a real Celery worker, both configured by
  environment variables only, as in production (DEBUG off, SECRET_KEY set).

Each process is started in its own session so that stopping it (or SIGKILLing a
worker and its pool children) takes its whole process group and nothing else.
"""

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
# What the TLS-terminating proxy in front of production adds (SECURE_PROXY_SSL_HEADER).
PROXY_HEADERS = {"X-Forwarded-Proto": "https"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def wait_until(predicate: Callable[[], object], timeout: float, what: str, step: float = 0.1):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(step)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def _pg_bin() -> Path:
    if os.environ.get("PG_BIN"):
        return Path(os.environ["PG_BIN"])
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parts[-3]))
    if not found:
        raise RuntimeError("no PostgreSQL server binaries (apt-get install postgresql)")
    return found[-1].parent


class Proc:
    """A child process in its own session, logging to a file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], log: Path) -> None:
        self.name = name
        self.args = args
        self.env = env
        self.log = log
        self.popen: subprocess.Popen[bytes] | None = None
        self.log_offset = 0

    def start(self) -> "Proc":
        """Start (or start again) the process; its log is appended to."""
        self.log_offset = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as out:
            self.popen = subprocess.Popen(
                self.args, cwd=ROOT, env=self.env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        # For `python -m bench.loadsite.stack --cleanup` if this script is killed outright.
        with (self.log.parent / "pids").open("a") as pids:
            pids.write(f"{self.popen.pid} {Path(self.args[0]).name} {self.name}\n")
        return self

    @property
    def pid(self) -> int:
        assert self.popen is not None
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen is not None and self.popen.poll() is None

    def children(self) -> list[int]:
        out = subprocess.run(
            ["ps", "-o", "pid=", "--ppid", str(self.pid)], capture_output=True, text=True
        )
        return [int(pid) for pid in out.stdout.split()]

    def kill(self) -> None:
        """SIGKILL the process and everything in its process group (no clean-up runs)."""
        if self.popen is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)
        self.popen.wait()

    def stop(self, timeout: float = 15) -> None:
        if self.popen is None or self.popen.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
        # Pool children left behind by a parent that exited first.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGKILL)

    def output(self) -> str:
        """Return what the process logged since it was last started."""
        try:
            with self.log.open("rb") as log:
                log.seek(self.log_offset)
                return log.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def tail(self, lines: int = 30) -> str:
        return "\n".join(self.output().splitlines()[-lines:])


class Postgres:
    """A throwaway PostgreSQL cluster on a free port."""

    def __init__(self, base: Path) -> None:
        self.dir = base / "pg"
        self.port = free_port()
        self.bin = _pg_bin()
        self.log = base / "postgres.log"
        self.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.as_postgres, *args], capture_output=True, text=True, check=check, cwd="/"
        )

    def init(self) -> "Postgres":
        self.dir.mkdir()
        if self.as_postgres:
            shutil.chown(self.dir.parent, "postgres")
            shutil.chown(self.dir, "postgres")
        self._run(
            str(self.bin / "initdb"), "-D", str(self.dir), "-U", "postgres", "--auth=trust",
            "--no-sync", "-E", "UTF8", "--locale=C.UTF-8",
        )  # fmt: skip
        return self.start()

    def start(self) -> "Postgres":
        options = (
            f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 "
            "-c max_connections=100 -c shared_buffers=128MB "
            # Lock waits over 200 ms go to postgres.log (BENCH_KEEP_LOGS=1 keeps it).
            "-c log_lock_waits=on -c deadlock_timeout=200ms"
        )
        self._run(
            str(self.bin / "pg_ctl"), "-D", str(self.dir), "-l", str(self.log), "-o", options,
            "-w", "-t", "60", "start",
        )  # fmt: skip
        return self

    def stop(self, mode: str = "fast") -> None:
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.dir), "-m", mode, "-w", "stop",
                  check=False)  # fmt: skip

    def restart(self) -> None:
        """Restart the server (fast mode: in-flight transactions are aborted)."""
        self.stop("fast")
        self.start()

    def running(self) -> bool:
        return (self.dir / "postmaster.pid").exists()

    def url(self, name: str) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}"

    def create_database(self, name: str, template: str | None = None) -> str:
        import psycopg

        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(
                f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else "")
            )
        return self.url(name)


class Redis:
    """A private redis-server on a free port, without persistence."""

    def __init__(self, base: Path) -> None:
        self.port = free_port()
        self.log = base / "redis.log"
        self.proc: Proc | None = None

    def start(self) -> "Redis":
        args = [
            shutil.which("redis-server") or "redis-server", "--port", str(self.port),
            "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
        ]  # fmt: skip
        self.proc = Proc("redis", args, dict(os.environ), self.log).start()
        wait_until(lambda: port_open(self.port), 20, "redis-server to listen")
        return self

    def stop(self) -> None:
        if self.proc:
            self.proc.stop()
        wait_until(lambda: not port_open(self.port), 10, "redis-server to stop")

    def url(self, db: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{db}"


class Stack:
    """PostgreSQL, Redis, gunicorn and Celery worker processes, all stopped on exit."""

    def __init__(self, name: str) -> None:
        self.base = Path(tempfile.mkdtemp(prefix=f"ik-{name}-"))
        self.procs: list[Proc] = []
        self.pg: Postgres | None = None
        self.redis: Redis | None = None
        self.env: dict[str, str] = {}
        self.http_port = free_port()
        self._closed = False
        atexit.register(self.close)
        # Turn SIGTERM (CI time-out, Ctrl-C from make) into a normal exit so clean-up runs.
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

    def __enter__(self) -> "Stack":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def up(self, *, database: str, settings: str = "config.settings", **extra: str) -> None:
        """Start PostgreSQL and Redis and set the production-shaped environment."""
        self.pg = Postgres(self.base).init()
        self.redis = Redis(self.base).start()
        url = self.pg.create_database(database)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": os.environ.get("HOME", "/root"),
            "LANG": "C.UTF-8",
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            "DJANGO_SETTINGS_MODULE": settings,
            "DEBUG": "false",
            "SECRET_KEY": "bench-only-" + os.urandom(16).hex(),
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
            "DATABASE_URL": url,
            "CELERY_BROKER_URL": self.redis.url(0),
            "CELERY_RESULT_BACKEND": self.redis.url(1),
            "LOG_LEVEL": "WARNING",
            **{k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS_",))},
            **extra,
        }

    def manage(self, *args: str, timeout: float = 600) -> str:
        done = subprocess.run(
            [PYTHON, "manage.py", *args], cwd=ROOT, env=self.env, capture_output=True, text=True,
            timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def python(self, code: str, timeout: float = 600) -> str:
        """Run Python with Django set up in a child process; return its stdout."""
        prelude = "import django; django.setup()\n"
        done = subprocess.run(
            [PYTHON, "-c", prelude + code], cwd=ROOT, env=self.env, capture_output=True,
            text=True, timeout=timeout,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"child failed:\n{done.stdout}\n{done.stderr}")
        return done.stdout

    def gunicorn(self, workers: int = 4, **extra: str) -> Proc:
        args = [
            PYTHON, "-m", "gunicorn", "config.wsgi", "--bind", f"127.0.0.1:{self.http_port}",
            "--workers", str(workers), "--timeout", "30", "--graceful-timeout", "5",
            "--backlog", "256",
        ]  # fmt: skip
        proc = Proc("gunicorn", args, {**self.env, **extra}, self.base / "gunicorn.log").start()
        self.procs.append(proc)
        wait_until(lambda: self._http_up(proc), 60, "gunicorn to answer")
        return proc

    def _http_up(self, proc: Proc) -> bool:
        if not proc.alive():
            raise RuntimeError(f"gunicorn exited:\n{proc.tail()}")
        return self.ready() == 200

    def ready(self, timeout: float = 2) -> int | None:
        """Return the status of the readiness probe (/readyz/), or None without an answer."""
        # Probes speak plain HTTP (exempt from the HTTPS redirect), as an orchestrator's do.
        try:
            with urllib.request.urlopen(f"{self.base_url}/readyz/", timeout=timeout) as answer:
                return int(answer.status)
        except urllib.error.HTTPError as exc:
            return exc.code
        except OSError:
            return None

    def worker(self, concurrency: int = 1, **extra: str) -> Proc:
        args = [
            PYTHON, "-m", "celery", "-A", "config", "--quiet", "worker", "--pool", "prefork",
            "--concurrency", str(concurrency), "--without-gossip", "--without-mingle",
            "--loglevel", "INFO", "-n", f"bench-{os.getpid()}@localhost",
        ]  # fmt: skip
        proc = Proc("worker", args, {**self.env, **extra}, self.base / "worker.log").start()
        self.procs.append(proc)
        return proc

    def beat(self, **extra: str) -> Proc:
        args = [
            PYTHON, "-m", "celery", "-A", "config", "--quiet", "beat", "--loglevel", "INFO",
            "--schedule", str(self.base / "beat-schedule"),
        ]  # fmt: skip
        proc = Proc("beat", args, {**self.env, **extra}, self.base / "beat.log").start()
        self.procs.append(proc)
        return proc

    def discard(self, proc: Proc) -> None:
        """Stop a process started here and forget it."""
        proc.stop()
        if proc in self.procs:
            self.procs.remove(proc)

    def wait_worker_ready(self, proc: Proc, timeout: float = 60) -> None:
        def ready() -> bool:
            if not proc.alive():
                raise RuntimeError(f"celery worker exited:\n{proc.tail()}")
            return " ready." in proc.output()

        wait_until(ready, timeout, "the Celery worker to be ready", step=0.2)

    def cpu_seconds(self) -> dict[str, float]:
        """Return CPU seconds used so far by each component (processes alive now)."""
        tick = os.sysconf("SC_CLK_TCK")
        stats: dict[int, tuple[int, int, float]] = {}  # pid: ppid, process group, cpu
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            # utime + stime, plus cutime + cstime: children that exited and were waited
            # for (PostgreSQL backends whose connection closed, recycled gunicorn workers).
            cpu = sum(int(f) for f in fields[11:15]) / tick
            stats[int(entry.name)] = (int(fields[1]), int(fields[2]), cpu)
        groups = {p.pid: p.name for p in self.procs if p.popen is not None}
        if self.redis and self.redis.proc and self.redis.proc.popen:
            groups[self.redis.proc.pid] = "redis"
        postmaster = 0
        with contextlib.suppress(OSError, ValueError, AttributeError):
            postmaster = int((self.pg.dir / "postmaster.pid").read_text().split()[0])  # type: ignore[union-attr]
        used: dict[str, float] = {}
        for pid, (ppid, pgid, cpu) in stats.items():
            if pgid in groups:
                name = groups[pgid]
            elif postmaster and (pid == postmaster or ppid == postmaster):
                name = "postgres"
            elif pid == os.getpid():
                name = "load generator"
            else:
                continue
            used[name] = used.get(name, 0.0) + cpu
        return used

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.http_port}"

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for proc in reversed(self.procs):
            proc.stop()
        if self.redis:
            with contextlib.suppress(Exception):
                self.redis.stop()
        if self.pg:
            self.pg.stop("immediate")
        if os.environ.get("BENCH_KEEP_LOGS"):
            print(f"logs kept in {self.base}")
        else:
            shutil.rmtree(self.base, ignore_errors=True)


def cleanup_leftovers() -> int:
    """Stop what a killed bench left behind: its process groups and PostgreSQL clusters.

    Only folders this module made (``ik-*`` in the temporary directory, holding a
    ``pids`` file) are looked at, and a process group is killed only if its leader
    still runs the program recorded for it. Returns how many folders were cleaned.
    """
    cleaned = 0
    for base in Path(tempfile.gettempdir()).glob("ik-*"):
        pids = base / "pids"
        if not pids.is_file():
            continue
        for line in pids.read_text().splitlines():
            pid, program, _name = line.split(" ", 2)
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if program in cmdline:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(int(pid), signal.SIGKILL)
        if (base / "pg" / "postmaster.pid").exists():
            pg = Postgres.__new__(Postgres)
            pg.dir, pg.bin = base / "pg", _pg_bin()
            pg.as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
            pg.stop("immediate")
        shutil.rmtree(base, ignore_errors=True)
        cleaned += 1
    return cleaned


if __name__ == "__main__":
    if sys.argv[1:] != ["--cleanup"]:
        sys.exit("usage: python -m bench.loadsite.stack --cleanup")
    print(f"cleaned up {cleanup_leftovers()} leftover bench folder(s)")
