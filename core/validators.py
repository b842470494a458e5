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
    "\u200b": "zero-width space",
    "\u2060": "word joiner",
    "\ufeff": "zero-width no-break space (byte order mark)",
    "\u00ad": "soft hyphen",
}
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)

# Refused: Unicode's control characters (Cc: C0, DEL, C1: NUL, tab, CR, LF, NEL...), its
# line and paragraph separators (Zl, Zp), lone surrogates (Cs, which no UTF-8 column can
# store) and its format characters (Cf): the bidirectional marks, embeddings, overrides
# and isolates (U+202E turns "Eve\u202egnp.exe" into "Eveexe.png" on screen), zero-width
# spaces and the byte order mark, soft hyphens, tags (invisible ASCII look-alikes). A
# name is shown in subjects, CSV cells, logs and headings, where such characters reorder
# or hide what a reader sees.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
# Allowed although they are format characters: the zero-width non-joiner and joiner. They
# change only how the letters either side of them join, never the order or visibility of
# other text, and are part of how names are spelled in Persian and Indic scripts (and of
# emoji sequences such as 👩‍💻).
_JOINERS = frozenset("\u200c\u200d")


def _refused(char: str) -> bool:
    return char not in _JOINERS and unicodedata.category(char) in _REFUSED_CATEGORIES


def _bmp_class() -> str:
    """Return the refused characters of the Basic Multilingual Plane as a regex class body.

    Only the BMP: schema consumers read the pattern as an ECMAScript regex, which without
    its `u` flag would take an astral escape for the letters in it. The few astral format
    characters (tags, musical and hieroglyph format controls) and lone surrogates are
    refused by the check itself.
    """
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF or not _refused(chr(code)):
            continue
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))

    def escape(code: int) -> str:
        return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"

    return "".join(escape(lo) if lo == hi else f"{escape(lo)}-{escape(hi)}" for lo, hi in ranges)


@deconstructible
class OneLineValidator(RegexValidator):
    """Refuse a name or title holding a line break, a control or a format character.

    A name is shown on one line: in e-mail subjects (where a line break is refused
    outright, so one candidate's name once stopped a whole reminder run), CSV
    cells, log lines and page headings. Bidirectional controls and invisible
    characters are refused too, so a name reads on screen as it is stored (#30).
    The first offending character is named with its position so the writer can
    find it.

    A RegexValidator so that the OpenAPI schema carries the rule as a `pattern`
    (drf-spectacular reads it), and clients and the API fuzz know it; the check
    itself names the character rather than quoting the pattern.
    """

    regex = rf"\A[^{_bmp_class()}]*\Z"
    code = "control_characters"

    def __call__(self, value: object) -> None:
        text = str(value)
        # Printable ASCII holds nothing refused, and most names are that: checked in C,
        # it spares the scan below, one category lookup a character, which was half of
        # import_scorecards' row checks (12.7M lookups for 250,000 ratings, cProfile).
        if text.isascii() and text.isprintable():
            return
        for position, char in enumerate(text, start=1):
            if _refused(char):
                if char in _CALLED:
                    what = _CALLED[char]
                elif char in _BIDI_CONTROLS:
                    what = "bidirectional control character"
                elif unicodedata.category(char) == "Cf":
                    what = "invisible format character"
                else:
                    what = "control character"
                raise ValidationError(
                    "Names are one line of text: remove the %(what)s (U+%(code)04X) "
                    "at character %(position)d.",
                    code=self.code,
                    params={"what": what, "code": ord(char), "position": position},
                )


def one_line(text: str) -> str:
    """Return ``text`` without what OneLineValidator refuses, for names from elsewhere.

    Runs of white space (line breaks, tabs and separators included) become one space;
    the other refused characters are dropped. For names nobody can be asked to correct
    (an identity provider's claims at sign-in).
    """
    kept = "".join(
        " " if char.isspace() else char for char in text if not _refused(char) or char.isspace()
    )
    return " ".join(kept.split())


validate_one_line = OneLineValidator()
