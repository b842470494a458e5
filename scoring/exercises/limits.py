"""How many reference answers an exercise takes, defined once (issue 33).

The calibration dashboard's ICC card shows an exercise's ICC from
stats.ICC_MIN_CANDIDATES answers that everyone scores; the new-exercise form, the
service and the card all read these names, so the form always allows what the card
asks for.
"""

from scoring.calibration.stats import ICC_MIN_CANDIDATES

# Two answers are the least an agreement can be read from.
ANSWERS_MIN = 2
# The answers the ICC card asks for (the same rule as for a grid in the ratings).
ANSWERS_FOR_ICC = ICC_MIN_CANDIDATES
# Room for twice the card's ask: each answer is a transcript every invitee reads.
ANSWERS_MAX = 2 * ANSWERS_FOR_ICC
