import json
from typing import Any

import yaml
from django.core.management.base import BaseCommand, CommandError, CommandParser

from kit import selectors


class Command(BaseCommand):
    help = """Write the question bank to standard output as JSON or YAML.

    The output is the structured format import_questions reads, so
    export, import into another database, export again gives the same file.
    Each question is written at its current version.
    """

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--role", help="only this role's questions")
        parser.add_argument("--format", choices=["json", "yaml"], default="json")

    def handle(self, *args: Any, role: str | None, format: str, **options: Any) -> None:
        scope = None
        if role:
            scope = selectors.role_by_name(role)
            if scope is None:
                raise CommandError(f"no role named '{role}'")
        questions = [
            selectors.question_as_dict(q) for q in selectors.questions_for_export(role=scope)
        ]
        document = {"questions": questions}
        if format == "json":
            self.stdout.write(json.dumps(document, ensure_ascii=False, indent=2))
        else:
            self.stdout.write(
                yaml.safe_dump(document, allow_unicode=True, sort_keys=False, width=100), ending=""
            )
