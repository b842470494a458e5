"""Who owns a role: the recruiters' page /bank/roles/owners/ and kit.services.role_owners_set."""

import re

import pytest
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.test import Client
from pytest_django import DjangoAssertNumQueries

from core.models import AuditEvent
from core.permissions import HIRING_MANAGER, INTERVIEWER
from kit import services
from kit.models import Role
from tests.conftest import make_user
from tests.support.factories import RoleFactory

pytestmark = pytest.mark.django_db


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def owners_of(role: Role) -> set[str]:
    return set(role.owners.values_list("username", flat=True))


def groups_of(user: User) -> set[str]:
    return set(user.groups.values_list("name", flat=True))


def test_it_sets_the_owners_audits_and_makes_new_owners_hiring_managers(recruiter):
    role = RoleFactory(name="GPU Kernel Engineer")
    hana = make_user("hana", INTERVIEWER)
    olaf = make_user("olaf", INTERVIEWER)
    role.owners.add(olaf)

    browser = signed_in(recruiter)
    response = browser.post(f"/bank/roles/{role.pk}/owners/", {"owners": [str(hana.pk)]})

    assert response.status_code == 302
    assert response["Location"] == "/bank/roles/owners/"
    assert owners_of(role) == {"hana"}
    assert groups_of(hana) == {INTERVIEWER, HIRING_MANAGER}
    # Removing Olaf leaves his groups alone (he may own another role).
    assert groups_of(olaf) == {INTERVIEWER}
    owners = AuditEvent.objects.get(action="role.owners_changed")
    assert (owners.actor, owners.target) == (recruiter, "role GPU Kernel Engineer")
    assert owners.data == {"role": role.pk, "added": ["hana"], "removed": ["olaf"]}
    access = AuditEvent.objects.get(action="permissions.changed")
    assert (access.actor, access.target) == (recruiter, "user hana")
    assert access.data == {"user": "hana", "groups": "Interviewers → Hiring managers, Interviewers"}
    page = browser.get("/bank/roles/owners/").content.decode()
    assert "Saved the owners of GPU Kernel Engineer." in page


def test_the_new_owner_then_sees_loops_in_the_navigation_but_not_candidates(recruiter):
    role = RoleFactory(name="GPU Kernel Engineer")
    hana = make_user("hana", INTERVIEWER)
    nav = signed_in(hana).get("/bank/").content.decode()
    assert 'href="/loops/"' not in nav

    signed_in(recruiter).post(f"/bank/roles/{role.pk}/owners/", {"owners": [str(hana.pk)]})

    browser = signed_in(hana)
    nav = browser.get("/bank/").content.decode()
    assert 'href="/loops/"' in nav
    assert 'href="/candidates/"' not in nav  # candidates' pages stay the recruiters'
    assert browser.get("/loops/").status_code == 200
    assert browser.get("/candidates/").status_code == 404


def test_it_writes_nothing_when_the_owners_are_the_same(recruiter):
    role = RoleFactory(name="GPU Kernel Engineer")
    hana = make_user("hana", HIRING_MANAGER)
    role.owners.add(hana)

    changed = services.role_owners_set(role=role, owners=[hana], by=recruiter)

    assert changed is False
    assert not AuditEvent.objects.exists()


def test_it_clears_every_owner_when_no_box_is_ticked(recruiter):
    role = RoleFactory(name="GPU Kernel Engineer")
    role.owners.add(make_user("hana", HIRING_MANAGER))

    response = signed_in(recruiter).post(f"/bank/roles/{role.pk}/owners/", {})

    assert response.status_code == 302
    assert owners_of(role) == set()
    event = AuditEvent.objects.get()
    assert event.data == {"role": role.pk, "added": [], "removed": ["hana"]}


@pytest.mark.parametrize("persona", ["interviewer", "lead", "hiring manager"])
def test_it_refuses_everyone_but_recruiters_and_writes_nothing(persona, interviewer, lead):
    role = RoleFactory(name="GPU Kernel Engineer")
    hank = make_user("hank", HIRING_MANAGER)
    role.owners.add(hank)
    caller = {"interviewer": interviewer, "lead": lead, "hiring manager": hank}[persona]
    browser = signed_in(caller)

    # A 404 as the bank's other pages answer those they are not for (kit.views).
    assert browser.get("/bank/roles/owners/").status_code == 404
    assert browser.get(f"/bank/roles/{role.pk}/owners/").status_code == 404
    response = browser.post(f"/bank/roles/{role.pk}/owners/", {"owners": [str(caller.pk)]})

    assert response.status_code == 404
    assert owners_of(role) == {"hank"}
    assert groups_of(caller) == ({HIRING_MANAGER} if caller == hank else groups_of(caller))
    assert not AuditEvent.objects.exists()
    assert 'href="/bank/roles/owners/"' not in browser.get("/bank/").content.decode()


@pytest.mark.parametrize("value", ["999999", "not-a-number"])
def test_it_refuses_an_unknown_user_and_writes_nothing(recruiter, value):
    role = RoleFactory(name="GPU Kernel Engineer")
    hana = make_user("hana", INTERVIEWER)

    response = signed_in(recruiter).post(
        f"/bank/roles/{role.pk}/owners/", {"owners": [str(hana.pk), value]}
    )

    assert response.status_code == 400
    body = response.content.decode()
    assert '<p class="error" role="alert" id="owners_error">' in body
    assert "is not one of the available choices" in body or "is not a valid value" in body
    # Hana's box stays ticked, so the recruiter loses nothing they picked.
    assert re.search(rf'value="{hana.pk}" checked', body)
    assert owners_of(role) == set()
    assert groups_of(hana) == {INTERVIEWER}
    assert not AuditEvent.objects.exists()


def test_it_refuses_a_deactivated_user_as_a_new_owner_and_writes_nothing(recruiter):
    role = RoleFactory(name="GPU Kernel Engineer")
    gone = make_user("gone", INTERVIEWER)
    User.objects.filter(pk=gone.pk).update(is_active=False)
    gone.refresh_from_db()

    response = signed_in(recruiter).post(f"/bank/roles/{role.pk}/owners/", {"owners": [gone.pk]})
    assert response.status_code == 400
    with pytest.raises(ValidationError, match="gone: deactivated, so cannot own a role"):
        services.role_owners_set(role=role, owners=[gone], by=recruiter)

    assert owners_of(role) == set()
    assert groups_of(gone) == {INTERVIEWER}
    assert not AuditEvent.objects.exists()


def test_it_is_a_404_for_an_unknown_role(recruiter):
    assert signed_in(recruiter).get("/bank/roles/999999/owners/").status_code == 404


def test_it_finds_people_by_name_and_always_lists_the_current_owners(recruiter):
    role = RoleFactory(name="GPU Kernel Engineer")
    olaf = make_user("olaf", HIRING_MANAGER)
    role.owners.add(olaf)
    make_user("hana", INTERVIEWER, first_name="Hana")
    make_user("ivan", INTERVIEWER)

    body = signed_in(recruiter).get(f"/bank/roles/{role.pk}/owners/?q=han").content.decode()

    assert re.search(rf'value="{olaf.pk}" checked', body)
    assert "hana" in body
    assert "ivan" not in body


def test_the_bank_links_recruiters_to_the_page(recruiter):
    assert 'href="/bank/roles/owners/"' in signed_in(recruiter).get("/bank/").content.decode()


def test_it_shows_many_roles_and_people_in_a_fixed_number_of_queries(
    recruiter, django_assert_max_num_queries: DjangoAssertNumQueries
):
    people = [make_user(f"person-{n:03}", INTERVIEWER) for n in range(60)]
    roles = [RoleFactory(name=f"Role {n:02}") for n in range(30)]
    for n, role in enumerate(roles):
        role.owners.add(*people[n : n + 3])
    browser = signed_in(recruiter)

    # 1. the session; 2. the signed-in user; 3. their groups (persona check, then cached)
    # 4. the roles; 5. their owners (prefetch)
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(6):
        response = browser.get("/bank/roles/owners/")
    assert response.status_code == 200
    assert response.content.decode().count("Change owners") == 30

    # 1-3. as above; 4. the role asked for; 5. its owners, to tick their boxes
    # 6. the other people, one page of them; 7. the owners again, for the ticked set
    # 8. the roles; 9. their owners (prefetch)
    # One of them reads the viewer's time zone (their profile), as every page does.
    with django_assert_max_num_queries(10):
        response = browser.get(f"/bank/roles/{roles[0].pk}/owners/")
    assert response.status_code == 200
    assert response.content.decode().count('name="owners"') == 61  # the 60 and Rita
