from django.urls import path

from interviews import feeds, views
from interviews.pools import pages as pool_pages
from interviews.pools import views as pool_views

app_name = "interviews"
urlpatterns = [
    path("calendar/<str:token>.ics", feeds.calendar_feed, name="calendar-feed"),
    path("candidates/", views.candidate_list, name="candidate-list"),
    path("candidates/new/", views.candidate_edit, name="candidate-new"),
    path("candidates/<int:pk>/", views.candidate_detail, name="candidate-detail"),
    path("candidates/<int:pk>/edit/", views.candidate_edit, name="candidate-edit"),
    path("loops/", views.loop_list, name="loop-list"),
    path("loops/new/", views.loop_new, name="loop-new"),
    path("loops/<int:pk>/", views.loop_detail, name="loop-detail"),
    path("loops/<int:pk>/interviews/new/", views.interview_add, name="interview-add"),
    path("loops/<int:pk>/staff/", pool_views.staff_loop, name="loop-staff"),
    path("pools/", pool_views.pool_list, name="pool-list"),
    path("pools/new/", pool_pages.pool_new, name="pool-new"),
    path("pools/<int:pk>/", pool_pages.pool_detail, name="pool-detail"),
    path("pools/<int:pk>/path/", pool_pages.pool_path, name="pool-path"),
    path("pools/<int:pk>/members/", pool_pages.pool_member_add, name="pool-member-add"),
    path(
        "pools/<int:pk>/members/<int:membership_pk>/remove/",
        pool_pages.pool_member_remove,
        name="pool-member-remove",
    ),
    path(
        "pools/<int:pk>/members/<int:membership_pk>/graduate/",
        pool_pages.pool_member_graduate,
        name="pool-member-graduate",
    ),
    path("pools/limits/<int:user_pk>/", pool_pages.pool_limits, name="pool-limits"),
    path("pools/seats/<int:pk>/", pool_pages.pool_seat, name="pool-seat"),
    path("interviews/", views.my_interviews, name="my-interviews"),
    path("interviews/<int:pk>/panel/", views.interview_panel, name="interview-panel"),
    path("interviews/<int:pk>/remove/", views.interview_remove, name="interview-remove"),
    path("interviews/<int:pk>/kit/", views.interview_kit, name="kit"),
    path("interviews/<int:pk>/kit.md", views.interview_kit_markdown, name="kit-markdown"),
    path("assigned/<int:pk>/swap/", views.question_swap, name="question-swap"),
    path("assigned/<int:pk>/move/", views.question_move, name="question-move"),
]
