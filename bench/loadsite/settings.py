"""The product's settings with a URLconf that adds the bench's baseline endpoint.

Only bench/load.py uses this module; the product never routes to the baseline.
"""

from config.settings import *  # noqa: F403

ROOT_URLCONF = "bench.loadsite.urls"
