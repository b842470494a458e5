"""The bank shows how often each question was asked in the last 30 and 90 days."""

from kit.models import Level
from tests.conftest import client_for
from tests.support.factories import RoleFactory, make_question
from tests.support.loops import history_loop


def test_the_bank_api_and_pages_show_exposure_over_30_and_90_days(client, interviewer):
    role = RoleFactory()
    level = Level.objects.get(name="L5")
    asked, quiet = make_question(role=role, title="Asked"), make_question(role=role, title="Quiet")
    history_loop([asked], role=role, level=level, days_ago=5, name="Recent")
    history_loop([asked], role=role, level=level, days_ago=45, name="Older")
    history_loop([asked], role=role, level=level, days_ago=120, name="Too old")
    history_loop([asked], role=role, level=level, days_ago=-7, name="Next week")
    history_loop([quiet], role=role, level=level, days_ago=None, name="Unscheduled")

    rows = client_for(interviewer).get("/api/v1/questions/").json()["results"]
    exposure = {r["title"]: (r["asked_30_days"], r["asked_90_days"]) for r in rows}
    # 5 days ago and next week count in both windows; 45 days only in 90; 120 in none.
    assert exposure == {"Asked": (2, 3), "Quiet": (1, 1)}

    client.force_login(interviewer)
    detail = client.get(f"/bank/questions/{asked.pk}/").content.decode()
    assert "asked 2× in 30 days, 3× in 90" in detail
    listing = client.get("/bank/").content.decode()
    assert '<td class="num nowrap" data-label="Asked 30 / 90 d">2 / 3</td>' in listing
    assert '<td class="num nowrap" data-label="Asked 30 / 90 d">1 / 1</td>' in listing
