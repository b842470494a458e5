"""My interviews: the pools someone is in, their training progress and their load."""

from typing import Any

from django import template
from django.contrib.auth.models import AnonymousUser, User

from interviews.pools import selectors

register = template.Library()


@register.simple_tag
def my_pools(user: User | AnonymousUser) -> dict[str, Any]:
    pools = selectors.my_pools(user)
    load = selectors.load_of([user.pk]).get(user.pk) if pools and user.pk else None
    owed = list(selectors.sign_offs_owed(user)[:50]) if user.pk else []
    return {"pools": pools, "load": load, "owed": owed}
