"""Fixtures for the calibration tests: the role, and a panel imported and calibrated.

A module without transactional tests calibrates once (`calibrated_built_once`) by giving
its own `calibrated` fixture `read_again(calibrated_built_once)` (tests/support/shared_db.py).
"""

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import TestCase
from pytest_django import DjangoDbBlocker

from kit.models import Role
from scoring.models import CalibrationJob, CalibrationSnapshot
from tests.scoring.calibration.helpers import ROLE, import_scorecards, lenient_panel_rows, write_csv
from tests.support.factories import RoleFactory
from tests.support.shared_db import make_personas, rolled_back

# The panel of `calibrated`: Ines and Omar are two of the six ordinary raters.
PANEL = ["ines", "omar", "rater-3", "rater-4", "rater-5", "rater-6", "rater-x"]


@pytest.fixture
def role(db: None) -> Role:
    return RoleFactory()


@dataclass
class Calibrated:
    role: Role
    snapshot: CalibrationSnapshot  # all levels
    level_snapshot: CalibrationSnapshot  # L5, where the panel was imported
    job: CalibrationJob


def panel_rows(candidates: int = 10) -> list[list[object]]:
    """`lenient_panel_rows` with rater-1 and rater-2 played by Ines and Omar."""
    names = {"rater-1": "ines", "rater-2": "omar"}
    return [
        [c, names.get(str(i), i), q, r] for c, i, q, r in lenient_panel_rows(candidates=candidates)
    ]


@pytest.fixture
def calibrated(
    role: Role,
    interviewer: User,
    other_interviewer: User,
    tmp_path: Path,
    django_capture_on_commit_callbacks,  # type: ignore[no-untyped-def]
) -> Calibrated:
    """Ten candidates rated by seven interviewers at L5; rater-x is lenient by two points.

    The import asks for a recalculation after commit; Celery is eager in tests, so
    running the captured callbacks runs the job and stores the snapshots.
    """
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        import_panel(tmp_path)
    assert len(callbacks) == 1
    return calibration_of(role)


@pytest.fixture(scope="module")
def calibrated_built_once(
    django_db_setup: None,
    django_db_blocker: DjangoDbBlocker,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Calibrated]:
    """The calibrated panel, its role and Ines and Omar, built once for the module that
    asks for it."""
    with rolled_back(django_db_blocker):
        make_personas("interviewer", "other_interviewer")
        role = RoleFactory()
        with TestCase.captureOnCommitCallbacks(execute=True) as callbacks:
            import_panel(tmp_path_factory.mktemp("calibrated"))
        assert len(callbacks) == 1
        yield calibration_of(role)


def import_panel(folder: Path) -> None:
    """Import the panel's ratings at L5; the recalculation is asked for after commit."""
    path = write_csv(folder / "panel.csv", panel_rows())
    import_scorecards(path, "--role", ROLE, "--scale-max", "7", "--level", "L5")


def calibration_of(role: Role) -> Calibrated:
    """The recalculation's job, done, and the snapshots it stored."""
    job = CalibrationJob.objects.get()
    assert job.status == CalibrationJob.Status.DONE, job.error
    return Calibrated(
        role=role,
        snapshot=CalibrationSnapshot.objects.get(role=role, level=None),
        level_snapshot=CalibrationSnapshot.objects.get(role=role, level__name="L5"),
        job=job,
    )
