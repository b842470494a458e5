"""Interviewer pools, training paths and panels staffed from them (issue 34).

models (imported by interviews.models: the app label stays `interviews`), rules
(who may keep pools, what a seat may be), services (writes), selectors (reads),
proposal (the pure panel picker, like interviews.assembly), api and serializers.
"""
