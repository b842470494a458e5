from typing import Any

from django.conf import settings
from django.http import HttpRequest

from core.permissions import is_lead, is_recruiter


def personas(request: HttpRequest) -> dict[str, Any]:
    user = request.user
    return {
        # Not "site_name": LoginView sets that to the request's host, over this.
        "product_name": settings.SITE_NAME,
        "is_recruiter": is_recruiter(user),
        "is_lead": is_lead(user),
    }
