"""The API's JSON parser: refuses a body nested deeper than MAX_JSON_DEPTH, before parsing.

Python's json module parses arrays and objects recursively: about 1,000 nested ``[``
(2 KB) raise RecursionError, which is no ValueError and so escaped DRF's parser as a
500; shallower nesting parses, then recurses again in the serializers that walk it.
No body this API documents nests deeper than a handful of levels (a scorecard's
ratings and their checked items are four), so a fixed limit of 32 refuses nothing
honest. The depth is measured by one linear scan that counts brackets outside strings
(a regular expression skips each string, escapes included), so a hostile body costs
a pass over its bytes, never a recursion.
"""

import codecs
import re
from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework import parsers, status
from rest_framework.exceptions import ParseError
from rest_framework.utils import json

MAX_JSON_DEPTH = 32

# A string (its escapes included: \" does not end it) or one bracket. Possessive
# quantifiers keep the scan linear on a long string.
_STRING_OR_BRACKET = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{}]', re.DOTALL)
_OPENS = frozenset("[{")

TOO_DEEP = (
    "The JSON body is nested deeper than {limit} levels of arrays and objects; "
    "no request to this API needs more."
)


class TooDeep(ParseError):
    """A JSON body nested beyond MAX_JSON_DEPTH: 400, code too_deep."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "too_deep"

    def __init__(self, limit: int = MAX_JSON_DEPTH) -> None:
        super().__init__(TOO_DEEP.format(limit=limit), self.default_code)
        self.extra = {"limit": limit}


def json_depth_check(text: str, limit: int = MAX_JSON_DEPTH) -> None:
    """Raise TooDeep when ``text`` nests arrays and objects deeper than ``limit``.

    Brackets inside strings do not count. Unbalanced or otherwise broken JSON is
    left to the parser, which says what is wrong with it.
    """
    if text.count("[") + text.count("{") <= limit:
        return  # cannot be deeper: most bodies stop here without a scan
    depth = 0
    for match in _STRING_OR_BRACKET.finditer(text):
        token = match.group()
        if token in _OPENS:
            depth += 1
            if depth > limit:
                raise TooDeep(limit)
        elif token in "]}":
            depth -= 1


class JSONParser(parsers.JSONParser):
    """DRF's JSONParser, refusing a body nested deeper than MAX_JSON_DEPTH (400 too_deep)."""

    def parse(
        self,
        stream: IO[bytes],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> Any:
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            # As DRF's own parser checks: a text codec only, never bz2_codec and the like,
            # which would expand a small body past DATA_UPLOAD_MAX_MEMORY_SIZE.
            "".encode(encoding)
        except (LookupError, UnicodeError):
            raise ParseError(
                f'Unsupported charset "{encoding}" in request Content-Type header.'
            ) from None
        try:
            text = codecs.getreader(encoding)(stream).read() if stream is not None else ""
        except ValueError as exc:  # UnicodeDecodeError included
            raise ParseError(f"JSON parse error - {exc}") from None
        json_depth_check(text)
        try:
            parse_constant = json.strict_constant if self.strict else None
            return json.loads(text, parse_constant=parse_constant)
        except ValueError as exc:
            raise ParseError(f"JSON parse error - {exc}") from None
        except RecursionError:
            # Unreachable within the limit; kept so no parser failure can become a 500.
            raise TooDeep() from None
