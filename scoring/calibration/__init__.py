"""Calibration: the job that reads ratings, computes statistics and stores snapshots.

``jobs`` moves data between the database and ``stats``, the pure numpy/scipy
package that computes the snapshot body.
"""
