"""Writes to the question bank."""

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import Group, User
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.text import slugify

from core.api.exceptions import ApplicationError
from core.audit import selectors as core_selectors
from core.audit.services import audit_event_record, user_access_record
from core.models import AuditEvent
from core.permissions import HIRING_MANAGER
from kit.content import Content, content_check, content_of, content_problems
from kit.importers import ImportProblem, QuestionRecord
from kit.models import (
    Competency,
    FollowUp,
    Level,
    LoopSlot,
    LoopTemplate,
    Question,
    QuestionVersion,
    Role,
    RubricItem,
)


@dataclass
class Meta:
    """The unversioned part of a question: how it is found and filed."""

    title: str
    status: str = Question.Status.ACTIVE
    competencies: list[Competency] = field(default_factory=list)
    min_level: Level | None = None
    max_level: Level | None = None


def _write_version(version: QuestionVersion, content: Content) -> None:
    content = content.with_rubric()
    version.prompt = content.prompt
    version.outline = content.outline
    version.minutes = content.minutes
    version.scale_max = content.scale_max
    version.full_clean(exclude=["question"])
    version.save()
    version.rubric.all().delete()
    version.follow_ups.all().delete()
    RubricItem.objects.bulk_create(
        RubricItem(version=version, text=text, kind=kind, order=i)
        for i, (text, kind) in enumerate(content.rubric, start=1)
    )
    FollowUp.objects.bulk_create(
        FollowUp(version=version, text=text, order=i)
        for i, text in enumerate(content.follow_ups, start=1)
    )


def check_level_range(
    min_level: Level | None, max_level: Level | None, *, field: str = "min_level"
) -> None:
    """Refuse a reversed level range, naming `field` (the one the caller was given)."""
    if min_level and max_level and min_level.rank > max_level.rank:
        message = f"level range is reversed: {min_level} is above {max_level}"
        raise ValidationError({field: message})


@transaction.atomic
def question_create(
    *, role: Role, meta: Meta, content: Content, by: User | None = None
) -> Question:
    content_check(content)
    check_level_range(meta.min_level, meta.max_level)
    question = Question(
        role=role,
        title=meta.title,
        status=meta.status,
        min_level=meta.min_level,
        max_level=meta.max_level,
    )
    question.full_clean()
    question.save()
    question.competencies.set(meta.competencies)
    version = QuestionVersion(question=question, number=1, created_by=by)
    _write_version(version, content)
    question.current = version
    question.save(update_fields=["current"])
    return question


@transaction.atomic
def question_update(
    *,
    question: Question,
    meta: Meta | None = None,
    content: Content | None = None,
    by: User | None = None,
) -> bool:
    """Apply changes; return whether anything changed.

    A content change to a version already in use makes a new version, so every
    interview and rating keeps the text and rubric it was given against.
    """
    changed = False
    if content is not None:
        content_check(content)
    if meta is not None:
        check_level_range(meta.min_level, meta.max_level)
        status_before = question.status
        before = (question.title, question.status, question.min_level_id, question.max_level_id)
        question.title = meta.title
        question.status = meta.status
        question.min_level = meta.min_level
        question.max_level = meta.max_level
        after = (question.title, question.status, question.min_level_id, question.max_level_id)
        if before != after:
            question.full_clean()
            question.save()
            question_status_record(question=question, before=status_before, by=by)
            changed = True
        wanted = {c.pk for c in meta.competencies}
        if wanted != {c.pk for c in question.competencies.all()}:
            question.competencies.set(meta.competencies)
            changed = True
    if content is not None:
        # Re-read under a lock: the version may have been put in use since
        # `question` was loaded, and then it must not be rewritten in place.
        assert question.current_id is not None  # question_create sets it with the question
        current = QuestionVersion.objects.select_for_update().get(pk=question.current_id)
        if content.with_rubric() != content_of(current):
            if current.in_use:
                latest = question.versions.order_by("-number").values_list("number", flat=True)[0]
                version = QuestionVersion(question=question, number=latest + 1, created_by=by)
                _write_version(version, content)
                question.current = version
                question.save(update_fields=["current", "updated_at"])
            else:
                _write_version(current, content)
            changed = True
    return changed


def question_status_set(*, question: Question, status: str, by: User) -> bool:
    """Move the question to draft, active or retired (audited when it is retired or restored).

    Return whether the status changed. Nothing else about the question changes,
    so no new version is made.
    """
    if status not in Question.Status.values:
        choices = ", ".join(Question.Status.values)
        raise ApplicationError(
            f"Unknown status '{status}': choose one of {choices}.", code="unknown_status"
        )
    meta = Meta(
        title=question.title,
        status=status,
        competencies=list(question.competencies.all()),
        min_level=question.min_level,
        max_level=question.max_level,
    )
    return question_update(question=question, meta=meta, by=by)


def question_status_record(
    *, question: Question, before: str, by: User | None
) -> AuditEvent | None:
    """Audit a retirement (the status became retired) or a restoration (it left retired).

    Call it after saving the question, in the same transaction. Moves between draft
    and active are routine editing and are not recorded.
    """
    after = question.status
    retired = Question.Status.RETIRED
    if before == after or retired not in (before, after):
        return None
    return audit_event_record(
        actor=by,
        action="question.retired" if after == retired else "question.restored",
        target=f"{question.title} ({question.role})",
        question=question.pk,
        status=f"{before} → {after}",
    )


@transaction.atomic
def role_owners_set(*, role: Role, owners: Iterable[User], by: User) -> bool:
    """Make `owners` exactly the role's owners; return whether that changed anything.

    1. Lock the role, so that two people setting its owners at once do not lose one
       change or audit the wrong difference.
    2. Refuse a deactivated user as a new owner (one already owning may stay).
    3. Put each new owner in the hiring managers group: interviews.staffing lets an
       owner staff the role's loops only as a hiring manager. Each group change is
       audited as `permissions.changed`. Removing an owner leaves their group alone:
       they may own other roles, or have been made a hiring manager on purpose.
    4. Audit the owners' change as `role.owners_changed`, with the usernames added
       and removed. Setting the same owners again writes nothing.
    """
    Role.objects.select_for_update().filter(pk=role.pk).first()
    current = {user.pk: user for user in role.owners.all()}
    wanted = {user.pk: user for user in owners}
    added = [user for pk, user in wanted.items() if pk not in current]
    removed = [user for pk, user in current.items() if pk not in wanted]
    if not added and not removed:
        return False
    inactive = sorted(user.username for user in added if not user.is_active)
    if inactive:
        raise ValidationError(
            f"{', '.join(inactive)}: deactivated, so cannot own a role.", code="role_owner_inactive"
        )
    role.owners.add(*added)
    role.owners.remove(*removed)
    managers = Group.objects.get_or_create(name=HIRING_MANAGER)[0]
    already = set(
        managers.user_set.filter(pk__in=[u.pk for u in added]).values_list("pk", flat=True)
    )
    for user in added:
        if user.pk in already:
            continue
        before = core_selectors.user_access(pk=user.pk)
        user.groups.add(managers)
        user_access_record(user=user, before=before, by=by)
    audit_event_record(
        actor=by,
        action="role.owners_changed",
        target=f"role {role.name}",
        role=role.pk,
        added=sorted(user.username for user in added),
        removed=sorted(user.username for user in removed),
    )
    return True


def question_version_mark_used(*, version: QuestionVersion) -> None:
    """Freeze a version: from now on an edit of its question makes a new version."""
    if not version.in_use:
        QuestionVersion.objects.filter(pk=version.pk).update(in_use=True)
        version.in_use = True


def question_versions_mark_used(*, version_ids: Iterable[int]) -> None:
    """Freeze many versions at once (see question_version_mark_used)."""
    QuestionVersion.objects.filter(pk__in=list(version_ids), in_use=False).update(in_use=True)


@transaction.atomic
def questions_create_drafts(
    *, role: Role, titles: Iterable[str], content: Content
) -> dict[str, Question]:
    """Create draft questions of the role, asked as their titles; return them by title.

    For imports that name questions the bank lacks, in a handful of queries
    however many there are; a lead completes each one later.
    """
    content = content.with_rubric()
    questions = [Question(role=role, title=title, status=Question.Status.DRAFT) for title in titles]
    for question in questions:
        # The title's uniqueness is the database's to enforce, not a query per title.
        question.full_clean(validate_unique=False, validate_constraints=False)
    Question.objects.bulk_create(questions)
    versions = [
        QuestionVersion(
            question=question, number=1, prompt=question.title, outline=content.outline,
            minutes=content.minutes, scale_max=content.scale_max,
        )
        for question in questions
    ]  # fmt: skip
    for version in versions:
        version.full_clean(exclude=["question"], validate_unique=False, validate_constraints=False)
    QuestionVersion.objects.bulk_create(versions)
    RubricItem.objects.bulk_create(
        RubricItem(version=version, text=text, kind=kind, order=n)
        for version in versions
        for n, (text, kind) in enumerate(content.rubric, start=1)
    )
    for question, version in zip(questions, versions, strict=True):
        question.current = version
    Question.objects.bulk_update(questions, ["current"])
    return {question.title: question for question in questions}


# --- import -------------------------------------------------------------------------


@dataclass
class ImportResult:
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    follow_ups: int = 0

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged


def derive_title(prompt: str, *, words: int = 9) -> str:
    first = re.split(r"(?<=[.?!])\s", prompt, maxsplit=1)[0].rstrip(".?!")
    parts = first.split()
    title = " ".join(parts[:words])
    if len(parts) > words:
        title = title.rstrip(",;:") + "…"
    return title[:120]


def _resolve_role(name: str, roles: dict[str, Role], path: str, record: QuestionRecord) -> Role:
    key = name.casefold()
    if key not in roles:
        role = Role.objects.filter(name__iexact=name).first()
        if role is None:
            role = Role(name=name)
            try:
                role.full_clean()
            except ValidationError as exc:
                raise ImportProblem(
                    path, record.line_of("role"), f"role: {'; '.join(exc.messages)}"
                ) from None
            role.save()
        roles[key] = role
    return roles[key]


def _resolve_competencies(path: str, record: QuestionRecord) -> list[Competency]:
    found = []
    for n, raw in enumerate(record.competencies, start=1):
        slug = slugify(raw)
        line = record.line_of("competencies", n)
        if not slug:
            raise ImportProblem(path, line, f"competency '{raw}' has no letters or digits")
        competency = Competency.objects.filter(slug=slug).first()
        if competency is None:
            competency = Competency(slug=slug, name=raw.replace("-", " ").capitalize())
            try:
                competency.full_clean(validate_unique=False)  # no such slug: looked up above
            except ValidationError as exc:
                raise ImportProblem(path, line, f"competency: {'; '.join(exc.messages)}") from None
            competency.save()
        found.append(competency)
    return found


# What each part of a question is called in the file it came from.
_STRUCTURED_PARTS = {
    "title": "'title'",
    "prompt": "'prompt'",
    "outline": "'outline'",
    "follow_ups": "follow-up {n}",
    "rubric": "rubric item {n}",
}
_PLAIN_PARTS = {
    "prompt": "'As asked'",
    "outline": "'Sample answer outline'",
    "follow_ups": "follow-up {n} under 'Expect these follow-ups'",
    # A plain-text question has no title of its own: it is made from the prompt.
    "title": "the title made from 'As asked'",
}


def _import_problem(
    path: str, record: QuestionRecord, part: str, item: int | None, message: str, *, plain: bool
) -> ImportProblem:
    """Return the problem with `part` (its `item`-th entry) of a record, at its own line."""
    parts = _PLAIN_PARTS if plain else _STRUCTURED_PARTS
    if part == "title" and not record.title:
        part_line = record.line_of("prompt")
        label = _PLAIN_PARTS["title"] if plain else "the title made from 'prompt'"
    else:
        part_line = record.line_of(part, item)
        label = parts[part].format(n=item)
    return ImportProblem(path, part_line, f"{label}: {message}")


def _import_refusal(
    path: str, record: QuestionRecord, error: ValidationError, *, plain: bool
) -> ImportProblem:
    """Return a service's refusal of a record as an import problem, at the line of the
    part it names where the file has one."""
    if hasattr(error, "error_dict"):
        for part, messages in error.message_dict.items():
            if part in _STRUCTURED_PARTS:
                return _import_problem(path, record, part, None, messages[0], plain=plain)
    return ImportProblem(path, record.line, "; ".join(error.messages))


def _resolve_level(
    name: str | None, levels: dict[str, Level], path: str, line: int
) -> Level | None:
    if name is None:
        return None
    if name.upper() not in levels:
        known = ", ".join(levels) or "none"
        raise ImportProblem(path, line, f"unknown level '{name}' (known levels: {known})")
    return levels[name.upper()]


def _find_existing(role: Role, record: QuestionRecord) -> Question | None:
    questions = Question.objects.select_related("current").filter(role=role)
    if record.title:
        return questions.filter(title=record.title).first()
    return questions.filter(current__prompt=record.prompt).first()


def _unique_title(role: Role, title: str) -> str:
    candidate, n = title, 2
    while Question.objects.filter(role=role, title=candidate).exists():
        candidate, n = f"{title} ({n})", n + 1
    return candidate


@transaction.atomic
def questions_import(
    *,
    records: Iterable[QuestionRecord],
    path: str,
    default_role: str | None,
    by: User | None = None,
    structured: bool = True,
    progress: Callable[[int], None] | None = None,
) -> ImportResult:
    """Create or update the questions in `records`, in one transaction.

    1. Each record's role is its own, else `default_role`; a missing role is an error.
    2. An existing question is found by title, or (untitled records) by its current prompt.
    3. Plain-text records carry only prompt, outline and follow-ups: metadata a lead
       set in the product (levels, competencies, an edited rubric) survives a re-import.
    4. Any problem raises ImportProblem naming the record's line; the transaction
       rolls back, so a bad file writes nothing.
    """
    result = ImportResult()
    roles: dict[str, Role] = {}
    levels = {level.name.upper(): level for level in Level.objects.all()}
    for index, record in enumerate(records, start=1):
        name = record.role or default_role
        if not name:
            raise ImportProblem(
                path, record.line, "question has no role (add 'role' or use --role)"
            )
        role = _resolve_role(name, roles, path, record)
        existing = _find_existing(role, record)
        content = Content(
            prompt=record.prompt,
            outline=record.outline,
            minutes=record.minutes,
            scale_max=record.scale_max,
            follow_ups=tuple(record.follow_ups),
            rubric=tuple(record.rubric or ()),
        )
        if existing is not None and not structured:
            assert existing.current is not None  # set with the question
            current = content_of(existing.current)
            # Keep a lead's rubric edits and timing unless the outline itself changed.
            keep = current.outline == content.outline
            content = Content(
                content.prompt,
                content.outline,
                current.minutes,
                current.scale_max,
                content.follow_ups,
                current.rubric if keep else (),
            )
        # The services refuse these too; checked here first to name the line of the
        # very follow-up or rubric item that is too long.
        for problem in content_problems(content)[:1]:
            raise _import_problem(
                path, record, problem.field, problem.item, problem.message, plain=not structured
            )
        meta = None
        if structured:
            meta = Meta(
                title=record.title or (existing.title if existing else derive_title(record.prompt)),
                status=record.status,
                competencies=_resolve_competencies(path, record),
                min_level=_resolve_level(record.level_min, levels, path, record.line),
                max_level=_resolve_level(record.level_max, levels, path, record.line),
            )
        try:
            if existing is None:
                meta = meta or Meta(title=_unique_title(role, derive_title(record.prompt)))
                if not record.title:
                    meta.title = _unique_title(role, meta.title)
                question_create(role=role, meta=meta, content=content, by=by)
                result.created += 1
            elif question_update(question=existing, meta=meta, content=content, by=by):
                result.updated += 1
            else:
                result.unchanged += 1
        except ApplicationError as exc:
            raise ImportProblem(path, record.line, exc.message) from None
        except ValidationError as exc:
            raise _import_refusal(path, record, exc, plain=not structured) from None
        result.follow_ups += len(content.follow_ups)
        if progress:
            progress(index)
    return result


# --- loop templates -------------------------------------------------------------------


@dataclass(frozen=True)
class SlotData:
    title: str
    minutes: int
    competencies: tuple[str, ...] = ()
    question_count: int = 2
    interviewer_count: int = 1


@transaction.atomic
def loop_template_save(
    *, role: Role, level: Level, name: str, slots: Iterable[SlotData]
) -> LoopTemplate:
    """Create or replace the template for a role and level, slots in the given order."""
    slots = list(slots)
    if not slots:
        raise ApplicationError(
            "A loop template needs at least one slot.", code="template_without_slots"
        )
    template, _ = LoopTemplate.objects.get_or_create(
        role=role, level=level, defaults={"name": name}
    )
    template.name = name
    template.full_clean()
    template.save()
    template.slots.all().delete()
    known = {
        c.slug: c
        for c in Competency.objects.filter(slug__in={s for d in slots for s in d.competencies})
    }
    for order, data in enumerate(slots, start=1):
        missing = sorted(set(data.competencies) - set(known))
        if missing:
            raise ApplicationError(
                f"slot '{data.title}': unknown competency '{missing[0]}'", code="unknown_competency"
            )
        slot = LoopSlot(
            template=template,
            order=order,
            title=data.title,
            minutes=data.minutes,
            question_count=data.question_count,
            interviewer_count=data.interviewer_count,
        )
        slot.full_clean()
        slot.save()
        slot.competencies.set([known[c] for c in data.competencies])
    return template


def loop_templates_import(*, document: dict) -> list[LoopTemplate]:
    """Save the templates of a document {role: NAME, templates: {LEVEL: [slot, ...]}}."""
    role = Role.objects.get(name=document["role"])
    levels = {level.name: level for level in Level.objects.all()}
    saved = []
    for level_name, slots in document["templates"].items():
        level = levels[level_name]
        saved.append(
            loop_template_save(
                role=role,
                level=level,
                name=f"{role.name} {level.name}",
                slots=[
                    SlotData(
                        title=s["title"],
                        minutes=s["minutes"],
                        competencies=tuple(s.get("competencies", ())),
                        question_count=s.get("questions", 2),
                        interviewer_count=s.get("interviewers", 1),
                    )
                    for s in slots
                ],
            )
        )
    return saved
