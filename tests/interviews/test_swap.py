"""Swapping one assigned question for a ranked alternative: API and page."""

import pytest
from django.urls import reverse
from django.utils import timezone

from core.models import AuditEvent
from interviews import services
from interviews.models import InterviewQuestion, Loop
from kit.models import QuestionVersion
from scoring.models import QuestionRating, Scorecard
from scoring.scorecards import services as scorecards
from tests.conftest import client_for
from tests.interviews.helpers import pinned, snapshot
from tests.problems import detail, field_errors, problem
from tests.scoring.helpers import state
from tests.support.factories import make_question
from tests.support.loops import history_loop

REFUSAL = (
    "'{}' cannot go in this interview: it must be an active question for this level and slot "
    "that the candidate has not had and that fits the time left."
)


def item(loop: Loop, title: str) -> InterviewQuestion:
    return InterviewQuestion.objects.get(loop=loop, question__title=title)


def alternatives_url(it: InterviewQuestion) -> str:
    return f"/api/v1/interviews/{it.interview_id}/alternatives/?item={it.pk}"


def swap_url(it: InterviewQuestion) -> str:
    return f"/api/v1/interviews/{it.interview_id}/swap/"


@pytest.fixture
def more(world, loop):  # type: ignore[no-untyped-def]
    """Extra serving questions: s4 (never asked), s5 (asked twice elsewhere), had (the
    candidate's earlier loop), and serving-training, placed in the loop's first interview."""
    q = world.q
    q["serving-4"] = make_question(role=world.role, title="serving-4", competencies=["serving"])
    q["serving-5"] = make_question(
        role=world.role, title="serving-5", competencies=["serving"], minutes=10
    )
    for name in ("x", "y"):
        history_loop([q["serving-5"]], role=world.role, level=world.level, days_ago=3, name=name)
    q["had"] = make_question(role=world.role, title="had", competencies=["serving", "training"])
    history_loop(
        [q["had"]], role=world.role, level=world.level, days_ago=200, candidate=world.candidate
    )
    q["serving-training"] = make_question(
        role=world.role, title="serving-training", competencies=["serving", "training"]
    )
    services.interview_question_swap(item=item(loop, "serving-2"), question=q["serving-training"])
    return q


@pytest.mark.parametrize(
    ("query", "error"),
    [
        ("", "This field is required."),
        ("?item=", "A valid integer is required."),
        ("?item=abc", "A valid integer is required."),
    ],
)
def test_alternatives_need_the_item_to_replace(recruiter, loop, query, error):
    it = item(loop, "serving-1")

    response = client_for(recruiter).get(
        f"/api/v1/interviews/{it.interview_id}/alternatives/{query}"
    )

    assert field_errors(response) == {"item": [error]}


def test_it_ranks_the_alternatives_under_the_assembly_rules(recruiter, loop, more):
    q = more
    response = client_for(recruiter).get(alternatives_url(item(loop, "serving-1")))
    assert response.status_code == 200
    # Slot "Serving" (45 min) keeps serving-training (15 min): 30 minutes left.
    # Never asked first, oldest first; serving-5 was asked twice in the last 30 days.
    # Not offered: serving-1 and serving-training (in this interview), serving-long
    # (40 min), had (the candidate had it), serving-l7 (level), retired, draft,
    # other-role, and training/networking questions (no shared competency).
    assert response.json() == [
        {
            "question": q[title].pk,
            "title": title,
            "minutes": minutes,
            "competencies": ["serving"],
            "exposure_30": e30,
            "exposure_90": e90,
        }
        for title, minutes, e30, e90 in [
            ("serving-2", 15, 0, 0),
            ("serving-3", 20, 0, 0),
            ("serving-4", 15, 0, 0),
            ("serving-5", 10, 2, 2),
        ]
    ]


def test_it_never_offers_a_question_already_in_another_interview_of_the_loop(recruiter, loop, more):
    response = client_for(recruiter).get(alternatives_url(item(loop, "training-1")))
    assert response.status_code == 200
    # serving-training shares "training" but is in the first interview; "had" shares it
    # too but the candidate had it; both-1 stays and covers both topics.
    assert [a["title"] for a in response.json()] == ["networking-1", "training-2"]


def test_it_swaps_in_an_allowed_question_through_the_api(recruiter, loop, more):
    target = item(loop, "serving-1")
    version = more["serving-3"].current
    assert not version.in_use
    response = client_for(recruiter).post(
        swap_url(target), {"item": target.pk, "question": more["serving-3"].pk}, format="json"
    )
    assert response.status_code == 200
    body = response.json()
    assert body["id"] == target.interview_id
    assert body["questions"] == [
        {
            "id": target.pk,
            "order": 1,
            "question": more["serving-3"].pk,
            "title": "serving-3",
            "version": 1,
            "minutes": 20,
            "reason": "swapped in by Rita",
            **pinned(target),
        },
        {
            "id": item(loop, "serving-training").pk,
            "order": 2,
            "question": more["serving-training"].pk,
            "title": "serving-training",
            "version": 1,
            "minutes": 15,
            "reason": "swapped in",
            **pinned(item(loop, "serving-training")),
        },
    ]
    target.refresh_from_db()
    assert (target.question, target.version, target.order) == (more["serving-3"], version, 1)
    assert QuestionVersion.objects.get(pk=version.pk).in_use


@pytest.mark.parametrize(
    "title",
    [
        "serving-1",  # the question being replaced
        "serving-training",  # already in this interview
        "both-1",  # already in the loop's other interview
        "had",  # the candidate had it in an earlier loop
        "serving-long",  # 40 minutes: more than the 30 left
        "serving-retired",
        "serving-draft",
        "serving-l7",  # does not cover L5
        "unrelated-1",  # shares no competency with the slot
        "other-role",
    ],
)
def test_it_refuses_a_disallowed_question_and_changes_nothing(recruiter, loop, more, title):
    target = item(loop, "serving-1")
    before = snapshot()
    response = client_for(recruiter).post(
        swap_url(target), {"item": target.pk, "question": more[title].pk}, format="json"
    )
    assert detail(response, 400, "question_not_eligible") == REFUSAL.format(title)
    assert snapshot() == before


def test_it_answers_404_for_an_item_of_another_interview(recruiter, loop, interviews):
    other = interviews[1].questions.first()
    before = snapshot()
    response = client_for(recruiter).post(
        f"/api/v1/interviews/{interviews[0].pk}/swap/",
        {"item": other.pk, "question": other.question_id},
        format="json",
    )
    problem(response, 404, "not_found")
    assert snapshot() == before


def test_alternatives_answer_404_for_an_item_not_in_the_interview(recruiter, interviews):
    # Not a number at all is a 400: see test_alternatives_need_the_item_to_replace.
    other = interviews[1].questions.first().pk
    response = client_for(recruiter).get(
        f"/api/v1/interviews/{interviews[0].pk}/alternatives/?item={other}"
    )
    problem(response, 404, "not_found")


def test_it_refuses_a_swap_in_a_decided_loop(recruiter, loop, world):
    Loop.objects.filter(pk=loop.pk).update(
        status=Loop.Status.DECIDED, decision="hire", decided_at=timezone.now()
    )
    target = item(loop, "serving-1")
    before = snapshot()
    response = client_for(recruiter).post(
        swap_url(target), {"item": target.pk, "question": world.q["serving-3"].pk}, format="json"
    )
    assert detail(response, 400, "loop_decided") == "This loop is decided; it can no longer change."
    assert snapshot() == before


def test_it_rejects_a_swap_naming_no_question(recruiter, loop):
    target = item(loop, "serving-1")
    before = snapshot()
    response = client_for(recruiter).post(
        swap_url(target), {"item": target.pk, "question": 999_999}, format="json"
    )
    assert list(field_errors(response)) == ["question"]
    assert snapshot() == before


def test_the_swap_page_lists_the_ranked_alternatives(client, recruiter, loop, more):
    client.force_login(recruiter)
    response = client.get(reverse("interviews:question-swap", args=[item(loop, "serving-1").pk]))
    assert response.status_code == 200
    body = response.content.decode()
    positions = [
        body.index(f">{t}</a>") for t in ("serving-2", "serving-3", "serving-4", "serving-5")
    ]
    assert positions == sorted(positions)
    for absent in ("serving-long", "serving-retired", "serving-l7", ">had<", "unrelated-1"):
        assert absent not in body


def test_the_swap_page_swaps_in_an_allowed_question(client, recruiter, loop, world):
    target = item(loop, "serving-1")
    client.force_login(recruiter)
    response = client.post(
        reverse("interviews:question-swap", args=[target.pk]),
        {"question": world.q["serving-3"].pk},
    )
    assert response.status_code == 302
    assert response["Location"] == (
        reverse("interviews:loop-detail", args=[loop.pk]) + f"#interview-{target.interview_id}"
    )
    target.refresh_from_db()
    assert target.question == world.q["serving-3"]
    assert target.version.in_use
    assert target.reason == "swapped in by Rita"


def test_the_swap_page_refuses_a_disallowed_question_and_changes_nothing(
    client, recruiter, loop, world
):
    target = item(loop, "serving-1")
    client.force_login(recruiter)
    before = snapshot()
    response = client.post(
        reverse("interviews:question-swap", args=[target.pk]),
        {"question": world.q["serving-long"].pk},
    )
    assert response.status_code == 200
    assert "&#x27;serving-long&#x27; cannot go in this interview" in response.content.decode()
    assert snapshot() == before


def test_alternatives_keep_the_slot_rules_after_the_template_is_replaced(recruiter, world, loop):
    # Editing the level's template for future loops must not loosen an existing loop:
    # its "Serving" interview still only takes serving questions.
    response = client_for(recruiter).put(
        f"/api/v1/loop-templates/{world.template.pk}/",
        {
            "role": world.role.name,
            "level": "L5",
            "name": "Small L5, revised",
            "slots": [{"title": "Serving", "minutes": 45, "competencies": ["serving"]}],
        },
        format="json",
    )
    assert response.status_code == 200
    target = item(loop, "serving-1")
    found = client_for(recruiter).get(alternatives_url(target)).json()
    assert [a["title"] for a in found] == ["serving-3"]
    before = snapshot()
    refused = client_for(recruiter).post(
        swap_url(target), {"item": target.pk, "question": world.q["unrelated-1"].pk}, format="json"
    )
    assert detail(refused, 400, "question_not_eligible") == REFUSAL.format("unrelated-1")
    assert snapshot() == before


def test_a_swap_records_who_and_why_in_the_reason_and_the_audit_log(recruiter, loop, world):
    target = item(loop, "serving-1")
    response = client_for(recruiter).post(
        swap_url(target),
        {"item": target.pk, "question": world.q["serving-3"].pk, "reason": "Asked last week"},
        format="json",
    )
    assert response.status_code == 200
    assert response.json()["questions"][0]["reason"] == "swapped in by Rita: Asked last week"
    event = AuditEvent.objects.get()
    assert (event.actor, event.action, event.data) == (
        recruiter,
        "interview.question_swapped",
        {
            "item": target.pk,
            "replaced": world.q["serving-1"].pk,
            "question": world.q["serving-3"].pk,
            "reason": "Asked last week",
        },
    )


def test_a_refused_swap_records_no_audit_event(recruiter, loop, world):
    target = item(loop, "serving-1")
    response = client_for(recruiter).post(
        swap_url(target),
        {"item": target.pk, "question": world.q["serving-long"].pk, "reason": "Too long"},
        format="json",
    )
    assert detail(response, 400, "question_not_eligible") == REFUSAL.format("serving-long")
    assert not AuditEvent.objects.exists()


def rate(it: InterviewQuestion, interviewer) -> None:  # type: ignore[no-untyped-def]
    """Seat the interviewer on the item's interview and rate the item on a draft card."""
    it.interview.panel.create(user=interviewer)
    card = scorecards.scorecard_start(interview=it.interview, by=interviewer)
    scorecards.scorecard_save_draft(
        scorecard=card, by=interviewer, ratings=[scorecards.RatingInput(item=it.pk, rating=3)]
    )


def test_a_rated_question_is_not_swapped_and_nothing_changes(recruiter, interviewer, loop, world):
    target = item(loop, "serving-1")
    rate(target, interviewer)
    before, events = snapshot(), AuditEvent.objects.count()

    response = client_for(recruiter).post(
        swap_url(target), {"item": target.pk, "question": world.q["serving-3"].pk}, format="json"
    )

    assert detail(response, 400, "question_rated") == (
        "'serving-1' is rated on a scorecard already: it stays, so that every rating keeps "
        "the question it was given for."
    )
    assert snapshot() == before and AuditEvent.objects.count() == events
    target.refresh_from_db()
    assert target.question.title == "serving-1"


def test_the_loop_page_and_the_kit_offer_no_swap_for_a_rated_question(
    client, recruiter, interviewer, loop
):
    rated, other = item(loop, "serving-1"), item(loop, "serving-2")
    rate(rated, interviewer)
    client.force_login(recruiter)
    pages = [
        reverse("interviews:loop-detail", args=[loop.pk]),
        reverse("interviews:kit", args=[rated.interview_id]),
    ]
    for page in pages:
        body = client.get(page).content.decode()
        assert reverse("interviews:question-swap", args=[rated.pk]) not in body, page
        assert reverse("interviews:question-swap", args=[other.pk]) in body, page


# --- a swap racing a scorecard save ------------------------------------------------------


def seated(it: InterviewQuestion, interviewer) -> Scorecard:  # type: ignore[no-untyped-def]
    """Seat the interviewer on the item's interview and start their card, unrated."""
    it.interview.panel.create(user=interviewer)
    return scorecards.scorecard_start(interview=it.interview, by=interviewer)


def test_a_save_rating_the_question_a_swap_replaced_is_refused_and_writes_nothing(
    recruiter, interviewer, loop, world
):
    # Ines opened her card showing serving-1; the recruiter swaps it before she rates it.
    target = item(loop, "serving-1")
    card = seated(target, interviewer)
    shown = target.question_id
    services.interview_question_swap(item=target, question=world.q["serving-3"])
    before = state()

    response = client_for(interviewer).put(
        f"/api/v1/scorecards/{card.pk}/",
        {"ratings": [{"item": target.pk, "question": shown, "rating": 3}]},
        format="json",
    )

    assert detail(response, 409, "question_swapped") == (
        f"ratings[1]: question {target.pk} of this interview is now 'serving-3': it was swapped"
        " for another since you opened the scorecard. Reload it before you rate it."
    )
    assert state() == before
    # The question the interview now holds is rated as usual, at its pinned version.
    response = client_for(interviewer).put(
        f"/api/v1/scorecards/{card.pk}/",
        {"ratings": [{"item": target.pk, "question": world.q["serving-3"].pk, "rating": 3}]},
        format="json",
    )
    assert response.status_code == 200, response.content
    assert list(QuestionRating.objects.values_list("version__question__title", "rating")) == [
        ("serving-3", 3)
    ]


def test_the_api_refuses_a_question_id_below_one_naming_the_field(interviewer, loop):
    target = item(loop, "serving-1")
    card = seated(target, interviewer)
    before = state()

    response = client_for(interviewer).put(
        f"/api/v1/scorecards/{card.pk}/",
        {"ratings": [{"item": target.pk, "question": 0, "rating": 3}]},
        format="json",
    )

    assert field_errors(response) == {
        "ratings.0.question": ["Ensure this value is greater than or equal to 1."]
    }
    assert state() == before


def test_the_scorecard_page_sends_the_question_it_shows_and_autosave_refuses_a_swapped_one(
    client, interviewer, loop, world
):
    target = item(loop, "serving-1")
    seated(target, interviewer)
    page = reverse("scoring:scorecard", args=[target.interview_id])
    client.force_login(interviewer)
    body = client.get(page).content.decode()
    shown = target.question_id
    assert f'<input type="hidden" name="q{target.pk}-question" value="{shown}">' in body
    services.interview_question_swap(item=target, question=world.q["serving-3"])
    before = state()

    response = client.post(
        page,
        {f"q{target.pk}-question": str(shown), f"q{target.pk}-rating": "3"},
        HTTP_X_AUTOSAVE="1",
    )

    assert response.status_code == 409
    assert response.json()["code"] == "question_swapped"
    assert "'serving-3': it was swapped for another" in response.json()["error"]
    assert state() == before


@pytest.mark.parametrize("posted", ["serving-1", "²", "0", "-3"])
def test_a_page_posting_a_question_id_that_is_not_a_number_is_refused_naming_it(
    client, interviewer, loop, posted
):
    target = item(loop, "serving-1")
    seated(target, interviewer)
    page = reverse("scoring:scorecard", args=[target.interview_id])
    client.force_login(interviewer)
    before = state()

    response = client.post(
        page, {f"q{target.pk}-question": posted, f"q{target.pk}-rating": "3"},
        HTTP_X_AUTOSAVE="1",
    )  # fmt: skip

    assert (response.status_code, response.json()) == (
        400,
        {
            "error": f"q{target.pk}-question: expected the id of the question the page showed,"
            f" got {posted!r}",
            "code": "bad_question_id",
        },
    )
    assert state() == before
