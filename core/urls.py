from django.urls import path

from core import account_views, views
from core.accounts import views as accounts

app_name = "core"
urlpatterns = [
    path("audit/", views.audit_log, name="audit-log"),
    path("account/", accounts.account, name="account"),
    path("account/token/", account_views.account_token, name="account-token"),
]
