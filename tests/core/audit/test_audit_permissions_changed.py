"""Changes to what people may do, made in the Django admin, are audited: a user's groups,
flags and own permissions, and a group's name and permissions; who, whom, before → after."""

from typing import Any

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from core.models import AuditEvent
from core.permissions import INTERVIEWER, LEAD, RECRUITER
from tests.conftest import make_user
from tests.kit.admin_forms import change_form_data


@pytest.fixture
def root(db: None) -> User:
    return User.objects.create_superuser("root", "root@example.com", "pw")


@pytest.fixture
def admin(client: Client, root: User) -> Client:
    client.force_login(root)
    return client


def user_url(user: User) -> str:
    return f"/admin/auth/user/{user.pk}/change/"


def group_url(group: Group) -> str:
    return f"/admin/auth/group/{group.pk}/change/"


def group_ids(*names: str) -> list[str]:
    return [str(pk) for pk in Group.objects.filter(name__in=names).values_list("pk", flat=True)]


def permission_ids(*codenames: str) -> list[str]:
    permissions = Permission.objects.filter(codename__in=codenames)
    return [str(pk) for pk in permissions.values_list("pk", flat=True)]


def events() -> list[tuple[str | None, str, str, dict[str, Any]]]:
    return [
        (e.actor.username if e.actor else None, e.action, e.target, e.data)
        for e in AuditEvent.objects.select_related("actor").order_by("pk")
    ]


def access(user: User) -> tuple[Any, ...]:
    user = User.objects.get(pk=user.pk)
    return (
        user.is_active,
        user.is_staff,
        user.is_superuser,
        sorted(user.groups.values_list("name", flat=True)),
        sorted(user.user_permissions.values_list("codename", flat=True)),
    )


# --- users ------------------------------------------------------------------------------------


def test_it_records_who_gave_whom_a_persona_and_staff_status(
    admin: Client, interviewer: User
) -> None:
    data = change_form_data(admin, user_url(interviewer))

    response = admin.post(
        user_url(interviewer),
        {**data, "groups": group_ids(INTERVIEWER, LEAD), "is_staff": "on"},
    )

    assert response.status_code == 302
    assert events() == [
        (
            "root",
            "permissions.changed",
            "user ines",
            {
                "user": "ines",
                "is_staff": "no → yes",
                "groups": "Interviewers → Calibration leads, Interviewers",
            },
        )
    ]


def test_it_records_superuser_deactivation_and_own_permissions(
    admin: Client, recruiter: User
) -> None:
    data = change_form_data(admin, user_url(recruiter))
    data.pop("is_active")

    admin.post(
        user_url(recruiter),
        {
            **data,
            "is_superuser": "on",
            "groups": [],
            "user_permissions": permission_ids("change_question", "view_auditevent"),
        },
    )

    assert events() == [
        (
            "root",
            "permissions.changed",
            "user rita",
            {
                "user": "rita",
                "is_active": "yes → no",
                "is_superuser": "no → yes",
                "groups": "Recruiters → none",
                "user_permissions": "none → core.view_auditevent, kit.change_question",
            },
        )
    ]


def test_it_records_permissions_taken_away(admin: Client, recruiter: User) -> None:
    recruiter.user_permissions.add(*Permission.objects.filter(codename="change_question"))
    data = change_form_data(admin, user_url(recruiter))

    admin.post(user_url(recruiter), {**data, "user_permissions": []})

    assert events()[0][3] == {"user": "rita", "user_permissions": "kit.change_question → none"}


def test_it_records_the_staff_member_who_made_the_change(client: Client, interviewer: User) -> None:
    staff = make_user("stan", is_staff=True)  # type: ignore[arg-type]
    may_edit_users = Permission.objects.filter(codename__in=["view_user", "change_user"])
    staff.user_permissions.add(*may_edit_users)
    client.force_login(staff)
    data = change_form_data(client, user_url(interviewer))

    client.post(user_url(interviewer), {**data, "groups": group_ids(RECRUITER)})

    assert events() == [
        (
            "stan",
            "permissions.changed",
            "user ines",
            {"user": "ines", "groups": "Interviewers → Recruiters"},
        )
    ]


def test_a_name_or_email_change_is_an_admin_change_not_a_permissions_change(
    admin: Client, interviewer: User
) -> None:
    data = change_form_data(admin, user_url(interviewer))

    response = admin.post(
        user_url(interviewer), {**data, "first_name": "Inès", "email": "ines@example.org"}
    )

    assert response.status_code == 302
    assert User.objects.get(pk=interviewer.pk).first_name == "Inès"
    assert [(actor, action) for actor, action, _, _ in events()] == [("root", "admin.changed")]
    ((_, _, target, data),) = events()
    assert (target, data["model"], data["id"]) == (
        f"user {interviewer.username}",
        "auth.user",
        interviewer.pk,
    )
    assert (data["first_name"], data["email"]) == (
        f"{interviewer.first_name} → Inès",
        f"{interviewer.email} → ines@example.org",
    )


def test_a_user_added_with_a_name_and_password_is_an_admin_addition_without_the_password(
    admin: Client, db: None
) -> None:
    response = admin.post(
        "/admin/auth/user/add/",
        {
            "username": "newbie",
            "usable_password": "true",
            "password1": "a-long-passphrase-1",
            "password2": "a-long-passphrase-1",
        },
    )

    assert response.status_code == 302
    newbie = User.objects.get(username="newbie")
    assert events() == [
        (
            "root",
            "admin.added",
            "user newbie",
            {"model": "auth.user", "id": newbie.pk, "username": "newbie"},
        )
    ]
    assert "a-long-passphrase-1" not in str(events())


def test_it_writes_nothing_when_the_user_form_is_invalid(admin: Client, interviewer: User) -> None:
    data = change_form_data(admin, user_url(interviewer))
    before = access(interviewer)

    response = admin.post(
        user_url(interviewer),
        {**data, "username": "", "is_superuser": "on", "groups": group_ids(LEAD)},
    )

    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["username"]
    assert access(interviewer) == before
    assert events() == []


def test_it_writes_nothing_when_a_group_does_not_exist(admin: Client, interviewer: User) -> None:
    data = change_form_data(admin, user_url(interviewer))
    before = access(interviewer)

    response = admin.post(user_url(interviewer), {**data, "groups": ["999999"]})

    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["groups"]
    assert access(interviewer) == before
    assert events() == []


@pytest.mark.parametrize("persona", ["lead", "recruiter", "interviewer"])
def test_the_admin_sends_people_who_are_not_staff_to_sign_in_writing_nothing(
    request: pytest.FixtureRequest, client: Client, persona: str, other_interviewer: User
) -> None:
    client.force_login(request.getfixturevalue(persona))
    before = access(other_interviewer)

    response = client.post(
        user_url(other_interviewer),
        {"username": "omar", "is_superuser": "on", "groups": group_ids(LEAD)},
    )

    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/")
    assert access(other_interviewer) == before
    assert events() == []


def test_the_admin_refuses_staff_who_may_only_view_users_writing_nothing(
    client: Client, interviewer: User
) -> None:
    staff = make_user("stan", is_staff=True)  # type: ignore[arg-type]
    staff.user_permissions.add(Permission.objects.get(codename="view_user"))
    client.force_login(staff)
    data = change_form_data(client, user_url(interviewer))
    before = access(interviewer)

    response = client.post(user_url(interviewer), {**data, "groups": group_ids(LEAD)})
    own = client.post(user_url(staff), {**data, "username": "stan", "is_superuser": "on"})

    assert (response.status_code, own.status_code) == (403, 403)
    assert access(interviewer) == before
    assert User.objects.get(pk=staff.pk).is_superuser is False
    assert events() == []


# --- groups -----------------------------------------------------------------------------------


def test_it_records_permissions_given_to_a_group(admin: Client, db: None) -> None:
    group = Group.objects.get(name=INTERVIEWER)
    data = change_form_data(admin, group_url(group))

    response = admin.post(
        group_url(group),
        {**data, "permissions": permission_ids("view_question", "change_question")},
    )

    assert response.status_code == 302
    assert events() == [
        (
            "root",
            "permissions.changed",
            "group Interviewers",
            {
                "group": "Interviewers",
                "permissions": "none → kit.change_question, kit.view_question",
            },
        )
    ]


def test_it_records_a_persona_group_renamed(admin: Client, db: None) -> None:
    # Personas are found by group name: renaming the group takes the persona from its members.
    group = Group.objects.get(name=LEAD)
    data = change_form_data(admin, group_url(group))

    admin.post(group_url(group), {**data, "name": "Leads"})

    assert events() == [
        (
            "root",
            "permissions.changed",
            "group Leads",
            {"group": "Leads", "name": "Calibration leads → Leads"},
        )
    ]


def test_it_records_a_group_added_with_permissions_but_not_an_empty_one(
    admin: Client, db: None
) -> None:
    admin.post("/admin/auth/group/add/", {"name": "Empty"})
    admin.post(
        "/admin/auth/group/add/",
        {"name": "Auditors", "permissions": permission_ids("view_auditevent")},
    )

    assert events() == [
        (
            "root",
            "permissions.changed",
            "group Auditors",
            {"group": "Auditors", "permissions": "none → core.view_auditevent"},
        )
    ]


def test_it_records_a_group_deleted_with_its_members(
    admin: Client, lead: User, recruiter: User
) -> None:
    group = Group.objects.get(name=LEAD)
    group.permissions.add(Permission.objects.get(codename="view_auditevent"))
    User.objects.get(username="rita").groups.add(group)

    response = admin.post(f"/admin/auth/group/{group.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Group.objects.filter(name=LEAD).exists()
    assert events() == [
        (
            "root",
            "permissions.changed",
            "group Calibration leads",
            {
                "group": "Calibration leads",
                "name": "Calibration leads → deleted",
                "members": "leo, rita → none",
                "permissions": "core.view_auditevent → none",
            },
        )
    ]


def test_it_records_each_group_deleted_from_the_list(admin: Client, lead: User) -> None:
    Group.objects.create(name="Spare")
    selected = group_ids(LEAD, "Spare")

    response = admin.post(
        "/admin/auth/group/",
        {"action": "delete_selected", "_selected_action": selected, "post": "yes"},
    )

    assert response.status_code == 302
    assert sorted((e[2], e[3]["members"]) for e in events()) == [
        ("group Calibration leads", "leo → none"),
        ("group Spare", "none → none"),
    ]


def test_it_records_nothing_when_a_group_is_saved_unchanged(admin: Client, db: None) -> None:
    group = Group.objects.get(name=RECRUITER)

    response = admin.post(group_url(group), change_form_data(admin, group_url(group)))

    assert response.status_code == 302
    assert events() == []


def test_it_writes_nothing_when_the_group_form_is_invalid(admin: Client, db: None) -> None:
    group = Group.objects.get(name=INTERVIEWER)
    data = change_form_data(admin, group_url(group))

    response = admin.post(
        group_url(group), {**data, "name": RECRUITER, "permissions": permission_ids("add_user")}
    )

    assert response.status_code == 200
    assert list(response.context["adminform"].form.errors) == ["name"]
    assert Group.objects.get(pk=group.pk).permissions.count() == 0
    assert events() == []


def test_the_admin_refuses_staff_who_may_only_view_groups_writing_nothing(
    client: Client, lead: User
) -> None:
    staff = make_user("stan", is_staff=True)  # type: ignore[arg-type]
    staff.user_permissions.add(Permission.objects.get(codename="view_group"))
    client.force_login(staff)
    group = Group.objects.get(name=LEAD)
    data = change_form_data(client, group_url(group))

    changed = client.post(group_url(group), {**data, "permissions": permission_ids("add_user")})
    deleted = client.post(f"/admin/auth/group/{group.pk}/delete/", {"post": "yes"})

    assert (changed.status_code, deleted.status_code) == (403, 403)
    assert Group.objects.get(pk=group.pk).permissions.count() == 0
    assert events() == []


# --- the audit log itself ---------------------------------------------------------------------


def test_the_admin_shows_audit_events_but_lets_nobody_add_change_or_delete_them(
    admin: Client, interviewer: User
) -> None:
    data = change_form_data(admin, user_url(interviewer))
    admin.post(user_url(interviewer), {**data, "is_staff": "on"})
    event = AuditEvent.objects.get()

    listing = admin.get("/admin/core/auditevent/")
    added = admin.post("/admin/core/auditevent/add/", {"action": "x", "target": "y"})
    deleted = admin.post(f"/admin/core/auditevent/{event.pk}/delete/", {"post": "yes"})

    assert listing.status_code == 200
    assert "user ines" in listing.content.decode()
    assert (added.status_code, deleted.status_code) == (403, 403)
    assert list(AuditEvent.objects.values_list("pk", flat=True)) == [event.pk]
