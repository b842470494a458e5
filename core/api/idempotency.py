"""Safe retries of the API's creating POSTs: the Idempotency-Key header.

A client that sends ``Idempotency-Key: <key>`` with a POST under /api/v1/ and
retries it (a timeout, a dropped connection) gets the first answer again instead
of a second loop or candidate. The rule, per caller and key, for 24 hours:

=====================================  ==========================================
the request                            answer
=====================================  ==========================================
first with this key                    run; its answer (below 500) is kept
same key, same method, path and body   the kept answer, ``Idempotent-Replayed: true``
same key, another path or body         422 ``idempotency_key_reused``, nothing run
same key while the first still runs    409 ``idempotency_key_in_flight``
a key over 255 characters, or empty    400 ``idempotency_key_invalid``
=====================================  ==========================================

The caller is who the credentials say, read before DRF authenticates: the
Authorization header, else the session cookie (hashed; neither is stored). A
request without either is not remembered: it can create nothing anyway. A 5xx
answer is not kept, so the retry runs again. Keys live 24 hours.

Only an answer given to an authenticated caller is kept, and not a 401, 403 or
404 (NOT_KEPT): a request that fails authentication (a bad or expired token or
session) leaves no row, so anyone can send keys without filling the store, and
a refusal of access wrote nothing a replay would protect; kept, it would answer
a retry with a stale refusal after the caller is given access. Its claim row
(what makes a concurrent twin wait with 409) is deleted when the answer is.
Other refusals (400, 409, 422) are kept: the same request gets the same answer.

A kept answer copies what it showed (a candidate's name and contact details, a
debrief's free text): a candidate's export shows the answers about them
(idempotent_requests_about) and erasing them deletes those answers
(idempotent_requests_about_delete). A secret shown once (a webhook's signing
secret) is never kept: the view names such fields of its JSON answer in the
response's ``REDACT_ATTRIBUTE`` ({field: note}), and the kept answer, so every
replay, holds null there and the note beside it (``<field>_note``).
"""

import hashlib
import json
import re
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, models, transaction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone

from core.api.problems import problem_response

HEADER = "Idempotency-Key"
MAX_KEY_LENGTH = 255
LIFETIME = timedelta(hours=24)
PREFIX = "/api/v1/"
# Refusals of who the caller is or what they may see: not kept (see the module's docstring).
NOT_KEPT = frozenset({401, 403, 404})
# A response attribute a view may set: {top-level JSON field: why it is not shown again}.
REDACT_ATTRIBUTE = "idempotency_redact"


class IdempotentRequest(models.Model):
    """A POST sent with an Idempotency-Key, and the answer it got (kept 24 hours)."""

    caller = models.CharField(max_length=64)  # sha256 of the credentials
    key = models.CharField(max_length=MAX_KEY_LENGTH)
    fingerprint = models.CharField(max_length=64)  # sha256 of method, path and body
    status = models.PositiveSmallIntegerField(null=True)  # null: still running
    content_type = models.CharField(max_length=100, blank=True)
    location = models.CharField(max_length=500, blank=True)
    body = models.BinaryField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        app_label = "core"
        constraints = [
            models.UniqueConstraint(fields=["caller", "key"], name="one_request_per_caller_key")
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.status or 'running'})"


def _sha256(*parts: bytes) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(len(part).to_bytes(8, "big"))
        digest.update(part)
    return digest.hexdigest()


def _caller(request: HttpRequest) -> str | None:
    credentials = request.headers.get("Authorization") or request.COOKIES.get(
        settings.SESSION_COOKIE_NAME
    )
    return _sha256(credentials.encode()) if credentials else None


def _authenticated(request: HttpRequest) -> bool:
    # DRF's Request sets the user it authenticated on the HttpRequest it wraps.
    user = getattr(request, "user", None)
    return bool(user is not None and user.is_authenticated)


def _names_candidate(value: Any, candidate_id: int) -> bool:
    """Whether the JSON value shows the candidate by id: as a candidate (an id with an
    email), under a "candidate" key (an id or a nested candidate) or "candidate_id"."""
    if isinstance(value, list):
        return any(_names_candidate(v, candidate_id) for v in value)
    if not isinstance(value, dict):
        return False
    if value.get("id") == candidate_id and type(value["id"]) is int and "email" in value:
        return True
    for key in ("candidate", "candidate_id"):
        inner = value.get(key)
        if type(inner) is int and inner == candidate_id:
            return True
        if isinstance(inner, dict) and inner.get("id") == candidate_id:
            return True
    return any(_names_candidate(v, candidate_id) for v in value.values())


def idempotent_requests_about(
    *, candidate_id: int, mentions: Callable[[Any], bool]
) -> list[IdempotentRequest]:
    """Return every kept answer about the candidate, oldest first, for an export or erasure.

    An answer is about them when its Location is theirs, its JSON shows them by id
    (see _names_candidate) or `mentions` finds their name or free text in it. An
    answer still being made (no status yet) is left to the request making it.
    """
    location = re.compile(rf"/candidates/{candidate_id}/$")
    about = []
    for kept in IdempotentRequest.objects.filter(status__isnull=False).order_by("pk").iterator():
        text = bytes(kept.body).decode("utf-8", "replace")
        try:
            parsed: Any = json.loads(text) if text else None
        except ValueError:
            parsed = text
        if (
            location.search(kept.location)
            or _names_candidate(parsed, candidate_id)
            or mentions(parsed)
            or mentions(kept.location)
        ):
            about.append(kept)
    return about


def idempotent_requests_about_delete(*, candidate_id: int, mentions: Callable[[Any], bool]) -> int:
    """Delete every kept answer about the candidate, for an erasure; return how many."""
    doomed = [r.pk for r in idempotent_requests_about(candidate_id=candidate_id, mentions=mentions)]
    IdempotentRequest.objects.filter(pk__in=doomed).delete()
    return len(doomed)


def _kept_body(response: HttpResponse) -> bytes:
    """Return the body to keep: the answer's, with the fields the view marked secret
    (REDACT_ATTRIBUTE) replaced by null and a note, so no replay shows them."""
    redact: dict[str, str] | None = getattr(response, REDACT_ATTRIBUTE, None)
    if not redact:
        return response.content
    data = json.loads(response.content)
    for name, note in redact.items():
        if isinstance(data, dict) and name in data:
            data[name] = None
            data[f"{name}_note"] = note
    return json.dumps(data).encode()


def _replay(kept: IdempotentRequest) -> HttpResponse:
    response = HttpResponse(bytes(kept.body), status=kept.status, content_type=kept.content_type)
    if kept.location:
        response["Location"] = kept.location
    response["Idempotent-Replayed"] = "true"
    return response


class IdempotencyMiddleware:
    """Apply the module's rule to POSTs under /api/v1/ that carry an Idempotency-Key."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        key = request.headers.get(HEADER)
        if key is None or request.method != "POST" or not request.path.startswith(PREFIX):
            return self.get_response(request)
        if not key.strip() or len(key) > MAX_KEY_LENGTH:
            return problem_response(
                status=400,
                code="idempotency_key_invalid",
                detail=f"{HEADER} must be 1 to {MAX_KEY_LENGTH} characters.",
                instance=request.path,
            )
        caller = _caller(request)
        if caller is None:
            return self.get_response(request)
        fingerprint = _sha256(b"POST", request.path.encode(), request.body)
        IdempotentRequest.objects.filter(created_at__lt=timezone.now() - LIFETIME).delete()
        try:
            with transaction.atomic():
                claim = IdempotentRequest.objects.create(
                    caller=caller, key=key, fingerprint=fingerprint
                )
        except IntegrityError:
            return self._repeat(request, caller, key, fingerprint)
        response = self.get_response(request)
        if (
            response.status_code >= 500
            or response.status_code in NOT_KEPT
            or getattr(response, "streaming", False)
            or not _authenticated(request)
        ):
            claim.delete()  # let the retry run again
            return response
        claim.status = response.status_code
        claim.content_type = response.get("Content-Type", "")
        claim.location = response.get("Location", "")
        claim.body = _kept_body(response)
        claim.save(update_fields=["status", "content_type", "location", "body"])
        return response

    def _repeat(
        self, request: HttpRequest, caller: str, key: str, fingerprint: str
    ) -> HttpResponse:
        kept = IdempotentRequest.objects.filter(caller=caller, key=key).first()
        if kept is None:  # expired and deleted between the two statements: run it
            return self.get_response(request)
        if kept.fingerprint != fingerprint:
            return problem_response(
                status=422,
                code="idempotency_key_reused",
                detail=f"This {HEADER} was used for another request; use a new key.",
                instance=request.path,
            )
        if kept.status is None:
            return problem_response(
                status=409,
                code="idempotency_key_in_flight",
                detail=f"The first request with this {HEADER} is still running; retry shortly.",
                instance=request.path,
            )
        return _replay(kept)
