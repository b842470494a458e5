"""interviews 0006 copies each interview's wanted panel size from its template slot, so
the loop page's "more interviewers needed" survives a template edit (which recreates
the slots and unlinks them)."""

import pytest

from interviews.models import Interview
from tests.conftest import migrate

BEFORE = [("interviews", "0005_fk_indexes_covered_by_unique_constraints")]


@pytest.mark.django_db(transaction=True)
def test_existing_interviews_take_their_slots_interviewer_count() -> None:
    executor = migrate(BEFORE)
    try:
        old = executor.loader.project_state(BEFORE).apps
        role = old.get_model("kit", "Role").objects.create(name="Migrated role")
        level = old.get_model("kit", "Level").objects.create(name="M9", rank=90)
        template = old.get_model("kit", "LoopTemplate").objects.create(
            role=role, level=level, name="Migrated template"
        )
        pair = old.get_model("kit", "LoopSlot").objects.create(
            template=template, order=1, title="Pair", minutes=60, question_count=2,
            interviewer_count=2,
        )  # fmt: skip
        candidate = old.get_model("interviews", "Candidate").objects.create(name="Mia Grant")
        loop = old.get_model("interviews", "Loop").objects.create(
            candidate=candidate, role=role, level=level, template=template
        )
        interviews = old.get_model("interviews", "Interview").objects
        interviews.create(loop=loop, slot=pair, order=1, title="Pair", minutes=60)
        interviews.create(loop=loop, slot=None, order=2, title="Unlinked", minutes=45)
    finally:
        migrate()

    wanted = dict(Interview.objects.values_list("title", "interviewers_wanted"))
    assert wanted == {"Pair": 2, "Unlinked": 1}
