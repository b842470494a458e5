"""A candidate's data: exported on request, erased on request, ratings kept anonymous."""

from core.models import AuditEvent
from interviews.models import Candidate, Loop
from scoring.models import QuestionRating, Scorecard
from scoring.rights import services as rights_services
from scoring.scorecards import services
from tests.conftest import client_for
from tests.problems import detail
from tests.scoring.helpers import submitted
from tests.support.loops import Built


def scored(panel: Built, interviewer, pia):  # type: ignore[no-untyped-def]
    first = panel.interviews[0]
    submitted(interviewer, first, notes="Said paging twice", summary="Clear on memory")
    submitted(pia, first, rating=2, notes="Missed bytes", summary="Shaky on numbers")
    return panel.loop.candidate


def test_a_recruiter_exports_everything_held_and_the_export_is_audited(
    panel, interviewer, pia, recruiter
):
    candidate = scored(panel, interviewer, pia)

    response = client_for(recruiter).get(f"/api/v1/candidates/{candidate.pk}/export/")

    assert response.status_code == 200
    body = response.json()
    assert body["candidate"]["email"] == "c@example.com"
    cards = body["loops"][0]["interviews"][0]["scorecards"]
    assert {c["interviewer"]["username"] for c in cards} == {"ines", "pia"}
    notes = [r["notes"] for c in cards for r in c["ratings"]]
    assert "Said paging twice (question 1)" in notes
    event = AuditEvent.objects.get(action="candidate.exported")
    assert (event.actor, event.target) == (recruiter, f"candidate {candidate.pk}")


def test_erasing_removes_personal_data_and_free_text_but_keeps_the_ratings(
    panel, interviewer, pia, recruiter
):
    candidate = scored(panel, interviewer, pia)
    services.loop_decide(loop=panel.loop, by=recruiter, decision="no_hire", rationale="Seen enough")
    ratings_before = sorted(QuestionRating.objects.values_list("pk", "rating", "scorecard_id"))

    response = client_for(recruiter).post(f"/api/v1/candidates/{candidate.pk}/erase/")

    assert response.status_code == 200
    candidate.refresh_from_db()
    assert (candidate.name, candidate.email, candidate.phone, candidate.notes) == (
        f"Erased candidate {candidate.pk}", "", "", "",
    )  # fmt: skip
    assert candidate.erased_at is not None
    assert set(Scorecard.objects.values_list("summary", flat=True)) == {""}
    assert set(QuestionRating.objects.values_list("notes", flat=True)) == {""}
    assert Loop.objects.get().decision_rationale == "(erased)"
    assert Loop.objects.get().decision == "no_hire"
    assert sorted(QuestionRating.objects.values_list("pk", "rating", "scorecard_id")) == (
        ratings_before
    )
    assert AuditEvent.objects.filter(action="candidate.erased").count() == 1


def test_erasing_twice_is_refused(panel, recruiter):
    candidate = panel.loop.candidate
    rights_services.candidate_erase(candidate=candidate, by=recruiter)

    response = client_for(recruiter).post(f"/api/v1/candidates/{candidate.pk}/erase/")

    assert detail(response, 409, "candidate_already_erased") == (
        "This candidate's data was already erased."
    )
    assert AuditEvent.objects.filter(action="candidate.erased").count() == 1


def test_nobody_but_a_recruiter_exports_or_erases(panel, interviewer, lead):
    candidate = panel.loop.candidate
    for user in (interviewer, lead):
        client = client_for(user)
        assert client.get(f"/api/v1/candidates/{candidate.pk}/export/").status_code == 404
        assert client.post(f"/api/v1/candidates/{candidate.pk}/erase/").status_code == 404
    candidate.refresh_from_db()
    assert candidate.erased_at is None
    assert candidate.email == "c@example.com"
    assert not AuditEvent.objects.exists()


def test_the_page_needs_the_word_erase_to_confirm(client, panel, recruiter):
    candidate = panel.loop.candidate
    client.force_login(recruiter)

    response = client.post(f"/candidates/{candidate.pk}/erase/", {"confirm": "yes"}, follow=True)

    assert "Type erase to confirm." in response.content.decode()
    assert Candidate.objects.get(pk=candidate.pk).erased_at is None

    response = client.post(f"/candidates/{candidate.pk}/erase/", {"confirm": "erase"}, follow=True)

    assert "Personal data erased" in response.content.decode()
    assert Candidate.objects.get(pk=candidate.pk).erased_at is not None


def test_the_page_download_is_json_for_recruiters_only(client, panel, recruiter, interviewer):
    candidate = panel.loop.candidate
    client.force_login(interviewer)
    assert client.get(f"/candidates/{candidate.pk}/export.json").status_code == 404
    client.force_login(recruiter)

    response = client.get(f"/candidates/{candidate.pk}/export.json")

    assert (
        response["Content-Disposition"] == f'attachment; filename="candidate-{candidate.pk}.json"'
    )
    assert response.json()["candidate"]["name"] == "Casey Quinn"
