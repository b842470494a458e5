"""The audit log of sensitive actions: recording them (services.py), reading them
(selectors.py) and the leads' page (views.py). Its model, AuditEvent, is core's
(core/models.py)."""
