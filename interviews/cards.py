"""What interviews asks about the cards written for its seats, answered by scoring.

Interviews sits below scoring (kit <- interviews <- scoring), yet its pages show a
loop's status as a blind panelist may see it and which of someone's interviews still
owe a card; both follow the seat and blind rule, which is about scorecards and lives
in scoring.visibility. Scoring passes its rule in at start-up (scoring.apps, the way
it registers webhook readers with core), so interviews never imports scoring.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from django.core.exceptions import ImproperlyConfigured

from core.permissions import Viewer


class Owes(Protocol):
    def __call__(self, *, shadow: bool, done: bool, decided: bool) -> bool: ...


@dataclass(frozen=True)
class CardRule:
    """The parts of scoring.visibility that interviews' selectors ask."""

    # An expression for a Loop queryset: the loop's status as the user may see it.
    loop_status_seen: Callable[[Viewer], Any]
    # An expression for an Interview queryset: the status of the user's own card there.
    own_card_status: Callable[[Viewer], Any]
    # Whether a seat still owes its card, given the facts.
    owes: Owes
    # The status of a submitted card.
    submitted: str


_rule: CardRule | None = None


def card_rule_register(rule: CardRule) -> None:
    """Give interviews the seat and blind rule (scoring's AppConfig.ready calls it)."""
    global _rule
    _rule = rule


def card_rule() -> CardRule:
    """Return the registered rule; scoring, an installed app, always registers one."""
    if _rule is None:
        raise ImproperlyConfigured("No card rule registered: is scoring in INSTALLED_APPS?")
    return _rule
