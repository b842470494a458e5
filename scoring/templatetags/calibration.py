"""Template tags that show calibration on scorecard pages.

The debrief page belongs to scorecards, which asks calibration for nothing but a
recalculation; the panel's adjusted score it shows recruiters is put on the page
here, from the ratings the debrief already holds.
"""

from django import template

from scoring.calibration import selectors
from scoring.calibration.selectors import PanelCalibration
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
