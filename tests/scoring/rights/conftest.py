"""The candidate with something in every table (seed.py), for the rights tests.

A module without transactional tests seeds once (`seeded_built_once`) by giving its own
`seeded` fixture `read_again(seeded_built_once)` (tests/support/shared_db.py).
"""

from collections.abc import Iterator

import pytest
from django.contrib.auth.models import User
from pytest_django import DjangoDbBlocker

from tests.scoring.rights.seed import Seeded, seed
from tests.support.shared_db import make_personas, persona_user, rolled_back

PEOPLE = ("recruiter", "lead", "interviewer", "pia", "sam", "other_interviewer")


@pytest.fixture
def seeded(
    recruiter: User, lead: User, interviewer: User, pia: User, sam: User, other_interviewer: User
) -> Seeded:
    return seed(
        recruiter=recruiter, lead=lead, ines=interviewer, pia=pia, sam=sam, omar=other_interviewer
    )


@pytest.fixture(scope="module")
def seeded_built_once(
    django_db_setup: None, django_db_blocker: DjangoDbBlocker
) -> Iterator[Seeded]:
    """The seeded candidate and its people, built once for the module that asks for it."""
    with rolled_back(django_db_blocker):
        make_personas(*PEOPLE)
        people = [persona_user(name) for name in PEOPLE]
        recruiter, lead, interviewer, pia, sam, other_interviewer = people
        yield seed(
            recruiter=recruiter,
            lead=lead,
            ines=interviewer,
            pia=pia,
            sam=sam,
            omar=other_interviewer,
        )
