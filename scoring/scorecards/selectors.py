"""Reads for scorecards and debriefs. Who may read which card, and who still owes
one, is scoring.visibility's to say; everything here asks it."""

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import User
from django.db.models import Prefetch, QuerySet
from django.http import Http404
from django.shortcuts import get_object_or_404
from django.utils import timezone

from core import sql
from core.api.etags import if_match_holds
from core.permissions import Viewer, is_recruiter
from interviews import selectors as interview_selectors
from interviews.models import Interview, InterviewQuestion, Loop, Panelist
from kit.models import FollowUp, RubricItem
from scoring import visibility
from scoring.models import (
    Amendment,
    QuestionRating,
    Scorecard,
)
from scoring.scorecards import amendments as amending
from scoring.scorecards import hiring, queries

PANEL_USERS = Prefetch("panel", queryset=Panelist.objects.select_related("user"))


def _with_ratings(scorecards: QuerySet[Scorecard]) -> QuerySet[Scorecard]:
    return scorecards.select_related(
        "interviewer",
        "interview__loop__candidate",
        "interview__loop__role",
        "interview__loop__level",
    ).prefetch_related(
        Prefetch(
            "ratings",
            queryset=QuestionRating.objects.select_related("item__question", "version")
            .prefetch_related("checked", "follow_ups_asked")
            .order_by("item__order"),
        ),
        Prefetch("amendments", queryset=Amendment.objects.select_related("by")),
    )


def scorecards_visible_to(
    *, user: Viewer, loop: Loop, blind: bool | None = None
) -> QuerySet[Scorecard]:
    """Return the loop's scorecards the user may read (scoring.visibility decides)."""
    if blind is None:
        blind = visibility.is_blind(user=user, loop=loop)
    readable = visibility.readable(user=user, blind=blind)
    return _with_ratings(Scorecard.objects.filter(readable, interview__loop=loop))


def own_scorecards(*, user: Viewer) -> QuerySet[Scorecard]:
    return _with_ratings(Scorecard.objects.filter(interviewer=user))  # type: ignore[misc]


def scorecards_for_api(*, user: Viewer) -> QuerySet[Scorecard]:
    """Return every scorecard the user may read across loops, for the API (rows alone)."""
    return Scorecard.objects.filter(visibility.readable_anywhere(user=user))


def own_scorecard_get(*, user: Viewer, pk: int) -> Scorecard:
    """Return the user's own scorecard; anyone else's is a 404."""
    return get_object_or_404(own_scorecards(user=user), pk=pk)


def scorecard_form_data(
    *, scorecard: Scorecard
) -> list[tuple[InterviewQuestion, QuestionRating | None]]:
    """Return each question of the interview (at its pinned version) with its rating, if any."""
    items = list(
        InterviewQuestion.objects.filter(interview_id=scorecard.interview_id)
        .select_related("question", "version")
        .prefetch_related(
            Prefetch("version__rubric", queryset=RubricItem.objects.order_by("order")),
            Prefetch("version__follow_ups", queryset=FollowUp.objects.order_by("order")),
        )
        .order_by("order")
    )
    # A card not started yet (the page's blank one) has no ratings to read.
    ratings = {r.item_id: r for r in scorecard.ratings.all()} if scorecard.pk else {}
    return [(item, ratings.get(item.pk)) for item in items]


def scorecard_for_page(*, user: User, interview: Interview) -> Scorecard:
    """Return the user's scorecard for the interview, or a blank unsaved one if they
    have not started it; 404 for anyone not on its panel.

    Opening the page starts nothing: the first save creates the draft, so an
    interview only looked at still reads "Not started" on My interviews.
    """
    seat = Panelist.objects.filter(interview=interview, user=user)
    shadow = seat.values_list("is_shadow", flat=True).first()
    if shadow is None:
        raise Http404("You are not on this interview's panel.")
    card = own_scorecards(user=user).filter(interview=interview).first()
    return card or Scorecard(interview=interview, interviewer=user, is_shadow=shadow)


# The version of a scorecard never saved (or not yet started): nothing in it to lose.
NEW_VERSION = '"new"'


def scorecard_version(scorecard: Scorecard | None) -> str:
    """Return the card's version, an HTTP entity tag: it changes with every save."""
    if scorecard is None or scorecard.pk is None or scorecard.updated_at == scorecard.created_at:
        return NEW_VERSION
    return f'"{scorecard.pk}.{scorecard.updated_at.timestamp():.6f}"'


def scorecard_version_matches(scorecard: Scorecard, version: str) -> bool:
    """Whether ``version`` (an If-Match value, or the page's field) names the card as it is."""
    return if_match_holds(version, scorecard_version(scorecard))


def scorecard_as_dict(scorecard: Scorecard) -> dict[str, Any]:
    """Return the card's content in a stable shape (amendments keep it before and after)."""
    return {
        "recommendation": scorecard.recommendation,
        "summary": scorecard.summary,
        "ratings": [
            {
                "item": r.item_id,
                "rating": r.rating,
                "not_asked": r.not_asked,
                "not_asked_reason": r.not_asked_reason,
                "checked": sorted(c.pk for c in r.checked.all()),
                "follow_ups_asked": sorted(f.pk for f in r.follow_ups_asked.all()),
                "notes": r.notes,
            }
            for r in scorecard.ratings.all()
        ],
    }


# --- debrief ----------------------------------------------------------------------------


@dataclass
class Cell:
    rating: QuestionRating
    covered: int
    core_total: int
    strong_total: int
    strong_covered: int
    red_flags: list[RubricItem]


@dataclass
class DebriefRow:
    interview: Interview
    scorecard: Scorecard
    cells: list[Cell | None] = field(default_factory=list)
    amendments: list[amending.Note] = field(default_factory=list)


@dataclass(frozen=True)
class TallyRow:
    interview: Interview
    counts: list[int]  # in Scorecard.Recommendation's order


@dataclass(frozen=True)
class Tally:
    """How many counted cards (visibility.counts) the reader sees recommend each way."""

    labels: list[str]
    rows: list[TallyRow]
    overall: list[int]

    @property
    def counted(self) -> int:
        """How many cards the tally counts (none: the debrief shows no tally)."""
        return sum(self.overall)

    @property
    def lines(self) -> list[tuple[str, list[tuple[str, int]], bool]]:
        """Each interview's line and the overall one last: (name, [(label, count)], overall),
        each count with its label, as a phone shows them stacked."""
        named = [(f"{row.interview.order}. {row.interview.title}", row.counts) for row in self.rows]
        return [
            (name, list(zip(self.labels, counts, strict=True)), overall)
            for (name, counts), overall in [
                *((line, False) for line in named),
                (("All interviews", self.overall), True),
            ]
        ]


@dataclass
class Debrief:
    loop: Loop
    blind: bool
    owed: bool
    questions: list[InterviewQuestion]
    rows: list[DebriefRow]
    pending: list[Panelist]
    # Recruiters see the panel's mean adjusted for severity (scoring/templatetags).
    adjustable: bool = False
    reader: int | None = None
    interviews: list[Interview] = field(default_factory=list)  # the loop's, in order

    @property
    def tally(self) -> Tally | None:
        """Return the recommendations of the submitted, non-shadow cards among the rows
        (the cards the reader may see: visibility.readable), per interview and overall;
        None for a blind reader, who reads no one else's card and so no panel tally."""
        if self.blind:
            return None
        order = list(Scorecard.Recommendation.values)
        counts = {interview.pk: [0] * len(order) for interview in self.interviews}
        for row in self.rows:
            card = row.scorecard
            counted = visibility.counts(shadow=card.is_shadow, done=card.is_submitted)
            # A card imported without a recommendation has none to count.
            if counted and card.recommendation in order:
                counts[card.interview_id][order.index(card.recommendation)] += 1
        rows = [TallyRow(i, counts[i.pk]) for i in self.interviews]
        overall = [sum(column) for column in zip(*counts.values(), strict=True)]
        labels = [str(label) for label in Scorecard.Recommendation.labels]
        return Tally(labels=labels, rows=rows, overall=overall or [0] * len(order))

    @property
    def panel(self) -> hiring.Panel:
        """How the counted cards the reader sees recommend (hiring.panel_seen); a blind
        reader sees no one else's card, so no panel (an empty one)."""
        return hiring.panel_seen(self.scorecards, blind=self.blind) or hiring.Panel()

    @property
    def hire_needs_rationale(self) -> bool:
        """Whether a hire here goes against the panel (hiring.needs_rationale)."""
        return hiring.needs_rationale(decision=Loop.Decision.HIRE, panel=self.panel)

    @property
    def reads_others(self) -> bool:
        """Whether the reader sees another panelist's card (services.feedback_read)."""
        return any(row.scorecard.interviewer_id != self.reader for row in self.rows)

    @property
    def status_seen(self) -> str:
        """The loop's status as the reader may see it (visibility.status_seen)."""
        return visibility.status_seen(status=self.loop.status, blind=self.blind)

    @property
    def scorecards(self) -> list[Scorecard]:
        return [row.scorecard for row in self.rows]

    @property
    def submitted_any(self) -> bool:
        return any(row.scorecard.is_submitted for row in self.rows)

    @cached_property
    def hire(self) -> visibility.HireWait:
        """What holds up a hire as the reader sees it (visibility.hire_wait_seen)."""
        return visibility.hire_wait_seen(
            interviews=self.interviews, pending=self.pending, now=timezone.now()
        )

    @property
    def unstaffed(self) -> list[Interview]:
        """The loop's interviews with no interviewer yet."""
        return self.hire.unstaffed

    @property
    def outstanding(self) -> list[Panelist]:
        """The interviewers (shadows aside) whose scorecards are not in yet."""
        return self.hire.seats

    @property
    def counted_ratings(self) -> list[tuple[int, str, float, int, int]]:
        """The submitted ratings (shadows and questions not asked aside), as
        (interviewer id, username, rating, scale, question id) each, for the severity
        and question adjustment."""
        return [
            (row.scorecard.interviewer_id, row.scorecard.interviewer.username,
             float(cell.rating.rating), cell.rating.version.scale_max,
             cell.rating.version.question_id)
            for row in self.rows
            if visibility.counts(shadow=row.scorecard.is_shadow, done=row.scorecard.is_submitted)
            for cell in row.cells
            if cell is not None and cell.rating.rating is not None
        ]  # fmt: skip

    @property
    def not_yet_held(self) -> list[Interview]:
        """The loop's interviews whose scheduled end is still ahead."""
        return self.hire.ahead

    @property
    def hire_waits(self) -> bool:
        """Whether a hire must wait (services.loop_decide refuses it): an interview
        without an interviewer or not yet held, or an interviewer's card not in."""
        return bool(self.hire)


def loop_for_debrief(*, user: Viewer, pk: int) -> Loop:
    """Return a loop the user may debrief: recruiters, and interviewers on it; else 404."""
    loops = Loop.objects.select_related("candidate", "role", "level", "decided_by")
    if not is_recruiter(user):
        # EXISTS rather than a join and DISTINCT over every column of four tables.
        loops = loops.filter(interview_selectors.debriefable(user))
    return get_object_or_404(loops, pk=pk)


def debrief(*, user: Viewer, loop: Loop) -> Debrief:
    """Return the grid of interviewers by questions that the user may see."""
    interviews = list(
        loop.interviews.prefetch_related(
            Prefetch("panel", queryset=Panelist.objects.select_related("user")),
            Prefetch(
                "questions",
                queryset=InterviewQuestion.objects.select_related("question", "version")
                .prefetch_related("version__rubric")
                .order_by("order"),
            ),
        ).order_by("order")
    )
    blind = visibility.is_blind(user=user, loop=loop)
    cards = list(scorecards_visible_to(user=user, loop=loop, blind=blind))
    questions = [q for i in interviews for q in i.questions.all()]
    by_interview = {i.pk: i for i in interviews}
    rows = []
    for card in cards:
        if not card.is_submitted and card.interviewer_id != getattr(user, "pk", None):
            continue
        ratings = {r.item_id: r for r in card.ratings.all()}
        row = DebriefRow(interview=by_interview[card.interview_id], scorecard=card)
        for question in questions:
            rating = ratings.get(question.pk)
            row.cells.append(_cell(rating, question) if rating else None)
        rows.append(row)
    _note_amendments(rows, questions)
    # The readable cards hold every done seat the user may see as done; the rest of
    # the seats read as pending (visibility.seen_done).
    submitted = {(c.interview_id, c.interviewer_id) for c in cards if c.is_submitted}
    pending = [
        seat
        for i in interviews
        for seat in i.panel.all()
        if visibility.awaited(
            seen_done=(i.pk, seat.user_id) in submitted, cancelled=seat.cancelled_at is not None
        )
    ]
    decided = loop.is_closed
    owed = any(
        visibility.owes(shadow=seat.is_shadow, done=False, decided=decided)
        for seat in pending
        if seat.user_id == user.pk
    )
    return Debrief(
        loop=loop, blind=blind, owed=owed, questions=questions, rows=rows, pending=pending,
        adjustable=is_recruiter(user), reader=user.pk, interviews=interviews,
    )  # fmt: skip


def _note_amendments(rows: list[DebriefRow], questions: list[InterviewQuestion]) -> None:
    """Give each row its card's amendments with what each changed (amendments.changes).

    Names come from what the debrief holds; the follow-ups' texts, which it does not,
    in one query, and only when an amendment names a follow-up.
    """
    changed = [a for row in rows for a in row.scorecard.amendments.all()]
    if not changed:
        return
    rubric = {r.pk: r.text for q in questions for r in q.version.rubric.all()}
    for row in rows:
        for rating in row.scorecard.ratings.all():
            rubric.update((c.pk, c.text) for c in rating.checked.all())
    wanted = set().union(*(amending.follow_ups_changed(a.before, a.after) for a in changed))
    labels = amending.Labels(
        questions={q.pk: q.question.title for q in questions},
        rubric=rubric,
        follow_ups=dict(FollowUp.objects.filter(pk__in=wanted).values_list("pk", "text"))
        if wanted
        else {},
    )
    for row in rows:
        row.amendments = [
            amending.Note(a, amending.changes(a.before, a.after, labels=labels))
            for a in row.scorecard.amendments.all()
        ]


def _cell(rating: QuestionRating, question: InterviewQuestion) -> Cell:
    rubric = list(question.version.rubric.all())
    checked = {c.pk for c in rating.checked.all()}
    core = [r for r in rubric if r.kind == RubricItem.Kind.CORE]
    strong = [r for r in rubric if r.kind == RubricItem.Kind.STRONG]
    return Cell(
        rating=rating,
        covered=sum(r.pk in checked for r in core),
        core_total=len(core),
        strong_total=len(strong),
        strong_covered=sum(r.pk in checked for r in strong),
        red_flags=[r for r in rubric if r.kind == RubricItem.Kind.RED_FLAG and r.pk in checked],
    )


# --- API documents ----------------------------------------------------------------------
# The scorecard endpoints answer every autosave and submit, and building their nested
# JSON from model objects through nested serializers was most of their cost. These
# build it from plain rows; the serializers in scoring/scorecards/serializers.py describe the shape
# for the schema (and the schema checks in tests/fuzz hold the two together).


def _local(moment: datetime | None) -> datetime | None:
    # As DRF's DateTimeField shows it: in the site's time zone (the encoder writes "Z" for UTC).
    return timezone.localtime(moment) if moment else None


def _json(value: Any) -> Any:
    # A JSON column read on a plain cursor: text on SQLite, text or parsed on PostgreSQL.
    return json.loads(value) if isinstance(value, str | bytes) else value


def scorecard_documents(cards: Sequence[Scorecard]) -> list[dict[str, Any]]:
    """Return the cards as the API shows them, in the order given.

    The cards come with their interviewer and interview loaded. At most three
    queries whatever the number of cards: the ratings; the rubric items ticked
    and the follow-ups asked, only if there are ratings; the amendments, only
    if a card is submitted (drafts have none).
    """
    if not cards:
        return []
    ids = [card.pk for card in cards]
    ratings: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    by_id: dict[int, dict[str, Any]] = {}
    rows = queries.ratings_of_cards(ids)
    for pk, card, item, question, title, version, rating, not_asked, reason, notes in rows:
        doc = {
            "id": pk, "item": item, "question": question, "title": title, "version": version,
            "rating": rating, "not_asked": bool(not_asked), "not_asked_reason": reason,
            "checked": [], "follow_ups_asked": [], "notes": notes,
        }  # fmt: skip
        ratings[card].append(doc)
        by_id[pk] = doc
    if by_id:
        # Rubric items ticked and follow-ups asked, in one query.
        rated = list(by_id)
        links = queries.ticks_of_ratings(rated)
        for rating_id, pk, field in sorted(links, key=lambda link: link[1]):
            by_id[rating_id][field].append(pk)
    amendments: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    submitted = [card.pk for card in cards if card.is_submitted]
    if submitted:
        rows = queries.amendments_of_cards(submitted)
        for card, pk, by, at, reason, before, after, after_reading in rows:
            amendments[card].append(
                {
                    "id": pk,
                    "by": by,
                    "at": _local(sql.aware(at)),
                    "reason": reason,
                    "before": _json(before),
                    "after": _json(after),
                    "after_reading": bool(after_reading),
                }
            )
    return [
        {
            "id": card.pk,
            "interview": card.interview_id,
            "loop": card.interview.loop_id,
            "interviewer": card.interviewer.username,
            "is_shadow": card.is_shadow,
            "status": card.status,
            "recommendation": card.recommendation or None,  # null until chosen
            "summary": card.summary,
            "submitted_at": _local(card.submitted_at),
            "updated_at": _local(card.updated_at),
            "ratings": ratings[card.pk],
            "amendments": amendments[card.pk],
        }
        for card in cards
    ]


def scorecard_document(card: Scorecard) -> dict[str, Any]:
    return scorecard_documents([card])[0]


def debrief_document(*, user: Viewer, pk: int) -> dict[str, Any]:
    """Return loop `pk`'s debrief as the API shows it: the loop, whether the caller is
    still blind, the scorecards they may read and the seats still pending. A 404
    unless the caller is a recruiter or on the loop's panel (as loop_for_debrief).

    Plain SQL, as the scorecard endpoints: every reader of a loop polls this. Every
    seat of the loop is read once, with whether it is submitted: that answers who
    may read it, the blind rule and who is pending.
    """
    loop = queries.loop_heading(pk)
    if loop is None:
        raise Http404
    seats = queries.seats_of_loop(pk)
    me = user.pk
    mine = [bool(done) for _, holder, _, _, done, _ in seats if holder == me]
    if not (mine or is_recruiter(user)):
        raise Http404
    blind = visibility.blind(done=mine, recruiter=lambda: is_recruiter(user))
    rows = queries.readable_cards_of_loop(loop_id=pk, user_id=me, blind=blind)
    cards = []
    for *values, name in rows:
        card = sql.from_row(Scorecard, values)
        card.interviewer = sql.loaded(get_user_model(), id=card.interviewer_id, username=name)
        card.interview = sql.loaded(Interview, id=card.interview_id, loop_id=pk)
        cards.append(card)
    pending = [
        {"username": name, "interview": interview, "is_shadow": bool(shadow)}
        for interview, holder, name, shadow, done, cancelled in seats
        if visibility.awaited(
            seen_done=visibility.seen_done(done=bool(done), blind=blind, own=holder == me),
            cancelled=bool(cancelled),
        )
    ]
    loop_id, candidate, role_id, role, level_id, level, status, decision = loop[:8]
    rationale, decided_by, decided_at = loop[8:]
    panel = hiring.panel_seen(cards, blind=blind)
    return {
        "loop": {
            "id": loop_id,
            "candidate": candidate,
            "role_id": role_id,
            "role": role,
            "level_id": level_id,
            "level": level,
            "status": visibility.status_seen(status=status, blind=blind),
            "decision": decision or None,  # null until decided
            "decision_rationale": rationale,
            "decided_by": decided_by,
            "decided_at": _local(sql.aware(decided_at)),
        },
        "blind": blind,
        "panel": None if panel is None else {**asdict(panel), "mostly_no": panel.mostly_no},
        "hire_against_panel": hiring.against_panel(decision=decision, panel=panel),
        "scorecards": scorecard_documents(cards),
        "pending": pending,
    }
