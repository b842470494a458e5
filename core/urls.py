from django.urls import path

from core.accounts import views as accounts
from core.audit import views as audit

app_name = "core"
urlpatterns = [
    path("audit/", audit.audit_log, name="audit-log"),
    path("account/", accounts.account, name="account"),
    path("account/token/", accounts.account_token, name="account-token"),
]
