"""Marks for the fast suite (`make test`) and the slow one (`make test-slow`)."""

from collections.abc import Iterable
from typing import Any

import pytest
from _pytest.mark import ParameterSet


def slow_except(values: Iterable[Any], *, keep: Any) -> list[Any]:
    """Return parametrize values with every one but `keep` marked slow, ids unchanged.

    For a matrix whose every row runs the same code on other data (another viewport,
    persona or level): `make test` keeps one row, `make test-slow` has the others.
    `keep` is matched against a value, or a pytest.param's id.
    """
    out: list[Any] = []
    for value in values:
        if isinstance(value, ParameterSet):
            if value.id == keep or value.values == (keep,):
                out.append(value)
            else:
                out.append(
                    pytest.param(*value.values, marks=[*value.marks, pytest.mark.slow], id=value.id)
                )
        else:
            out.append(value if value == keep else pytest.param(value, marks=pytest.mark.slow))
    return out
