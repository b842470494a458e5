from django.core.management import call_command

from kit.models import Question


def test_it_imports_the_seed_document(db):
    call_command("import_questions", "tests/data/ai-infra-engineer-questions.txt")
    assert Question.objects.count() == 25
