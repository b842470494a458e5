"""Scorecards: starting, saving, submitting and amending them, the debrief, the
loop's decision and reminders of cards still owed.

Asks calibration for one thing only, a recalculation
(``scoring.calibration.services.calibration_request``).
"""
