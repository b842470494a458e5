"""Import historical ratings (`import_scorecards`), every row checked before anything is written.

The rules live once, in Python (history.exact): the file is streamed twice,
first to check every row (problems reported as FILE:LINE: message) and collect
what must exist, then to write the ratings. The rows computed go to the
database in bulk (scoring.calibration.bulk: COPY on PostgreSQL).
"""

from kit.models import Level, Role
from scoring.calibration import importers
from scoring.calibration.history.exact import exact_import as _exact
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
    return _exact(path, role, level, scale_max, progress)
