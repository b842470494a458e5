from django.urls import path
from rest_framework.routers import DefaultRouter

from scoring import api

router = DefaultRouter()
router.register("scorecards", api.ScorecardViewSet, basename="scorecard")

urlpatterns = [
    path("loops/<int:pk>/debrief/", api.DebriefView.as_view(), name="loop-debrief"),
    path("loops/<int:pk>/decision/", api.DecisionView.as_view(), name="loop-decision"),
    *router.urls,
]
