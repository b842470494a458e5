"""The audit log: sensitive actions, visible to calibration leads and exportable."""

import csv
import io

from scoring.models import AuditEvent


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
    # with their actors
    with django_assert_max_num_queries(6):
        assert client.get("/audit/").status_code == 200
