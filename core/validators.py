"""Validators shared by every app's models (and, through them, forms and serializers)."""

import unicodedata

from django.core.exceptions import ValidationError

# What a reader would call the characters a name most often picks up by accident.
_CALLED = {
    "\n": "line break",
    "\r": "carriage return",
    "\t": "tab",
    "\u2028": "line separator",
    "\u2029": "paragraph separator",
}
# Unicode's control characters (C0, DEL, C1: NUL, tab, CR, LF, NEL...) and its line and
# paragraph separators. Format characters (Cf) stay allowed: right-to-left marks and
# zero-width joiners are part of how some scripts write names.
_REFUSED_CATEGORIES = ("Cc", "Zl", "Zp")


def validate_one_line(value: str) -> None:
    """Refuse a name or title holding a line break or another control character.

    A name is shown on one line: in e-mail subjects (where a line break is refused
    outright, so one candidate's name once stopped a whole reminder run), CSV
    cells, log lines and page headings. The first offending character is named
    with its position so the writer can find it.
    """
    for position, char in enumerate(value, start=1):
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            what = _CALLED.get(char, "control character")
            raise ValidationError(
                "Names are one line of text: remove the %(what)s (U+%(code)04X) "
                "at character %(position)d.",
                code="control_characters",
                params={"what": what, "code": ord(char), "position": position},
            )
