"""A question retired or restored is audited, on every path that changes its status:
the API (PUT /api/v1/questions/{id}/), the admin's change form and import_questions."""

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management.base import CommandError
from django.test import Client

from core.models import AuditEvent
from kit.models import Question
from kit.selectors import question_as_dict
from tests.conftest import client_for, make_user
from tests.kit.admin_forms import change_form_data
from tests.kit.bank import ROLE, run, snapshot
from tests.problems import NOT_ALLOWED, NOT_FOUND, detail, field_errors, not_signed_in
from tests.support.factories import RoleFactory, make_question


@pytest.fixture
def question(db: None) -> Question:
    return make_question(role=RoleFactory(name=ROLE), title="Ring allreduce", min_level="L4")


def body(question: Question, **changes: Any) -> dict[str, Any]:
    """Return the PUT body that leaves `question` as it is, but for `changes`."""
    data = question_as_dict(Question.objects.get(pk=question.pk))
    levels = data.pop("levels")
    data.update(min_level=levels["min"], max_level=levels["max"])
    data.update(changes)
    return data


def events() -> list[tuple[str | None, str, str, dict[str, Any]]]:
    return [
        (e.actor.username if e.actor else None, e.action, e.target, e.data)
        for e in AuditEvent.objects.select_related("actor").order_by("pk")
    ]


def put(user: User, question: Question, **changes: Any) -> Any:
    return client_for(user).put(
        f"/api/v1/questions/{question.pk}/", body(question, **changes), format="json"
    )


# --- the API ----------------------------------------------------------------------------------


def test_it_records_who_retired_which_question_through_the_api(
    lead: User, question: Question
) -> None:
    response = put(lead, question, status="retired")

    assert (response.status_code, response.json()["status"]) == (200, "retired")
    assert events() == [
        (
            "leo",
            "question.retired",
            f"Ring allreduce ({ROLE})",
            {"question": question.pk, "status": "active → retired"},
        )
    ]


def test_it_records_a_question_brought_back_from_retirement(lead: User, question: Question) -> None:
    put(lead, question, status="retired")

    response = put(lead, question, status="draft")

    assert response.status_code == 200
    assert events()[1] == (
        "leo",
        "question.restored",
        f"Ring allreduce ({ROLE})",
        {"question": question.pk, "status": "retired → draft"},
    )


def test_it_records_the_retirement_together_with_a_content_edit(
    lead: User, question: Question
) -> None:
    response = put(lead, question, status="retired", outline="Rewritten. Entirely.")

    assert response.status_code == 200
    assert [e[1] for e in events()] == ["question.retired"]


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"title": "Ring allreduce, renamed"},
        {"status": "draft"},
        {"outline": "Rewritten. Entirely."},
    ],
    ids=["nothing", "title", "active-to-draft", "content"],
)
def test_it_records_nothing_for_edits_that_neither_retire_nor_restore(
    lead: User, question: Question, changes: dict[str, Any]
) -> None:
    response = put(lead, question, **changes)

    assert response.status_code == 200
    assert events() == []


def test_it_records_nothing_when_a_retired_question_is_saved_unchanged(
    lead: User, question: Question
) -> None:
    put(lead, question, status="retired")

    put(lead, question, status="retired", title="Ring allreduce (old)")

    assert [e[1] for e in events()] == ["question.retired"]


def test_it_does_not_count_a_question_created_retired_as_a_retirement(lead: User, db: None) -> None:
    # Restoring an exported bank that holds retired questions would otherwise flood the log.
    make_question(role=RoleFactory(name=ROLE), status="retired")

    assert events() == []


@pytest.mark.parametrize("persona", ["interviewer", "recruiter"])
def test_it_refuses_a_retirement_from_anyone_but_a_lead_writing_nothing(
    request: pytest.FixtureRequest, question: Question, persona: str
) -> None:
    before = snapshot()

    response = put(request.getfixturevalue(persona), question, status="retired")

    assert detail(response, 403, "permission_denied") == NOT_ALLOWED
    assert snapshot() == before
    assert events() == []


def test_it_refuses_an_anonymous_retirement_writing_nothing(question: Question) -> None:
    before = snapshot()

    response = Client().put(
        f"/api/v1/questions/{question.pk}/",
        json.dumps(body(question, status="retired")),
        content_type="application/json",
    )

    not_signed_in(response)
    assert snapshot() == before
    assert events() == []


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"status": "gone"}, "status"),
        ({"min_level": "L6", "max_level": "L4"}, "min_level"),
        ({"scale_max": 1}, "scale_max"),
        ({"role": "ML Platform Engineer"}, "role"),
    ],
    ids=["bad-status", "reversed-levels", "bad-scale", "other-role"],
)
def test_it_writes_nothing_when_a_retirement_comes_with_bad_input(
    lead: User, question: Question, changes: dict[str, Any], field: str
) -> None:
    RoleFactory(name="ML Platform Engineer")
    before = snapshot()

    response = put(lead, question, **{"status": "retired", **changes})

    assert list(field_errors(response)) == [field]
    assert snapshot() == before
    assert events() == []


def test_it_answers_404_to_a_lead_retiring_an_unknown_question(
    lead: User, question: Question
) -> None:
    response = client_for(lead).put(
        "/api/v1/questions/999999/", body(question, status="retired"), format="json"
    )

    assert detail(response, 404, "not_found") == NOT_FOUND
    assert events() == []


# --- the admin's change form ------------------------------------------------------------------


def url(question: Question) -> str:
    return f"/admin/kit/question/{question.pk}/change/"


@pytest.fixture
def root(db: None) -> User:
    return User.objects.create_superuser("root", "root@example.com", "pw")


def test_it_records_a_retirement_made_on_the_admin_change_form(
    client: Client, root: User, question: Question
) -> None:
    client.force_login(root)
    data = change_form_data(client, url(question))

    response = client.post(url(question), {**data, "status": "retired"})

    assert response.status_code == 302
    assert Question.objects.get(pk=question.pk).status == "retired"
    assert events() == [
        (
            "root",
            "question.retired",
            f"Ring allreduce ({ROLE})",
            {"question": question.pk, "status": "active → retired"},
        )
    ]


def test_it_records_a_restoration_made_on_the_admin_change_form(
    client: Client, root: User, question: Question
) -> None:
    Question.objects.filter(pk=question.pk).update(status="retired")
    client.force_login(root)
    data = change_form_data(client, url(question))

    client.post(url(question), {**data, "status": "active"})

    assert [(e[1], e[3]["status"]) for e in events()] == [("question.restored", "retired → active")]


def test_other_admin_changes_are_admin_changes_not_retirements(
    client: Client, root: User, question: Question
) -> None:
    client.force_login(root)
    data = change_form_data(client, url(question))

    response = client.post(url(question), {**data, "title": "Ring allreduce, renamed"})

    assert response.status_code == 302
    assert [(e[1], e[3]["title"]) for e in events()] == [
        ("admin.changed", "Ring allreduce → Ring allreduce, renamed")
    ]


def test_it_writes_nothing_when_the_admin_form_is_invalid(
    client: Client, root: User, question: Question
) -> None:
    client.force_login(root)
    data = change_form_data(client, url(question))
    before = snapshot()

    response = client.post(url(question), {**data, "status": "retired", "title": ""})

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {"title": ["This field is required."]}
    assert snapshot() == before
    assert events() == []


def test_the_admin_refuses_people_who_are_not_staff_writing_nothing(
    client: Client, lead: User, question: Question
) -> None:
    client.force_login(lead)

    response = client.post(url(question), {"status": "retired"})

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    assert Question.objects.get(pk=question.pk).status == "active"
    assert events() == []


def test_the_admin_refuses_staff_who_may_only_view_questions_writing_nothing(
    client: Client, question: Question
) -> None:
    staff = make_user("stan", is_staff=True)  # type: ignore[arg-type]
    staff.user_permissions.add(Permission.objects.get(codename="view_question"))
    client.force_login(staff)
    data = change_form_data(client, url(question))

    response = client.post(url(question), {**data, "status": "retired"})

    assert response.status_code == 403
    assert Question.objects.get(pk=question.pk).status == "active"
    assert events() == []


# --- import_questions -------------------------------------------------------------------------


def test_it_records_a_retirement_made_by_import_questions(
    question: Question, tmp_path: Path
) -> None:
    out, _ = run("export_questions", "--format", "json")
    document = json.loads(out)
    document["questions"][0]["status"] = "retired"
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(document))

    run("import_questions", str(path))

    # A command has no signed-in user: the log shows no actor.
    assert events() == [
        (
            None,
            "question.retired",
            f"Ring allreduce ({ROLE})",
            {"question": question.pk, "status": "active → retired"},
        )
    ]


def test_it_writes_nothing_when_an_import_that_retires_a_question_fails(
    question: Question, tmp_path: Path
) -> None:
    out, _ = run("export_questions", "--format", "json")
    document = json.loads(out)
    document["questions"][0]["status"] = "retired"
    document["questions"].append({**document["questions"][0], "title": "Bad", "scale_max": 1})
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(document))
    before = snapshot()

    with pytest.raises(CommandError):
        run("import_questions", str(path))

    assert snapshot() == before
    assert events() == []
