"""What an amendment's note on the debrief says it changed (scoring.scorecards.amendments)."""

from dataclasses import replace

import pytest
from django.contrib.auth.models import User
from django.test import Client

from interviews.models import Interview
from kit.models import RubricItem
from scoring.models import Amendment, Scorecard
from scoring.scorecards import services
from scoring.scorecards.amendments import Change, Labels, changes
from tests.scoring.helpers import follow_ups, ratings_for, rubric, submitted

REASON = "Re-read my notes."


@pytest.fixture
def card(first: Interview, interviewer: User) -> Scorecard:
    """Ines's submitted card for interview 1: every question a 3, recommendation yes."""
    return submitted(interviewer, first, summary="Good on serving.", notes="Original note")


def amend(card: Scorecard, first: Interview, **changed: object) -> None:
    """Amend the card, changing only what `changed` says of the first question
    (`recommendation` and `summary` of the card itself)."""
    ratings = ratings_for(first, rating=3, notes="Original note")
    question = {k: v for k, v in changed.items() if k not in ("recommendation", "summary")}
    ratings[0] = replace(ratings[0], **question)  # type: ignore[arg-type]  # RatingInput's own fields
    services.scorecard_amend(
        scorecard=card,
        by=card.interviewer,
        reason=REASON,
        recommendation=str(changed.get("recommendation", "yes")),
        summary=str(changed.get("summary", "Good on serving.")),
        ratings=ratings,
    )


def note(recruiter: User, first: Interview) -> str:
    """Return the debrief's list of what the amendment changed."""
    client = Client()
    client.force_login(recruiter)
    response = client.get(f"/loops/{first.loop_id}/debrief/")
    assert response.status_code == 200
    body = response.content.decode()
    assert "<strong>Amended</strong> by Ines" in body
    start = body.index('<ul class="changes muted small">')
    return body[start : body.index("</ul>", start)]


def items(html: str) -> list[str]:
    return [part.split("</li>")[0] for part in html.split("<li>")[1:]]


def test_a_changed_rating_is_listed_and_the_unchanged_recommendation_is_not(
    card: Scorecard, first: Interview, recruiter: User
) -> None:
    amend(card, first, rating=4)

    title = first.questions.order_by("order")[0].question.title
    assert items(note(recruiter, first)) == [f"{title}, rating: 3 → 4"]


def test_the_recommendation_and_summary_read_before_and_after(
    card: Scorecard, first: Interview, recruiter: User
) -> None:
    amend(card, first, recommendation="strong_no", summary="Weak on serving.")

    assert items(note(recruiter, first)) == [
        "recommendation: Yes → Strong no",
        "summary: Good on serving. → Weak on serving.",
    ]


def test_rubric_ticks_follow_ups_and_notes_name_their_texts(
    card: Scorecard, first: Interview, recruiter: User
) -> None:
    question = first.questions.order_by("order")[0]
    core = rubric(question, RubricItem.Kind.CORE)
    asked = follow_ups(question)
    assert core and asked
    amend(card, first, checked=tuple(r.pk for r in core[1:]), follow_ups_asked=(), notes="New")

    title = question.question.title
    ticked = "; ".join(r.text for r in sorted(core, key=lambda r: r.pk))
    after = "; ".join(r.text for r in sorted(core[1:], key=lambda r: r.pk)) or "none"
    assert items(note(recruiter, first)) == [
        f"{title}, rubric items ticked: {ticked} → {after}",
        f"{title}, follow-ups asked: {'; '.join(f.text for f in asked)} → none",
        f"{title}, notes: Original note (question 1) → New",
    ]


def test_a_question_marked_not_asked_reads_with_its_reason(
    card: Scorecard, first: Interview, recruiter: User
) -> None:
    amend(
        card, first, rating=None, not_asked=True, not_asked_reason="Ran out of time",
        checked=(), follow_ups_asked=(), notes="",
    )  # fmt: skip

    listed = items(note(recruiter, first))
    title = first.questions.order_by("order")[0].question.title
    assert f"{title}, rating: 3 → —" in listed
    assert f"{title}, not asked: asked → not asked (Ran out of time)" in listed
    assert not any("recommendation" in line or "summary" in line for line in listed)


def test_an_amendment_whose_changed_text_was_erased_says_so(
    card: Scorecard, first: Interview, recruiter: User
) -> None:
    amend(card, first, summary="Weak on serving.")
    amendment = Amendment.objects.get()
    # As erasure leaves it (scoring.rights): the texts blanked on both sides.
    Amendment.objects.filter(pk=amendment.pk).update(
        before={**amendment.before, "summary": ""}, after={**amendment.after, "summary": ""}
    )

    assert items(note(recruiter, first)) == [
        "No field differs in what is kept of the card (erased text is not kept)."
    ]


# --- the comparison itself -----------------------------------------------------------------

RATING = {
    "item": 7, "rating": 3, "not_asked": False, "not_asked_reason": "",
    "checked": [1, 2], "follow_ups_asked": [5], "notes": "n",
}  # fmt: skip
CARD = {"recommendation": "no", "summary": "s", "ratings": [RATING]}
LABELS = Labels(questions={7: "Q7"}, rubric={1: "one", 2: "two", 3: "three"}, follow_ups={5: "f"})


def test_an_unchanged_card_has_no_changes() -> None:
    assert changes(CARD, CARD, labels=LABELS) == []


def test_each_changed_field_is_one_change_in_the_cards_order() -> None:
    after = {
        "recommendation": "yes",
        "summary": "s",
        "ratings": [{**RATING, "rating": 4, "checked": [1, 3]}],
    }

    assert changes(CARD, after, labels=LABELS) == [
        Change("recommendation", "No", "Yes"),
        Change("rating", "3", "4", "Q7"),
        Change("rubric items ticked", "one; two", "one; three", "Q7"),
    ]


def test_a_question_rated_only_after_compares_with_an_empty_rating() -> None:
    before = {**CARD, "ratings": []}

    assert changes(before, CARD, labels=LABELS) == [
        Change("rating", "—", "3", "Q7"),
        Change("rubric items ticked", "none", "one; two", "Q7"),
        Change("follow-ups asked", "none", "f", "Q7"),
        Change("notes", "—", "n", "Q7"),
    ]


def test_an_unknown_id_reads_as_its_number() -> None:
    after = {**CARD, "ratings": [{**RATING, "item": 8, "checked": [9]}]}

    found = changes({**CARD, "ratings": []}, after, labels=LABELS)

    assert found[0].question == "Question 8"
    assert Change("rubric items ticked", "none", "#9", "Question 8") in found
