"""An id that is not a number answers 404 on every API resource, never a server error."""

import pytest

from tests.conftest import client_for

RESOURCES = [
    "roles", "levels", "competencies", "questions", "loop-templates", "candidates", "loops",
    "interviews", "scorecards",
]  # fmt: skip


@pytest.mark.parametrize("resource", RESOURCES)
def test_a_non_numeric_id_is_a_404(resource, recruiter):
    response = client_for(recruiter).get(f"/api/v1/{resource}/null,null/")

    assert response.status_code == 404


@pytest.mark.parametrize(
    ("method", "path"),
    [("put", "/api/v1/scorecards/null,null/"), ("post", "/api/v1/scorecards/null,null/submit/")],
)
def test_writing_to_a_non_numeric_scorecard_is_a_404(method, path, interviewer):
    response = getattr(client_for(interviewer), method)(path, {}, format="json")

    assert response.status_code == 404
