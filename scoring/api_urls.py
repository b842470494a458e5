from django.urls import path

from core.api.routers import ApiRouter
from scoring.calibration import api as calibration
from scoring.rights import api as rights
from scoring.scorecards import api as scorecards

router = ApiRouter()
router.register("scorecards", scorecards.ScorecardViewSet, basename="scorecard")

urlpatterns = [
    path("loops/<int:pk>/debrief/", scorecards.DebriefView.as_view(), name="loop-debrief"),
    path("loops/<int:pk>/decision/", scorecards.DecisionView.as_view(), name="loop-decision"),
    path("loops/<int:pk>/cancel/", scorecards.CancelView.as_view(), name="loop-cancel"),
    path("loops/<int:pk>/reopen/", scorecards.ReopenView.as_view(), name="loop-reopen"),
    path(
        "candidates/<int:pk>/export/", rights.CandidateExportView.as_view(), name="candidate-export"
    ),
    path("candidates/<int:pk>/erase/", rights.CandidateEraseView.as_view(), name="candidate-erase"),
    path(
        "calibration/latest/",
        calibration.CalibrationLatestView.as_view(),
        name="calibration-latest",
    ),
    path(
        "calibration/history/",
        calibration.CalibrationHistoryView.as_view(),
        name="calibration-history",
    ),
    path("calibration/runs/", calibration.CalibrationRunsView.as_view(), name="calibration-runs"),
    path(
        "calibration/runs/<int:pk>/",
        calibration.CalibrationRunView.as_view(),
        name="calibration-run",
    ),
    *router.urls,
]
