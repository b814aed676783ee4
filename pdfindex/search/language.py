"""A small language guess from stop words: enough to label a document, not to translate it."""

from __future__ import annotations

from collections import Counter

from pdfindex.query import words

_STOP_WORDS = {
    "en": "the and of to in is that for it with as on are this be by was from",
    "de": "der die und das ist nicht mit den sich des auf für ein eine dem zu von",
    "fr": "le la les et des est une pour dans que qui pas sur du au avec",
    "es": "el la los las y que del en por con una para es se no al",
    "it": "il di che la per è del della un una sono con non gli le",
    "nl": "de het een en van is dat op te zijn voor met niet aan",
    "pt": "o a os as e que do da em um uma para com não é no",
}
_LOOKUP = {word: code for code, text in _STOP_WORDS.items() for word in text.split()}


def guess_language(text: str, sample: int = 20_000) -> str:
    """ISO 639-1 code of the language whose stop words are most frequent, or 'unknown'."""
    counts = Counter(_LOOKUP[w] for w in words(text[:sample]) if w in _LOOKUP)
    if not counts:
        return "unknown"
    code, hits = counts.most_common(1)[0]
    return code if hits >= 3 else "unknown"


STOP_WORDS = frozenset(_LOOKUP)
