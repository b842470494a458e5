import os

from django.core.asgi import get_asgi_application
from django.urls import resolve

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
application = get_asgi_application()
# Import every view as the worker starts, not in its first request (config/wsgi.py).
resolve("/healthz/")
