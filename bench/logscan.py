"""Scan what the production stack logged: one JSON object per line, with the keys every
line must carry, and none of the secrets the run used (bench/production.py).
"""

import json
from collections.abc import Iterable

REQUIRED_KEYS = ("time", "level", "logger", "message", "request_id", "user_id")


def scan_logs(logs: dict[str, str], secrets: Iterable[str]) -> list[str]:
    """Return a problem for each line of ``logs`` (process name to its output) that is not
    a JSON object with REQUIRED_KEYS, and for each secret found in any line."""
    problems: list[str] = []
    wanted = [secret for secret in secrets if secret]
    for process, text in logs.items():
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{process} log line {number}"
            for secret in wanted:
                if secret in line:
                    # Not the secret itself: this report is printed, and CI keeps it.
                    shown = line.replace(secret, f"{secret[:4]}...")[:200]
                    problems.append(f"{where} holds a secret ({secret[:4]}...): {shown}")
            try:
                fields = json.loads(line)
            except ValueError:
                problems.append(f"{where} is not JSON: {line[:200]}")
                continue
            if not isinstance(fields, dict):
                problems.append(f"{where} is not a JSON object: {line[:200]}")
                continue
            missing = [key for key in REQUIRED_KEYS if key not in fields]
            if missing:
                problems.append(f"{where} lacks {', '.join(missing)}: {line[:200]}")
    return problems
