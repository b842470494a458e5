"""An interview kit as Markdown, for printing or reading offline."""

from interviews.models import Interview, InterviewQuestion
from kit.models import RubricItem

HEADINGS = {
    RubricItem.Kind.CORE: "Core",
    RubricItem.Kind.STRONG: "Strong answers add",
    RubricItem.Kind.RED_FLAG: "Red flags",
}


def kit_markdown(interview: Interview, items: list[InterviewQuestion]) -> str:
    loop = interview.loop
    total = sum(item.version.minutes for item in items)
    lines = [
        f"# {interview.title}: {loop.candidate.name}",
        "",
        f"{loop.role.name}, {loop.level.name} · {interview.minutes} minutes "
        f"({total} planned across {len(items)} questions)",
    ]
    if interview.scheduled_start:
        lines.append(f"Scheduled {interview.scheduled_start:%Y-%m-%d %H:%M %Z}")
    for number, item in enumerate(items, start=1):
        version = item.version
        lines += [
            "",
            f"## {number}. {item.question.title} "
            f"({version.minutes} min, rate 1–{version.scale_max})",
            "",
            "**As asked**",
            "",
            f"> {version.prompt}",
        ]
        for kind, heading in HEADINGS.items():
            rubric = [r for r in version.rubric.all() if r.kind == kind]
            if rubric:
                lines += ["", f"**{heading}**", ""] + [f"- [ ] {r.text}" for r in rubric]
        follow_ups = list(version.follow_ups.all())
        if follow_ups:
            lines += ["", "**Expect these follow-ups**", ""]
            lines += [f"{i}. {f.text}" for i, f in enumerate(follow_ups, start=1)]
    return "\n".join(lines) + "\n"
