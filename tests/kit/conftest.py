import pytest

from kit.models import Question
from tests.kit.bank import ROLE, import_seed


@pytest.fixture
def seeded(db: None) -> list[Question]:
    """The seed document imported for the AI Infrastructure Engineer role."""
    import_seed("--role", ROLE)
    return list(Question.objects.order_by("pk"))
