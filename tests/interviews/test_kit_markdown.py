"""The Markdown kit escapes the HTML a person wrote, keeps the Markdown it writes itself, and
gives its time in the reader's zone."""

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from django.contrib.auth.models import User
from django.test import Client

from core.accounts.models import Profile
from interviews.markdown import kit_markdown
from interviews.models import Interview
from interviews.selectors import kit_for
from kit.models import FollowUp, QuestionVersion, RubricItem

SCRIPT = "<script>alert(1)</script>"
IMAGE = "<img src=x onerror=alert(document.cookie)>"


def test_it_escapes_html_in_every_text_a_person_wrote(
    interviewer: User, interviews: list[Interview], panels: object
) -> None:
    interview = interviews[0]
    item = kit_for(interview=interview)[0]
    QuestionVersion.objects.filter(pk=item.version_id).update(
        prompt=f"Design a cache & explain {SCRIPT} then {IMAGE}"
    )
    RubricItem.objects.filter(version_id=item.version_id, kind="core").update(text=IMAGE)
    FollowUp.objects.filter(version_id=item.version_id).update(text=SCRIPT)
    Interview.objects.filter(pk=interview.pk).update(title="Serving <b>")
    interview.refresh_from_db()

    text = kit_markdown(interview, kit_for(interview=interview))

    assert "<" not in text
    assert (
        "> Design a cache &amp; explain &lt;script&gt;alert(1)&lt;/script&gt; then "
        "&lt;img src=x onerror=alert(document.cookie)&gt;\n"
    ) in text
    assert "- [ ] &lt;img src=x onerror=alert(document.cookie)&gt;\n" in text
    assert "1. &lt;script&gt;alert(1)&lt;/script&gt;\n" in text
    assert text.startswith("# Serving &lt;b&gt;: Casey Quinn\n")
    # The Markdown the module writes is untouched: its own headings, bold and quote marks.
    assert "\n## 1. " in text
    assert "**As asked**" in text
    assert "**Core**" in text


def test_the_kit_gives_its_time_in_the_readers_zone_with_its_abbreviation(
    client: Client, interviewer: User, interviews: list[Interview], panels: object
) -> None:
    Profile.objects.create(user=interviewer, time_zone="Asia/Kolkata")
    interview = interviews[0]  # Ines's
    start = datetime(2026, 12, 10, 15, 0, tzinfo=UTC)
    Interview.objects.filter(pk=interview.pk).update(
        scheduled_start=start, scheduled_end=start + timedelta(minutes=45)
    )
    client.force_login(interviewer)

    text = client.get(f"/interviews/{interview.pk}/kit.md").content.decode()

    assert "Scheduled 2026-12-10 20:30 IST\n" in text
    assert "UTC" not in text


def test_the_kit_gives_its_time_in_the_zone_it_is_asked_for(
    interviews: list[Interview], panels: object
) -> None:
    interview = interviews[0]
    interview.scheduled_start = datetime(2026, 12, 10, 15, 0, tzinfo=UTC)

    text = kit_markdown(interview, [], zone=ZoneInfo("America/New_York"))

    assert "Scheduled 2026-12-10 10:00 EST\n" in text
