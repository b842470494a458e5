from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from core.accounts import api as tokens
from core.api.exceptions import api_not_found
from core.http import health
from core.metrics import metrics
from interviews import views as interview_views

api_v1: list[URLPattern | URLResolver] = [
    path("auth/token/", tokens.TokenView.as_view(), name="api-token"),
    path("auth/token/rotate/", tokens.TokenRotateView.as_view(), name="api-token-rotate"),
    path("", include("kit.api_urls")),
    path("", include("interviews.api_urls")),
    path("", include("scoring.api_urls")),
    path("", include("core.webhooks.urls")),
]
# Last: whatever no API route matched is a JSON 404 (core.api.exceptions.api_not_found).
api_v1.append(re_path(r"^(?P<rest>.*)$", api_not_found))

# Unmatched paths under /api/ answer JSON, like the API's own 404s.
handler404 = "core.api.exceptions.not_found"
# A page's refusal says why (the PermissionDenied message); the API's are problem details.
handler403 = "core.api.exceptions.forbidden"

urlpatterns = [
    path("healthz/", health.liveness, name="healthz"),
    path("readyz/", health.readiness, name="readyz"),
    # Prometheus' scrape, for a holder of METRICS_TOKEN only (core/metrics.py).
    path("metrics", metrics, name="prometheus-metrics"),
    path("", interview_views.home, name="home"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("bank/", include("kit.urls")),
    path("", include("interviews.urls")),
    path("", include("scoring.urls")),
    path("", include("core.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", include(api_v1)),
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    # The split view serves Swagger UI's start-up script as a file: no inline script.
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="swagger-ui"),
]

# Single sign-on (core/accounts/oidc.py), when OIDC_RP_CLIENT_ID is set: its /login/ and /logout/
# come first, taking the place of Django's, and /oidc/ is the provider's way back.
if settings.OIDC_ENABLED:
    urlpatterns.insert(0, path("", include("core.accounts.oidc_urls")))
