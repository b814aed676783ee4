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

from pdfindex.query import words

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
_SCRIPT_PATTERNS = {name: re.compile(f"[{chars}]") for name, chars in _SCRIPTS.items()}
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

# Function words per language of a shared alphabet (Latin, Cyrillic, Arabic); a word may
# count for several languages, the distinctive ones decide.
_STOP_WORDS = {
    "latin": {
        "en": "the and of to in is that for it with as on are this be by was from",
        "de": "der die und das ist nicht mit den sich des auf für ein eine dem zu von",
        "fr": "le la les et des est une pour dans que qui pas sur du au avec",
        "es": "el la los las y que del en por con una para es se no al",
        "it": "il di che la per è del della un una sono con non gli le",
        "nl": "de het een en van is dat op te zijn voor met niet aan",
        "pt": "o a os as e que do da em um uma para com não é no",
        "pl": "i w na z się nie do to że jest jak ale po co tak dla oraz",
        "cs": "a je se na v že to s z do jako by pro ve není jsou",
        "sv": "och att det som en på är av för med till den har inte",
        "da": "og at det er en til på af med for som den ikke de",
        "no": "og i det er en til på av som for med at ikke den",
        "fi": "ja on ei se että hän oli ovat mutta kun niin joka tai",
        "hu": "a az és hogy nem egy is van meg de csak el volt",
        "tr": "ve bir bu da de için ile olarak çok daha gibi ne",
        "ro": "și în de la cu nu pe este un care mai din sau",
        "ca": "el la i de que en els les per amb una no és",
        "vi": "và của là có các những được cho trong một không người này",
        "id": "yang dan di dengan untuk ini dari dalam tidak itu akan pada",
    },
    "cyrillic": {
        "ru": "и в не на что с по это как он к из но для от",
        "uk": "і в не на що з та це як до від для але є",
        "bg": "и в на не за от да се че с е по са като",
        "sr": "и у на је да се за од не са као што из",
    },
    "arabic": {
        "ar": "في من على أن إلى عن مع هذا التي الذي",
        "fa": "و در به از که این را با است برای",
    },
}
_DEFAULT = {"cyrillic": "ru", "arabic": "ar"}  # when no function word decides
_LOOKUP: dict[str, dict[str, set[str]]] = {
    script: {
        word: {code for code, text in table.items() if word in text.split()}
        for text in table.values()
        for word in text.split()
    }
    for script, table in _STOP_WORDS.items()
}

# The words a question may drop before ranked retrieval (tools/passages.py): the
# languages it always dropped, kept as they were so ranking does not move.
STOP_WORDS = frozenset(
    word
    for code in ("en", "de", "fr", "es", "it", "nl", "pt")
    for word in _STOP_WORDS["latin"][code].split()
)


# The function words of each language above but English (pdfindex.search.understand has a
# fuller English list): what a query in that language may drop before ranking.
FUNCTION_WORDS = {
    code: frozenset(text.split())
    for table in _STOP_WORDS.values()
    for code, text in table.items()
    if code != "en"
}


def guess_language(text: str, sample: int = 20_000) -> str:
    """ISO 639-1 code of the text's language, or 'unknown'."""
    text = text[:sample]
    counts = {name: len(pattern.findall(text)) for name, pattern in _SCRIPT_PATTERNS.items()}
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
