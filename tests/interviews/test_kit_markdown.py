"""The Markdown kit escapes the HTML a person wrote, and keeps the Markdown it writes itself."""

from django.contrib.auth.models import User

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
