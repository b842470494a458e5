"""The calibration API where nothing was calibrated: latest/ and runs/{id}/ answer 404, and
history/ pages through snapshots written straight into the table (the calibrated
panel's tests are test_calibration_api.py's)."""

from django.contrib.auth.models import User

from kit.models import Level, Role
from scoring.models import CalibrationSnapshot
from tests.conftest import client_for
from tests.problems import NOT_FOUND, detail
from tests.scoring.calibration.helpers import ROLE
from tests.scoring.calibration.test_calibration_api import HISTORY, LATEST, NO_SNAPSHOT, RUNS


def test_it_answers_404_before_any_calibration(lead: User, role: Role) -> None:
    response = client_for(lead).get(LATEST, {"role": ROLE})

    assert detail(response, 404, "not_found") == NO_SNAPSHOT


def test_history_reads_many_snapshots_with_a_fixed_number_of_queries(
    lead: User, role: Role, django_assert_max_num_queries
) -> None:  # type: ignore[no-untyped-def]
    level = Level.objects.get(name="L5")
    CalibrationSnapshot.objects.bulk_create(
        CalibrationSnapshot(role=role, level=level, watermark=f"w{n}", result={}) for n in range(30)
    )
    client = client_for(lead)
    # 1. the lead's groups (IsLead)
    # 2. the role by name
    # 3. the level by name
    # 4. the count, for the page
    # 5. the page of snapshots, with their role and level joined (not one query each)
    with django_assert_max_num_queries(5):
        response = client.get(HISTORY, {"role": ROLE, "level": "L5", "page_size": 20})
    assert response.status_code == 200
    assert response.json()["count"] == 30
    assert len(response.json()["results"]) == 20
    assert "page=2" in response.json()["next"]


def test_history_pages_are_bounded(lead: User, role: Role) -> None:
    CalibrationSnapshot.objects.bulk_create(
        CalibrationSnapshot(role=role, level=None, watermark=f"w{n}", result={}) for n in range(210)
    )

    response = client_for(lead).get(HISTORY, {"role": ROLE, "page_size": 1000})

    assert len(response.json()["results"]) == 200  # max_page_size
    past = client_for(lead).get(HISTORY, {"role": ROLE, "page": 99})
    assert detail(past, 404, "not_found") == "Invalid page."


def test_following_an_unknown_run_answers_404(lead: User, role: Role) -> None:
    response = client_for(lead).get(f"{RUNS}999999/")

    assert detail(response, 404, "not_found") == NOT_FOUND
