from django.urls import include, path

from scoring.calibration import views as calibration
from scoring.rights import views as rights
from scoring.scorecards import views as scorecards

app_name = "scoring"
urlpatterns = [
    path("interviews/<int:pk>/scorecard/", scorecards.scorecard, name="scorecard"),
    path("scorecards/<int:pk>/amend/", scorecards.amend, name="amend"),
    path("loops/<int:pk>/debrief/", scorecards.debrief, name="debrief"),
    path("calibration/", calibration.calibration, name="calibration"),
    path("calibration/run/", calibration.calibration_run, name="calibration-run"),
    path("calibration/export.csv", calibration.calibration_export, name="calibration-export"),
    path("calibration/exercises/", include("scoring.exercises.urls")),
    path("candidates/<int:pk>/export.json", rights.candidate_export, name="candidate-export"),
    path("candidates/<int:pk>/erase/", rights.candidate_erase, name="candidate-erase"),
]
