"""Template tags that show calibration on other subpackages' and apps' pages.

The debrief page belongs to scorecards, which asks calibration for nothing but a
recalculation; the panel's adjusted score it shows recruiters is put on the page
here, from the ratings the debrief already holds. My interviews belongs to
interviews, which imports nothing from scoring; its cue for exercises is put here too.
"""

from django import template
from django.contrib.auth.models import User

from scoring.calibration import selectors
from scoring.calibration.selectors import PanelCalibration
from scoring.exercises import selectors as exercises
from scoring.models import CalibrationExercise
from scoring.scorecards.selectors import Debrief

register = template.Library()


@register.simple_tag
def panel_calibration(debrief: Debrief) -> PanelCalibration | None:
    """Return the debrief's panel score adjusted for severity, for those who may see it."""
    if not debrief.adjustable:
        return None
    return selectors.panel_calibration(
        role_id=debrief.loop.role_id, ratings=debrief.counted_ratings
    )


@register.simple_tag
def exercises_waiting(user: User) -> list[CalibrationExercise]:
    """Return the open calibration exercises with answers the user has still to score,
    for the cue on My interviews (an interviews page, which asks scoring nothing)."""
    return exercises.exercises_waiting_for(user=user)
