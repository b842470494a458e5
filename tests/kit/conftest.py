import pytest

from kit.models import Question
from tests.kit.bank import ROLE, import_seed
from tests.kit.questions_api import PLATFORM
from tests.support.factories import CompetencyFactory, RoleFactory, make_question


@pytest.fixture
def seeded(db: None) -> list[Question]:
    """The seed document imported for the AI Infrastructure Engineer role."""
    import_seed("--role", ROLE)
    return list(Question.objects.order_by("pk"))


@pytest.fixture
def bank(db: None) -> dict[str, Question]:
    """Six questions whose filters each pick a different subset (the question API's tests;
    test_question_pages.py and test_import_questions.py have a bank of their own)."""
    ai, platform = RoleFactory(name=ROLE), RoleFactory(name=PLATFORM)
    return {
        "a": make_question(
            role=ai,
            title="A ring allreduce",
            prompt="How would you tune ring allreduce across a slow NIC?",
            competencies=["distributed-training"],
            min_level="L3",
            max_level="L4",
        ),
        "b": make_question(
            role=ai,
            title="B paged cache",
            prompt="How does a paged KV cache work?",
            outline="Allocates blocks lazily. Shares prefixes between requests.",
            competencies=["inference-serving"],
            min_level="L5",
            status="draft",
        ),
        "c": make_question(
            role=ai,
            title="C kernel occupancy",
            prompt="Why is this kernel at 40% occupancy?",
            competencies=["distributed-training", "gpu-performance"],
            max_level="L5",
            status="retired",
        ),
        "d": make_question(role=ai, title="D any level", prompt="What would you automate first?"),
        "e": make_question(
            role=ai,
            title="E principal",
            prompt="How would you plan a 10,000-GPU cluster?",
            min_level="L6",
            max_level="L7",
        ),
        "f": make_question(
            role=platform,
            title="F platform",
            prompt="How do you roll out a new serving image?",
            competencies=["inference-serving"],
            min_level="L4",
            max_level="L6",
        ),
    }


@pytest.fixture
def vocabulary(db: None) -> None:
    """The roles and the competency a question the API's tests create names."""
    RoleFactory(name=ROLE)
    RoleFactory(name=PLATFORM)
    CompetencyFactory(slug="inference-serving")
