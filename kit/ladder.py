"""The level ladder and persona groups every installation starts with.

Used by the data migration and by seed_demo, so a database whose tables were
emptied (for instance by a test flush) gets them back. Takes model classes as
arguments so migrations can pass their historical models.
"""

from typing import Any

from core.permissions import GROUPS

LADDER = [
    ("L3", 3, "Engineer"),
    ("L4", 4, "Engineer II"),
    ("L5", 5, "Senior Engineer"),
    ("L6", 6, "Staff Engineer"),
    ("L7", 7, "Principal Engineer"),
]


def ensure_ladder(level_model: Any, group_model: Any) -> None:
    for name, rank, title in LADDER:
        level_model.objects.get_or_create(name=name, defaults={"rank": rank, "title": title})
    for name in GROUPS:
        group_model.objects.get_or_create(name=name)
