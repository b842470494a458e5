"""bench/logscan.py: the check `make prodcheck` runs on the stack's logs."""

import json

from bench.logscan import scan_logs


def line(**fields: object) -> str:
    base = {
        "time": "2026-01-01T00:00:00.000+00:00",
        "level": "INFO",
        "logger": "x",
        "message": "m",
        "request_id": None,
        "user_id": None,
    }
    return json.dumps({**base, **fields})


def test_it_passes_json_lines_with_every_key_and_no_secret() -> None:
    logs = {"gunicorn": line() + "\n" + line(message="GET /calendar/[redacted].ics 200") + "\n"}

    assert scan_logs(logs, ["s3cret-feed-token"]) == []


def test_it_names_a_line_that_is_not_json() -> None:
    logs = {"worker": line() + "\n -------------- celery@host v5.7.0\n"}

    assert scan_logs(logs, []) == [
        "worker log line 2 is not JSON:  -------------- celery@host v5.7.0"
    ]


def test_it_names_the_keys_a_line_lacks() -> None:
    logs = {"beat": json.dumps({"time": "t", "level": "INFO", "message": "m"})}

    assert scan_logs(logs, []) == [
        'beat log line 1 lacks logger, request_id, user_id: {"time": "t", "level": "INFO", '
        '"message": "m"}'
    ]


def test_it_finds_a_secret_in_any_line_without_printing_it_whole() -> None:
    secret = "whsec_c2VjcmV0LXNpZ25pbmcta2V5"
    logs = {"gunicorn": line(message=f"GET /x?key={secret} 200")}

    problems = scan_logs(logs, [secret, ""])

    assert len(problems) == 1
    assert problems == [
        'gunicorn log line 1 holds a secret (whse...): {"time": "2026-01-01T00:00:00.000+00:00", '
        '"level": "INFO", "logger": "x", "message": "GET /x?key=whse... 200", "request_id": null, '
        '"user_id": null}'
    ]
