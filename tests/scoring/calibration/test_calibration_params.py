"""The calibration pages answer 400, naming the parameter, for a malformed id in
their query string or form, and write nothing (#15: these were 500s)."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from core.models import AuditEvent
from scoring.models import CalibrationJob

BAD = ["abc", "1.5", "-1", "1e3", "²", str(2**63), " 1"]


@pytest.mark.django_db
@pytest.mark.parametrize("value", BAD)
@pytest.mark.parametrize(
    ("url", "name"),
    [
        ("/calibration/", "role"),
        ("/calibration/", "level"),
        ("/calibration/", "job"),
        ("/calibration/export.csv", "role"),
        ("/calibration/export.csv", "level"),
    ],
)
def test_a_malformed_id_in_the_query_is_a_400(
    client: Client, lead: User, url: str, name: str, value: str
) -> None:
    client.force_login(lead)

    response = client.get(url, {name: value})

    assert response.status_code == 400
    assert not AuditEvent.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("value", BAD)
def test_a_malformed_role_when_starting_a_run_is_a_400_and_queues_nothing(
    client: Client, lead: User, value: str
) -> None:
    client.force_login(lead)

    response = client.post("/calibration/run/", {"role": value})

    assert response.status_code == 400
    assert not CalibrationJob.objects.exists()


@pytest.mark.django_db
def test_empty_parameters_still_mean_the_default_scope(client: Client, lead: User) -> None:
    client.force_login(lead)

    assert client.get("/calibration/", {"role": "", "level": "", "job": ""}).status_code == 200
