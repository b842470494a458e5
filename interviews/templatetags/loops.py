"""Template filters for loops."""

from django import template

from interviews.models import Loop

register = template.Library()


@register.filter
def status_label(status: str) -> str:
    """Return a loop status's label ("in progress" for "in_progress"), capitalised."""
    try:
        label = str(Loop.Status(status).label)
    except ValueError:
        label = status
    return label[:1].upper() + label[1:]
