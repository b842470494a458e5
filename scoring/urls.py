from django.urls import path

from scoring import views

app_name = "scoring"
urlpatterns = [
    path("interviews/<int:pk>/scorecard/", views.scorecard, name="scorecard"),
    path("scorecards/<int:pk>/amend/", views.amend, name="amend"),
    path("loops/<int:pk>/debrief/", views.debrief, name="debrief"),
]
