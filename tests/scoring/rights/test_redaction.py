"""The redaction rules (scoring.rights.redaction): names as whole words, long free texts
anywhere, free-text keys in records about the candidate; nothing else touched."""

import json

from scoring.rights.redaction import ERASED, Redactor, needles

GONE = "Erased candidate 7"


def redactor(*names: str, texts: tuple[str, ...] = ()) -> Redactor:
    return Redactor.of(names=names, texts=texts, replacement=GONE)


def test_it_replaces_the_name_as_a_whole_word_only() -> None:
    r = redactor("Al Ng")

    assert r.text("Al Ng · AI Infra L5") == f"{GONE} · AI Infra L5"
    assert r.text("ines on Onsite (Al Ng · L5)") == f"ines on Onsite ({GONE} · L5)"
    assert r.text("Al Ngozi · L5") == "Al Ngozi · L5"
    assert r.text("Sal Ng") == "Sal Ng"


def test_it_replaces_earlier_names_and_names_that_begin_or_end_with_punctuation() -> None:
    r = redactor("Casey Quinn", "Casey Q.", "=HYPERLINK(x)")

    assert r.text("Casey Q. then Casey Quinn") == f"{GONE} then {GONE}"
    assert r.text("a=HYPERLINK(x)b") == f"a{GONE}b"


def test_it_erases_long_free_texts_anywhere_and_short_ones_nowhere() -> None:
    r = redactor("Casey", texts=("Said paging twice", "ok", "x"))

    assert r.text("notes: Said paging twice → none") == f"notes: {ERASED} → none"
    assert r.text("looked ok to me, x") == "looked ok to me, x"
    # A free text that holds the name goes whole, not as "Said <name> ...".
    r = redactor("Casey", texts=("Casey said paging twice",))
    assert r.text("Casey said paging twice; Casey") == f"{ERASED}; {GONE}"


def test_records_about_them_lose_every_value_under_a_free_text_key() -> None:
    r = redactor("Casey", texts=("Said paging twice",))
    data = {"decision": "no_hire", "reason": "typo", "notes": "", "n": 3, "who": ["Casey"]}

    assert r.value(data) == {**data, "who": [GONE]}
    assert r.value(data, about_them=True) == {**data, "reason": ERASED, "who": [GONE]}


def test_it_says_whether_a_value_mentions_them() -> None:
    r = redactor("Casey", texts=("Said paging twice",))

    assert r.mentions({"a": [{"b": "by Casey"}]})
    assert r.mentions({"Said paging twice!": 1})
    assert not r.mentions({"a": ["Caseys"], "n": 1})
    assert not redactor().mentions("anything")


def test_needles_are_the_forms_a_text_takes_in_a_text_or_json_column() -> None:
    name = 'Zoë "Z" Ång\\'

    found = needles(name)

    assert name in found
    for stored in (
        json.dumps({"target": name}),  # as Django writes JSON on SQLite
        json.dumps({"target": name}, ensure_ascii=False),  # as PostgreSQL prints jsonb
    ):
        assert name not in stored
        assert any(n in stored for n in found)
