from core.api.routers import ApiRouter
from kit import api

router = ApiRouter()
router.register("roles", api.RoleViewSet, basename="role")
router.register("levels", api.LevelViewSet, basename="level")
router.register("competencies", api.CompetencyViewSet, basename="competency")
router.register("questions", api.QuestionViewSet, basename="question")
router.register("loop-templates", api.LoopTemplateViewSet, basename="loop-template")

urlpatterns = router.urls
