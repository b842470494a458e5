from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from config import health, tokens
from interviews import views as interview_views

api_v1: list[URLPattern | URLResolver] = [
    path("auth/token/", tokens.TokenView.as_view(), name="api-token"),
    path("auth/token/rotate/", tokens.TokenRotateView.as_view(), name="api-token-rotate"),
    path("", include("kit.api_urls")),
    path("", include("interviews.api_urls")),
    path("", include("scoring.api_urls")),
]

# Unmatched paths under /api/ answer JSON, like the API's own 404s.
handler404 = "config.exceptions.not_found"

urlpatterns = [
    path("healthz/", health.liveness, name="healthz"),
    path("readyz/", health.readiness, name="readyz"),
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
