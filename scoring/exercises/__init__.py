"""Calibration exercises: everyone scores the same recorded answers against a lead's key.

The models (CalibrationExercise, ReferenceAnswer, ExerciseRating) stay in
scoring/models.py, so the app label and migrations do not notice the move.
"""
