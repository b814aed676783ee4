"""fzf's matching and scoring, ported so `fuzzy_search` ranks lines as `fzf --filter` does.

A port of fzf 0.38.0 (Debian bookworm's fzf, the oracle the tests run), files
src/algo/algo.go (FuzzyMatchV2, FuzzyMatchV1 for long lines, calculateScore,
ExactMatchNaive, PrefixMatch, SuffixMatch, EqualMatch, the character classes and bonus
table) and src/pattern.go (parseTerms: the extended-search syntax, smart case per term,
latin normalisation; extendedMatch: a line matches when every term set does, its score is
the sum), https://github.com/junegunn/fzf (MIT). The default scheme: word boundaries after
white space earn 10, after `/,:;|` 9, after other punctuation 8; camelCase and digits 7;
each match 16; gaps cost 3 then 1 a character. Results sort by score, then by the line's
length without surrounding white space, then by input order (fzf's `--tiebreak=length`).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Literal

SCORE_MATCH = 16
GAP_START = -3
GAP_EXTENSION = -1
BONUS_BOUNDARY = SCORE_MATCH // 2
BONUS_NON_WORD = SCORE_MATCH // 2
BONUS_CAMEL123 = BONUS_BOUNDARY + GAP_EXTENSION
BONUS_CONSECUTIVE = -(GAP_START + GAP_EXTENSION)
FIRST_CHAR_MULTIPLIER = 2
BONUS_BOUNDARY_WHITE = BONUS_BOUNDARY + 2
BONUS_BOUNDARY_DELIMITER = BONUS_BOUNDARY + 1
SLAB_CELLS = 100 * 1024  # fzf's slab16Size: past N*M cells V2 falls back to V1

WHITE, NON_WORD, DELIMITER, LOWER, UPPER, LETTER, NUMBER = range(7)
_WHITE_CHARS = " \t\n\v\f\r\x85\xa0"
_DELIMITERS = "/,:;|"

TermType = Literal["fuzzy", "exact", "prefix", "suffix", "equal"]


def _ascii_class(char: str) -> int:
    if "a" <= char <= "z":
        return LOWER
    if "A" <= char <= "Z":
        return UPPER
    if "0" <= char <= "9":
        return NUMBER
    if char in _WHITE_CHARS:
        return WHITE
    return DELIMITER if char in _DELIMITERS else NON_WORD


def _other_class(char: str) -> int:
    """Go's unicode.IsLower / IsUpper / IsNumber / IsLetter / IsSpace, in that order."""
    category = unicodedata.category(char)
    if category == "Ll":
        return LOWER
    if category == "Lu":
        return UPPER
    if category[0] == "N":
        return NUMBER
    if category[0] == "L":
        return LETTER
    if char.isspace():
        return WHITE
    return DELIMITER if char in _DELIMITERS else NON_WORD


_ASCII_CLASSES = [_ascii_class(chr(n)) for n in range(128)]


def char_class(char: str) -> int:
    code = ord(char)
    return _ASCII_CLASSES[code] if code < 128 else _other_class(char)


def bonus_for(previous: int, current: int) -> int:
    if current > NON_WORD:
        if previous == WHITE:
            return BONUS_BOUNDARY_WHITE
        if previous == DELIMITER:
            return BONUS_BOUNDARY_DELIMITER
        if previous == NON_WORD:
            return BONUS_BOUNDARY
    if previous == LOWER and current == UPPER or previous != NUMBER and current == NUMBER:
        return BONUS_CAMEL123
    if current == NON_WORD:
        return BONUS_NON_WORD
    if current == WHITE:
        return BONUS_BOUNDARY_WHITE
    return 0


_BONUS = [[bonus_for(p, c) for c in range(7)] for p in range(7)]


def _normal(code: int) -> str | None:
    """fzf's table (normalize.go, built from Unicode's index) maps small latin letters
    with marks, and small capitals, to their base letter, U+00C0 to U+2184; their names
    say the same ("LATIN SMALL LETTER A WITH ACUTE", "LATIN LETTER SMALL CAPITAL R").
    Capital letters are left out as fzf leaves most out: a case-insensitive match lowers
    them first."""
    name = unicodedata.name(chr(code), "")
    found = _LETTER.search(name)
    if "LATIN" not in name or "SMALL" not in name or found is None:
        return None
    return found.group(1) if "SMALL CAPITAL" in name else found.group(1).lower()


_LETTER = re.compile(r"LETTER (?:[A-Z]+ )*?([A-Z])(?: |$)")
NORMALIZE = {c: n for c in range(0xC0, 0x2185) if (n := _normal(c)) is not None}


def _runs(codes: list[int]) -> list[tuple[int, int]]:
    runs: list[tuple[int, int]] = []
    for code in codes:
        if runs and runs[-1][1] == code - 1:
            runs[-1] = (runs[-1][0], code)
        else:
            runs.append((code, code))
    return runs


# str.translate looks every character up in the table (about 70 µs a page of curly quotes
# and dashes); one search for the few letters it changes leaves most pages as they are.
_NORMALIZED = re.compile(
    "[" + "".join(f"{chr(a)}-{chr(b)}" for a, b in _runs(sorted(NORMALIZE))) + "]"
)


def normalize(text: str) -> str:
    if text.isascii() or _NORMALIZED.search(text) is None:
        return text
    return text.translate(NORMALIZE)


def _lower(char: str) -> str:
    """Go's unicode.To(LowerCase): one character stays one character."""
    low = char.lower()
    return low if len(low) == 1 else char


def _prepare(line: str, case_sensitive: bool, normal: bool) -> tuple[list[str], list[int]]:
    """The line's characters as the matcher compares them, and each one's class."""
    classes = [char_class(c) for c in line]
    chars = list(line)
    if not case_sensitive:
        chars = [_lower(c) if k == UPPER else c for c, k in zip(chars, classes, strict=True)]
    if normal and not line.isascii():
        chars = [c.translate(NORMALIZE) if ord(c) >= 0xC0 else c for c in chars]
    return chars, classes


def _bonuses(classes: list[int]) -> list[int]:
    previous, out = WHITE, []
    for current in classes:
        out.append(_BONUS[previous][current])
        previous = current
    return out


def calculate_score(
    chars: list[str], classes: list[int], pattern: str, start: int, end: int
) -> int:
    """fzf's calculateScore: the score of one alignment (V1, exact, prefix, suffix)."""
    pidx, score, in_gap, consecutive, first_bonus = 0, 0, False, 0, 0
    previous = classes[start - 1] if start > 0 else WHITE
    for idx in range(start, end):
        current = classes[idx]
        if chars[idx] == pattern[pidx]:
            score += SCORE_MATCH
            bonus = _BONUS[previous][current]
            if consecutive == 0:
                first_bonus = bonus
            else:
                if bonus >= BONUS_BOUNDARY and bonus > first_bonus:
                    first_bonus = bonus
                bonus = max(bonus, first_bonus, BONUS_CONSECUTIVE)
            score += bonus * FIRST_CHAR_MULTIPLIER if pidx == 0 else bonus
            in_gap, consecutive = False, consecutive + 1
            pidx += 1
        else:
            score += GAP_EXTENSION if in_gap else GAP_START
            in_gap, consecutive, first_bonus = True, 0, 0
        previous = current
    return score


def fuzzy_v1(chars: list[str], classes: list[int], pattern: str) -> int | None:
    """FuzzyMatchV1: the first occurrence, shortened from its end backwards."""
    pidx, start, end = 0, -1, -1
    for idx, char in enumerate(chars):
        if char == pattern[pidx]:
            if start < 0:
                start = idx
            pidx += 1
            if pidx == len(pattern):
                end = idx + 1
                break
    if end < 0:
        return None
    pidx -= 1
    for idx in range(end - 1, start - 1, -1):
        if chars[idx] == pattern[pidx]:
            pidx -= 1
            if pidx < 0:
                start = idx
                break
    return calculate_score(chars, classes, pattern, start, end)


def fuzzy_v2(chars: list[str], classes: list[int], pattern: str) -> int | None:
    """FuzzyMatchV2: Smith-Waterman without omissions, the best-scoring alignment."""
    m, n = len(pattern), len(chars)
    if m == 0:
        return 0
    if n * m > SLAB_CELLS:
        return fuzzy_v1(chars, classes, pattern)
    bonus = _bonuses(classes)
    first: list[int] = []  # where each pattern character first occurs, in order
    pidx, last = 0, 0
    pchar0 = pchar = pattern[0]
    h0, c0 = [0] * n, [0] * n
    max_score, previous_h0, in_gap = 0, 0, False
    for off, char in enumerate(chars):
        if char == pchar:
            if pidx < m:
                first.append(off)
                pidx += 1
                pchar = pattern[min(pidx, m - 1)]
            last = off
        if char == pchar0:
            score = SCORE_MATCH + bonus[off] * FIRST_CHAR_MULTIPLIER
            h0[off], c0[off] = score, 1
            if m == 1 and score > max_score:
                max_score = score
                if bonus[off] >= BONUS_BOUNDARY:
                    break
            in_gap = False
        else:
            h0[off] = max(previous_h0 + (GAP_EXTENSION if in_gap else GAP_START), 0)
            c0[off], in_gap = 0, True
        previous_h0 = h0[off]
    if pidx != m:
        return None
    if m == 1:
        return max_score
    previous_h, previous_c = h0, c0
    for row in range(1, m):
        pchar, start = pattern[row], first[row]
        h, c = [0] * n, [0] * n
        in_gap = False
        left = 0  # Hleft[0] = 0: nothing left of the first possible column
        for col in range(start, last + 1):
            s2 = left + (GAP_EXTENSION if in_gap else GAP_START)
            s1 = consecutive = 0
            if chars[col] == pchar:
                s1 = previous_h[col - 1] + SCORE_MATCH
                b = bonus[col]
                consecutive = previous_c[col - 1] + 1
                if consecutive > 1:
                    fb = bonus[col - consecutive + 1]
                    if b >= BONUS_BOUNDARY and b > fb:
                        consecutive = 1
                    else:
                        b = max(b, BONUS_CONSECUTIVE, fb)
                if s1 + b < s2:
                    s1 += bonus[col]
                    consecutive = 0
                else:
                    s1 += b
            c[col] = consecutive
            in_gap = s1 < s2
            score = max(s1, s2, 0)
            if row == m - 1 and score > max_score:
                max_score = score
            h[col] = left = score
        previous_h, previous_c = h, c
    return max_score


def exact(chars: list[str], classes: list[int], pattern: str) -> int | None:
    """ExactMatchNaive: the occurrence whose first character has the best bonus."""
    m, n = len(pattern), len(chars)
    if n < m:
        return None
    bonus = _bonuses(classes)
    best_pos, best_bonus = -1, -1
    text = "".join(chars)
    at = text.find(pattern)
    while at >= 0:
        here = BONUS_BOUNDARY_WHITE if at == 0 else bonus[at]  # fzf's bonusAt
        if here > best_bonus:
            best_pos, best_bonus = at, here
        if here >= BONUS_BOUNDARY:
            break
        at = text.find(pattern, at + 1)
    if best_pos < 0:
        return None
    return calculate_score(chars, classes, pattern, best_pos, best_pos + m)


def _leading_white(line: str) -> int:
    return len(line) - len(line.lstrip())


def _trailing_white(line: str) -> int:
    return len(line) - len(line.rstrip())


def prefix(chars: list[str], classes: list[int], pattern: str) -> int | None:
    trimmed = 0 if pattern[0].isspace() else _leading_white("".join(chars))
    if len(chars) - trimmed < len(pattern) or not "".join(chars[trimmed:]).startswith(pattern):
        return None
    return calculate_score(chars, classes, pattern, trimmed, trimmed + len(pattern))


def suffix(chars: list[str], classes: list[int], pattern: str) -> int | None:
    end = len(chars) - (0 if pattern[-1].isspace() else _trailing_white("".join(chars)))
    start = end - len(pattern)
    if start < 0 or "".join(chars[start:end]) != pattern:
        return None
    return calculate_score(chars, classes, pattern, start, end)


def equal(chars: list[str], classes: list[int], pattern: str) -> int | None:
    text = "".join(chars)
    lead = 0 if pattern[0].isspace() else _leading_white(text)
    trail = 0 if pattern[-1].isspace() else _trailing_white(text)
    if text[lead : len(text) - trail] != pattern:
        return None
    m = len(pattern)
    return (SCORE_MATCH + BONUS_BOUNDARY_WHITE) * m + (
        FIRST_CHAR_MULTIPLIER - 1
    ) * BONUS_BOUNDARY_WHITE


_ALGORITHMS = {"fuzzy": fuzzy_v2, "exact": exact, "prefix": prefix, "suffix": suffix}
_ALGORITHMS["equal"] = equal


@dataclass(frozen=True)
class Term:
    kind: TermType
    text: str
    inverse: bool
    case_sensitive: bool
    normal: bool


def parse(query: str) -> list[list[Term]]:
    """fzf's extended-search syntax: terms split on spaces (`\\ ` is a space inside one),
    each set of terms joined by `|` an OR; `'exact`, `^prefix`, `suffix$`, `^equal$`,
    `!not` (inverse terms match exactly; `!'x` fuzzily). Smart case per term: a term with
    an upper-case letter is case-sensitive."""
    text = query.lstrip(" ")
    while text.endswith(" ") and not text.endswith("\\ "):
        text = text[:-1]
    sets: list[list[Term]] = []
    current: list[Term] = []
    switch = after_bar = False
    for token in re.split(" +", text.replace("\\ ", "\t")):
        kind: TermType = "fuzzy"
        inverse = False
        token = token.replace("\t", " ")
        lower = token.lower()
        case_sensitive = token != lower
        normal = lower == normalize(lower)
        if not case_sensitive:
            token = lower
        if current and not after_bar and token == "|":
            switch, after_bar = False, True
            continue
        after_bar = False
        if token.startswith("!"):
            inverse, kind, token = True, "exact", token[1:]
        if token != "$" and token.endswith("$"):
            kind, token = "suffix", token[:-1]
        if token.startswith("'"):
            kind = "exact" if not inverse else "fuzzy"
            token = token[1:]
        elif token.startswith("^"):
            kind = "equal" if kind == "suffix" else "prefix"
            token = token[1:]
        if token:
            if switch:
                sets.append(current)
                current = []
            current.append(
                Term(kind, normalize(token) if normal else token, inverse, case_sensitive, normal)
            )
            switch = True
    if current:
        sets.append(current)
    return sets


def score_line(line: str, sets: list[list[Term]]) -> int | None:
    """extendedMatch: the line's score when every term set matches it, else None."""
    prepared: dict[tuple[bool, bool], tuple[list[str], list[int]]] = {}
    total = 0
    for terms in sets:
        matched, score = False, 0
        for term in terms:
            key = (term.case_sensitive, term.normal)
            if key not in prepared:
                prepared[key] = _prepare(line, *key)
            found = _ALGORITHMS[term.kind](*prepared[key], term.text)
            if found is not None:
                if term.inverse:
                    continue
                matched, score = True, found
                break
            if term.inverse:
                matched, score = True, 0
        if not matched:
            return None
        total += score
    return total


def fewest_gaps(text: str, pattern: str) -> int | None:
    """The fewest characters any occurrence of `pattern`'s letters in order in `text`
    leaves between them (None: there is none): the shortest window, found from each
    earliest end back to its latest start."""
    fewest = None
    start = text.find(pattern[0])
    while start >= 0:
        end = start
        for char in pattern[1:]:
            end = text.find(char, end + 1)
            if end < 0:
                return fewest
        begin = end
        for char in reversed(pattern[:-1]):
            begin = text.rfind(char, 0, begin)
        gaps = end - begin + 1 - len(pattern)
        fewest = gaps if fewest is None else min(fewest, gaps)
        if fewest == 0:
            return 0
        start = text.find(pattern[0], begin + 1)
    return fewest


def score_bound(sets: list[list[Term]]) -> list[str] | None:
    """The terms of a query of positive, case-insensitive fuzzy terms only, one per set,
    whose score `bound` can cap (None for any other query)."""
    terms = [terms[0] for terms in sets if len(terms) == 1]
    if len(terms) != len(sets) or not terms:
        return None
    if any(t.kind != "fuzzy" or t.inverse or t.case_sensitive or not t.normal for t in terms):
        return None
    return [t.text for t in terms]


def bound(line: str, patterns: list[str]) -> int | None:
    """At least the score of an ASCII `line`, lowered, for `score_bound`'s terms (None:
    it does not match). Each letter earns at most a match and the best bonus, the first
    twice; g letters between matched ones cost at least g + 2. The running score can fall
    to 0 in a long gap and start again from a later letter j, with what the letters from
    j on can earn."""
    total = 0
    for pattern in patterns:
        gaps = fewest_gaps(line, pattern)
        if gaps is None:
            return None
        each = SCORE_MATCH + BONUS_BOUNDARY_WHITE
        best = each * len(pattern) + BONUS_BOUNDARY_WHITE - _cost(gaps)
        for start in range(1, len(pattern)):
            if each * (len(pattern) - start) <= best:
                break
            after = fewest_gaps(line, pattern[start:])
            assert after is not None  # a part of an occurrence occurs
            best = max(best, each * (len(pattern) - start) - _cost(after))
        total += best
    return total


def _cost(gaps: int) -> int:
    """The least that `gaps` letters between matched ones cost (one gap)."""
    return 0 if gaps == 0 else -GAP_START + (gaps - 1) * -GAP_EXTENSION


def sortable(sets: list[list[Term]]) -> bool:
    """fzf keeps the input order when every term is an inverse one."""
    return any(not term.inverse for terms in sets for term in terms)


def rank_key(score: int, line: str, order: Any) -> tuple[int, int, Any]:
    """byScore, byLength (the line's length without surrounding white space; fzf counts
    both as uint16), then the input order (anything that sorts as the input came)."""
    return (-min(max(score, 0), 0xFFFF), min(len(line.strip()), 0xFFFF), order)


def narrowing(sets: list[list[Term]]) -> list[str]:
    """Regular expressions (over lowered text, normalised or not) that every matching line
    must match: one per set of a single positive term. Each character stands for itself
    and the letters with marks `normalize` maps to it, so pages need not be normalised
    (str.translate cost a scan of 48,000 pages 1.4 s). A fuzzy term's is its characters in
    order, each looked for as the next one (no backtracking: `[^b\\n]*+b`)."""
    out = []
    for terms in sets:
        if len(terms) != 1 or terms[0].inverse:
            continue
        text = normalize(terms[0].text.lower())
        if terms[0].kind == "fuzzy":
            out.append(
                _either(text[0])
                + "".join(f"{_either(c, but=True)}*+{_either(c)}" for c in text[1:])
            )
        else:
            out.append("".join(_either(c) for c in text))
    return out


_MARKED: dict[str, str] = {}
for _code, _base in sorted(NORMALIZE.items()):
    # and its lowered form, where the page was lowered and fzf's line was not (`ǋ`)
    _MARKED[_base] = _MARKED.get(_base, "") + "".join(
        dict.fromkeys(chr(_code) + chr(_code).lower())
    )


def _either(char: str, but: bool = False) -> str:
    """A class of `char` and the letters normalised to it (`but`: any other character of
    the line)."""
    chars = "".join(re.escape(c) for c in char + _MARKED.get(char, ""))
    if but:
        return f"[^{chars}\\n]"
    return f"[{chars}]" if len(chars) > 1 else chars
