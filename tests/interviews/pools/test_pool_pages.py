"""Pages: Staff this loop (propose, accept, re-roll), the pools page, My interviews."""

from django.test import Client

from core.models import AuditEvent
from interviews.models import Panelist
from interviews.pools import services
from interviews.pools.models import TrainingSeat
from tests.interviews.pools.conftest import interviewer_in


def page_client(user) -> Client:  # type: ignore[no-untyped-def]
    client = Client()
    client.force_login(user)
    return client


def test_staff_this_loop_proposes_with_reasons_and_accepting_seats_the_panel(
    pool, recruiter, scheduled
):
    cal, dev = interviewer_in("cal"), interviewer_in("dev")
    services.membership_add(pool=pool, user=cal, by=recruiter)
    services.membership_add(pool=pool, user=dev, status="training", by=recruiter)
    loop = scheduled[0].loop
    client = page_client(recruiter)
    page = client.get(f"/loops/{loop.pk}/staff/")
    text = page.content.decode()
    assert page.status_code == 200
    assert (
        "<strong>Cal</strong> (interviewer): qualified for Serving, 0 interviews this week" in text
    )
    assert "<strong>Dev</strong> (shadow): training for Serving: shadow 1 of 2" in text
    assert "Training has no interviewer pool: choose its panel by hand." in text
    assert f'href="?avoid={cal.pk},{dev.pk}"' in text
    body = {
        "interviews": str(scheduled[0].pk),
        f"i{scheduled[0].pk}-interviewers": str(cal.pk),
        f"i{scheduled[0].pk}-shadow": str(dev.pk),
        f"i{scheduled[0].pk}-shadow_kind": "shadow",
    }
    done = client.post(f"/loops/{loop.pk}/staff/", body, follow=True)
    assert done.redirect_chain[-1][0] == f"/loops/{loop.pk}/"
    assert "Seated the proposed panels" in done.content.decode()
    assert set(scheduled[0].panel.values_list("user__username", "is_shadow")) == {
        ("cal", False), ("dev", True),
    }  # fmt: skip
    assert TrainingSeat.objects.get().kind == "shadow"


def test_a_refused_accept_seats_nobody_and_says_why(pool, recruiter, scheduled):
    dev = interviewer_in("dev")
    services.membership_add(pool=pool, user=dev, status="training", by=recruiter)
    loop = scheduled[0].loop
    body = {"interviews": str(scheduled[0].pk), f"i{scheduled[0].pk}-interviewers": str(dev.pk)}
    done = page_client(recruiter).post(f"/loops/{loop.pk}/staff/", body, follow=True)
    assert "Nothing was seated: Dev is still training for Serving" in done.content.decode()
    assert not Panelist.objects.exists()
    assert not AuditEvent.objects.filter(action="panel.accepted").exists()


def test_the_staff_page_is_404_to_who_may_not_staff_the_loop(loop, interviewer):
    client = page_client(interviewer)
    assert client.get(f"/loops/{loop.pk}/staff/").status_code == 404
    assert client.post(f"/loops/{loop.pk}/staff/", {"interviews": "1"}).status_code == 404


def test_the_pools_page_shows_training_progress_and_who_is_at_their_limit(
    pool, lead, recruiter, interviewer, django_assert_max_num_queries
):
    busy = interviewer_in("bea", per_day=1, per_week=1)
    services.membership_add(pool=pool, user=busy, by=recruiter)
    services.membership_add(pool=pool, user=interviewer_in("dev"), status="training", by=recruiter)
    for n in range(20):
        services.membership_add(pool=pool, user=interviewer_in(f"p{n}"), by=recruiter)
    client = page_client(lead)
    # 1 session, 2 user, 3 groups, 4 profile (zone), 5 pools, 6 members, 7 their training
    # seats, 8 the load; the rest is the page's frame (messages, nav).
    with django_assert_max_num_queries(12):
        page = client.get("/pools/")
    text = page.content.decode()
    assert page.status_code == 200
    assert "training: shadows 0 of 2, reverse shadows 0 of 1" in text
    assert "0 of 1 (near their limit)" in text
    assert page_client(interviewer).get("/pools/").status_code == 404


def test_my_interviews_shows_my_pools_and_training_progress(pool, recruiter):
    dev = interviewer_in("dev")
    services.membership_add(pool=pool, user=dev, status="training", by=recruiter)
    text = page_client(dev).get("/interviews/").content.decode()
    assert "Your pools" in text
    assert "Serving: training (shadows 0 of 2, reverse shadows 0 of 1)" in text


def test_a_reroll_ignores_what_is_not_an_id(pool, recruiter, scheduled):
    loop = scheduled[0].loop
    page = page_client(recruiter).get(f"/loops/{loop.pk}/staff/?avoid=x,{'9' * 5000},-1,²,2")
    assert page.status_code == 200
