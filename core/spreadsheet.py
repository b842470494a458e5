"""CSV that is safe to open in a spreadsheet: every export writes through here.

A cell whose text begins with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return
is read by Excel, LibreOffice and Google Sheets as a formula (OWASP, "CSV
Injection"): a candidate named ``=HYPERLINK(...)`` would become a link in the
recruiter's sheet. Such text is prefixed with ``'``, which spreadsheets show as
the text itself. Numbers (int, float, but not bool-as-text) are written as
they are, so ``-0.42`` stays a number.
"""

import csv
from collections.abc import Iterable
from typing import Any, Protocol

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class _Writable(Protocol):
    def write(self, text: str, /) -> Any: ...


def cell(value: object) -> object:
    """Return `value` as a CSV cell: text that a spreadsheet would run is defused."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        text = "" if value is None else str(value)
        return "'" + text if text.startswith(FORMULA_STARTS) else text
    return value


class Writer:
    """A csv.writer whose rows pass through `cell`."""

    def __init__(self, out: _Writable) -> None:
        self._writer = csv.writer(out)

    def writerow(self, row: Iterable[object]) -> None:
        self._writer.writerow([cell(value) for value in row])
