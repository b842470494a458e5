"""Closing a loop (decided or cancelled) and reopening it.

A closed loop changes no more (Loop.is_closed). Closing it:
1. cancels every seat whose card is not in: the seat leaves Upcoming, reminders and
   clash checks; a draft stays, read-only (audited with the close);
2. sends each cancelled seat a calendar cancellation, if its interview had not ended.
Reopening (a recruiter, with a reason) restores those seats and invites them again.
"""

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from core.api.exceptions import ApplicationError, Conflict
from core.audit.services import audit_event_record as audit
from interviews import notices
from interviews.models import Loop, Panelist
from interviews.services import loop_refresh_status
from scoring import visibility
from scoring.models import Scorecard


def loop_seats_close(*, loop: Loop, reason: str) -> dict[str, object]:
    """Cancel the loop's open seats; return what was cancelled, for the close's audit event."""
    seats: QuerySet[Panelist] = visibility.seats_open(loop).select_related("user")
    cancelled = list(seats)
    Panelist.objects.filter(pk__in=[seat.pk for seat in cancelled]).update(
        cancelled_at=timezone.now()
    )
    drafts = Scorecard.objects.filter(interview__loop=loop, status=Scorecard.Status.DRAFT)
    notices.seats_cancelled(seats=cancelled, reason=reason)
    return {"seats_cancelled": len(cancelled), "drafts_kept_read_only": drafts.count()}


@transaction.atomic
def loop_cancel(*, loop: Loop, by: User, reason: str) -> Loop:
    """Cancel an undecided loop (the candidate withdrew, a loop built by mistake)."""
    loop = Loop.objects.select_for_update().get(pk=loop.pk)
    if loop.is_closed:
        raise Conflict(
            f"This loop is already {loop.get_status_display().lower()}.", code="loop_closed"
        )
    if not reason.strip():
        raise ApplicationError("Say why the loop is cancelled.", code="reason_missing")
    loop.status = Loop.Status.CANCELLED
    loop.cancelled_at = timezone.now()
    loop.cancel_reason = reason.strip()
    loop.save(update_fields=["status", "cancelled_at", "cancel_reason"])
    closed = loop_seats_close(loop=loop, reason="the loop was cancelled")
    audit(actor=by, action="loop.cancelled", target=f"loop {loop.pk}", reason=reason.strip(),
          **closed)  # fmt: skip
    return loop


@transaction.atomic
def loop_reopen(*, loop: Loop, by: User, reason: str) -> Loop:
    """Reopen a decided or cancelled loop: its decision is cleared, its cancelled seats
    come back (and are invited again), and it returns to the stage its cards say."""
    loop = Loop.objects.select_for_update().get(pk=loop.pk)
    if not loop.is_closed:
        raise Conflict("This loop is open; there is nothing to reopen.", code="loop_open")
    if not reason.strip():
        raise ApplicationError("Say why the loop is reopened.", code="reason_missing")
    was = {"status": loop.status, "decision": loop.decision}
    loop.decision, loop.decision_rationale = "", ""
    loop.decided_by, loop.decided_at = None, None
    loop.cancelled_at, loop.cancel_reason = None, ""
    loop.status = Loop.Status.DRAFT
    loop.save()
    # Each interview's cancelled seats come back, and their holders are invited again.
    seats = Panelist.objects.filter(interview__loop=loop).exclude(cancelled_at=None)
    restored = seats.count()
    for interview in loop.interviews.filter(pk__in=seats.values("interview_id")):
        before = notices.PanelBefore.of(interview)
        Panelist.objects.filter(interview=interview).update(cancelled_at=None)
        notices.panel_changed(interview=interview, before=before)
    if Scorecard.objects.filter(interview__loop=loop, status=Scorecard.Status.SUBMITTED).exists():
        held_up = visibility.seats_holding_up_hire(loop).exists()
        loop.status = Loop.Status.IN_PROGRESS if held_up else Loop.Status.DEBRIEF
        loop.save(update_fields=["status"])
    else:
        loop_refresh_status(loop=loop)
    audit(actor=by, action="loop.reopened", target=f"loop {loop.pk}", reason=reason.strip(),
          seats_restored=restored, **{f"was_{k}": v for k, v in was.items()})  # fmt: skip
    return loop
