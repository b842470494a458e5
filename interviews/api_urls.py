from rest_framework.routers import DefaultRouter

from interviews import api

router = DefaultRouter()
router.register("candidates", api.CandidateViewSet, basename="candidate")
router.register("loops", api.LoopViewSet, basename="loop")
router.register("interviews", api.InterviewViewSet, basename="interview")

urlpatterns = router.urls
