"""Erasure cannot forget a column: every text, character, JSON and binary column of every
table is classified in scoring.rights.inventory (erased, rewritten, redacted, deleted or
kept, and why), read from the models themselves; the erasure erases what the table says;
and after a marker is written into every column that can hold a candidate's data, through
the real services and API, an erasure leaves it in no column of any table.
"""

from typing import Any

import pytest
from django.apps import apps
from django.contrib.auth.models import User

from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from scoring.rights import inventory, services
from scoring.rights.inventory import Column, Treatment
from scoring.rights.redaction import ERASED
from tests.conftest import client_for
from tests.scoring.rights.seed import MARK, Seeded, seed_every_column
from tests.scoring.rights.test_candidate_erase_everywhere import marker_hits
from tests.support.shared_db import read_again


@pytest.fixture
def seeded(seeded_built_once: Seeded, db: None) -> Seeded:
    """The seeded candidate (tests/scoring/rights/seed.py), built once for the module; each
    test reads it again in a savepoint of its own (tests/support/shared_db.py)."""
    return read_again(seeded_built_once)


def unclassified(
    columns: dict[str, set[str]], classified: dict[str, dict[str, Column]]
) -> list[str]:
    """Return "label.column" for each column the models have and the table does not."""
    return sorted(
        f"{label}.{name}"
        for label, names in columns.items()
        for name in names - set(classified.get(label, {}))
    )


def test_every_text_column_of_every_table_is_classified() -> None:
    columns = inventory.text_columns()

    assert unclassified(columns, inventory.INVENTORY) == [], (
        "Classify these columns in scoring/rights/inventory.py (erased, kept and why...)"
    )
    # Nothing classified that the models no longer have (a renamed column, a dropped table).
    stale = unclassified({label: set(cols) for label, cols in inventory.INVENTORY.items()}, columns)
    assert stale == []


def test_a_new_column_fails_until_it_is_classified() -> None:
    # The check above, on the models as they would be with one more free-text field.
    columns = inventory.text_columns()
    columns["interviews.InterviewQuestion"] = {"reason", "panel_comment"}

    assert unclassified(columns, inventory.INVENTORY) == [
        "interviews.InterviewQuestion.panel_comment"
    ]


def test_every_table_with_a_path_to_a_candidate_is_one_of_their_own_row_tables() -> None:
    paths = inventory.own_row_paths()

    assert {model._meta.label for model in paths} == set(inventory.OWN_ROWS)
    assert paths[Candidate] == "pk"
    assert paths[Loop] == "candidate"
    assert paths[InterviewQuestion] == "loop__candidate"
    # The three parts do not overlap: a table is theirs, a copy or neither.
    parts = (inventory.OWN_ROWS, inventory.COPIES, inventory.ELSEWHERE)
    assert sum(len(part) for part in parts) == len(inventory.INVENTORY)


def test_each_treatment_is_where_it_can_be_applied_and_says_why() -> None:
    columns = [
        (label, name, column)
        for label, named in inventory.INVENTORY.items()
        for name, column in named.items()
    ]
    assert all(column.why.strip() for _, _, column in columns)
    in_own_rows = {Treatment.ERASED, Treatment.REWRITTEN}
    for label, name, column in columns:
        assert (column.treatment in in_own_rows) <= (label in inventory.OWN_ROWS), (label, name)
        assert (column.treatment in {Treatment.REDACTED, Treatment.DELETED}) <= (
            label in inventory.COPIES
        ), (label, name)
    # Each rewritten column has its step in the erasure.
    rewritten = {(label, n) for label, n, c in columns if c.treatment is Treatment.REWRITTEN}
    assert rewritten == set(services.REWRITES)
    # Each copy has its place in the export, or says why it has none.
    assert set(inventory.EXPORTED_AS) == set(inventory.COPIES)


def test_the_export_holds_each_own_row_table_and_each_copy_under_its_key(
    seeded: Seeded, recruiter: User
) -> None:
    seed_every_column(seeded=seeded, recruiter=recruiter)

    record = client_for(recruiter).get(f"/api/v1/candidates/{seeded.candidate.pk}/export/").json()

    keys = {key for key in inventory.EXPORTED_AS.values() if key is not None}
    assert keys <= set(record)
    assert all(record[key] for key in keys)  # the seed has one of each
    # Every classified column of their rows is in the export (all their rows, every
    # column: test_candidate_export_complete), the rewritten and erased ones included.
    loop = record["loops"][1]
    assert set(inventory.OWN_ROWS["interviews.Loop"]) <= set(loop)
    assert MARK in loop["cancel_reason"] and MARK in " ".join(loop["warnings"])
    added = loop["interviews"][-1]
    assert MARK in added["title"]
    assert any(MARK in item["reason"] for item in added["questions"])


def expected_hits() -> dict[str, set[str]]:
    """{table: columns} of every column the inventory says can hold their data."""
    out: dict[str, set[str]] = {}
    for label, named in {**inventory.OWN_ROWS, **inventory.COPIES}.items():
        model = apps.get_model(label)
        for name, column in named.items():
            if column.treatment is not Treatment.KEPT:
                out.setdefault(model._meta.db_table, set()).add(model._meta.get_field(name).column)
    return out


def test_the_seed_puts_the_marker_in_every_column_that_can_hold_their_data(
    seeded: Seeded, recruiter: User
) -> None:
    # The control: a column the inventory says can hold their data and the seed leaves
    # empty would make the scan below prove nothing about it.
    seed_every_column(seeded=seeded, recruiter=recruiter)

    assert marker_hits() == expected_hits()


def test_erasing_leaves_the_marker_name_email_and_phone_in_no_column_of_any_table(
    seeded: Seeded, recruiter: User
) -> None:
    loop = seed_every_column(seeded=seeded, recruiter=recruiter)
    candidate = seeded.candidate
    personal = [candidate.name, candidate.email, candidate.phone]

    response = client_for(recruiter).post(f"/api/v1/candidates/{candidate.pk}/erase/")

    assert response.status_code == 200, response.content
    assert marker_hits() == {}
    for value in personal:
        assert marker_hits(value.lower()) == {}, value
    # Their rows stay, with what erasure left in them.
    loop.refresh_from_db()
    assert (loop.status, loop.cancel_reason, loop.warnings) == ("cancelled", ERASED, [])
    titles = list(Interview.objects.filter(loop=loop).order_by("order").values_list("title"))
    assert titles == [("Interview 1",), ("Interview 2",), ("Interview 3",)]
    reasons = set(InterviewQuestion.objects.filter(loop=loop).values_list("reason", flat=True))
    assert reasons == {ERASED}


def test_erasure_applies_each_erased_column_of_the_inventory(
    seeded: Seeded, recruiter: User
) -> None:
    seed_every_column(seeded=seeded, recruiter=recruiter)
    candidate = seeded.candidate

    client_for(recruiter).post(f"/api/v1/candidates/{candidate.pk}/erase/")

    for model, path in inventory.own_row_paths().items():
        for name, column in inventory.OWN_ROWS[model._meta.label].items():
            if column.treatment is not Treatment.ERASED:
                continue
            values: set[Any] = set()
            for value in model._default_manager.filter(**{path: candidate.pk}).values_list(
                name, flat=True
            ):
                values.add(repr(value))
            allowed = {repr(column.to), repr("")}
            assert values <= allowed, (model._meta.label, name, values)
