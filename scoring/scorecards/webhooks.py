"""What webhooks say about scorecards and decisions (core.webhooks delivers it).

Each function returns a Payload: the event's data, built only if some subscription
hears the event. Ids go to every subscriber; the candidate's name and contact details
and free text (a card's summary, an amendment's reason, a decision's rationale) only
to subscriptions that include details.

The readers (read_card, read_decision) decide at each delivery what a subscription's
owner may read of an event (core.webhooks.readers): the card or loop as the API would
show it to them, blind rule included (scoring.visibility).
"""

from datetime import datetime
from typing import Any

from django.contrib.auth.models import User

from core.webhooks.services import EventData, Payload
from interviews import selectors as interview_selectors
from interviews.models import Loop
from scoring import visibility
from scoring.models import Amendment, Scorecard


def _when(moment: datetime | None) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


_LOOP_COLUMNS = ("candidate_id", "role_id", "level_id",
                 "candidate__name", "candidate__email", "candidate__phone")  # fmt: skip


def _loop_row(loop_id: int) -> dict[str, Any]:
    """The loop's ids and its candidate's details, in one query."""
    return Loop.objects.filter(pk=loop_id).values(*_LOOP_COLUMNS).get()


def _candidate(row: dict[str, Any]) -> dict[str, str]:
    return {
        "name": row["candidate__name"],
        "email": row["candidate__email"],
        "phone": row["candidate__phone"],
    }


def _card_data(card: Scorecard, details: bool) -> EventData:
    loop = _loop_row(card.interview.loop_id)
    ids = {
        "scorecard_id": card.pk,
        "interview_id": card.interview_id,
        "loop_id": card.interview.loop_id,
        "candidate_id": loop["candidate_id"],
        "role_id": loop["role_id"],
        "level_id": loop["level_id"],
        "interviewer_id": card.interviewer_id,
        "is_shadow": card.is_shadow,
        "recommendation": card.recommendation,
        "submitted_at": _when(card.submitted_at),
    }
    extra = {"candidate": _candidate(loop), "summary": card.summary} if details else {}
    return EventData(ids=ids, details=extra)


def scorecard(card: Scorecard) -> Payload:
    """scorecard.submitted: the card and where it belongs."""
    return lambda details: _card_data(card, details)


def amendment(change: Amendment) -> Payload:
    """scorecard.amended: the card as amended, and the amendment."""

    def build(details: bool) -> EventData:
        data = _card_data(change.scorecard, details)
        ids = {**data.ids, "amendment_id": change.pk, "amended_at": _when(change.at)}
        extra = {**data.details, "reason": change.reason} if details else {}
        return EventData(ids=ids, details=extra)

    return build


def loop(decided: Loop) -> Payload:
    """loop.decided: the loop, its decision, who made it and when."""

    def build(details: bool) -> EventData:
        ids = {
            "loop_id": decided.pk,
            "candidate_id": decided.candidate_id,
            "role_id": decided.role_id,
            "level_id": decided.level_id,
            "decision": decided.decision,
            "decided_by_id": decided.decided_by_id,
            "decided_at": _when(decided.decided_at),
        }
        if not details:
            return EventData(ids=ids)
        row = _loop_row(decided.pk)
        extra = {"candidate": _candidate(row), "rationale": decided.decision_rationale}
        return EventData(ids=ids, details=extra)

    return build


# --- what an owner may read, at delivery --------------------------------------------------


def read_card(owner: User, ids: dict[str, Any], details: dict[str, Any]) -> dict[str, Any] | None:
    """scorecard.submitted and .amended: nothing unless the owner may read the card now
    (their own, every submitted one for recruiters, else only where they hold a seat
    and are no longer blind); then its ids and the details they were given."""
    readable = Scorecard.objects.filter(
        visibility.readable_anywhere(user=owner), pk=int(ids["scorecard_id"])
    )
    if not readable.exists():
        return None
    return {**ids, **details}


def read_decision(
    owner: User, ids: dict[str, Any], details: dict[str, Any]
) -> dict[str, Any] | None:
    """loop.decided: nothing unless the owner may see the loop now; the rationale only
    if they may read its debrief (interviews.selectors.debriefable)."""
    found = (
        interview_selectors.loops_visible_to(owner)
        .filter(pk=int(ids["loop_id"]))
        .values_list("debriefable", flat=True)  # type: ignore[misc]  # loops_visible_to annotates it
        .first()
    )
    if found is None:
        return None
    if not found:
        details = {key: value for key, value in details.items() if key != "rationale"}
    return {**ids, **details}
