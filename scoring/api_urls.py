from django.urls import path
from rest_framework.routers import DefaultRouter

from scoring import api

router = DefaultRouter()
router.register("scorecards", api.ScorecardViewSet, basename="scorecard")

urlpatterns = [
    path("loops/<int:pk>/debrief/", api.DebriefView.as_view(), name="loop-debrief"),
    path("loops/<int:pk>/decision/", api.DecisionView.as_view(), name="loop-decision"),
    path("candidates/<int:pk>/export/", api.CandidateExportView.as_view(), name="candidate-export"),
    path("candidates/<int:pk>/erase/", api.CandidateEraseView.as_view(), name="candidate-erase"),
    path("calibration/latest/", api.CalibrationLatestView.as_view(), name="calibration-latest"),
    path("calibration/history/", api.CalibrationHistoryView.as_view(), name="calibration-history"),
    path("calibration/runs/", api.CalibrationRunsView.as_view(), name="calibration-runs"),
    path("calibration/runs/<int:pk>/", api.CalibrationRunView.as_view(), name="calibration-run"),
    *router.urls,
]
