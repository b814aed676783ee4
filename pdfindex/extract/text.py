"""Index-time text normalisation: the one place that decides what page text is stored.

Every search (exact, regex, ranked) sees the stored text, so it is cleaned once here,
before storing, and `TEXT_VERSION` names the rules so that text cached under older rules
is cleaned again when it is read (`ExtractionCache.get`), without re-parsing any PDF.

What it does, in order:
- line ends become `\\n` (`\\r\\n` and lone `\\r`);
- NFKC: compatibility forms are folded (ligatures `ﬁ` → `fi`, full-width letters);
- C0/C1 control characters are dropped (tab and line feed stay). A ligature a font names
  in its own way reaches here as its bare code only when no reading of the font could
  name it (`pdfindex.extract.glyphs`); which letters a code stands for depends on the
  font's encoding (27 is `ff` in T1 but `fi` in LinLibertine's), so it is never guessed;
- accents TeX builds from two glyphs come out of the extractors detached: a spacing
  accent before the letter (`Universit¨at`, which NFKC makes `Universit ̈at`; `Th´ˆe`,
  `H`an`), or after it when an extractor orders glyphs by position (`Universita¨t`). Each
  is put back on its letter (`Universität`, `Thế`, `Hàn`), but only when the result is
  one precomposed character: a lone accent, a real `¨` between spaces, an accent over a
  letter without a precomposed form (maths: q̇), and code (ASCII `^` and `~` are never
  touched; a backquote only between two letters) are left as they are.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

# Bump when normalize_text changes what it makes of some text: cached extractions made
# under an older version are normalised again when read. 3: control codes are no longer
# read as T1 ligatures (they made `deffnition` of LinLibertine's `de\x1bnition`).
TEXT_VERSION = 3

_LINE_ENDS = re.compile(r"\r\n?")
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff]")

# Accents NFKC turns into a space + combining mark (¨ ´ ¸ ¯ ˘ ˙ ˚ ˛ ˜ ˝), and spacing
# modifier letters it leaves alone (ˆ ˇ ˉ ˊ ˋ), with their combining marks.
_MARKS = "\u0300\u0301\u0302\u0303\u0304\u0306\u0307\u0308\u030a\u030b\u030c\u0327\u0328"
_MODIFIERS = {
    "\u02c6": "\u0302",
    "\u02c7": "\u030c",
    "\u02c9": "\u0304",
    "\u02ca": "\u0301",
    "\u02cb": "\u0300",
    "`": "\u0300",  # a backquote counts only between two letters
}
_LETTER = r"[^\W\d_]"
_ACCENT_CHARS = re.compile(f"[{_MARKS}{''.join(_MODIFIERS)}]")  # a cheap first look
_ACCENTS = re.compile(rf"(?:(?: [{_MARKS}])|[\u02c6\u02c7\u02c9\u02ca\u02cb])+|`")
_LETTER_RE = re.compile(_LETTER)
_MAX_PASSES = 4
_DOTLESS = {"\u0131": "i", "\u0237": "j"}  # TeX's \\i and \\j under an accent


def normalize_text(text: str) -> str:
    """Page text as it is stored and searched (see the module docstring)."""
    if "\r" in text:
        text = _LINE_ENDS.sub("\n", text)
    text = unicodedata.normalize("NFKC", text)  # first, so NFKC'd (old cached) text ends alike
    if _CONTROLS.search(text):  # what a dropped control joins may meet an accent: NFKC again
        text = unicodedata.normalize("NFKC", _CONTROLS.sub("", text))
    for _ in range(_MAX_PASSES):  # an accent put back may swing the vote for the others
        repaired = _reattach(text) if _ACCENT_CHARS.search(text) else text
        repaired = unicodedata.normalize("NFKC", repaired) if repaired != text else text
        if repaired == text:
            break
        text = repaired
    return text


def _reattach(text: str) -> str:
    """Put each detached accent on its letter, as one precomposed character.

    The accent belongs to the letter after it (TeX draws the accent first) or, when an
    extractor orders glyphs by position, to the one before it. Which way this text goes is
    voted by the accents that fit one side only with a common letter (`Universit ̈at`: ä,
    not ẗ); the others follow the vote, and one that fits no side stays as it is.
    """
    runs = []
    votes = 0
    for match in _ACCENTS.finditer(text):
        start, end = match.span()
        if match.group() == "`" and not (
            _is_letter(text[start - 1 : start]) and _is_letter(text[end : end + 1])
        ):
            continue  # a backquote stands for a grave accent only inside a word
        marks = [_MODIFIERS.get(char, char) for char in match.group() if char != " "]
        after = _compose(text[end], reversed(marks)) if end < len(text) else None
        before = _compose(text[start - 1], marks) if start else None
        votes += _common(after) - _common(before)
        inside = _is_letter(text[start - 1 : start]) and _is_letter(text[end : end + 1])
        runs.append((start, end, after, before, inside))
    out: list[str] = []
    done = 0  # text[:done] is in `out`
    for start, end, after, before, inside in runs:
        options = [(after, True), (before, False)]
        if votes < 0:
            options.reverse()
        if not inside:  # the other way only for an accent inside a word
            options = options[:1]
        options = [o for o in options if _common(o[0])] + [o for o in options if o[0]]
        for composed, forward in options:
            if composed is None or start - (not forward) < done:
                continue  # nothing fits that side, or its letter already took an accent
            out.append(text[done : start - (not forward)] + composed)
            done = end + forward
            break
    return "".join(out) + text[done:]


def _is_letter(char: str) -> bool:
    return bool(char) and _LETTER_RE.match(char) is not None


def _compose(letter: str, marks: Iterable[str]) -> str | None:
    """The letter with these marks as one precomposed character, if there is one."""
    if not _is_letter(letter):
        return None
    composed = unicodedata.normalize("NFC", _DOTLESS.get(letter, letter) + "".join(marks))
    return composed if len(composed) == 1 else None


def _common(char: str | None) -> bool:
    """An accented letter of a living Latin-script orthography (Latin-1, Latin Extended-A,
    pinyin's ǎ..ǜ, Vietnamese), not a rarity like ẗ or ǹ that a misplaced accent makes."""
    if char is None:
        return False
    code = ord(char)
    return 0xC0 <= code <= 0x17F or 0x1CD <= code <= 0x1DC or 0x1EA0 <= code <= 0x1EF9


def clean_metadata_value(value: str) -> str:
    """A metadata field (title, author, ...) as one clean line: normalised like page text,
    whitespace runs (line breaks included) made one space."""
    return " ".join(normalize_text(value).split())
