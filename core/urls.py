from django.urls import path

from core import views

app_name = "core"
urlpatterns = [
    path("audit/", views.audit_log, name="audit-log"),
]
