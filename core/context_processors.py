from typing import Any

from django.conf import settings
from django.http import HttpRequest

from core.permissions import is_hiring_manager, is_lead, is_recruiter


def personas(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    return {
        # Not "site_name": LoginView sets that to the request's host, over this.
        "product_name": settings.SITE_NAME,
        "is_recruiter": is_recruiter(user),
        "is_lead": is_lead(user),
        # Who builds and staffs loops: interviews.staffing.is_staffer's rule, restated
        # here because core is below interviews and must not import it.
        "is_staffer": is_recruiter(user) or is_hiring_manager(user),
    }
