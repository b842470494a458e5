"""Erasure finds a name however JSON escapes it: a candidate named with quotes, accents or
backslashes leaves no trace in audit events or calibration snapshots (each test seeds
its own candidate; the scan is test_candidate_erase_everywhere.py's)."""

import pytest
from django.contrib.auth.models import User

from tests.conftest import client_for
from tests.scoring.rights.seed import seed
from tests.scoring.rights.test_candidate_erase_everywhere import marker_hits


@pytest.mark.parametrize("name", ['Zoë "Z" Ångström-qzmarker', "Ng \\qzmarker\\ O'Brien"])
def test_names_that_json_escapes_are_found_in_audit_events_and_snapshots(
    recruiter: User,
    lead: User,
    interviewer: User,
    pia: User,
    sam: User,
    other_interviewer: User,
    name: str,
) -> None:
    seeded = seed(
        recruiter=recruiter,
        lead=lead,
        ines=interviewer,
        pia=pia,
        sam=sam,
        omar=other_interviewer,
        name=name,
    )
    assert seeded.name == name

    client_for(recruiter).post(f"/api/v1/candidates/{seeded.candidate.pk}/erase/")

    assert marker_hits() == {}
