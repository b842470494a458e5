import json

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render

from core import selectors, spreadsheet
from core.permissions import is_lead


@login_required
def audit_log(request: HttpRequest) -> HttpResponse:
    """Sensitive actions, newest first (leads); `?format=csv` downloads them."""
    if not is_lead(request.user):
        raise Http404
    events = selectors.audit_events(action=request.GET.get("action", ""))
    if request.GET.get("format") == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="audit-log.csv"'
        writer = spreadsheet.Writer(response)
        writer.writerow(["at", "actor", "action", "target", "details"])
        for event in events.iterator():
            actor = event.actor.username if event.actor else ""
            details = json.dumps(event.data, ensure_ascii=False)
            writer.writerow([event.at.isoformat(), actor, event.action, event.target, details])
        return response
    page = Paginator(events, 100).get_page(request.GET.get("page"))
    return render(
        request,
        "core/audit_log.html",
        {
            "page": page,
            "actions": selectors.audit_actions(),
            "action": request.GET.get("action", ""),
        },
    )
