"""Query and form parameters read the same way on every page: a malformed one is a
400 that names it, never a 500.

Every reader takes the parameter once. A value is refused (BadRequest, which
Django and core.api.exceptions answer with a 400 carrying the message) when it is

* given more than once (``?role=1&role=2``: which one was meant?);
* longer than MAX_LENGTH characters, or holding a NUL character (PostgreSQL
  cannot compare text holding one and would fail the query);
* not of the parameter's kind: an id that is not a positive whole number fitting
  a 64-bit key column, a number outside its range, a choice not on its list.

An absent or empty parameter is None (or "" for text), so links that leave a
field empty keep meaning "the default".
"""

from collections.abc import Iterable

from django import forms
from django.core.exceptions import BadRequest
from django.http import QueryDict

from core.sql import in_range

# No parameter a page reads needs more: names, slugs, ids and search words.
MAX_LENGTH = 200


def _shown(raw: str) -> str:
    return repr(raw[:40]) + ("..." if len(raw) > 40 else "")


def one(params: QueryDict, name: str, *, max_length: int = MAX_LENGTH) -> str:
    """Return the value of parameter `name`, or "" when it is absent.

    Refuse a parameter given more than once, longer than `max_length` or holding a
    NUL character.
    """
    values = params.getlist(name)
    if len(values) > 1:
        raise BadRequest(f"'{name}' is given {len(values)} times; give it once.")
    raw = values[0] if values else ""
    if len(raw) > max_length:
        raise BadRequest(f"'{name}' is longer than {max_length} characters.")
    if "\x00" in raw:
        raise BadRequest(f"'{name}' must not contain NUL characters.")
    return raw


def checked(params: QueryDict, *names: str) -> None:
    """Refuse any of `names` that `one` would refuse: for parameters read by a form or
    a filter, which takes the last of repeated values and passes NULs to the database."""
    for name in names:
        one(params, name)


def as_id(raw: str) -> int | None:
    """Return ``raw`` as an object id if it is one (ASCII digits fitting an id column)."""
    # isdigit() also holds for "²"; the length check keeps int() within its digit limit.
    if raw.isascii() and raw.isdigit() and len(raw) <= 19 and in_range(int(raw)):
        return int(raw)
    return None


def optional_id(params: QueryDict, name: str) -> int | None:
    """Return parameter `name` as an object id, or None when it is absent or empty.

    Anything but a positive whole number that fits an id column is refused with
    BadRequest (Django answers 400), naming the parameter.
    """
    raw = one(params, name)
    if raw == "":
        return None
    pk = as_id(raw)
    if pk is None:
        raise BadRequest(f"'{name}' must be an id (a positive whole number), not {_shown(raw)}.")
    return pk


def optional_int(params: QueryDict, name: str, *, minimum: int, maximum: int) -> int | None:
    """Return parameter `name` as a whole number from `minimum` to `maximum`, or None
    when it is absent or empty."""
    raw = one(params, name)
    if raw == "":
        return None
    digits = raw.removeprefix("-")
    number = int(raw) if digits.isascii() and digits.isdigit() and len(digits) <= 19 else None
    if number is None or not minimum <= number <= maximum:
        raise BadRequest(
            f"'{name}' must be a whole number from {minimum} to {maximum}, not {_shown(raw)}."
        )
    return number


def optional_page(params: QueryDict, name: str = "page") -> int | None:
    """Return the page number asked for, or None for the first. A number past the last
    page is the paginator's to clamp; anything but a number from 1 is refused."""
    return optional_int(params, name, minimum=1, maximum=2**31 - 1)


def optional_choice(params: QueryDict, name: str, choices: Iterable[str]) -> str:
    """Return parameter `name` if it is one of `choices`, or "" when it is absent or empty."""
    raw = one(params, name)
    allowed = list(choices)
    if raw != "" and raw not in allowed:
        raise BadRequest(f"'{name}' must be one of {', '.join(allowed)}, not {_shown(raw)}.")
    return raw


def valid_query_form(form: forms.Form) -> None:
    """Refuse a bound form of query parameters (a list's filters) whose values do not
    validate, naming the first parameter that fails and why: left invalid, a filter
    form would silently show everything."""
    if not form.is_bound:
        return
    if isinstance(form.data, QueryDict):
        checked(form.data, *(form.add_prefix(name) for name in form.fields))
    if not form.is_valid():
        name, messages = next(iter(form.errors.items()))
        raise BadRequest(f"'{name}': {' '.join(str(m) for m in messages)}")
