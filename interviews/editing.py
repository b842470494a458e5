"""Who may change an interview's questions: swap one for a ranked alternative, reorder them.

The rule, by the caller's relation to the interview (checked in this order):

============================== =================== ============== ======================
caller                         loop open, not yet  interview has  loop decided or
                               started             started        cancelled
============================== =================== ============== ======================
recruiter, or hiring manager   yes                 yes            400 loop_decided
owning the loop's role
interviewer seat on it         yes                 400            400 loop_decided
                                                   interview_
                                                   started
its shadow                     403 shadow          403 shadow     403 shadow
a seat on it, cancelled        403 seat_cancelled  403            403
panelist of another interview  404                 404            404
anyone else                    404                 404            404
============================== =================== ============== ======================

"Started" means the interview's scheduled start has passed; an interview with no
time yet has not started. A recruiter may still fix a kit after the start (a
question turned out to be known to the candidate); a panelist may not, since the
other panelists prepared for the questions as they stood. Who staffs a role's loops
is interviews.staffing's rule. The 404s come from the access-scoped getter
(selectors.interview_staffable_get) before this module is asked, so an id leaks
nothing; `refusal` answers them too, for callers holding an interview from elsewhere.

The API (interviews.api) and the pages (interviews.views, the kit's controls) ask
`refusal` or `check`; the services only write.
"""

from dataclasses import dataclass
from datetime import datetime

from django.http import Http404
from django.utils import timezone

from core.api.exceptions import ApplicationError
from core.permissions import Viewer
from interviews import staffing
from interviews.models import Interview

DECIDED = "This loop is decided; it can no longer change."


class QuestionChangeRefused(ApplicationError):
    """The caller may see the interview but not change its questions (403 or 400)."""

    def __init__(self, message: str, *, code: str, status: int) -> None:
        super().__init__(message, code=code)
        self.status_code = status


@dataclass(frozen=True)
class Refusal:
    status: int  # 404, 403 or 400
    code: str
    message: str

    def error(self) -> QuestionChangeRefused:
        return QuestionChangeRefused(self.message, code=self.code, status=self.status)


def refusal(*, user: Viewer, interview: Interview, now: datetime | None = None) -> Refusal | None:
    """Return why `user` may not change the interview's questions, or None if they may.

    Reads the interview's prefetched panel and its loop (selectors.interview_staffable_get).
    """
    if staffing.may_staff(user, interview.loop.role_id):
        if interview.loop.is_closed:
            return Refusal(400, "loop_decided", DECIDED)
        return None
    seat = next((p for p in interview.panel.all() if p.user_id == user.pk), None)
    if seat is None:
        return Refusal(404, "not_found", "Not found.")
    if seat.is_shadow:
        return Refusal(
            403,
            "shadow",
            "A shadow sits in to learn: only the interviewers and recruiters change "
            "this interview's questions.",
        )
    if seat.cancelled_at is not None:
        return Refusal(403, "seat_cancelled", "Your seat on this interview was cancelled.")
    if interview.loop.is_closed:
        return Refusal(400, "loop_decided", DECIDED)
    start = interview.scheduled_start
    if start is not None and start <= (now or timezone.now()):
        return Refusal(
            400,
            "interview_started",
            "This interview has started: its questions stay as the panel prepared them. "
            "Ask a recruiter if one must change.",
        )
    return None


def may_change(*, user: Viewer, interview: Interview) -> bool:
    """Whether to offer the user the swap and reorder controls for this interview."""
    return refusal(user=user, interview=interview) is None


def check(*, user: Viewer, interview: Interview, reading: bool = False) -> None:
    """Raise Http404, or QuestionChangeRefused (an ApplicationError: 403 or 400), unless
    the user may change the interview's questions; the API answers it as problem details.

    `reading`: the caller only reads what a change could be (the ranked alternatives),
    so the 400s (too late: the loop closed, the interview started) do not apply.
    """
    found = refusal(user=user, interview=interview)
    if found is not None and found.status == 404:
        raise Http404
    if found is not None and not (reading and found.status == 400):
        raise found.error()
