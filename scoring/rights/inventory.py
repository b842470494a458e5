"""Every text, character, JSON and binary column of every model, and what a candidate's
erasure does with it.

A candidate's data is held in two kinds of rows:

* their own rows: every model with a chain of foreign keys to Candidate
  (own_row_paths reads them from the models' _meta). The export holds each of
  these rows with every column; the erasure treats each column as OWN_ROWS says,
  ERASED columns by the table alone (services.candidate_erase);
* copies, in tables with no foreign key to a candidate, that quote them (COPIES):
  found by what they say (traces) and exported under their key of the export.

Every other column holds nothing about a candidate (ELSEWHERE), and says why.
tests/scoring/rights/test_inventory.py reads the columns from the models
themselves: a column missing here, or a table with a path to Candidate that is
not in OWN_ROWS, fails it until it is classified; its marker test writes a
marker into every column not KEPT and finds none anywhere after an erasure.

=========  ====================================================================
ERASED     in their own rows, set to ``Column.to`` ("" or "(erased)"; a list:
           emptied). Blank text stays blank, so "(erased)" means there was text.
REWRITTEN  in their own rows, by the step of candidate_erase named in `why`
REDACTED   a copy: kept, their names and free texts replaced (traces, redaction)
DELETED    a copy: the row is deleted, by the step named in `why`
KEPT       left as it is: `why` says why it holds nothing of theirs
=========  ====================================================================

`searched`: a free text a person wrote about them, so its value is searched
for (as a substring, see redaction) in the copies and replaced there.
"""

from collections import deque
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from django.apps import apps
from django.db import models

from interviews.models import Candidate
from scoring.rights.redaction import ERASED


class Treatment(StrEnum):
    ERASED = "erased"
    REWRITTEN = "rewritten"
    REDACTED = "redacted"
    DELETED = "deleted"
    KEPT = "kept"


@dataclass(frozen=True)
class Column:
    treatment: Treatment
    why: str
    to: Any = ""
    searched: bool = False


def erased(why: str, *, to: Any = "", searched: bool = True) -> Column:
    return Column(Treatment.ERASED, why, to, searched)


def rewritten(why: str, *, searched: bool = True) -> Column:
    return Column(Treatment.REWRITTEN, why, searched=searched)


def redacted(why: str) -> Column:
    return Column(Treatment.REDACTED, why)


def deleted(why: str) -> Column:
    return Column(Treatment.DELETED, why)


def kept(why: str) -> Column:
    return Column(Treatment.KEPT, why)


CHOICE = "a closed choice from the code"
FREE_TEXT = "free text written about them"
SAME_ROW = "goes with its row"
NOT_THEIRS = "holds no candidate's data"

# Every table with a chain of foreign keys to Candidate, by model label.
OWN_ROWS: dict[str, dict[str, Column]] = {
    "interviews.Candidate": {
        "name": rewritten(
            "becomes 'Erased candidate <id>' (candidate_erase), so lists and statistics"
            " still show one anonymous row; searched as a name, not as free text",
            searched=False,
        ),
        "email": erased("contact details"),
        "phone": erased("contact details"),
        "notes": erased(FREE_TEXT),
    },
    "interviews.Loop": {
        "status": kept(CHOICE),
        "decision": kept(CHOICE + ": hire or not, kept for calibration"),
        "decision_rationale": erased(FREE_TEXT, to=ERASED),
        "cancel_reason": erased(FREE_TEXT, to=ERASED),
        # Not searched: they quote interview titles, which are (when a person typed them).
        "warnings": erased(
            "assembly's shortfall notes quote the interviews' titles", to=[], searched=False
        ),
    },
    "interviews.Interview": {
        "title": rewritten(
            "a recruiter may type anything: goes back to its slot's title, or"
            " 'Interview <n>' (_interview_titles_reset); searched when it was not that"
        ),
        "competencies": kept("competency slugs of the kit, checked when written"),
    },
    "interviews.InterviewQuestion": {
        # Not searched: assembly writes the same words for everyone; a swap's free
        # text is copied only into an audit event about them, erased under "reason".
        "reason": erased(
            "why the question was picked; a swap's reason is free text about them",
            to=ERASED,
            searched=False,
        ),
    },
    "interviews.Panelist": {},
    # A trainee's seat on their interview (interviews.pools): the trainer's note may
    # quote the candidate.
    "interviews.TrainingSeat": {
        "kind": kept(CHOICE),
        "outcome": kept(CHOICE),
        "note": erased("a trainer's note on a trainee's seat in their interview", to=ERASED),
    },
    "scoring.Scorecard": {
        "status": kept(CHOICE),
        "recommendation": kept(CHOICE + ": strong_no to strong_yes, kept for calibration"),
        "summary": erased(FREE_TEXT),
    },
    "scoring.QuestionRating": {
        "notes": erased(FREE_TEXT),
        "not_asked_reason": erased(FREE_TEXT),
    },
    "scoring.QuestionRating_checked": {},
    "scoring.QuestionRating_follow_ups_asked": {},
    "scoring.Amendment": {
        "reason": erased(FREE_TEXT, to=ERASED),
        "before": rewritten(
            "the card's copy: its free text emptied, names redacted, ratings kept"
            " (_amendment_copies_rewrite)"
        ),
        "after": rewritten(
            "the card's copy: its free text emptied, names redacted, ratings kept"
            " (_amendment_copies_rewrite)"
        ),
    },
    "scoring.FeedbackRead": {},
}

# Tables that copy what they showed, with no foreign key to the candidate; each with
# its key in the export (None: not exported, and why).
COPIES: dict[str, dict[str, Column]] = {
    "core.AuditEvent": {
        "action": kept("a verb from the code"),
        "target": redacted("_audit_events_redact"),
        "data": redacted("_audit_events_redact: free-text keys too, in events about them"),
    },
    "admin.LogEntry": {
        "object_id": kept("a row's id"),
        "object_repr": redacted("_log_entries_redact"),
        "change_message": redacted("_log_entries_redact"),
    },
    "scoring.CalibrationSnapshot": {
        "watermark": kept("a digest of the inputs' ids and times"),
        "result": redacted("_snapshots_redact: their candidate rows renamed"),
    },
    "core.WebhookEvent": {
        "event_id": kept("a random id"),
        "kind": kept(CHOICE),
        "payload": kept("ids and states only, by the webhooks' contract"),
        "details": redacted("emptied (webhook_event_details_erase)"),
    },
    "core.IdempotentRequest": {
        "caller": kept("a hash of a colleague's credentials"),
        "key": kept("the client's key for its request"),
        "fingerprint": kept("a hash of the request"),
        "content_type": kept("a media type"),
        "location": kept("a path of ids; the row goes with its body"),
        "body": deleted("answers about them go (idempotent_requests_about_delete)"),
    },
    "core.OutgoingEmail": {
        "kind": kept(CHOICE),
        "subject": deleted("unsent ones about their loops go; a sent one's text is blanked"),
        "text": deleted("unsent ones about their loops go; a sent one's text is blanked"),
        "html": deleted("unsent ones about their loops go; a sent one's text is blanked"),
        "ics": deleted("unsent ones about their loops go; a sent one's text is blanked"),
        "ics_method": kept(CHOICE),
    },
}
EXPORTED_AS: dict[str, str | None] = {
    "core.AuditEvent": "audit_events",
    "admin.LogEntry": "admin_log",
    "scoring.CalibrationSnapshot": "calibration",
    "core.WebhookEvent": "webhook_events",
    "core.IdempotentRequest": "kept_answers",
    # Queued for seconds, then blanked: made from rows the export holds (the loop,
    # its interviews, the candidate's name).
    "core.OutgoingEmail": None,
}

_USER_INPUT = "a colleague's account, not a candidate's"
# Every other table with a text column: nothing in it is about a candidate.
ELSEWHERE: dict[str, dict[str, Column]] = {
    # Interviewer pools and training (interviews.pools): about interviewers, not candidates.
    "interviews.Pool": {"name": kept("a pool's name, the team's")},
    "interviews.PoolMembership": {"status": kept(CHOICE)},
    "interviews.InterviewerLimits": {},
    "interviews.TrainingPath": {},
    "interviews.Graduation": {"evidence": kept("ids of seats, an exercise, a snapshot; no text")},
    "auth.Permission": {"name": kept(NOT_THEIRS), "codename": kept(NOT_THEIRS)},
    "auth.Group": {"name": kept(NOT_THEIRS)},
    "auth.User": {
        f: kept(_USER_INPUT) for f in ("password", "username", "first_name", "last_name", "email")
    },
    "contenttypes.ContentType": {"app_label": kept(NOT_THEIRS), "model": kept(NOT_THEIRS)},
    "sessions.Session": {
        "session_key": kept("a random key"),
        "session_data": kept("a colleague's signed-in session (the marker test reads it)"),
    },
    "authtoken.Token": {"key": kept("a colleague's API token (the table is emptied by core 0007)")},
    "core.ApiToken": {
        f: kept("a hash of a colleague's API token") for f in ("digest", "prefix", "password_mac")
    },
    **{
        f"axes.{model}": {f: kept("a colleague's sign-in attempt") for f in fields}
        for model, fields in {
            "AccessFailureLog": ("user_agent", "username", "http_accept", "path_info"),
            "AccessAttempt": (
                "user_agent",
                "username",
                "http_accept",
                "path_info",
                "get_data",
                "post_data",
            ),
            "AccessLog": ("user_agent", "username", "http_accept", "path_info", "session_hash"),
        }.items()
    },
    "core.Profile": {
        "time_zone": kept(_USER_INPUT),
        "emails_off": kept(_USER_INPUT),
        "calendar_token_hash": kept(_USER_INPUT),
    },
    "core.ExternalIdentity": {
        "issuer": kept("the identity provider's address"),
        "subject": kept("the provider's opaque id for a colleague, not a candidate"),
    },
    "core.WebhookSubscription": {
        "url": kept("another system's address"),
        "secret": kept("the signing secret"),
        "event_types": kept(CHOICE),
    },
    "core.WebhookDelivery": {
        "status": kept(CHOICE),
        "last_error": kept("the receiver's HTTP status or network error"),
    },
    "kit.Role": {"name": kept("the question bank"), "description": kept("the question bank")},
    "kit.Level": {"name": kept("the level ladder"), "title": kept("the level ladder")},
    "kit.Competency": {f: kept("the question bank") for f in ("slug", "name", "description")},
    "kit.Question": {"title": kept("the question bank"), "status": kept(CHOICE)},
    "kit.QuestionVersion": {"prompt": kept("the question bank"), "outline": kept("the bank")},
    "kit.RubricItem": {"text": kept("the question bank"), "kind": kept(CHOICE)},
    "kit.FollowUp": {"text": kept("the question bank")},
    "kit.LoopTemplate": {"name": kept("the question bank")},
    "kit.LoopSlot": {"title": kept("the question bank")},
    "scoring.CalibrationJob": {
        "status": kept(CHOICE),
        "stage": kept(CHOICE),
        "error": kept("an exception's message from the statistics, with no rows' text"),
    },
    "scoring.CalibrationExercise": {"title": kept("a lead's exercise"), "status": kept(CHOICE)},
    "scoring.ReferenceAnswer": {"transcript": kept("an exercise's scripted answer")},
}

INVENTORY: dict[str, dict[str, Column]] = {**OWN_ROWS, **COPIES, **ELSEWHERE}


def is_text(f: "models.Field[Any, Any]") -> bool:
    """Whether the column can hold text: character, text, JSON and binary columns."""
    kinds = models.CharField | models.TextField | models.JSONField | models.BinaryField
    return isinstance(f, kinds)


def text_columns() -> dict[str, set[str]]:
    """Return {model label: its text columns} for every table Django knows (proxies
    are their concrete model's table)."""
    return {
        model._meta.label: {f.name for f in model._meta.concrete_fields if is_text(f)}
        for model in apps.get_models(include_auto_created=True)
        if not model._meta.proxy
    }


def own_row_paths() -> dict[type[models.Model], str]:
    """Return every model with a chain of foreign keys to Candidate (Candidate
    included) and a lookup from it to the candidate's id, read from the models.

    Breadth first, so each path is a shortest one ("interview__loop__candidate").
    """
    paths: dict[type[models.Model], str] = {Candidate: "pk"}
    queue: deque[type[models.Model]] = deque([Candidate])
    everything = apps.get_models(include_auto_created=True)
    while queue:
        target = queue.popleft()
        for model in everything:
            if model in paths or model._meta.proxy:
                continue
            for f in model._meta.concrete_fields:
                if isinstance(f, models.ForeignKey) and f.related_model is target:
                    below = paths[target]
                    paths[model] = f.name if below == "pk" else f"{f.name}__{below}"
                    queue.append(model)
                    break
    return paths
