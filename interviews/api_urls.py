from django.urls import path

from core.api.routers import ApiRouter
from interviews import api
from interviews.pools import api as pools_api

router = ApiRouter()
router.register("candidates", api.CandidateViewSet, basename="candidate")
router.register("loops", api.LoopViewSet, basename="loop")
router.register("interviews", api.InterviewViewSet, basename="interview")
router.register("pools", pools_api.PoolViewSet, basename="pool")
router.register("pool-memberships", pools_api.MembershipViewSet, basename="pool-membership")
router.register("interviewer-limits", pools_api.LimitsViewSet, basename="interviewer-limits")
router.register("training-paths", pools_api.PathViewSet, basename="training-path")
router.register("training-seats", pools_api.SeatViewSet, basename="training-seat")

urlpatterns = [
    path("loops/<int:pk>/staff/", pools_api.StaffLoopView.as_view(), name="loop-staff"),
    path(
        "loops/<int:pk>/staff/accept/",
        pools_api.AcceptPanelsView.as_view(),
        name="loop-staff-accept",
    ),
    *router.urls,
]
