"""Calibration's one statement on the hot path, compiled from the ORM once.

Every scorecard submission asks whether its role already has a job queued.
Building that query through the ORM costs about 1 ms of CPU per call; compiled
once from the same queryset (so its tables and columns come from the models'
``_meta``) it costs a cursor round trip. tests/scoring/calibration/test_queries.py
pins it against the ORM query on SQLite and PostgreSQL.
"""

from functools import cache

from core import sql
from scoring.models import CalibrationJob


@cache
def _queued_sql() -> str:
    # Placeholders stand for (role id, status), in the order the filter names them.
    query = CalibrationJob.objects.filter(role_id=0, status=CalibrationJob.Status.QUEUED).query
    text, params = query.sql_with_params()
    assert list(params) == [0, CalibrationJob.Status.QUEUED], params
    return text


def queued_job(role_id: int) -> CalibrationJob | None:
    """Return the role's queued (not yet started) calibration job, if any."""
    row = sql.row(_queued_sql(), [role_id, CalibrationJob.Status.QUEUED])
    return None if row is None else sql.from_row(CalibrationJob, row)
