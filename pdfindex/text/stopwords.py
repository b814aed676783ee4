"""Function words, one table per language (FUNCTION_WORDS): what a natural-language query
in that language drops before ranking (pdfindex.search.understand). Their commonest ones
(COMMON) are also what the language guess counts (pdfindex.text.language), and the
English ones are what the postgres engine pairs in its index (its page_vector).
"""

from __future__ import annotations

# The commonest function words of each language of a shared alphabet (Latin, Cyrillic,
# Arabic): they tell a language from its neighbours. A word may count for several
# languages, the distinctive ones decide.
COMMON: dict[str, dict[str, str]] = {
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

# English function words: articles, pronouns, auxiliary and modal verbs, question words,
# conjunctions and the commonest prepositions; its commonest ones above and the rest here.
# Not NLTK's fuller list (which Whoosh ships): it also drops words that carry the meaning
# in manuals ("turn off", "code before a command", "after" hooks, "all", "same"); on the
# whole tuning set both lists rank alike (benchmarks/results, relevance-tuning).
ENGLISH_FUNCTION_WORDS = frozenset(COMMON["latin"]["en"].split()) | frozenset(
    """a an or but if then than so into at about i me my mine myself we us our ours you
    your yours he him his she her hers its they them their theirs these those am were
    been being have has had having do does did doing done can could would should will
    shall may might must what which who whom whose when where why how there here such
    just also very not nor s t don""".split()
)

# One table per language: English's full list, each other language's commonest words.
FUNCTION_WORDS: dict[str, frozenset[str]] = {"en": ENGLISH_FUNCTION_WORDS} | {
    code: frozenset(text.split())
    for table in COMMON.values()
    for code, text in table.items()
    if code != "en"
}

# The words a question dropped before query understanding (tools/passages.py when
# search.understand.ENABLED is off, benchmarks/relevance.py's "before"): the commonest of
# the seven languages it always dropped, kept as they were so that ranking does not move.
STOP_WORDS = frozenset(
    word
    for code in ("en", "de", "fr", "es", "it", "nl", "pt")
    for word in COMMON["latin"][code].split()
)
