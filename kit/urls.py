from django.urls import path

from kit import views

app_name = "kit"
urlpatterns = [
    path("", views.question_list, name="question-list"),
    path("questions/new/", views.question_new, name="question-new"),
    path("questions/<int:pk>/", views.question_detail, name="question-detail"),
    path("questions/<int:pk>/edit/", views.question_edit, name="question-edit"),
    path("questions/<int:pk>/status/", views.question_status, name="question-status"),
    path("roles/owners/", views.role_owners, name="role-owners"),
    path("roles/<int:pk>/owners/", views.role_owners, name="role-owners-edit"),
]
