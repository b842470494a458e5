"""Calibration: the job that reads ratings, computes statistics and stores snapshots."""
