"""interviews.clashes: the one rule for who is busy when, booking and proposing alike."""

from datetime import UTC, datetime, timedelta

import pytest

from interviews import clashes
from interviews.pools import proposal

NINE = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)
HOUR = timedelta(hours=1)


@pytest.mark.parametrize(
    ("other", "clash"),
    [
        ((NINE + HOUR / 2, NINE + 2 * HOUR), True),  # overlapping
        ((NINE - HOUR, NINE + 2 * HOUR), True),  # around it
        ((NINE + HOUR, NINE + 2 * HOUR), False),  # back to back, after
        ((NINE - HOUR, NINE), False),  # back to back, before
    ],
)
def test_the_table_of_the_rule(other, clash):
    assert clashes.overlaps(NINE, NINE + HOUR, *other) is clash
    assert clashes.busy_in([other], NINE, NINE + HOUR) is clash


def test_the_proposal_asks_the_same_rule(monkeypatch):
    person = proposal.Person(1, "Ada", UTC, 5, 10, NINE.time(), (NINE + 8 * HOUR).time())
    spec = proposal.Spec(1, "Serving", 60, 1, NINE, NINE + HOUR, None)
    diary = proposal.Diary(seats={1: [(NINE + HOUR, NINE + 2 * HOUR)]}, on_loop=set(), now=NINE)
    assert proposal.problems(person, spec, diary) == []  # back to back is free
    asked = []
    monkeypatch.setattr(clashes, "busy_in", lambda *args: asked.append(args) or True)
    assert proposal.problems(person, spec, diary) == ["busy"]
    assert asked == [([(NINE + HOUR, NINE + 2 * HOUR)], NINE, NINE + HOUR)]
