"""A small language guess to label a document: by writing system first, then, for the
Latin, Cyrillic and Arabic alphabets, by the most frequent function words.

Enough for a label (`get_document_info`'s `language`), not for translation. A library
(py3langid) would name more languages, but costs numpy and a model load of ~0.7 s per
process for a label the catalog shows; this is a few regex scans over 20,000 characters.
Returns an ISO 639-1 code, or "unknown" when the text says too little.
"""

from __future__ import annotations

import re
from collections import Counter

from pdfindex.text.stopwords import COMMON
from pdfindex.text.words import words

# Writing systems told apart by code point ranges. Han is shared by Chinese and Japanese:
# kana decide. A CJK character is about a word, a Latin letter a fifth of one, so CJK
# counts are weighed up before the writing systems are compared.
_SCRIPTS = {
    "kana": "\u3040-\u30ff\u31f0-\u31ff\uff66-\uff9f",
    "han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    "hangul": "\u1100-\u11ff\u3130-\u318f\uac00-\ud7af",
    "cyrillic": "\u0400-\u052f",
    "greek": "\u0370-\u03ff\u1f00-\u1fff",
    "arabic": "\u0600-\u06ff\u0750-\u077f\ufb50-\ufdff\ufe70-\ufefc",
    "hebrew": "\u0590-\u05ff",
    "thai": "\u0e00-\u0e7f",
    "devanagari": "\u0900-\u097f",
    "armenian": "\u0530-\u058f",
    "georgian": "\u10a0-\u10ff",
    "latin": "A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff",
}
# Runs of each system's letters: counted by their lengths (half the time of one match per
# letter).
_SCRIPT_PATTERNS = {name: re.compile(f"[{chars}]+") for name, chars in _SCRIPTS.items()}
_WEIGHT = {"kana": 3, "han": 3, "hangul": 3}
_SCRIPT_LANGUAGE = {
    "kana": "ja",
    "han": "zh",
    "hangul": "ko",
    "greek": "el",
    "hebrew": "he",
    "thai": "th",
    "devanagari": "hi",
    "armenian": "hy",
    "georgian": "ka",
}
_MIN_LETTERS = 20  # fewer letters than this say nothing
_MIN_HITS = 3  # function words needed to name a language of a shared alphabet
_DEFAULT = {"cyrillic": "ru", "arabic": "ar"}  # when no function word decides
# Per alphabet, each of its languages' commonest function words -> the languages it is one of.
_LOOKUP: dict[str, dict[str, set[str]]] = {
    script: {
        word: {code for code, text in table.items() if word in text.split()}
        for text in table.values()
        for word in text.split()
    }
    for script, table in COMMON.items()
}


def _script_counts(text: str) -> dict[str, int]:
    """Letters of each writing system in `text`. Only the systems some character of the
    text belongs to are counted through it: ASCII text is scanned once (Latin), not
    twelve times (3 ms a document before)."""
    rare = "".join(char for char in set(text) if char > "\x7f")
    return {
        name: sum(map(len, pattern.findall(text))) if name == "latin" or pattern.search(rare) else 0
        for name, pattern in _SCRIPT_PATTERNS.items()
    }


def guess_language(text: str, sample: int = 20_000) -> str:
    """ISO 639-1 code of the text's language, or 'unknown'."""
    text = text[:sample]
    counts = _script_counts(text)
    if sum(counts.values()) < _MIN_LETTERS:
        return "unknown"
    if counts["kana"]:  # Japanese writes Han and kana; Chinese has no kana
        counts["kana"], counts["han"] = counts["kana"] + counts["han"], 0
    script = max(counts, key=lambda name: counts[name] * _WEIGHT.get(name, 1))
    if script in _SCRIPT_LANGUAGE:
        return _SCRIPT_LANGUAGE[script]
    lookup = _LOOKUP[script]
    hits = Counter(code for word in words(text) for code in lookup.get(word, ()))
    if hits and hits.most_common(1)[0][1] >= _MIN_HITS:
        return hits.most_common(1)[0][0]
    return _DEFAULT.get(script, "unknown")
