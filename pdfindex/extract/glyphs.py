"""Characters pdfium could not name, read again from the font's own map.

When a simple font names a glyph in a way PDFium's glyph list does not know (TeX's
`/f_i`, `/f_f_l` in LinLibertine, LMRoman and many others) and has no ToUnicode entry for
it, PDFium hands back the character *code* as if it were a character: `de\\x1bnition`
for "definition". Which letters the code stands for depends on the font's encoding
(code 27 is `ff` in T1 but `fi` in LinLibertine's), so no fixed table may guess it.

This module holds the rules that need no PDF library: which characters are suspect and
how pdfminer.six's readings of the same fonts' codes (ToUnicode, else the encoding's glyph
names by the AGL rules, `f_i` → `fi`, including the embedded font's own encoding) are put
in their place. Only pages that show a suspect character pay for a second reading.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

# Bump when the rules change what a page reads as: the PDF adapters' versions carry it,
# so cached extractions and indexed files made before are read again.
GLYPHS_VERSION = 1

# C0 and C1 control codes (pdfium's own \x02 hyphen mark and the line ends aside) and the
# Private Use Area: a code standing in for a character, never text of its own.
SUSPECT = re.compile("[\x00\x01\x03-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ue000-\uf8ff]")


def is_suspect(code: int) -> bool:
    return SUSPECT.match(chr(code)) is not None if 0 <= code < 0x110000 else False


# One suspect character as an extractor saw it: (font name without a subset tag, the
# character code); a reading adds the text pdfminer.six makes of it (None: none).
Glyph = tuple[str, int]
Reading = tuple[str, int, str | None]


def resolve(text: str, glyphs: Sequence[Glyph], readings: Sequence[Reading]) -> str:
    """`text` with each suspect character replaced by pdfminer's reading of its glyph.

    `glyphs` are pdfium's suspect characters in page order; `readings` pdfminer's, from
    the page's font tables or, where those disagree, its characters in content order.
    When both name the same glyphs in the same order, each is read from its own twin;
    otherwise a (font, code) is read only when all its readings agree. A character that
    stays unread is left as it is (the text rules drop control codes), never guessed.
    """
    by_glyph = _agreed(readings)
    texts = _paired(glyphs, readings) or [by_glyph.get(glyph) for glyph in glyphs]
    found = list(SUSPECT.finditer(text))
    if len(found) == len(glyphs) and all(
        ord(match.group()) == code for match, (_font, code) in zip(found, glyphs, strict=True)
    ):
        replacements = texts
    else:  # the text does not hold pdfium's characters one for one: by code alone
        by_code = _agreed(("", code, text) for (_font, code), text in by_glyph.items())
        replacements = [by_code.get(("", ord(match.group()))) for match in found]
    out: list[str] = []
    done = 0
    for match, replacement in zip(found, replacements, strict=True):
        if replacement is not None:
            out.append(text[done : match.start()] + replacement)
            done = match.end()
    return "".join(out) + text[done:]


def _usable(text: str | None) -> bool:
    """A reading worth taking: some text, none of it suspect itself."""
    return bool(text) and SUSPECT.search(text or "") is None


def _paired(glyphs: Sequence[Glyph], readings: Sequence[Reading]) -> list[str | None] | None:
    """Each glyph's own reading, when pdfminer saw exactly these glyphs in this order."""
    fonts = {font for font, _code in glyphs}
    codes = {code for _font, code in glyphs}
    mine = [r for r in readings if r[0] in fonts and r[1] in codes]
    if [(font, code) for font, code, _text in mine] != list(glyphs):
        return None
    return [text if _usable(text) else None for _font, _code, text in mine]


def _agreed(readings: Iterable[Reading]) -> dict[Glyph, str]:
    """(font, code) -> the one text all its usable readings give."""
    seen: dict[Glyph, set[str]] = defaultdict(set)
    for font, code, text in readings:
        if _usable(text):
            seen[(font, code)].add(text)
    return {glyph: next(iter(texts)) for glyph, texts in seen.items() if len(texts) == 1}
