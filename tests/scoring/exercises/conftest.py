"""Personas and the question most exercise tests use.

Leo is a calibration lead; Ines, Omar, Pia and Sam are interviewers; Rita a recruiter.
The question is rated 1-4 and has four rubric items, in order: two core points, one
"strong answer" point and one red flag. Pia and Sam come from tests/scoring/conftest.py.
"""

import pytest

from kit.models import Question
from tests.support.factories import make_question


@pytest.fixture
def question(db: None) -> Question:
    return make_question(title="KV cache sizing", prompt="How big is the KV cache?")
