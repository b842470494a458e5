from collections.abc import Iterator

import pytest
from django.core.cache import cache

from kit.models import Question
from tests.kit.bank import ROLE, import_seed


@pytest.fixture(autouse=True)
def fresh_throttle_counts() -> Iterator[None]:
    # The API throttles anonymous callers through the cache, which outlives a test;
    # without this the 61st anonymous request of the run would get 429.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def seeded(db: None) -> list[Question]:
    """The seed document imported for the AI Infrastructure Engineer role."""
    import_seed("--role", ROLE)
    return list(Question.objects.order_by("pk"))
