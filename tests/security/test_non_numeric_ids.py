"""An id that is not a number answers 404 on every API resource, never a server error."""

import pytest

from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail

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


@pytest.mark.parametrize(
    "path",
    [
        "/api/v1/roles/null,null/",  # a viewset's id: the route is a regex
        "/api/v1/calibration/runs/null/",  # a view's <int:pk>
        "/api/v1/no-such-resource/",
    ],
)
def test_a_path_no_route_matches_answers_the_apis_json_404(path, recruiter):
    # The schema documents every 404 as JSON; Django's own page is HTML.
    response = client_for(recruiter).get(path)

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert response.json()["instance"] == path


def test_a_page_that_does_not_exist_is_still_html(recruiter):
    response = client_for(recruiter).get("/no-such-page/")

    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")
