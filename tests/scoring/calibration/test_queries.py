"""scoring/calibration/queries.py against the ORM query it was compiled from."""

import pytest
from django.db.models import Model
from django.utils import timezone

from kit.models import Role
from scoring.calibration import queries
from scoring.models import CalibrationJob
from tests.support.factories import RoleFactory

Status = CalibrationJob.Status


def fields(job: Model | None) -> dict[str, object] | None:
    if job is None:
        return None
    return {f.attname: getattr(job, f.attname) for f in job._meta.concrete_fields}


def orm_queued(role: Role) -> CalibrationJob | None:
    return CalibrationJob.objects.filter(role=role, status=Status.QUEUED).first()


@pytest.mark.django_db
def test_it_finds_what_the_orm_finds_for_each_role(role: Role) -> None:
    other, idle = RoleFactory(name="SRE"), RoleFactory(name="Data Engineer")
    now = timezone.now()
    CalibrationJob.objects.create(role=role, status=Status.DONE, finished_at=now)
    CalibrationJob.objects.create(role=role, status=Status.RUNNING, started_at=now, attempts=2)
    queued = CalibrationJob.objects.create(role=role, stage="waiting", progress=3)
    CalibrationJob.objects.create(role=other, status=Status.FAILED, error="boom")

    for scope in (role, other, idle):
        assert fields(queries.queued_job(scope.pk)) == fields(orm_queued(scope))
    assert fields(queries.queued_job(role.pk)) == fields(queued)
    assert queries.queued_job(other.pk) is None


@pytest.mark.django_db
def test_it_reads_a_job_as_the_orm_loads_it(role: Role) -> None:
    job = CalibrationJob.objects.create(role=role)
    found = queries.queued_job(role.pk)

    assert found is not None
    assert found.requested_at == job.requested_at  # aware, on SQLite too
    assert found.role_id == role.pk and found.status == Status.QUEUED


def test_the_compiled_statement_names_the_models_table() -> None:
    text = queries._queued_sql()

    assert CalibrationJob._meta.db_table in text
    assert text.count("%s") == 2
