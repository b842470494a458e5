"""Each person's private calendar feed: the interviews they hold a seat on."""

from datetime import timedelta

from django.http import Http404, HttpRequest, HttpResponse
from django.utils import timezone
from django.views.decorators.http import require_GET

from core.accounts.services import calendar_feed_owner
from core.accounts.zones import zone_of
from interviews import invites
from interviews.models import Interview, Loop


@require_GET
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """Serve the feed the secret `token` opens (404 for any other): the holder's timed,
    uncancelled seats in open loops, from 30 days back."""
    user = calendar_feed_owner(token=token)
    if user is None:
        raise Http404
    since = timezone.now() - timedelta(days=30)
    interviews = (
        Interview.objects.filter(
            panel__user=user,
            panel__cancelled_at=None,
            scheduled_start__isnull=False,
            scheduled_end__gte=since,
        )
        .exclude(loop__status__in=Loop.CLOSED)
        .select_related("loop__candidate")
        .prefetch_related("panel__user")
        .order_by("scheduled_start", "id")
    )
    body = invites.feed(user=user, interviews=interviews, zone=zone_of(user))
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    response["Cache-Control"] = "private, max-age=300"
    return response
