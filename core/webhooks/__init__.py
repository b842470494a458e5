"""Outgoing webhooks: a company's applicant tracking system hears about scorecards,
decisions and calibrations as they happen.

Subscriptions are managed by calibration leads and recruiters (API and admin). An
event is written in the transaction of the change it reports, with one delivery per
matching active subscription; each delivery is a Celery task published after commit,
signed the Standard Webhooks way and retried with backoff over about a day.
"""
