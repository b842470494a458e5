"""Validators shared by every app's models (and, through them, forms and serializers)."""

import unicodedata

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.deconstruct import deconstructible

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


@deconstructible
class OneLineValidator(RegexValidator):
    """Refuse a name or title holding a line break or another control character.

    A name is shown on one line: in e-mail subjects (where a line break is refused
    outright, so one candidate's name once stopped a whole reminder run), CSV
    cells, log lines and page headings. The first offending character is named
    with its position so the writer can find it.

    A RegexValidator so that the OpenAPI schema carries the rule as a `pattern`
    (drf-spectacular reads it), and clients and the API fuzz know it; the check
    itself names the character rather than quoting the pattern.
    """

    regex = r"\A[^\x00-\x1f\x7f-\x9f\u2028\u2029]*\Z"
    code = "control_characters"

    def __call__(self, value: object) -> None:
        for position, char in enumerate(str(value), start=1):
            if unicodedata.category(char) in _REFUSED_CATEGORIES:
                what = _CALLED.get(char, "control character")
                raise ValidationError(
                    "Names are one line of text: remove the %(what)s (U+%(code)04X) "
                    "at character %(position)d.",
                    code=self.code,
                    params={"what": what, "code": ord(char), "position": position},
                )


validate_one_line = OneLineValidator()
