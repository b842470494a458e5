"""Single sign-on's pages, included first by config/urls.py when OIDC is configured: its
/login/ and /logout/ take the place of Django's."""

from django.urls import path

from core.accounts import oidc_views

urlpatterns = [
    path("login/", oidc_views.SignInView.as_view(), name="login"),
    path("logout/", oidc_views.SignOutView.as_view(), name="logout"),
    # The names are mozilla-django-oidc's: its backend builds the redirect URI from them.
    path(
        "oidc/authenticate/",
        oidc_views.SignInStartView.as_view(),
        name="oidc_authentication_init",
    ),
    path(
        "oidc/callback/",
        oidc_views.SignInCallbackView.as_view(),
        name="oidc_authentication_callback",
    ),
    path("oidc/failed/", oidc_views.sign_in_failed, name="oidc-failed"),
]
