"""A lead retires a question in Chromium: the page asks first."""

import pytest

from core.permissions import LEAD
from kit.models import Question
from tests.conftest import make_user
from tests.e2e.conftest import sign_in
from tests.support.factories import make_question

pytestmark = pytest.mark.browser


def test_retiring_a_question_asks_first(live_server, page, transactional_db) -> None:  # type: ignore[no-untyped-def]
    make_user("leo", LEAD, first_name="Leo")
    question = make_question(title="Sizing a KV cache")
    sign_in(page, live_server, "leo")
    page.wait_for_selector("button:has-text('Sign out')")
    page.goto(f"{live_server.url}/bank/questions/{question.pk}/")
    asked: list[str] = []

    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    with page.expect_event("dialog"):
        page.click("button:has-text('Retire')")
    assert asked == [
        "Retire “Sizing a KV cache”? New loops will no longer pick it; its ratings stay."
    ]
    assert Question.objects.get(pk=question.pk).status == "active"

    page.once("dialog", lambda dialog: dialog.accept())
    page.click("button:has-text('Retire')")
    page.wait_for_selector("button:has-text('Restore to the bank')")
    assert Question.objects.get(pk=question.pk).status == "retired"
