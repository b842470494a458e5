"""Query and form parameters read the same way on every page: a malformed one is a
400 that names it, never a 500."""

from django.core.exceptions import BadRequest
from django.http import QueryDict

from core.sql import in_range


def optional_id(params: QueryDict, name: str) -> int | None:
    """Return parameter `name` as an object id, or None when it is absent or empty.

    Anything but a positive whole number that fits an id column is refused with
    BadRequest (Django answers 400), naming the parameter.
    """
    raw = params.get(name, "")
    if raw == "":
        return None
    if not (raw.isascii() and raw.isdigit() and in_range(int(raw))):
        raise BadRequest(f"'{name}' must be an id (a positive whole number), not {raw[:40]!r}.")
    return int(raw)
