"""The audit log: sensitive actions, visible to calibration leads and exportable."""

import csv
import io
import json
import re
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from core.models import AuditEvent
from core.permissions import INTERVIEWER, LEAD
from kit.selectors import question_as_dict
from tests.conftest import client_for, make_user
from tests.kit.admin_forms import change_form_data
from tests.support.factories import RoleFactory, make_question


def record(actor, action: str, target: str, **data) -> AuditEvent:  # type: ignore[no-untyped-def]
    return AuditEvent.objects.create(actor=actor, action=action, target=target, data=data)


def test_a_lead_reads_the_log_newest_first_and_filters_it(client, lead, recruiter):
    record(recruiter, "loop.decided", "Ada · L5", decision="hire")
    record(lead, "calibration.exported", "AI Infrastructure Engineer all levels", table="questions")
    client.force_login(lead)

    body = client.get("/audit/").content.decode()
    assert body.index("calibration.exported") < body.index("loop.decided")
    assert "decision: hire" in body

    filtered = client.get("/audit/?action=loop.decided").content.decode()
    assert "Ada · L5" in filtered
    assert "AI Infrastructure Engineer all levels" not in filtered


def test_a_lead_downloads_the_log_as_csv(client, lead, recruiter):
    event = record(recruiter, "scorecard.amended", "ines on Training", reason="typo")
    client.force_login(lead)

    response = client.get("/audit/?format=csv")

    assert response["Content-Disposition"] == 'attachment; filename="audit-log.csv"'
    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows == [
        ["at", "actor", "action", "target", "details"],
        [
            event.at.isoformat(),
            "rita",
            "scorecard.amended",
            "ines on Training",
            '{"reason": "typo"}',
        ],
    ]


def test_everyone_but_leads_gets_404(client, recruiter, interviewer):
    record(recruiter, "loop.decided", "Ada · L5")
    for user in (recruiter, interviewer):
        client.force_login(user)
        assert client.get("/audit/").status_code == 404
        assert client.get("/audit/?format=csv").status_code == 404


def test_the_page_reads_many_events_in_a_fixed_number_of_queries(
    client, lead, recruiter, django_assert_max_num_queries
):
    for n in range(150):
        record(recruiter, "loop.decided", f"Loop {n}")
    client.force_login(lead)
    # 1 session, 2 user, 3 persona groups, 4 distinct actions, 5 count, 6 the page of events
    # with their actors, 7 the actors to filter by
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(8):
        assert client.get("/audit/").status_code == 200


# --- events from the question bank and the admin ------------------------------------------------


def retire_and_promote(interviewer) -> None:  # type: ignore[no-untyped-def]
    """Retire a question through the API and make the interviewer staff in the admin."""
    question = make_question(role=RoleFactory(name="AI Infrastructure Engineer"), title="Old one")
    lead = make_user("lena", LEAD)
    body = question_as_dict(question)
    levels = body.pop("levels")
    body.update(min_level=levels["min"], max_level=levels["max"], status="retired")
    response = client_for(lead).put(f"/api/v1/questions/{question.pk}/", body, format="json")
    assert response.status_code == 200
    admin = Client()
    admin.force_login(User.objects.create_superuser("root", "root@example.com", "pw"))
    url = f"/admin/auth/user/{interviewer.pk}/change/"
    assert admin.post(url, {**change_form_data(admin, url), "is_staff": "on"}).status_code == 302


def test_a_lead_sees_questions_retired_and_permissions_changed(client, lead, interviewer):
    retire_and_promote(interviewer)
    client.force_login(lead)

    body = client.get("/audit/").content.decode()
    retired = client.get("/audit/?action=question.retired").content.decode()

    assert "<option >permissions.changed</option>" in body
    assert "<option >question.retired</option>" in body
    assert body.index("permissions.changed</code>") < body.index("question.retired</code>")
    assert "user ines" in body
    assert "user: ines" in body
    assert "is_staff: no → yes" in body
    assert "Old one (AI Infrastructure Engineer)" in retired
    assert "status: active → retired" in retired
    assert "user ines" not in retired


def test_the_csv_includes_questions_retired_and_permissions_changed(client, lead, interviewer):
    retire_and_promote(interviewer)
    question = AuditEvent.objects.get(action="question.retired")
    permissions = AuditEvent.objects.get(action="permissions.changed")
    client.force_login(lead)

    response = client.get("/audit/?format=csv")

    rows = list(csv.reader(io.StringIO(response.content.decode())))
    assert rows[0] == ["at", "actor", "action", "target", "details"]
    # PostgreSQL keeps JSON keys in its own order, so the details are compared decoded.
    assert [(*row[:4], json.loads(row[4])) for row in rows[1:]] == [
        (
            permissions.at.isoformat(),
            "root",
            "permissions.changed",
            "user ines",
            {"user": "ines", "is_staff": "no → yes"},
        ),
        (
            question.at.isoformat(),
            "lena",
            "question.retired",
            "Old one (AI Infrastructure Engineer)",
            {"question": question.data["question"], "status": "active → retired"},
        ),
    ]


def test_interviewers_and_recruiters_get_404_for_the_new_events_too(client, recruiter, interviewer):
    retire_and_promote(make_user("ivan", INTERVIEWER))
    for user in (recruiter, interviewer):
        client.force_login(user)
        for url in ("/audit/", "/audit/?format=csv", "/audit/?action=permissions.changed"):
            assert client.get(url).status_code == 404
    assert AuditEvent.objects.count() == 2


# --- filters: who, action, dates; the CSV honours them ------------------------------------------


def dated(actor, action: str, target: str, days_ago: int) -> AuditEvent:  # type: ignore[no-untyped-def]
    event = record(actor, action, target)
    at = timezone.now() - timedelta(days=days_ago)
    AuditEvent.objects.filter(pk=event.pk).update(at=at)
    event.at = at
    return event


def targets(body: str) -> list[str]:
    return re.findall(r'<td data-label="What">([^<]*)</td>', body)


def csv_targets(response) -> list[str]:  # type: ignore[no-untyped-def]
    return [row[3] for row in list(csv.reader(io.StringIO(response.content.decode())))[1:]]


@pytest.fixture
def events(lead, recruiter) -> None:  # type: ignore[no-untyped-def]
    dated(recruiter, "loop.decided", "Ada", 30)
    dated(recruiter, "scorecard.amended", "Bo", 10)
    dated(lead, "loop.decided", "Cy", 5)
    dated(lead, "calibration.exported", "Di", 0)


def test_each_audit_filter_narrows_the_log_and_the_csv(client, lead, recruiter, events):
    client.force_login(lead)
    since, until = (timezone.localdate() - timedelta(days=d) for d in (12, 4))
    cases = [
        ({}, ["Di", "Cy", "Bo", "Ada"]),
        ({"actor": recruiter.pk}, ["Bo", "Ada"]),
        ({"action": "loop.decided"}, ["Cy", "Ada"]),
        ({"actor": lead.pk, "action": "loop.decided"}, ["Cy"]),
        ({"since": since.isoformat()}, ["Di", "Cy", "Bo"]),
        ({"until": until.isoformat()}, ["Cy", "Bo", "Ada"]),
        ({"since": since.isoformat(), "until": until.isoformat()}, ["Cy", "Bo"]),
        ({"action": "nothing.like.this"}, []),
    ]
    for query, expected in cases:
        assert targets(client.get("/audit/", query).content.decode()) == expected, query
        assert csv_targets(client.get("/audit/", {**query, "format": "csv"})) == expected, query


def test_the_actor_choices_are_the_people_in_the_log(client, lead, recruiter, interviewer, events):
    client.force_login(lead)
    body = client.get("/audit/").content.decode()
    assert f'<option value="{recruiter.pk}">rita</option>' in body
    assert f'<option value="{lead.pk}">leo</option>' in body
    assert f'<option value="{interviewer.pk}">' not in body  # never acted


def test_the_download_link_and_pages_keep_the_filters(client, lead, recruiter):
    for n in range(150):
        record(recruiter, "loop.decided", f"Loop {n}")
    client.force_login(lead)
    body = client.get("/audit/", {"actor": recruiter.pk, "action": "loop.decided"}).content.decode()
    query = f"actor={recruiter.pk}&amp;action=loop.decided"
    assert f'href="?{query}&amp;format=csv"' in body
    assert f'href="?{query}&amp;page=2"' in body
    second = client.get(
        "/audit/", {"actor": recruiter.pk, "action": "loop.decided", "page": 2}
    ).content.decode()
    assert len(targets(second)) == 50
    assert f'href="?{query}&amp;page=1"' in second


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ({"actor": "abc"}, "actor"),
        ({"actor": "999999"}, "actor"),
        ({"since": "2026-02-30"}, "since"),
        ({"until": "0000-00-00"}, "until"),
        ({"since": "9999-12-31"}, "since"),
        ({"since": "2026-05-02", "until": "2026-05-01"}, "until"),
        ({"action": "x" * 201}, "action"),
        ({"actor": ["1", "2"]}, "actor"),
    ],
    ids=lambda value: str(value)[:30],
)
def test_a_bad_audit_filter_is_a_400_naming_it_for_the_page_and_the_csv(
    client, lead, events, query, named
):
    client.force_login(lead)
    before = list(AuditEvent.objects.order_by("pk").values())
    for extra in ({}, {"format": "csv"}):
        response = client.get("/audit/", {**query, **extra})
        assert response.status_code == 400
        assert f"&#x27;{named}&#x27;" in response.content.decode()
    assert list(AuditEvent.objects.order_by("pk").values()) == before


def test_the_log_reads_500_events_filtered_in_a_fixed_number_of_queries(
    client, lead, recruiter, django_assert_max_num_queries
):
    AuditEvent.objects.bulk_create(
        AuditEvent(actor=recruiter, action="loop.decided", target=f"Loop {n}") for n in range(500)
    )
    client.force_login(User.objects.get(pk=lead.pk))
    query = {"actor": recruiter.pk, "action": "loop.decided", "since": "2000-01-01"}
    # 1 session, 2 user, 3 persona groups
    # 4 the filter form checks the actor exists
    # 5 distinct actions, 6 count, 7 the page of events with their actors
    # 8 the actors to filter by
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(9):
        body = client.get("/audit/", query).content.decode()
    assert len(targets(body)) == 100 and "500 events" in body
    # 1 session, 2 user, 3 persona groups, 4 the actor, 5 the events with their actors
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(6):
        response = client.get("/audit/", {**query, "format": "csv"})
        assert len(csv_targets(response)) == 500
