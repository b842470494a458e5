"""An interview kit as Markdown, for printing or reading offline.

Every text a person wrote (titles, names, prompts, rubric, follow-ups) goes through
`_text`: Markdown passes raw HTML through to whatever renders it, so a prompt holding
`<script>` would run in a reader's viewer. Only `&`, `<` and `>` are escaped; the
Markdown this module writes itself (`#`, `**`, `- [ ]`, `>`) is left alone.
"""

from datetime import tzinfo
from html import escape

from django.utils import timezone

from interviews.models import Interview, InterviewQuestion
from kit.models import RubricItem

HEADINGS = {
    RubricItem.Kind.CORE: "Core",
    RubricItem.Kind.STRONG: "Strong answers add",
    RubricItem.Kind.RED_FLAG: "Red flags",
}


def _text(value: object) -> str:
    """Return value as text with `&`, `<` and `>` as HTML entities (quotes are safe in
    Markdown text)."""
    return escape(str(value), quote=False)


def kit_markdown(
    interview: Interview, items: list[InterviewQuestion], *, zone: tzinfo | None = None
) -> str:
    """Return the kit as Markdown, its time in `zone` (the reader's; by default the
    current zone, which a page's middleware sets to its viewer's) with its abbreviation."""
    loop = interview.loop
    total = sum(item.version.minutes for item in items)
    lines = [
        f"# {_text(interview.title)}: {_text(loop.candidate.name)}",
        "",
        f"{_text(loop.role.name)}, {_text(loop.level.name)} · {interview.minutes} minutes "
        f"({total} planned across {len(items)} questions)",
    ]
    if interview.scheduled_start:
        start = timezone.localtime(interview.scheduled_start, zone)
        lines.append(f"Scheduled {start:%Y-%m-%d %H:%M %Z}")
    for number, item in enumerate(items, start=1):
        version = item.version
        lines += [
            "",
            f"## {number}. {_text(item.question.title)} "
            f"({version.minutes} min, rate 1–{version.scale_max})",
            "",
            "**As asked**",
            "",
            f"> {_text(version.prompt)}",
        ]
        for kind, heading in HEADINGS.items():
            rubric = [r for r in version.rubric.all() if r.kind == kind]
            if rubric:
                lines += ["", f"**{heading}**", ""] + [f"- [ ] {_text(r.text)}" for r in rubric]
        follow_ups = list(version.follow_ups.all())
        if follow_ups:
            lines += ["", "**Expect these follow-ups**", ""]
            lines += [f"{i}. {_text(f.text)}" for i, f in enumerate(follow_ups, start=1)]
    return "\n".join(lines) + "\n"
