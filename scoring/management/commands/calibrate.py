from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kit.models import Role
from scoring.calibration import selectors, services
from scoring.calibration.definitions import ALPHA, band


class Command(BaseCommand):
    help = """Run the calibration job now, in this process, and store its snapshots.

    This is the code the Celery task runs: for each role (or only --role), one
    snapshot for all levels and one per level with ratings, each keyed by the
    watermark of its inputs, so running it twice on unchanged ratings stores
    nothing new. With --json, print the role-wide snapshot (a list when
    several roles are calibrated).
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--role", help="calibrate only this role")
        parser.add_argument("--json", action="store_true", help="print the snapshot as JSON")

    def handle(self, *args: Any, role: str | None, json: bool, **options: Any) -> None:
        roles = Role.objects.order_by("name")
        if role:
            roles = roles.filter(name__iexact=role)
            if not roles.exists():
                raise CommandError(f"no role named '{role}'")
        printed: list[str] = []
        for each in roles:
            job = services.calibration_run_now(role=each)
            snapshot = job.snapshot
            if snapshot is None:
                continue
            if json:
                # The result as stored (jsonb orders its keys), as the API serves it.
                printed.append(selectors.snapshot_text(pk=snapshot.pk))
            else:
                inputs = snapshot.result["inputs"]
                alpha = snapshot.result["reliability"]["krippendorff_alpha"]["interval"]
                alpha_band = band(ALPHA, alpha)
                self.stdout.write(
                    f"{each.name}: {inputs['ratings']} ratings, {inputs['interviewers']} "
                    f"interviewers, {inputs['candidates']} candidates; "
                    f"Krippendorff's alpha (interval) {alpha}"
                    + (f" ({alpha_band.reads})" if alpha_band else "")
                )
        if json:
            self.stdout.write(printed[0] if len(printed) == 1 else "[" + ",\n".join(printed) + "]")
