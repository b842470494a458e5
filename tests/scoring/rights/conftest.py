"""The candidate with something in every table (seed.py), for the rights tests."""

import pytest
from django.contrib.auth.models import User

from tests.scoring.rights.seed import Seeded, seed


@pytest.fixture
def seeded(
    recruiter: User, lead: User, interviewer: User, pia: User, sam: User, other_interviewer: User
) -> Seeded:
    return seed(
        recruiter=recruiter, lead=lead, ines=interviewer, pia=pia, sam=sam, omar=other_interviewer
    )
