"""Outgoing webhooks: a company's applicant tracking system hears about scorecards,
decisions and calibrations as they happen.

Subscriptions are made by calibration leads and recruiters (API and admin), each
managing their own in the API; a delivery carries only what its owner may read when
it is sent (readers.py: the domain apps register who may read each event). An
event is written in the transaction of the change it reports, with one delivery per
matching active subscription; each delivery is a Celery task published after commit,
signed the Standard Webhooks way and retried with backoff over about a day.
"""
