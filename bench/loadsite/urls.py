"""The product's URLs plus a bare DRF create endpoint, the load bench's baseline."""

from django.urls import include, path
from rest_framework import generics, serializers

from interviews.models import Candidate


class BareCandidateSerializer(serializers.ModelSerializer):
    class Meta:
        model = Candidate
        fields = ["id", "name", "email"]


class BareCandidateCreate(generics.CreateAPIView):
    """Validate and insert one row: the same auth, throttling and middleware as the API."""

    queryset = Candidate.objects.all()
    serializer_class = BareCandidateSerializer


urlpatterns = [
    path("bench/candidates/", BareCandidateCreate.as_view()),
    path("", include("config.urls")),
]
