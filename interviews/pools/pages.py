"""Pages that keep pools: make one, its members and their limits, its training path,
and a trainer's sign-off. A pool, person or seat the caller may not keep answers 404."""

from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from core.api.exceptions import ApplicationError
from core.auth import signed_in
from core.http.params import optional_id
from interviews import selectors as interview_selectors
from interviews import staffing
from interviews.pools import rules, selectors, services
from interviews.pools.forms import (
    LimitsForm,
    MemberForm,
    PathForm,
    PoolForm,
    RenameForm,
    SignOffForm,
)
from interviews.pools.models import Pool
from kit.models import Role


def _refused(form: forms.BaseForm, exc: ApplicationError | ValidationError) -> None:
    """Put a service's refusal on the form: beside its field where the form has one."""
    if isinstance(exc, ApplicationError):
        form.add_error(None, exc.message)
        return
    if hasattr(exc, "error_dict"):
        for field, errors in exc.error_dict.items():
            for error in errors:
                form.add_error(field if field in form.fields else None, error)
        return
    for message in exc.messages:
        form.add_error(None, message)


def _kept_pool(request: HttpRequest, pk: int) -> Pool:
    """The pool, if the caller sees and keeps it; 404 otherwise (ids leak nothing)."""
    pool = selectors.pools_visible_to(request.user).filter(pk=pk).first()
    if pool is None or not rules.may_keep(request.user, pool.role_id):
        raise Http404
    return pool


def _kept_roles(user: User) -> Any:
    if rules.may_keep(user, None):
        return Role.objects.order_by("name")
    return staffing.roles_for(user)


@login_required
def pool_new(request: HttpRequest) -> HttpResponse:
    if not rules.is_keeper(request.user):
        raise Http404
    by = signed_in(request)
    form = PoolForm(request.POST if request.method == "POST" else None, roles=_kept_roles(by))
    if request.method == "POST" and form.is_valid():
        try:
            pool = services.pool_create(by=by, **form.cleaned_data)
        except (ApplicationError, ValidationError) as exc:
            _refused(form, exc)
        else:
            messages.success(request, f"Pool {pool.name} made. Add its people and its path.")
            return redirect("interviews:pool-detail", pool.pk)
    status = 400 if form.errors else 200
    return render(request, "interviews/pool_form.html", {"form": form}, status=status)


def _detail(
    request: HttpRequest,
    pool: Pool,
    *,
    rename: RenameForm | None = None,
    member: MemberForm | None = None,
) -> HttpResponse:
    people = interview_selectors.seatable_people()
    pending = selectors.seats_awaiting_sign_off(pool)
    context = {
        "pool": pool,
        "path": selectors.path_of(pool),
        "entry": selectors.pool_overview([pool])[0],
        "pending": pending,
        "rename": rename or RenameForm(initial={"name": pool.name}),
        "member": member or MemberForm(people=people),
    }
    status = 400 if (rename and rename.errors) or (member and member.errors) else 200
    return render(request, "interviews/pool_detail.html", context, status=status)


@login_required
def pool_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """The pool: its people, their load and limits, trainees' progress, seats awaiting
    a sign-off, and its path; POST renames it."""
    pool = _kept_pool(request, pk)
    if request.method != "POST":
        return _detail(request, pool)
    form = RenameForm(request.POST)
    if form.is_valid():
        try:
            services.pool_rename(pool=pool, name=form.cleaned_data["name"], by=signed_in(request))
        except (ApplicationError, ValidationError) as exc:
            pool.refresh_from_db(fields=["name"])
            _refused(form, exc)
        else:
            messages.success(request, f"Renamed to {pool.name}.")
            return redirect("interviews:pool-detail", pool.pk)
    return _detail(request, pool, rename=form)


@login_required
@require_POST
def pool_member_add(request: HttpRequest, pk: int) -> HttpResponse:
    pool = _kept_pool(request, pk)
    people = interview_selectors.seatable_people()
    form = MemberForm(request.POST, people=people)
    if form.is_valid():
        user = form.cleaned_data["user"]
        try:
            services.membership_add(
                pool=pool, user=user, status=form.cleaned_data["status"], by=signed_in(request)
            )
        except (ApplicationError, ValidationError) as exc:
            _refused(form, exc)
        else:
            name = user.get_full_name() or user.get_username()
            messages.success(request, f"{name} joined {pool.name} ({form.cleaned_data['status']}).")
            return redirect("interviews:pool-detail", pool.pk)
    return _detail(request, pool, member=form)


@login_required
@require_POST
def pool_member_remove(request: HttpRequest, pk: int, membership_pk: int) -> HttpResponse:
    pool = _kept_pool(request, pk)
    membership = selectors.membership_of_pool_get(pool=pool, pk=membership_pk)
    services.membership_remove(membership=membership, by=signed_in(request))
    name = membership.user.get_full_name() or membership.user.get_username()
    messages.success(request, f"{name} left {pool.name}; their past seats and cards stay.")
    return redirect("interviews:pool-detail", pool.pk)


@login_required
@require_POST
def pool_member_graduate(request: HttpRequest, pk: int, membership_pk: int) -> HttpResponse:
    pool = _kept_pool(request, pk)
    membership = selectors.membership_of_pool_get(pool=pool, pk=membership_pk)
    try:
        services.membership_graduate(membership=membership, by=signed_in(request))
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        name = membership.user.get_full_name() or membership.user.get_username()
        messages.success(request, f"{name} graduated into {pool.name}.")
    return redirect("interviews:pool-detail", pool.pk)


@login_required
def pool_path(request: HttpRequest, pk: int) -> HttpResponse:
    """The pool's training path: its steps and what graduation asks for."""
    pool = _kept_pool(request, pk)
    path = selectors.path_of(pool)
    form = PathForm(request.POST if request.method == "POST" else None, instance=path)
    if request.method == "POST" and form.is_valid():
        try:
            services.path_set(pool=pool, by=signed_in(request), **form.cleaned_data)
        except (ApplicationError, ValidationError) as exc:
            _refused(form, exc)
        else:
            messages.success(request, f"Saved the training path of {pool.name}.")
            return redirect("interviews:pool-detail", pool.pk)
    status = 400 if form.errors else 200
    return render(request, "interviews/pool_path.html", {"pool": pool, "form": form}, status=status)


@login_required
def pool_limits(request: HttpRequest, user_pk: int) -> HttpResponse:
    """Someone's limits and working hours: their own, or anyone's for a keeper."""
    by = signed_in(request)
    if user_pk != by.pk and not rules.is_keeper(by):
        raise Http404
    person = selectors.limits_holder_get(pk=user_pk)
    limits = selectors.limits_of(person)
    form = LimitsForm(request.POST if request.method == "POST" else None, instance=limits)
    back = optional_id(request.GET, "pool")  # the pool page to return to; a bad one is a 400
    if request.method == "POST" and form.is_valid():
        try:
            services.limits_set(user=person, by=by, **form.cleaned_data)
        except (ApplicationError, ValidationError) as exc:
            _refused(form, exc)
        else:
            messages.success(request, "Saved the limits and working hours.")
            if back is not None:
                return redirect("interviews:pool-detail", back)
            return redirect("interviews:my-interviews" if person == by else "interviews:pool-list")
    zone = selectors.zone_of_user(person)
    context = {"person": person, "form": form, "zone": zone, "back": back}
    status = 400 if form.errors else 200
    return render(request, "interviews/pool_limits.html", context, status=status)


@login_required
def pool_seat(request: HttpRequest, pk: int) -> HttpResponse:
    """A trainer's sign-off on a shadow or reverse-shadow seat: ready, or not yet with a note."""
    by = signed_in(request)
    seat = (
        selectors.seats_visible_to(by)
        .select_related("interview__loop__candidate", "signed_off_by")
        .filter(pk=pk)
        .first()
    )
    if seat is None:
        raise Http404
    try:
        services.seat_sign_off_check(seat=seat, by=by)
    except rules.Forbidden as exc:
        raise Http404 from exc
    form = SignOffForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        ready = form.cleaned_data["outcome"] == "ready"
        try:
            services.seat_sign_off(seat=seat, ready=ready, note=form.cleaned_data["note"], by=by)
        except (ApplicationError, ValidationError) as exc:
            _refused(form, exc)
        else:
            trainee = seat.membership.user
            name = trainee.get_full_name() or trainee.get_username()
            if selectors.membership_qualified(seat.membership_id):
                messages.success(
                    request, f"Signed off: {name} graduated into {seat.membership.pool.name}."
                )
            else:
                messages.success(
                    request, f"Signed off {name}'s {seat.get_kind_display().lower()} seat."
                )
            return redirect("interviews:pool-seat", seat.pk)
    status = 400 if form.errors else 200
    context = {"seat": seat, "form": form, "trainee": seat.membership.user}
    return render(request, "interviews/pool_seat.html", context, status=status)
