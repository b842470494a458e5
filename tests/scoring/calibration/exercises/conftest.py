"""Personas and the question most exercise tests use.

Leo is a calibration lead; Ines, Omar, Pia and Sam are interviewers; Rita a recruiter.
The question is rated 1-4 and has four rubric items, in order: two core points, one
"strong answer" point and one red flag.
"""

import pytest
from django.contrib.auth.models import User

from core.permissions import INTERVIEWER
from kit.models import Question
from tests.conftest import make_user
from tests.factories import make_question


@pytest.fixture
def pia(db: None) -> User:
    return make_user("pia", INTERVIEWER, first_name="Pia")


@pytest.fixture
def sam(db: None) -> User:
    return make_user("sam", INTERVIEWER, first_name="Sam")


@pytest.fixture
def question(db: None) -> Question:
    return make_question(title="KV cache sizing", prompt="How big is the KV cache?")
