"""Redacting a candidate's name, and the free text written about them, wherever it was copied.

Erasure clears the candidate's own rows outright. Copies kept elsewhere (audit
events, admin log entries, calibration snapshots) stay, with the text redacted:

===============================  ==========================  ===========================
what                             found                       becomes
===============================  ==========================  ===========================
the name (and earlier names)     anywhere, as a whole word   ``Erased candidate <id>``
a free text of 6+ characters     anywhere, as a substring    ``(erased)``
any value under a free-text key  in records about them       ``(erased)``
===============================  ==========================  ===========================

Shorter free texts ("ok", "x") are not searched for as substrings: they would
match unrelated words and identify nobody. Pure functions, no ORM.
"""

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

ERASED = "(erased)"
# A free text shorter than this is redacted only where its key says it is free text.
MIN_TEXT = 6
# Keys under which a record about the candidate holds free text (audit data,
# amendment copies of a card): their values go whatever they say.
FREE_TEXT_KEYS = frozenset(
    {"reason", "rationale", "decision_rationale", "summary", "notes", "not_asked_reason",
     "email", "phone"}
)  # fmt: skip


def erased_name(pk: int) -> str:
    return f"Erased candidate {pk}"


def needles(text: str) -> set[str]:
    """Return the forms `text` takes inside a stored column, for a substring search.

    As is (text columns), JSON-escaped with non-ASCII escaped too (how Django
    writes JSON on SQLite) and without (how PostgreSQL prints jsonb as text).
    """
    return {text, json.dumps(text)[1:-1], json.dumps(text, ensure_ascii=False)[1:-1]}


def _word(text: str) -> str:
    # A whole word: no letter or digit right before or after (where the name
    # itself begins or ends with one), so "Al" is not found in "Alex".
    before = r"(?<!\w)" if re.match(r"\w", text[0]) else ""
    after = r"(?!\w)" if re.match(r"\w", text[-1]) else ""
    return before + re.escape(text) + after


@dataclass(frozen=True)
class Redactor:
    """Replace a candidate's names and free texts in text and JSON values."""

    names: tuple[str, ...]
    texts: tuple[str, ...]
    replacement: str
    _pattern: re.Pattern[str] | None = field(init=False, default=None, compare=False)

    @classmethod
    def of(cls, *, names: Iterable[str], texts: Iterable[str], replacement: str) -> "Redactor":
        """Build one from names and free texts (blank ones and duplicates dropped)."""
        kept_names = sorted({n for n in names if n.strip()}, key=len, reverse=True)
        kept_texts = sorted({t for t in texts if len(t.strip()) >= MIN_TEXT}, key=len, reverse=True)
        return cls(names=tuple(kept_names), texts=tuple(kept_texts), replacement=replacement)

    def __post_init__(self) -> None:
        # Texts first: at one position the longer free text (which may hold the
        # name) wins over the name alone.
        texts = "|".join(re.escape(t) for t in self.texts)
        names = "|".join(_word(n) for n in self.names)
        parts = [f"(?P<text>{texts})" if texts else "", f"(?P<name>{names})" if names else ""]
        joined = "|".join(p for p in parts if p)
        object.__setattr__(self, "_pattern", re.compile(joined) if joined else None)

    @property
    def searched(self) -> tuple[str, ...]:
        """What a database search must look for: every name and searched text."""
        return self.names + self.texts

    def mentions(self, value: Any) -> bool:
        """Whether the text, or any string in the JSON value, holds a name or free text."""
        if self._pattern is None:
            return False
        if isinstance(value, str):
            return self._pattern.search(value) is not None
        if isinstance(value, dict):
            return any(self.mentions(k) or self.mentions(v) for k, v in value.items())
        if isinstance(value, list):
            return any(self.mentions(v) for v in value)
        return False

    def text(self, value: str) -> str:
        if self._pattern is None:
            return value
        return self._pattern.sub(
            lambda m: ERASED if m.lastgroup == "text" else self.replacement, value
        )

    def value(self, value: Any, *, about_them: bool = False) -> Any:
        """Return the JSON value redacted; `about_them` also erases free-text keys' values."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.value(v, about_them=about_them) for v in value]
        if isinstance(value, dict):
            return {
                self.text(k): ERASED
                if about_them and k in FREE_TEXT_KEYS and isinstance(v, str) and v
                else self.value(v, about_them=about_them)
                for k, v in value.items()
            }
        return value
