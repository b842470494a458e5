from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from scoring.calibration import services
from scoring.calibration.importers import ImportFailed


class Command(BaseCommand):
    help = """Import historical ratings from another system (CSV).

    Header row; columns candidate,interviewer,question,rating and optionally
    recommendation,decision,interviewed_at. One row is one rating; the rows of
    one candidate and one interviewer form one submitted scorecard. Missing
    candidates (by name), interviewers (users, by username) and questions (by
    title within --role, created as drafts on the --scale-max scale) are
    created. Every row is checked before anything is written; on problems the
    command lists them as FILE:LINE: message (up to 20), exits non-zero and
    writes nothing. The file is streamed, so a million rows is fine.
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file")
        parser.add_argument("--scale-max", type=int, default=4, help="scale of new questions")
        parser.add_argument("--role", help="role of the questions (default: the only role, or "
                            "'AI Infrastructure Engineer')")  # fmt: skip
        parser.add_argument("--level", help="level of the imported loops (default: the lowest)")

    def handle(
        self, *args: Any, file: str, scale_max: int, role: str | None, level: str | None,
        **options: Any,
    ) -> None:  # fmt: skip
        if not 2 <= scale_max <= 10:
            raise CommandError(f"--scale-max must be between 2 and 10, not {scale_max}")

        def progress(stage: str, n: int) -> None:
            self.stderr.write(f"\r{file}: {stage} {n:,} rows ", ending="")

        try:
            result = services.scorecards_import(
                path=file, role_name=role, level_name=level, scale_max=scale_max,
                progress=progress,
            )  # fmt: skip
        except FileNotFoundError:
            raise CommandError(f"{file}: no such file") from None
        except ImportFailed as failed:
            raise CommandError("\n".join(failed.problems)) from None
        self.stderr.write("")
        self.stdout.write(
            f"{file}: {result.rows} ratings in {result.scorecards} scorecards; created "
            f"{result.candidates_created} candidates, {result.interviewers_created} interviewers, "
            f"{result.questions_created} questions"
        )
