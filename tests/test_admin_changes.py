"""Every admin change form refuses a save or audits it (issue 15, item 5).

The walk takes every model the project registers on ``admin.site`` (a model
registered later is walked without touching this file), opens the change page of a
real row of it as a superuser, and posts the form back as the page rendered it with
one field altered. Each save is either refused (403, the row as it was, no event)
or leaves an audit event by the superuser naming the field, before → after. Deletes
are walked the same way; anything holding ratings or decisions is never deleted.

The rows come from one world built through the product's services (a decided loop
with a submitted, amended card, a calibration run, an exercise rated), once for the
module; each test runs in a transaction that is rolled back.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from django import forms
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.helpers import InlineAdminFormSet
from django.contrib.auth.models import User
from django.core.exceptions import FieldDoesNotExist
from django.db import models, transaction
from django.http import HttpResponse
from django.test import Client, override_settings
from django.urls import reverse

from config.urls import urlpatterns  # noqa: F401  (admin autodiscovery)
from core.accounts import services as accounts
from core.accounts.tokens import token_issue
from core.api.idempotency import IdempotentRequest
from core.models import AuditEvent
from core.permissions import INTERVIEWER, LEAD, RECRUITER
from core.webhooks.services import webhook_subscription_create
from interviews.models import Loop
from kit.models import Competency, Level, LoopTemplate, Question
from scoring.calibration import services as calibration
from scoring.exercises import services as exercises
from scoring.models import Scorecard
from scoring.scorecards import services as scorecards
from tests.conftest import make_user
from tests.kit.admin_forms import form_data
from tests.scoring.helpers import ratings_for, submitted
from tests.support.factories import make_question
from tests.support.loops import Seat, build_loop

PROJECT_APPS = ("core", "kit", "interviews", "scoring")
# Registered by installed libraries, not by the project: login lockouts (django-axes)
# Listed, so that a new registration is noticed here.
THIRD_PARTY = {"axes.accessattempt", "axes.accesslog", "axes.accessfailurelog"}

# Changed only through the product's services, which audit them.
READ_ONLY = {
    "core.auditevent",
    "kit.questionversion", "kit.rubricitem", "kit.followup",
    "interviews.candidate", "interviews.loop", "interviews.interview",
    "interviews.panelist", "interviews.interviewquestion",
    "scoring.scorecard", "scoring.questionrating", "scoring.amendment",
    "scoring.feedbackread", "scoring.calibrationjob", "scoring.calibrationsnapshot",
    "scoring.calibrationexercise", "scoring.referenceanswer", "scoring.exerciserating",
    "core.webhookevent", "core.webhookdelivery", "core.idempotentrequest",
    "core.apitoken",
}  # fmt: skip
# Added and deleted (an account linked to a provider identity, and unlinked) through a
# service that audits it; never edited.
ADD_ONLY = {"core.externalidentity"}
# Hold ratings or decisions, or anchor rows that do: never deleted in the admin.
UNDELETABLE = READ_ONLY | {"kit.role", "kit.level", "kit.question"}


def project_admins() -> list[tuple[type[models.Model], admin.ModelAdmin]]:
    return sorted(
        (
            (model, model_admin)
            for model, model_admin in admin.site._registry.items()
            if type(model_admin).__module__.split(".")[0] in PROJECT_APPS
            and model._meta.label_lower not in THIRD_PARTY
        ),
        key=lambda pair: pair[0]._meta.label_lower,
    )


ADMINS = project_admins()
ids = [model._meta.label_lower for model, _ in ADMINS]


@pytest.fixture(scope="module")
def world(django_db_setup: None, django_db_blocker: Any) -> Iterator[None]:
    """One row (at least) of every registered model, built as the product builds them."""
    fast = override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"])
    with django_db_blocker.unblock(), fast, transaction.atomic():
        recruiter = make_user("rita", RECRUITER)
        interviewer = make_user("ines", INTERVIEWER)
        colleague = make_user("omar", INTERVIEWER)
        lead = make_user("leo", LEAD)
        # Webhooks: the services below emit events, each with a delivery to it (unsent).
        webhook_subscription_create(
            url="https://ats.example.com/hooks", event_types=["loop.decided"], by=lead
        )
        built = build_loop(seats=[Seat(interviewers=[interviewer])], recruiter=recruiter)
        (interview,) = built.interviews
        # A retried API POST's kept answer (what core/api/idempotency.py stores).
        IdempotentRequest.objects.create(
            caller="0" * 64, key="retry-1", fingerprint="1" * 64, status=201, body=b"{}"
        )
        card = submitted(interviewer, interview)
        scorecards.feedback_read(user=interviewer, loop_ids=[built.loop.pk])
        scorecards.scorecard_amend(
            scorecard=card,
            by=interviewer,
            reason="Re-read my notes.",
            recommendation="strong_yes",
            summary="Better than I wrote.",
            ratings=ratings_for(interview, rating=4),
        )
        scorecards.loop_decide(
            loop=built.loop, by=recruiter, decision="hire", rationale="A clear yes."
        )
        calibration.calibration_run_now(role=built.loop.role, by=lead)
        # A pool, limits, and a trainee who shadows once, is signed off and graduates.
        from interviews.pools import services as pools
        from interviews.pools.models import TrainingSeat

        pool = pools.pool_create(name="Panel", role=built.loop.role, by=lead)
        pools.path_set(pool=pool, by=lead, shadows=1, reverse_shadows=0)
        pools.membership_add(pool=pool, user=interviewer, by=lead)
        pools.limits_set(user=colleague, by=colleague, per_week=5)
        trainee = pools.membership_add(pool=pool, user=colleague, status="training", by=lead)
        seat = TrainingSeat.objects.create(membership=trainee, interview=interview, kind="shadow")
        pools.seat_sign_off(seat=seat, ready=True, by=lead)
        question = make_question(role=built.loop.role, title="Exercise question")
        exercise = exercises.exercise_create(
            title="November calibration",
            question=question,
            answers=[
                exercises.AnswerInput(transcript="First answer", key_rating=3),
                exercises.AnswerInput(transcript="Second answer", key_rating=2),
            ],
            participants=[colleague],
            by=lead,
        )
        exercises.exercise_rate(answer=exercise.answers.get(order=1), by=colleague, rating=3)
        # A person's settings; the panel's emails above are queued (unsent: no commit here).
        accounts.profile_update(user=interviewer, time_zone="Europe/London", emails_on=[])
        accounts.external_identity_link(
            user=interviewer,
            issuer="https://sso.example.com",
            subject="ines-sub",
            by=lead,
            via="admin",
        )
        token_issue(user=interviewer)  # an API token (stored as a hash of its key)
        User.objects.create_superuser("root", "root@example.com", "pw")
        yield
        transaction.set_rollback(True)


@pytest.fixture
def root(world: None, db: None) -> User:
    return User.objects.get(username="root")


@pytest.fixture
def superuser(client: Client, root: User) -> Client:
    client.force_login(root)
    return client


def a_row(model: type[models.Model]) -> models.Model:
    # Not the superuser doing the walking: editing oneself is not the point.
    rows = model._default_manager.order_by("pk")
    if model is User:
        rows = rows.exclude(username="root")
    row = rows.first()
    assert row is not None, f"the world has no {model._meta.label}: add one to `world`"
    return row


def url(row: models.Model, view: str) -> str:
    opts = row._meta
    return reverse(f"admin:{opts.app_label}_{opts.model_name}_{view}", args=[row.pk])


def stored(row: models.Model) -> dict[str, Any]:
    """The row's columns and many-to-many ids as stored."""
    fresh = type(row)._default_manager.get(pk=row.pk)
    values = {f.attname: getattr(fresh, f.attname) for f in row._meta.concrete_fields}
    for field in row._meta.many_to_many:
        values[field.name] = sorted(getattr(fresh, field.name).values_list("pk", flat=True))
    return values


def page_data(response: HttpResponse) -> dict[str, Any]:
    """The change page's form and every inline formset (management forms included)."""
    data = form_data(response.context["adminform"].form)
    inline: InlineAdminFormSet
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        data.update(form_data(formset.management_form))
        for form in formset.forms:
            data.update(form_data(form))
    return data


def alteration(form: forms.BaseForm, row: models.Model) -> tuple[str, str] | None:
    """Return a field the form lets one alter and a valid new value for it.

    Text first (a suffix every text, slug and username field accepts), else a number
    or a flag; None if the form has none of these.
    """
    candidates = []
    for name, field in form.fields.items():
        try:
            model_field = row._meta.get_field(name)
        except FieldDoesNotExist:  # a form-only field
            continue
        if field.disabled or getattr(model_field, "choices", None):
            continue
        value = getattr(row, name, None)
        if isinstance(model_field, models.EmailField | models.URLField):
            continue
        if isinstance(model_field, models.CharField | models.TextField):
            candidates.append((0, name, f"{value}-edited"))
        elif isinstance(model_field, models.IntegerField) and not model_field.unique:
            candidates.append((1, name, str((value or 0) + 1)))
        elif isinstance(model_field, models.BooleanField):
            candidates.append((2, name, "" if value else "on"))
    if not candidates:
        return None
    _, name, value = min(candidates, key=lambda c: c[0])
    return name, value


def new_events(since: int) -> list[AuditEvent]:
    return list(AuditEvent.objects.filter(pk__gt=since).select_related("actor").order_by("pk"))


def last_event_id() -> int:
    return AuditEvent.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


# --- the walk ------------------------------------------------------------------------------


def test_the_walk_covers_every_registered_model() -> None:
    walked = set(ids)
    others = {model._meta.label_lower for model in admin.site._registry} - walked
    assert others == THIRD_PARTY
    # Every model of the project's apps is registered and walked (auth's user and group too).
    defined = {
        m._meta.label_lower for app in PROJECT_APPS for m in apps.get_app_config(app).get_models()
    }
    assert defined - walked == set()
    assert {"auth.user", "auth.group"} <= walked


@pytest.mark.parametrize(("model", "model_admin"), ADMINS, ids=ids)
def test_each_change_form_refuses_the_save_or_audits_it(
    superuser: Client, root: User, model: type[models.Model], model_admin: admin.ModelAdmin
) -> None:
    row = a_row(model)
    page = superuser.get(url(row, "change"))
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = page_data(page)
    altered = alteration(form, row)
    label = model._meta.label_lower
    if altered:
        data[form.add_prefix(altered[0])] = altered[1]
    before, since = stored(row), last_event_id()

    response = superuser.post(url(row, "change"), data)

    if response.status_code == 403:
        if label not in ADD_ONLY:
            assert not model_admin.has_add_permission(page.wsgi_request)
        assert not model_admin.has_change_permission(page.wsgi_request, row)
        # The page showed every field read-only: no input to submit.
        if altered:
            assert f'name="{form.add_prefix(altered[0])}"' not in page.content.decode()
        assert stored(row) == before
        assert new_events(since) == []
    else:
        assert label not in READ_ONLY, f"{label} saved a change: it must be read-only"
        assert altered is not None, f"{label} is editable but the walk found no field to alter"
        name, _ = altered
        assert response.status_code == 302, response.context["adminform"].form.errors
        assert stored(row) != before
        events = [(e.actor, e.data.get(name)) for e in new_events(since)]
        assert events, f"{label}: saved without an audit event"
        assert any(
            actor == root and isinstance(shown, str) and "→" in shown for actor, shown in events
        ), events


@pytest.mark.parametrize(("model", "model_admin"), ADMINS, ids=ids)
def test_each_delete_is_refused_or_audited(
    superuser: Client, root: User, model: type[models.Model], model_admin: admin.ModelAdmin
) -> None:
    row = a_row(model)
    label = model._meta.label_lower
    since = last_event_id()

    response = superuser.post(url(row, "delete"), {"post": "yes"})

    if label in UNDELETABLE:
        assert response.status_code == 403
        assert not model_admin.has_delete_permission(response.wsgi_request, row)
    if type(row)._default_manager.filter(pk=row.pk).exists():
        # Refused: by permission (403) or because rows it protects would go (the admin's
        # "cannot delete" page); either way nothing was written.
        assert response.status_code in (200, 403)
        assert new_events(since) == []
    else:
        assert label not in UNDELETABLE
        assert response.status_code == 302
        events = new_events(since)
        assert [e.actor for e in events] == [root] * len(events)
        assert any(str(row) in e.target for e in events), [e.target for e in events]


# --- the findings, one by one ----------------------------------------------------------------


def test_it_refuses_a_decision_changed_in_the_admin(superuser: Client) -> None:
    loop = Loop.objects.get(status=Loop.Status.DECIDED)
    page = superuser.get(url(loop, "change"))
    before, since = stored(loop), last_event_id()

    response = superuser.post(
        url(loop, "change"), {**page_data(page), "decision": "no_hire", "status": "decided"}
    )

    assert response.status_code == 403
    assert stored(loop) == before
    assert Loop.objects.get(pk=loop.pk).decided_by.username == "rita"  # type: ignore[union-attr]
    assert new_events(since) == []


@pytest.mark.parametrize("model", [Scorecard, Loop], ids=["scorecard", "loop"])
def test_the_admin_adds_no_row_holding_ratings_or_decisions(
    superuser: Client, model: type[models.Model]
) -> None:
    opts = model._meta
    count = model._default_manager.count()

    response = superuser.post(reverse(f"admin:{opts.app_label}_{opts.model_name}_add"), {})

    assert response.status_code == 403
    assert model._default_manager.count() == count


def test_it_refuses_to_delete_an_interviewer_who_holds_ratings(superuser: Client) -> None:
    ines = User.objects.get(username="ines")
    since = last_event_id()

    response = superuser.post(url(ines, "delete"), {"post": "yes"})

    assert response.status_code == 200
    assert "Cannot delete user" in response.content.decode()
    assert User.objects.filter(pk=ines.pk).exists()
    assert new_events(since) == []


def test_it_records_a_bank_edit_as_before_and_after(superuser: Client, root: User) -> None:
    level = Level.objects.get(name="L5")
    page = superuser.get(url(level, "change"))
    since = last_event_id()

    renamed = f"{level.title} (renamed)"

    response = superuser.post(url(level, "change"), {**page_data(page), "title": renamed})

    assert response.status_code == 302
    assert [(e.actor, e.action, e.target, e.data) for e in new_events(since)] == [
        (
            root,
            "admin.changed",
            "level L5",
            {"model": "kit.level", "id": level.pk, "title": f"{level.title or 'none'} → {renamed}"},
        )
    ]


def test_it_records_nothing_for_a_bank_form_saved_unchanged(superuser: Client) -> None:
    template = LoopTemplate.objects.get()
    page = superuser.get(url(template, "change"))
    since = last_event_id()

    response = superuser.post(url(template, "change"), page_data(page))

    assert response.status_code == 302
    assert new_events(since) == []


def test_it_records_each_inline_change_of_a_loop_template(superuser: Client, root: User) -> None:
    template = LoopTemplate.objects.get()
    slot = template.slots.get()
    page = superuser.get(url(template, "change"))
    data = page_data(page)
    data["slots-0-minutes"] = str(slot.minutes + 15)

    response = superuser.post(url(template, "change"), data)

    assert response.status_code == 302
    assert template.slots.get().minutes == slot.minutes + 15
    event = AuditEvent.objects.get(action="admin.changed")
    assert (event.actor, event.target, event.data) == (
        root,
        f"loop template {template}",
        {
            "model": "kit.looptemplate",
            "id": template.pk,
            "loop slots": f"changed {slot} (minutes: {slot.minutes} → {slot.minutes + 15})",
        },
    )


def test_it_records_a_bank_row_added_and_deleted(superuser: Client, root: User) -> None:
    since = last_event_id()

    added = superuser.post(
        reverse("admin:kit_competency_add"), {"slug": "storage", "name": "Storage"}
    )
    competency = Competency.objects.get(slug="storage")
    deleted = superuser.post(url(competency, "delete"), {"post": "yes"})

    assert (added.status_code, deleted.status_code) == (302, 302)
    assert not Competency.objects.filter(slug="storage").exists()
    assert [(e.actor, e.action, e.target, e.data) for e in new_events(since)] == [
        (
            root,
            "admin.added",
            "competency storage",
            {"model": "kit.competency", "id": competency.pk, "slug": "storage", "name": "Storage"},
        ),
        (
            root,
            "admin.deleted",
            "competency storage",
            {"model": "kit.competency", "id": competency.pk},
        ),
    ]


# --- questions: filed through kit.services.question_update -------------------------------------


def question_page(client: Client) -> tuple[Question, dict[str, Any]]:
    question = Question.objects.get(title="Exercise question")
    return question, page_data(client.get(url(question, "change")))


def test_it_files_a_question_through_the_service_and_records_it(
    superuser: Client, root: User
) -> None:
    question, data = question_page(superuser)
    since = last_event_id()

    response = superuser.post(url(question, "change"), {**data, "status": "retired"})

    assert response.status_code == 302
    assert Question.objects.get(pk=question.pk).status == "retired"
    # The retirement is question_update's own event; the admin's adds nothing to it.
    assert [(e.action, e.data.get("status")) for e in new_events(since)] == [
        ("question.retired", "active → retired")
    ]


def test_it_refuses_a_reversed_level_range_writing_nothing(superuser: Client) -> None:
    question, data = question_page(superuser)
    levels = {level.name: str(level.pk) for level in Level.objects.all()}
    before, since = stored(question), last_event_id()

    response = superuser.post(
        url(question, "change"), {**data, "min_level": levels["L6"], "max_level": levels["L4"]}
    )

    assert response.status_code == 200
    assert response.context["adminform"].form.errors == {
        "min_level": ["level range is reversed: L6 is above L4"]
    }
    assert stored(question) == before
    assert new_events(since) == []


def test_it_refuses_a_title_another_question_of_the_role_has_writing_nothing(
    superuser: Client,
) -> None:
    question, data = question_page(superuser)
    taken = Question.objects.filter(role=question.role).exclude(pk=question.pk).first()
    assert taken is not None
    before, since = stored(question), last_event_id()

    response = superuser.post(url(question, "change"), {**data, "title": taken.title})

    assert response.status_code == 200
    assert response.context["adminform"].form.non_field_errors() == [
        "Question with this Role and Title already exists."
    ]
    assert stored(question) == before
    assert new_events(since) == []


def test_the_admin_adds_no_question_without_its_first_version(superuser: Client) -> None:
    count = Question.objects.count()

    response = superuser.post(reverse("admin:kit_question_add"), {"title": "Bare"})

    assert response.status_code == 403
    assert Question.objects.count() == count


# --- users and groups -----------------------------------------------------------------------


def test_it_records_a_users_email_changed_and_never_the_password(
    superuser: Client, root: User
) -> None:
    omar = User.objects.get(username="omar")
    page = superuser.get(url(omar, "change"))
    since = last_event_id()

    response = superuser.post(url(omar, "change"), {**page_data(page), "email": "o@example.org"})

    assert response.status_code == 302
    assert [(e.actor, e.action, e.target, e.data) for e in new_events(since)] == [
        (
            root,
            "admin.changed",
            "user omar",
            {"model": "auth.user", "id": omar.pk, "email": "omar@example.com → o@example.org"},
        )
    ]
