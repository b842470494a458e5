"""Response headers Django does not set itself."""

from collections.abc import Callable

from django.conf import settings
from django.http import HttpRequest, HttpResponse


class ContentSecurityPolicyMiddleware:
    """Send the content security policy: scripts and styles from this site only, none inline."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        policy = settings.CONTENT_SECURITY_POLICY
        if request.path.startswith("/api/docs/"):
            # Swagger UI sets style attributes in its markup; its scripts stay external.
            policy = policy.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
        elif settings.DEBUG and response.status_code in (404, 500) and _is_html(response):
            # Development only: Django's technical 404 and 500 pages (URL patterns, the
            # traceback) carry inline styles and scripts; under the policy they came out
            # unstyled and their "switch to copy-and-paste view" did nothing.
            policy = policy.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")
            policy = policy.replace("script-src 'self'", "script-src 'self' 'unsafe-inline'")
        response.headers.setdefault("Content-Security-Policy", policy)
        return response


def _is_html(response: HttpResponse) -> bool:
    return response.headers.get("Content-Type", "").startswith("text/html")
