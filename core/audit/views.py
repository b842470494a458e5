import json

from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from core import spreadsheet
from core.audit import selectors
from core.filters import AuditFilter
from core.http.params import optional_choice, optional_page, valid_query_form
from core.permissions import is_lead


@login_required
def audit_log(request: HttpRequest) -> HttpResponse:
    """Sensitive actions, newest first (leads); `?format=csv` downloads them."""
    if not is_lead(request.user):
        raise Http404
    log = AuditFilter(request.GET, queryset=selectors.audit_events())
    valid_query_form(log.form)  # an unknown actor or a bad date is a 400, not the whole log
    events = log.qs
    query = request.GET.copy()
    for name in ("page", "format"):
        query.pop(name, None)
    if optional_choice(request.GET, "format", ["csv"]) == "csv":
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = 'attachment; filename="audit-log.csv"'
        writer = spreadsheet.Writer(response)
        writer.writerow(["at", "actor", "action", "target", "details"])
        for event in events.iterator():
            actor = event.actor.username if event.actor else ""
            details = json.dumps(event.data, ensure_ascii=False)
            # In the reader's zone, its offset in the ISO 8601 time.
            at = timezone.localtime(event.at).isoformat()
            writer.writerow([at, actor, event.action, event.target, details])
        return response
    page = Paginator(events, 100).get_page(optional_page(request.GET))
    return render(
        request,
        "core/audit_log.html",
        {
            "page": page,
            "actions": selectors.audit_actions(),
            "action": log.form.cleaned_data.get("action") or "",
            "filter": log,
            "query": query.urlencode(),
        },
    )
