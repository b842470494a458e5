"""Import historical ratings (`import_scorecards`), every row checked before anything is written.

Two paths give the same result:

* The exact path (any database) streams the file through Python twice: first
  to check every row (problems reported as FILE:LINE: message) and collect what
  must exist, then to write the ratings.
* The set-based path (PostgreSQL) COPYs the file into a temporary table and
  does the rest in SQL over integer codes: INSERT … SELECT for loops,
  interviews, panels, questions asked, scorecards and ratings. Python sees only
  the distinct values of each column (names, ratings, dates), read by the same
  functions the exact path uses.

The set-based path takes a file only when the exact path would import it the
same way: one row per line and every row valid. Otherwise (a problem to
report, a quoted line break, a blank row) it rolls back to its savepoint and
the exact path runs, so every message comes from one place.
"""

from django.db import DataError, IntegrityError, connection, transaction

from kit.models import Level, Role
from scoring.calibration import importers
from scoring.calibration.history.exact import exact_import as _exact
from scoring.calibration.history.set_based import ExactPathNeeded
from scoring.calibration.history.set_based import set_based_import as _set_based
from scoring.calibration.history.shared import HistoryImportResult, Progress

__all__ = ["HistoryImportResult", "import_scope", "ratings_import"]


def import_scope(role_name: str | None, level_name: str | None) -> tuple[Role, Level]:
    """Return the role (found or created) and level the imported loops belong to."""
    if role_name:
        role = Role.objects.filter(name__iexact=role_name).first()
        role = role or Role.objects.create(name=role_name)
    else:
        roles = list(Role.objects.all()[:2])
        if len(roles) == 1:
            role = roles[0]
        else:
            role, _ = Role.objects.get_or_create(name="AI Infrastructure Engineer")
    level = (
        Level.objects.filter(name__iexact=level_name).first()
        if level_name
        else Level.objects.order_by("rank").first()
    )
    if level is None:
        raise importers.ImportFailed(
            [f"no level named '{level_name}'" if level_name else "no levels exist yet"]
        )
    return role, level


def ratings_import(
    *, path: str, role: Role, level: Level, scale_max: int, progress: Progress
) -> HistoryImportResult:
    """Import the file's ratings into loops of the role and level, in the caller's transaction."""
    if connection.vendor == "postgresql":
        try:
            # Django's error wrapper: psycopg's errors from the raw cursor come out as Django's.
            with transaction.atomic(), connection.wrap_database_errors:
                return _set_based(path, role, level, scale_max, progress)
        except (ExactPathNeeded, DataError, IntegrityError):
            # Rolled back to the savepoint; the exact path finds and names the problem.
            pass
    return _exact(path, role, level, scale_max, progress)
