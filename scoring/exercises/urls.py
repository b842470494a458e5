"""The exercises' pages, included by scoring/urls.py under calibration/exercises/.

No app_name here: the names stay in the `scoring` namespace (scoring:exercise...).
"""

from django.urls import path

from scoring.exercises import views

urlpatterns = [
    path("", views.exercise_list, name="exercises"),
    path("new/", views.exercise_new, name="exercise-new"),
    path("<int:pk>/", views.exercise_detail, name="exercise"),
]
