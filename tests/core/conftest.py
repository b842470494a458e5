"""What the core tests share: every log line, captured as the site formats it."""

import io
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest

from core import logs

KEYS = ["time", "level", "logger", "message", "request_id", "user_id"]


class Captured:
    def __init__(self, stream: io.StringIO) -> None:
        self.stream = stream

    def lines(self) -> list[str]:
        return self.stream.getvalue().splitlines()

    def json(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]


@pytest.fixture
def captured() -> Iterator[Captured]:
    """Everything logged at DEBUG and above, formatted as JSON lines."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.addFilter(logs.ContextFilter())
    handler.setFormatter(logs.LogFormatter("json"))
    # The root, and the loggers settings.LOGGING stops from propagating to it.
    loggers = [logging.getLogger(name) for name in ("", "django", "django.server")]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.addHandler(handler)
        logger.setLevel(logging.DEBUG)
    try:
        yield Captured(stream)
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.removeHandler(handler)
            logger.setLevel(level)
