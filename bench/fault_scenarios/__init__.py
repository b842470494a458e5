"""The fault scenarios `python bench/faults.py` runs, one module each, and what they share.

harness.py          the scenario's outcome (PASS or FAIL with its numbers), HTTP calls with
                    their timings, a fresh database per scenario, reads of its rows
postgres_restart.py PostgreSQL restarted under load
worker_kill.py      the whole Celery worker killed mid-calibration
redis_stop.py       Redis stopped while scorecards are submitted
"""
