from core.routers import ApiRouter
from interviews import api

router = ApiRouter()
router.register("candidates", api.CandidateViewSet, basename="candidate")
router.register("loops", api.LoopViewSet, basename="loop")
router.register("interviews", api.InterviewViewSet, basename="interview")

urlpatterns = router.urls
