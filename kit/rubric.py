"""Turn a sample answer outline into a rubric checklist.

Each sentence of the outline is one distinct point and becomes one item, so an
item is always a whole sentence an interviewer can tick. A sentence about what
a strong answer adds becomes `strong`; one about a common miss or a bug
becomes `red_flag`; everything else is `core`.
"""

import re
from dataclasses import dataclass

CORE = "core"
STRONG = "strong"
RED_FLAG = "red_flag"

# Abbreviations whose trailing period does not end a sentence.
_ABBREVIATIONS = ("e.g.", "i.e.", "vs.", "etc.", "cf.", "approx.", "incl.", "esp.", "fig.", "no.")

_STRONG = re.compile(
    r"^(?:a |the )?strong(?:er)? answers?\b|^(?:bonus|extra credit)\b|^(?:also )?mention\b"
    r"|^(?:the answer|it|they) should (?:also )?(?:mention|discuss|note)\b",
    re.IGNORECASE,
)
_RED_FLAG = re.compile(
    r"\bcommon (?:miss|misses|mistakes?|bugs?|pitfalls?|errors?)\b|\bred flags?\b|\bpitfalls?\b"
    r"|^(?:a )?weak answers?\b|^avoid\b|\bshould avoid\b|\bgoes wrong\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Item:
    text: str
    kind: str


def split_sentences(text: str) -> list[str]:
    """Return the sentences of `text`, keeping abbreviations and dotted names intact."""
    pieces = re.split(r"(?<=[.!?])\s+", " ".join(text.split()))
    sentences: list[str] = []
    for piece in pieces:
        if not piece:
            continue
        previous = sentences[-1] if sentences else ""
        if previous and (
            previous.lower().endswith(_ABBREVIATIONS) or previous.count("(") > previous.count(")")
        ):
            sentences[-1] = f"{previous} {piece}"
        else:
            sentences.append(piece)
    return sentences


def classify(sentence: str) -> str:
    if _RED_FLAG.search(sentence):
        return RED_FLAG
    if _STRONG.search(sentence):
        return STRONG
    return CORE


def _normalise(sentence: str) -> str:
    sentence = sentence.strip()
    # Keep the author's casing: "bf16 has ..." must not become "Bf16 has ...".
    if sentence and sentence[-1] not in ".!?":
        sentence += "."
    return sentence


def derive_rubric(outline: str) -> list[Item]:
    """Return one rubric item per distinct sentence of the outline, in order."""
    items: list[Item] = []
    seen: set[str] = set()
    for sentence in split_sentences(outline):
        text = _normalise(sentence)
        key = text.casefold()
        if len(text.split()) < 2 or key in seen:
            continue
        seen.add(key)
        items.append(Item(text=text, kind=classify(text)))
    return items
