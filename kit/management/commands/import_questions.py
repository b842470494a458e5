from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from kit import services
from kit.importers import ImportProblem, parse


class Command(BaseCommand):
    help = """Import questions from FILE into the bank.

    The format is detected from the content:
      * the plain-text question document: blocks headed "As asked",
        "Sample answer outline" and "Expect these follow-ups" ("•" bullets);
        the rubric is derived from each outline;
      * the structured JSON or YAML written by export_questions.

    Questions are matched by title (or, untitled, by prompt) within their role,
    so importing the same file again changes nothing. Content edits to a question
    already used in interviews create a new version. The whole file is imported
    in one transaction: on any problem the command prints FILE:LINE: what is
    wrong, exits non-zero and writes nothing.
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("file", help="path to the question file")
        parser.add_argument(
            "--role",
            help="role for questions that do not name one (default for plain text: the "
            "document's heading)",
        )

    def handle(self, *args: Any, file: str, role: str | None, **options: Any) -> None:
        path = Path(file)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise CommandError(f"{file}: cannot read: {exc.strerror}") from None
        try:
            parsed = parse(file, data)
            total = len(parsed.records)
            step = max(total // 20, 500)

            def progress(done: int) -> None:
                if total >= 1000 and (done % step == 0 or done == total):
                    ending = "\n" if done == total else ""
                    self.stderr.write(f"\r{file}: {done}/{total} questions", ending=ending)

            result = services.questions_import(
                records=parsed.records,
                path=file,
                default_role=role or parsed.heading_role,
                structured=not parsed.plain,
                progress=progress,
            )
        except ImportProblem as problem:
            raise CommandError(str(problem)) from None
        self.stdout.write(
            f"{file}: {result.total} questions: {result.created} created, "
            f"{result.updated} updated, {result.unchanged} unchanged "
            f"({result.follow_ups} follow-ups)"
        )
