import os

from django.core.wsgi import get_wsgi_application
from django.urls import resolve

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_wsgi_application()
# Import every view now, as the worker starts, not in its first request: that took a
# cold /readyz/ (the orchestrator's first probe) over 2 s (bench/readyz.py).
resolve("/healthz/")
