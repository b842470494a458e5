"""The hire-against-the-panel rule: when a hire must say why it overrides the panel.

Every decision carries a rationale (services.loop_decide). A hire against a panel
that mostly said no must also explain itself: its rationale is at least
RATIONALE_MIN_CHARS characters, a sentence rather than a word, and the debrief says
the hire went against the panel. The panel is the loop's submitted, non-shadow
scorecards with a recommendation (visibility.counts); drafts, shadows and cards
imported without a recommendation are not counted.

decision   submitted recommendations                        the rationale
---------  -----------------------------------------------  -------------------------------
no_hire    any                                              not empty
hire       none                                             not empty
hire       half or fewer strong_no / no (2 no of 4)         not empty
hire       more than half strong_no / no (3 no of 4, 1/1)   RATIONALE_MIN_CHARS or more,
                                                            else 400 rationale_required

The decision service, the debrief page and the API all ask this module. The debrief
(page and API) shows the panel as its reader sees it: the counted cards among those
they may read (panel_seen), none while they are blind (scoring.visibility), so the
counts tell a blind panelist nothing of the others' recommendations; and, once the
loop is decided, whether the decision went against that panel (against_panel).
"""

from collections.abc import Iterable
from dataclasses import dataclass

from interviews.models import Loop
from scoring import visibility
from scoring.models import Scorecard

RATIONALE_MIN_CHARS = 40


@dataclass(frozen=True)
class Panel:
    """How the counted cards of a loop recommend."""

    strong_no: int = 0
    no: int = 0
    counted: int = 0  # cards with a recommendation, every way

    @property
    def mostly_no(self) -> bool:
        """Strictly more than half of the counted recommendations are strong no or no."""
        return 2 * (self.strong_no + self.no) > self.counted

    def describe(self) -> str:
        """Return the panel's no side in words: "1 strong no and 3 no of 4"."""
        parts = [f"{n} {label}" for n, label in ((self.strong_no, "strong no"), (self.no, "no"))]
        said = " and ".join(part for part in parts if not part.startswith("0 "))
        return f"{said} of {self.counted} recommendation{'' if self.counted == 1 else 's'}"


def panel_of(recommendations: Iterable[str]) -> Panel:
    """Return the panel from the recommendations of the counted cards ("" for none)."""
    given = [r for r in recommendations if r]
    return Panel(
        strong_no=given.count(Scorecard.Recommendation.STRONG_NO),
        no=given.count(Scorecard.Recommendation.NO),
        counted=len(given),
    )


def panel_seen(cards: Iterable[Scorecard], *, blind: bool) -> Panel | None:
    """Return the panel of the cards a reader may read, from those that count
    (visibility.counts: submitted, not a shadow's); None for a blind reader, who reads
    no one else's card and so learns nothing of the panel."""
    if blind:
        return None
    return panel_of(
        card.recommendation
        for card in cards
        if visibility.counts(shadow=card.is_shadow, done=card.is_submitted)
    )


def loop_panel(loop: Loop) -> Panel:
    """Return the panel of `loop` from its counted cards, in one query."""
    cards = Scorecard.objects.filter(
        interview__loop=loop, status=Scorecard.Status.SUBMITTED, is_shadow=False
    ).exclude(recommendation="")
    return panel_of(cards.values_list("recommendation", flat=True))


def needs_rationale(*, decision: str, panel: Panel) -> bool:
    """Return whether `decision` goes against `panel`: a hire that mostly heard no."""
    return decision == Loop.Decision.HIRE and panel.mostly_no


def against_panel(*, decision: str, panel: Panel | None) -> bool | None:
    """Return whether the recorded `decision` went against `panel` (needs_rationale);
    None while the loop is undecided ("") or the reader sees no panel (blind)."""
    if not decision or panel is None:
        return None
    return needs_rationale(decision=decision, panel=panel)


def rationale_short(*, decision: str, panel: Panel, rationale: str) -> str | None:
    """Return why `rationale` is not enough for a hire against the panel, or None."""
    if not needs_rationale(decision=decision, panel=panel):
        return None
    if len(rationale.strip()) >= RATIONALE_MIN_CHARS:
        return None
    return (
        f"This hire goes against the panel ({panel.describe()}): say in the rationale why,"
        f" in at least {RATIONALE_MIN_CHARS} characters."
    )


__all__ = [
    "RATIONALE_MIN_CHARS",
    "Panel",
    "against_panel",
    "loop_panel",
    "needs_rationale",
    "panel_of",
    "panel_seen",
    "rationale_short",
]
