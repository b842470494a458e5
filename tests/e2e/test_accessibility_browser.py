"""axe-core in Chromium on every page each demo persona can reach.

The demo is `seed_demo` (the starter bank, 23 loops, six interviewers' scorecards),
plus what it leaves out: a calibration snapshot, a calibration exercise, and
demo-interviewer-1's draft card for the interview still being scored. Each persona
signs in and axe (axe-core, bundled by axe-playwright-python: nothing is fetched)
runs on each page; a serious or critical violation fails the test, every one found
listed in the message. Each page is saved to artifacts/screenshots/a11y/.
"""

import io

import pytest
from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import Page
from pytest_django.live_server_helper import LiveServer

from core.permissions import INTERVIEWER as INTERVIEWER_PERSONA
from interviews.models import Candidate, Interview, InterviewQuestion, Loop
from kit.models import Question, Role
from scoring.calibration import services as calibration_services
from scoring.exercises import services as exercise_services
from scoring.models import Scorecard
from scoring.scorecards import services
from tests.conftest import make_user
from tests.e2e.conftest import screenshot, sign_in
from tests.scoring.helpers import submitted
from tests.support.loops import Seat, build_loop

pytestmark = [
    pytest.mark.browser,
    # live_server needs committed data; the fixtures put back the ladder and groups.
    pytest.mark.django_db(transaction=True),
]

PASSWORD = "pw"
INTERVIEWER = "demo-interviewer-1"
BLOCKING = {"serious", "critical"}
# How many times a wrong password is accepted before the account locks (settings).
FAILURE_LIMIT = 5


def build_demo() -> dict[str, list[tuple[str, str]]]:
    """Seed the demo and return, per persona, the pages (name, path) to check."""
    call_command("seed_demo", "--password", PASSWORD, stdout=io.StringIO())
    role = Role.objects.get(name="AI Infrastructure Engineer")
    lead = User.objects.get(username="demo-lead")
    interviewer = User.objects.get(username=INTERVIEWER)
    calibration_services.calibration_run_now(role=role, by=lead)
    question = Question.objects.filter(role=role, status="active").order_by("pk").first()
    assert question is not None and question.current is not None
    exercise = exercise_services.exercise_create(
        title="December calibration",
        question=question,
        answers=[
            exercise_services.AnswerInput(transcript="A calm, complete answer.", key_rating=4),
            exercise_services.AnswerInput(transcript="A partial answer.", key_rating=2),
        ],
        participants=[interviewer],
        by=lead,
    )
    # demo-interviewer-1's interview in the loop still being scored: a draft card.
    owed = Interview.objects.get(panel__user=interviewer, loop__status=Loop.Status.IN_PROGRESS)
    card = services.scorecard_start(interview=owed, by=interviewer)
    first = owed.questions.order_by("order").first()
    assert first is not None
    services.scorecard_save_draft(
        scorecard=card,
        by=interviewer,
        recommendation="yes",
        summary="Solid on the core points.",
        ratings=[services.RatingInput(item=first.pk, rating=3)],
    )
    # Their submitted card in a loop at its debrief: read-only, and the debrief is open.
    sent = Scorecard.objects.get(
        interviewer=interviewer, interview__loop__status=Loop.Status.DEBRIEF
    )
    debrief_loop = sent.interview.loop_id
    in_progress = owed.loop_id
    decided = Loop.objects.filter(status=Loop.Status.DECIDED).order_by("pk").first()
    assert decided is not None
    item = InterviewQuestion.objects.filter(interview__loop__status=Loop.Status.SCHEDULED).order_by(
        "pk"
    )[0]
    candidate = Candidate.objects.order_by("pk")[0]
    common = [
        ("bank", "/bank/"),
        ("question", f"/bank/questions/{question.pk}/"),
        ("calibration", f"/calibration/?role={role.pk}"),
        ("exercises", "/calibration/exercises/"),
        ("my-interviews", "/interviews/"),
        ("account", "/account/"),
        ("account-token", "/account/token/"),
    ]
    return {
        "recruiter": [
            ("loops", "/loops/"),
            ("loop-new", "/loops/new/"),
            ("loop-in-progress", f"/loops/{in_progress}/"),
            ("loop-decided", f"/loops/{decided.pk}/"),
            ("debrief", f"/loops/{debrief_loop}/debrief/"),
            ("debrief-decided", f"/loops/{decided.pk}/debrief/"),
            ("question-swap", f"/assigned/{item.pk}/swap/"),
            ("candidates", "/candidates/"),
            ("candidate-new", "/candidates/new/"),
            ("candidate", f"/candidates/{candidate.pk}/"),
            ("candidate-edit", f"/candidates/{candidate.pk}/edit/"),
            ("role-owners", "/bank/roles/owners/"),
            ("role-owners-edit", f"/bank/roles/{role.pk}/owners/"),
            *common,
        ],
        "hiring-manager": [
            ("loops", "/loops/"),
            ("loop-new", "/loops/new/"),
            ("loop-in-progress", f"/loops/{in_progress}/"),
            *common,
        ],
        "lead": [
            ("question-new", "/bank/questions/new/"),
            ("question-edit", f"/bank/questions/{question.pk}/edit/"),
            ("exercise-new", "/calibration/exercises/new/"),
            ("exercise", f"/calibration/exercises/{exercise.pk}/"),
            ("audit-log", "/audit/"),
            *common,
        ],
        "interviewer": [
            ("kit", f"/interviews/{owed.pk}/kit/"),
            ("scorecard-draft", f"/interviews/{owed.pk}/scorecard/"),
            ("scorecard-submitted", f"/interviews/{sent.interview_id}/scorecard/"),
            ("amend", f"/scorecards/{sent.pk}/amend/"),
            ("debrief", f"/loops/{debrief_loop}/debrief/"),
            ("exercise", f"/calibration/exercises/{exercise.pk}/"),
            *common,
        ],
    }


def blocking_violations(page: Page) -> list[str]:
    """Return axe's serious and critical violations on the page, one line per element."""
    results = Axe().run(page)
    lines = []
    for violation in results.response["violations"]:
        if violation["impact"] not in BLOCKING:
            continue
        for node in violation["nodes"]:
            lines.append(
                f"{violation['impact']} {violation['id']}: {violation['help']} at "
                f"{', '.join(map(str, node['target']))}: {node.get('failureSummary', '')}"
            )
    return lines


def check_pages(page: Page, base: str, pages: list[tuple[str, str]], prefix: str) -> list[str]:
    """Visit each page, save it, and return its blocking violations, prefixed by its name."""
    found = []
    for name, path in pages:
        response = page.goto(f"{base}{path}")
        assert response is not None and response.status == 200, (name, path)
        page.wait_for_load_state("load")
        screenshot(page, f"a11y/{prefix}-{name}")
        found += [f"{name} ({path}): {line}" for line in blocking_violations(page)]
    return found


@pytest.fixture
def demo(transactional_db: None) -> dict[str, list[tuple[str, str]]]:
    return build_demo()


@pytest.mark.slow  # every page of a persona through axe; the sign-in pages stay in make test
@pytest.mark.parametrize(
    ("persona", "username"),
    [
        ("recruiter", "demo-recruiter"),
        ("lead", "demo-lead"),
        ("hiring-manager", "demo-hiring-manager"),
        ("interviewer", INTERVIEWER),
    ],
)
def test_no_page_a_persona_reaches_has_a_serious_or_critical_violation(
    live_server: LiveServer,
    page: Page,
    demo: dict[str, list[tuple[str, str]]],
    persona: str,
    username: str,
) -> None:
    sign_in(page, live_server, username, PASSWORD)
    page.wait_for_selector("button:has-text('Sign out')")
    pages = [("home", "/"), *demo[persona]]

    found = check_pages(page, live_server.url, pages, persona)

    assert found == [], "\n".join(found)


def test_the_sign_in_and_lockout_pages_have_no_serious_or_critical_violation(
    live_server: LiveServer, page: Page
) -> None:
    make_user(INTERVIEWER, INTERVIEWER_PERSONA)
    found = check_pages(page, live_server.url, [("login", "/login/")], "signed-out")
    for _ in range(FAILURE_LIMIT):
        page.goto(f"{live_server.url}/login/")
        page.fill("input[name=username]", INTERVIEWER)
        page.fill("input[name=password]", "wrong")
        page.click("button[type=submit]")
        page.wait_for_selector("p.error")
    sign_in(page, live_server, INTERVIEWER, PASSWORD)
    page.wait_for_selector("h1:has-text('Account locked')")
    screenshot(page, "a11y/signed-out-lockout")
    found += [f"lockout: {line}" for line in blocking_violations(page)]

    assert found == [], "\n".join(found)


# Per label.anchor: whether it is chosen and disabled, the opacity it is drawn with
# (its own and its ancestors'), its border style, the ✓ after it, and the lowest WCAG
# contrast of its texts (.value, .meaning) against its background.
ANCHORS = """() => {
  const channel = v => (v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  const lum = c => {
    const [r, g, b] = c.match(/[\\d.]+/g).slice(0, 3).map(Number).map(channel);
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  const ratio = (x, y) => {
    const [hi, lo] = [lum(x), lum(y)].sort((p, q) => q - p);
    return (hi + 0.05) / (lo + 0.05);
  };
  return [...document.querySelectorAll('label.anchor')].map(a => {
    let opacity = 1;
    for (let e = a; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const style = getComputedStyle(a);
    const texts = [...a.querySelectorAll('.value, .meaning')];
    return {
      checked: a.querySelector('input').checked,
      disabled: a.querySelector('input').matches(':disabled'),  // the fieldset's, too
      opacity,
      border: style.borderTopStyle,
      tick: getComputedStyle(a, '::after').content.includes('✓'),
      contrast: Math.min(
        ...texts.map(t => ratio(getComputedStyle(t).color, style.backgroundColor))
      ),
    };
  });
}"""


def test_a_submitted_scorecards_choices_are_read_only_yet_readable(
    live_server: LiveServer, page: Page
) -> None:
    ines = make_user("ines", INTERVIEWER_PERSONA, first_name="Ines")
    built = build_loop(seats=[Seat(interviewers=[ines])])
    interview = built.interviews[0]
    submitted(ines, interview, rating=3, recommendation="yes")
    sign_in(page, live_server, "ines")
    page.wait_for_selector("button:has-text('Sign out')")

    page.goto(f"{live_server.url}/interviews/{interview.pk}/scorecard/")
    page.wait_for_selector(".notice:has-text('A submitted scorecard is kept as it is')")
    screenshot(page, "a11y/scorecard-read-only")
    anchors = page.evaluate(ANCHORS)

    # Four questions rated 1 to 4, and four recommendations; one chosen in each group.
    assert len(anchors) == 4 * 4 + 4
    assert all(a["disabled"] for a in anchors)
    assert [a for a in anchors if a["opacity"] != 1] == []
    assert [a for a in anchors if a["contrast"] < 4.5] == []
    chosen = [a for a in anchors if a["checked"]]
    assert len(chosen) == 5
    assert all(a["border"] == "solid" and a["tick"] for a in chosen)
    assert all(a["border"] == "dashed" and not a["tick"] for a in anchors if not a["checked"])
    assert blocking_violations(page) == []
