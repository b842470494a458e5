"""The loop, candidate and my-interviews pages at scale: filters, search, pages, refusals."""

import re
from datetime import datetime, timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from interviews.models import Loop
from kit.models import Level, Role
from tests.interviews.helpers import snapshot
from tests.interviews.lists import make_loop, make_loops
from tests.support.factories import RoleFactory

ROWS = 500
PER_PAGE = 25
NAMES = re.compile(r'data-label="(?:Candidate|Name)">(?:<a href="[^"]*">)?<strong>([^<]+)</strong>')


def fresh(user: User) -> User:
    # A new instance, so the persona lookup is not already cached on it.
    return User.objects.get(pk=user.pk)


def names(body: str) -> list[str]:
    """The candidates' names in the page's table rows, in order."""
    return NAMES.findall(body)


def section(body: str, title: str) -> str:
    """The part of My interviews from heading `title` to the next heading."""
    return body.partition(f"<h2>{title}</h2>")[2].partition("<h2>")[0]


@pytest.fixture
def many(recruiter, interviewer, other_interviewer) -> list[Loop]:  # type: ignore[no-untyped-def]
    return make_loops(ROWS, panel=interviewer, also=other_interviewer)


@pytest.fixture
def page(client: Client):  # type: ignore[no-untyped-def]
    """GET a page as a user: page(user, url name, **query) -> (status, body)."""

    def get(user: User, name: str, **query: str) -> tuple[int, str]:
        client.force_login(user)
        response = client.get(reverse(name), query)
        return response.status_code, response.content.decode()

    return get


def day(offset: int) -> datetime:
    """Noon, `offset` days from today, in the current time zone."""
    today = timezone.localdate() + timedelta(days=offset)
    return timezone.make_aware(datetime.combine(today, datetime.min.time())) + timedelta(hours=12)


def ymd(offset: int) -> str:
    """The date `offset` days from today, as the list pages' date filters take it."""
    return (timezone.localdate() + timedelta(days=offset)).isoformat()


# --- query counts at 500 rows ------------------------------------------------------------


def test_the_loop_list_reads_500_loops_in_a_fixed_number_of_queries(
    client, recruiter, many, django_assert_max_num_queries
):
    client.force_login(fresh(recruiter))
    # 1 session, 1 user, 1 persona groups
    # 1 count for the pagination
    # 1 the page of loops with candidate, role, level, interview count and first start
    # 3 the filters' choices: roles, levels, people on panels
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(9):
        response = client.get(reverse("interviews:loop-list"))
    body = response.content.decode()
    assert len(names(body)) == PER_PAGE
    assert "500 loops" in body and "Page 1 of 20" in body


def test_the_loop_list_filtered_by_everything_stays_fixed_too(
    client, recruiter, other_interviewer, many, django_assert_max_num_queries
):
    client.force_login(fresh(recruiter))
    query = {
        "q": "candidate", "status": "decided", "level": Level.objects.get(name="L5").pk,
        "role": Role.objects.get(name="Data Engineer").pk, "interviewer": other_interviewer.pk,
        "dates": "interviews", "since": ymd(-30), "until": ymd(0),
    }  # fmt: skip
    # 1 session, 1 user, 1 persona groups
    # 3 the filter form checks the role, the level and the interviewer exist
    # 1 count, 1 the page of loops
    # 3 the filters' choices: roles, levels, people on panels
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(12):
        response = client.get(reverse("interviews:loop-list"), query)
    # Odd n (Data Engineer), n % 5 == 0 (Omar), n % 3 != 0 (L5), decided (n % 10 >= 4):
    # n = 5, 25, 35, 55, 65, 85, 95, ... : n % 10 == 5 and n % 3 != 0.
    expected = [n for n in range(ROWS) if n % 10 == 5 and n % 3 != 0]
    assert f"{len(expected)} loops" in response.content.decode()


def test_the_candidate_list_reads_500_candidates_in_a_fixed_number_of_queries(
    client, recruiter, many, django_assert_max_num_queries
):
    client.force_login(fresh(recruiter))
    # 1 session, 1 user, 1 persona groups
    # 1 count for the pagination, 1 the page of candidates with their loop counts
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(6):
        response = client.get(reverse("interviews:candidate-list"), {"q": "example.com"})
    body = response.content.decode()
    assert len(names(body)) == PER_PAGE
    assert "500 candidates" in body


def test_my_interviews_reads_500_interviews_in_a_fixed_number_of_queries(
    client, interviewer, many, django_assert_max_num_queries
):
    client.force_login(fresh(interviewer))
    # 1 session, 1 user, 1 persona groups (navigation)
    # 1 the interviews with loop, candidate, role and level (owed, upcoming and past
    #   are sorted in Python: the past's page is a slice of them)
    # 1 their panels with the users
    # 1 the calibration exercises waiting for the interviewer's scores
    # 1 the interviewer's pools (with their training seats: a second query, and their
    #   load a third, only when they are in a pool)
    # 1 the training seats the interviewer signs off (interviews.pools sign_offs_owed)
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(9):
        response = client.get(reverse("interviews:my-interviews"))
    body = response.content.decode()
    past = [n for n in range(ROWS) if n % 10 >= 4]
    assert len(names(section(body, "Upcoming"))) == ROWS - len(past)  # upcoming is whole
    assert len(names(section(body, "Past"))) == PER_PAGE
    assert f"{len(past)} past interviews" in body


# --- loops -----------------------------------------------------------------------------------


@pytest.fixture
def loops(interviewer, other_interviewer):  # type: ignore[no-untyped-def]
    """Five loops, each differing from the others in one thing a filter reads."""
    ai = RoleFactory(name="AI Infrastructure Engineer")
    data = RoleFactory(name="Data Engineer")
    l4, l5 = Level.objects.get(name="L4"), Level.objects.get(name="L5")
    return {
        "ada": make_loop("Ada Lovelace", role=ai, level=l5, created=day(-40),
                         interviews=[(day(-35), [interviewer])]),
        "bo": make_loop("Bo Chen", role=data, level=l5, created=day(-20),
                        interviews=[(day(-15), [interviewer])]),
        "cy": make_loop("Cy Young", role=ai, level=l4, status=Loop.Status.SCHEDULED,
                        created=day(-10), interviews=[(day(5), [other_interviewer])]),
        # Interviews either side of the window day(-8)..day(-2), none inside it.
        "di": make_loop("Di Ross", role=ai, level=l5, status=Loop.Status.DECIDED,
                        created=day(-30),
                        interviews=[(day(-12), [interviewer]), (day(3), [interviewer])]),
        # Omar on both interviews: listed once.
        "ed": make_loop("Ed Park", role=ai, level=l5, created=day(-1),
                        interviews=[(day(-5), [other_interviewer]),
                                    (day(-4), [other_interviewer, interviewer])]),
    }  # fmt: skip


def listed(page, recruiter, **query: str) -> set[str]:  # type: ignore[no-untyped-def]
    status, body = page(recruiter, "interviews:loop-list", **query)
    assert status == 200, body
    found = names(body)
    assert len(found) == len(set(found)), "a loop is listed twice"
    return set(found)


EVERYONE = {"Ada Lovelace", "Bo Chen", "Cy Young", "Di Ross", "Ed Park"}


def test_each_loop_filter_narrows_the_list(page, recruiter, loops, other_interviewer):
    assert listed(page, recruiter) == EVERYONE
    assert listed(page, recruiter, q="  CHEN ") == {"Bo Chen"}
    assert listed(page, recruiter, status="scheduled") == {"Cy Young"}
    assert listed(page, recruiter, status="decided") == {"Di Ross"}
    assert listed(page, recruiter, role=str(loops["bo"].role_id)) == {"Bo Chen"}
    assert listed(page, recruiter, level=str(loops["cy"].level_id)) == {"Cy Young"}
    assert listed(page, recruiter, interviewer=str(other_interviewer.pk)) == {"Cy Young", "Ed Park"}
    both = listed(page, recruiter, role=str(loops["ada"].role_id), level=str(loops["ada"].level_id))
    assert both == {"Ada Lovelace", "Di Ross", "Ed Park"}


def test_the_loop_date_range_reads_created_or_interview_dates(page, recruiter, loops):
    window = {"since": ymd(-8), "until": ymd(-2)}
    assert listed(page, recruiter, since=ymd(-25)) == {"Bo Chen", "Cy Young", "Ed Park"}
    assert listed(page, recruiter, until=ymd(-25)) == {"Ada Lovelace", "Di Ross"}
    assert listed(page, recruiter, since=ymd(-20), until=ymd(-20)) == {"Bo Chen"}  # both ends in
    assert listed(page, recruiter, **window) == set()  # created: nobody that week
    # Di's interviews straddle the week without one in it: not listed.
    assert listed(page, recruiter, dates="interviews", **window) == {"Ed Park"}
    assert listed(page, recruiter, dates="interviews", since=ymd(0)) == {
        "Cy Young",
        "Di Ross",
    }


def test_the_loop_pages_keep_the_filters_in_their_links(page, recruiter):
    role = RoleFactory(name="AI Infrastructure Engineer")
    for n in range(PER_PAGE + 5):
        make_loop(f"Kim {n:02d}", role=role, level=Level.objects.get(name="L5"))
    make_loop("Someone Else", role=role, level=Level.objects.get(name="L5"))

    status, body = page(recruiter, "interviews:loop-list", q="kim", status="draft")
    assert len(names(body)) == PER_PAGE and "30 loops" in body
    assert 'href="?q=kim&amp;status=draft&amp;page=2"' in body

    status, body = page(recruiter, "interviews:loop-list", q="kim", status="draft", page="2")
    assert status == 200 and len(names(body)) == 5
    assert "Someone Else" not in body
    assert 'href="?q=kim&amp;status=draft&amp;page=1"' in body
    # The form shows what is filtered.
    assert 'value="kim"' in body and '<option value="draft" selected>' in body


def test_a_page_past_the_last_shows_the_last(page, recruiter, loops):
    status, body = page(recruiter, "interviews:loop-list", page="99")
    assert status == 200 and set(names(body)) == EVERYONE


BAD_LOOP_QUERIES = [
    ({"status": "bogus"}, "'status'"),
    ({"role": "abc"}, "'role'"),
    ({"role": "999999"}, "'role'"),
    ({"role": str(2**63)}, "'role'"),
    ({"level": "L5"}, "'level'"),  # an id, as the form sends
    ({"interviewer": "-1"}, "'interviewer'"),
    ({"dates": "yesterday"}, "'dates'"),
    ({"since": "2026-02-30"}, "'since'"),
    ({"until": "soon"}, "'until'"),
    ({"since": "9999-12-31"}, "'since'"),
    ({"since": "2026-05-02", "until": "2026-05-01"}, "'until'"),
    ({"q": "x" * 201}, "'q'"),
    ({"q": "a\x00b"}, "'q'"),
    ({"q": ["a", "b"]}, "'q'"),
    ({"page": "0"}, "'page'"),
]


def short(query: object) -> str:
    return str(query)[:40]


@pytest.mark.parametrize(("query", "named"), BAD_LOOP_QUERIES, ids=short)
def test_a_bad_loop_filter_is_a_400_saying_which_and_writes_nothing(
    client, recruiter, loops, query, named
):
    client.force_login(recruiter)
    before = snapshot()
    response = client.get(reverse("interviews:loop-list"), query)
    assert response.status_code == 400
    assert named in response.content.decode().replace("&#x27;", "'")
    assert snapshot() == before


def test_the_loop_list_is_still_404_for_interviewers(client, interviewer, loops):
    client.force_login(interviewer)
    before = snapshot()
    assert client.get(reverse("interviews:loop-list"), {"status": "draft"}).status_code == 404
    assert snapshot() == before


# --- candidates -----------------------------------------------------------------------------


def test_the_candidate_search_reads_names_and_emails(page, recruiter, loops):
    role = RoleFactory(name="AI Infrastructure Engineer")
    make_loop("Fay Wong", role=role, level=Level.objects.get(name="L5"), email="fw@chen.example")

    def found(**query: str) -> set[str]:
        status, body = page(recruiter, "interviews:candidate-list", **query)
        assert status == 200
        return set(names(body))

    assert found() == EVERYONE | {"Fay Wong"}
    assert found(q="chen") == {"Bo Chen", "Fay Wong"}  # a name, an email
    assert found(q="FW@") == {"Fay Wong"}
    assert found(q="nobody") == set()
    status, body = page(recruiter, "interviews:candidate-list", q="nobody")
    assert status == 200
    assert "No candidates match “nobody”." in body


def test_the_candidate_pages_keep_the_search_in_their_links(page, recruiter, many):
    status, body = page(recruiter, "interviews:candidate-list", q="candidate 0")
    assert "100 candidates" in body and "Page 1 of 4" in body
    assert 'href="?q=candidate+0&amp;page=2"' in body
    status, body = page(recruiter, "interviews:candidate-list", q="candidate 0", page="4")
    assert status == 200
    assert len(names(body)) == PER_PAGE and all(n.startswith("Candidate 0") for n in names(body))


@pytest.mark.parametrize(
    "query", [{"q": "x" * 201}, {"q": "\x00"}, {"q": ["a", "b"]}, {"page": "abc"}], ids=short
)
def test_a_bad_candidate_search_is_a_400_and_writes_nothing(client, recruiter, loops, query):
    client.force_login(recruiter)
    before = snapshot()
    response = client.get(reverse("interviews:candidate-list"), query)
    assert response.status_code == 400
    assert f"'{next(iter(query))}'" in response.content.decode().replace("&#x27;", "'")
    assert snapshot() == before


# --- my interviews ------------------------------------------------------------------------


def test_my_interviews_search_and_dates_narrow_every_section(page, interviewer, loops):
    def mine(**query: str) -> dict[str, set[str]]:
        status, body = page(interviewer, "interviews:my-interviews", **query)
        assert status == 200
        return {title: set(names(section(body, title))) for title in ("Upcoming", "Past")}

    # Ines: Ada (held, owed), Bo (held, owed), Di (decided: both past), Ed (held, owed).
    everything = mine()
    assert everything["Past"] == {"Di Ross"}
    assert mine(q="ross") == {"Upcoming": set(), "Past": {"Di Ross"}}
    assert mine(q="coding")["Past"] == {"Di Ross"}  # the interview's title
    assert mine(q="design") == {"Upcoming": set(), "Past": set()}
    status, body = page(interviewer, "interviews:my-interviews", since=ymd(-16), until=ymd(-14))
    assert set(names(body)) == {"Bo Chen"}
    status, body = page(interviewer, "interviews:my-interviews", since=ymd(0))
    assert status == 200
    assert set(names(body)) == {"Di Ross"}  # its interview in three days


def test_my_past_interviews_come_in_pages_that_keep_the_search(page, interviewer, many):
    past = [n for n in range(ROWS) if n % 10 >= 4]
    status, body = page(interviewer, "interviews:my-interviews")
    pages = -(-len(past) // PER_PAGE)
    assert f"Page 1 of {pages}" in body
    # Newest first: loop n was held n hours ago.
    assert names(section(body, "Past"))[:2] == ["Candidate 004", "Candidate 005"]
    assert 'href="?page=2#past"' in body

    status, body = page(interviewer, "interviews:my-interviews", q="candidate 1", page="2")
    assert status == 200
    # Candidates 100..199 whose n % 10 >= 4: 60 past interviews, on three pages.
    assert "Page 2 of 3" in body
    assert 'href="?q=candidate+1&amp;page=3#past"' in body
    assert len(names(section(body, "Past"))) == PER_PAGE
    assert all(n.startswith("Candidate 1") for n in names(body))


@pytest.mark.parametrize(
    ("query", "named"),
    [({"since": "31/12/2026"}, "'since'"), ({"until": "2026-13-01"}, "'until'"),
     ({"since": "2026-06-02", "until": "2026-06-01"}, "'until'"), ({"q": "x" * 201}, "'q'"),
     ({"page": "-1"}, "'page'")],
    ids=short,
)  # fmt: skip
def test_a_bad_my_interviews_filter_is_a_400_and_writes_nothing(
    client, interviewer, loops, query, named
):
    client.force_login(interviewer)
    before = snapshot()
    response = client.get(reverse("interviews:my-interviews"), query)
    assert response.status_code == 400
    assert named in response.content.decode().replace("&#x27;", "'")
    assert snapshot() == before
