from django.urls import path

from scoring import views

app_name = "scoring"
urlpatterns = [
    path("interviews/<int:pk>/scorecard/", views.scorecard, name="scorecard"),
    path("scorecards/<int:pk>/amend/", views.amend, name="amend"),
    path("loops/<int:pk>/debrief/", views.debrief, name="debrief"),
    path("calibration/", views.calibration, name="calibration"),
    path("calibration/run/", views.calibration_run, name="calibration-run"),
    path("calibration/export.csv", views.calibration_export, name="calibration-export"),
    path("calibration/exercises/", views.exercise_list, name="exercises"),
    path("audit/", views.audit_log, name="audit-log"),
    path("candidates/<int:pk>/export.json", views.candidate_export, name="candidate-export"),
    path("candidates/<int:pk>/erase/", views.candidate_erase, name="candidate-erase"),
    path("calibration/exercises/new/", views.exercise_new, name="exercise-new"),
    path("calibration/exercises/<int:pk>/", views.exercise_detail, name="exercise"),
]
