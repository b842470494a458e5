"""gunicorn's settings, read from the working directory when gunicorn starts there.

Its logs go through the site's format and redaction (core/logs.py): LOG_FORMAT and
LOG_LEVEL apply, and one access line per request names the request id and user id.
With PROMETHEUS_MULTIPROC_DIR set, /metrics adds up every worker's counters
(core/metrics.py) and a worker that exits is marked dead here.
"""

import os

logger_class = "core.logs.GunicornLogger"
level = os.getenv("LOG_LEVEL", "INFO").strip().lower()
# gunicorn's own few lines (workers booted, exiting, timed out) at INFO whatever the
# level: an operator (and bench/faults.py) counts worker restarts from them.
loglevel = "debug" if level == "debug" else "info"
# One access line per request at INFO (and DEBUG); LOG_LEVEL=WARNING leaves them out.
accesslog = "-" if level in ("debug", "info") else None


def child_exit(server: object, worker: object) -> None:
    if os.getenv("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)  # type: ignore[attr-defined]
