"""pdfindex's own ranked query language: user text -> a small tree every engine compiles.

Grammar (README "Query language"), loosest binding first:

    query   := or+                 juxtaposed: all required (any, in questions)
    or      := and ("OR" and)*
    and     := unary ("AND" unary)*
    unary   := "NOT" unary | atom
    atom    := (word | word~ | word~N | prefix* | "a phrase" | "a phrase"~N | "(" query ")") [^B]

Operators are upper case; anything else is text, tokenised as the index tokenises page
text (pdfindex.text.words): runs of letters and digits, case-folded (so `e.g.` is the
words e and g), each Chinese or Japanese character a word of its own (so a run of them is
a phrase). No engine
sees the user's text, so no engine's own parser decides what a query means, and a
malformed query is an InvalidQuery that says what is wrong instead of a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from pdfindex.errors import InvalidQuery, QueryTooLarge
from pdfindex.text.words import cjk_runs, normalize_query, words

MAX_DISTANCE = 2  # typos a fuzzy word may have: at 3 a short word matches nearly anything
MAX_SLOP = 100  # positions a phrase's words may stand apart
MAX_PHRASE_WORDS = 20  # matching a phrase costs its length times its words' positions
MAX_DEPTH = 50  # groups and NOTs nested in one another: deeper would exhaust the stack
OPERATORS = ("AND", "OR", "NOT")
# One lexical unit: a parenthesis, a quoted phrase (perhaps unclosed), or a run of other
# characters; a phrase or group may carry ~N / ^B right after it.
_LEXEME = re.compile(r'\s*(?:(?P<paren>[()])|"(?P<phrase>[^"]*)(?P<closed>"?)|(?P<text>[^\s()"]+))')
_SUFFIX = re.compile(r"(?:~(?P<distance>[^\s()\"~^]*))?(?:\^(?P<boost>[^\s()\"~^]*))?")
_WORD_SUFFIX = re.compile(
    r"^(?P<body>.*?)(?:(?P<star>\*)|~(?P<distance>[^~^*]*))?(?:\^(?P<boost>[^~^*]*))?$"
)


# -- the tree --------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """One index word."""

    text: str
    boost: float = 1.0


@dataclass(frozen=True)
class Fuzzy:
    """Index words within `distance` edits of `text` (a transposition is one edit)."""

    text: str
    distance: int
    boost: float = 1.0


@dataclass(frozen=True)
class Prefix:
    """Index words starting with `text`."""

    text: str
    boost: float = 1.0


@dataclass(frozen=True)
class Phrase:
    """Words in this order; `slop` 1 means adjacent, more allows words between."""

    words: tuple[str, ...]
    slop: int = 1
    boost: float = 1.0


@dataclass(frozen=True)
class Stem:
    """A word by its English stem (loads, loaded, loading meet load), in the engine's
    stemmed field: only natural-language queries rank with it (pdfindex.search.understand),
    never exact search, phrases, typos or prefixes."""

    text: str
    boost: float = 1.0


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]
    boost: float = 1.0


@dataclass(frozen=True)
class Or:
    """Any child; the scores of the children that match add up, so pages holding more
    of them rank higher. With `coord`, each child that matches adds `coord` more (a
    coordination bonus: a page holding three of a question's words beats one holding one
    of them many times)."""

    children: tuple[Node, ...]
    boost: float = 1.0
    coord: float = 0.0


@dataclass(frozen=True)
class Not:
    child: Node


Node = Term | Fuzzy | Prefix | Phrase | Stem | And | Or | Not


def any_of(nodes: list[Node]) -> Node:
    """Nodes joined as a question's words are: any counts, more rank higher."""
    if not nodes:
        raise InvalidQuery("the query has no letters or digits to search for")
    return nodes[0] if len(nodes) == 1 else Or(tuple(nodes))


def leaves(node: Node) -> list[Term | Fuzzy | Prefix | Phrase | Stem]:
    """The positive leaves (not under NOT), in order: what a snippet may mark."""
    if isinstance(node, And | Or):
        return [leaf for child in node.children for leaf in leaves(child)]
    if isinstance(node, Not):
        return []
    return [node]


# -- parsing ---------------------------------------------------------------------------


@dataclass
class _Token:
    kind: str  # "(" | ")" | "op" | "atom"
    value: str = ""
    nodes: list[Node] | None = None  # an atom: one node, or the words of `e.g.`


def parse(text: str, any_word: bool = False) -> Node:
    """The tree of a user's query; juxtaposed parts are all required, or (`any_word`, for
    questions) any of them counts and more of them rank higher."""
    tokens = _lex(normalize_query(text))
    parser = _Parser(tokens, any_word)
    node = parser.query(top=True)
    if node is None:
        raise InvalidQuery(f"query {text!r} has no letters or digits to search for")
    return node


def _lex(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    position = 0
    while position < len(text):
        match = _LEXEME.match(text, position)
        if match is None or match.end() == position:
            break  # only trailing spaces are left
        position = match.end()
        if match.group("paren"):
            tokens.append(_Token(match.group("paren")))
            if match.group("paren") == ")":
                position = _group_suffix(text, position, tokens)
        elif match.group("phrase") is not None:
            if not match.group("closed"):
                raise InvalidQuery(f'unclosed quote in {text!r}: end the phrase with "')
            suffix = _SUFFIX.match(text, position)
            assert suffix is not None  # every part of the pattern is optional
            position = suffix.end()
            tokens.append(_Token("atom", nodes=_phrase(match.group("phrase"), suffix)))
        else:
            raw = match.group("text")
            if raw in OPERATORS:
                tokens.append(_Token("op", raw))
            else:
                tokens.append(_Token("atom", nodes=_word(raw)))
    return tokens


def _group_suffix(text: str, position: int, tokens: list[_Token]) -> int:
    """A boost right after `)` (`(a b)^2`), kept on the `)` token."""
    suffix = _SUFFIX.match(text, position)
    assert suffix is not None
    if suffix.group("distance") is not None:
        raise InvalidQuery("~N belongs after a word or a phrase, not after a group")
    if suffix.group("boost") is not None:
        tokens[-1].value = str(_boost(suffix.group("boost")))
    return suffix.end()


def _boost(raw: str | None) -> float:
    if raw is None:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not 0 < value <= 1000 or raw.startswith(("+", "-")) or "e" in raw.lower():
        raise InvalidQuery(f"boost ^{raw} must be a positive number like ^2 or ^0.5")
    return value


def _distance(raw: str) -> int:
    if raw == "":
        return 1
    if not raw.isdigit() or int(raw) > MAX_DISTANCE:
        raise InvalidQuery(
            f"~{raw}: typo distance must be a whole number 0 to {MAX_DISTANCE} "
            "(more matches nearly every word)"
        )
    return int(raw)


def _phrase(body: str, suffix: re.Match[str]) -> list[Node]:
    found = tuple(words(body))
    boost = _boost(suffix.group("boost"))
    slop = _slop(suffix.group("distance"))
    if not found:
        if body.strip():
            return []  # punctuation only: nothing to search
        raise InvalidQuery('"" is an empty phrase: put words between the quotes')
    if len(found) == 1:
        return [Term(found[0], boost)]
    if len(found) > MAX_PHRASE_WORDS:
        raise QueryTooLarge(
            f"the phrase has {len(found)} words; the limit is {MAX_PHRASE_WORDS}: quote its "
            "rarest part, or search_pdf for exact text"
        )
    return [Phrase(found, slop, boost)]


def _slop(raw: str | None) -> int:
    """`"a b"~N`: up to N word positions apart (a phrase's slop); 1 = adjacent."""
    if raw is None or raw == "":
        return 1
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_SLOP:
        raise InvalidQuery(f'"…"~{raw}: phrase distance must be a whole number 1 to {MAX_SLOP}')
    return int(raw)


def _word(raw: str) -> list[Node]:
    match = _WORD_SUFFIX.match(raw)
    assert match is not None  # the body alone always matches
    body, star, distance = match.group("body"), match.group("star"), match.group("distance")
    boost = _boost(match.group("boost"))
    if "*" in body:
        raise InvalidQuery(f"{raw!r}: * is allowed only at the end of a word (prefix*)")
    found = words(body)
    if star or distance is not None:
        kind = "prefix*" if star else "word~N"
        if len(found) != 1:
            raise InvalidQuery(f"{raw!r}: {kind} applies to one word of letters or digits")
        if star:
            return [Prefix(found[0], boost)]
        return [Fuzzy(found[0], _distance(distance), boost)]
    # none for punctuation like "?"; e.g. -> e, g; a CJK run -> the phrase of its characters
    return [node for group in cjk_runs(body) for node in run_nodes(group, boost)]


def run_nodes(group: list[str], boost: float = 1.0) -> list[Node]:
    """One word, or a CJK run as the phrase of its characters (a run past
    MAX_PHRASE_WORDS as consecutive phrases, each required, overlapping by a character)."""
    if len(group) == 1:
        return [Term(group[0], boost)]
    step = MAX_PHRASE_WORDS - 1
    return [
        Phrase(tuple(group[i : i + MAX_PHRASE_WORDS]), 1, boost)
        for i in range(0, len(group) - 1, step)
    ]


class _Parser:
    def __init__(self, tokens: list[_Token], any_word: bool) -> None:
        self.tokens = tokens
        self.position = 0
        self.any_word = any_word
        self.depth = 0  # groups and NOTs open around the current token

    def peek(self) -> _Token | None:
        return self.tokens[self.position] if self.position < len(self.tokens) else None

    def take(self) -> _Token:
        token = self.tokens[self.position]
        self.position += 1
        return token

    def query(self, top: bool = False) -> Node | None:
        parts: list[Node] = []
        while (token := self.peek()) is not None:
            if token.kind == ")":
                if top:
                    raise InvalidQuery("unbalanced parentheses: ')' without its '('")
                break
            if token.kind == "op" and token.value in ("AND", "OR"):
                raise InvalidQuery(f"{token.value} needs a search term on each side")
            node = self.or_()
            if node is not None:
                parts.append(node)
        return self.join(parts)

    def join(self, parts: list[Node]) -> Node | None:
        if not parts:
            return None
        if len(parts) == 1:
            return parts[0]
        return Or(tuple(parts)) if self.any_word else And(tuple(parts))

    def or_(self) -> Node | None:
        parts = [self.and_()]
        while self._operator("OR"):
            parts.append(self.and_())
        kept = [p for p in parts if p is not None]
        if len(kept) <= 1:
            return kept[0] if kept else None
        return Or(tuple(kept))

    def and_(self) -> Node | None:
        parts = [self.unary()]
        while self._operator("AND"):
            parts.append(self.unary())
        kept = [p for p in parts if p is not None]
        if len(kept) <= 1:
            return kept[0] if kept else None
        return And(tuple(kept))

    def unary(self) -> Node | None:
        token = self.peek()
        if token is None:
            raise InvalidQuery("the query ends where a search term is expected")
        if token.kind == "op" and token.value == "NOT":
            self.take()
            self._deeper()
            child = self.unary()
            self.depth -= 1
            return Not(child) if child is not None else None
        if token.kind == "op":
            raise InvalidQuery(f"{token.value} needs a search term on each side")
        if token.kind == ")":
            raise InvalidQuery("a search term is expected before ')'")
        return self.atom()

    def atom(self) -> Node | None:
        token = self.take()
        if token.kind == "(":
            self._deeper()
            inner = self.query()
            self.depth -= 1
            closing = self.peek()
            if closing is None or closing.kind != ")":
                raise InvalidQuery("unbalanced parentheses: '(' without its ')'")
            self.take()
            if inner is None:
                raise InvalidQuery("() holds nothing to search for")
            return _boosted(inner, float(closing.value or 1.0))
        return self.join(token.nodes or [])

    def _deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise QueryTooLarge(
                f"groups and NOTs nest more than {MAX_DEPTH} deep: write the query flatter"
            )

    def _operator(self, name: str) -> bool:
        token = self.peek()
        if token is None or token.kind != "op" or token.value != name:
            return False
        self.take()
        following = self.peek()
        if (
            following is None
            or following.kind == ")"
            or (following.kind == "op" and following.value != "NOT")
        ):
            raise InvalidQuery(f"{name} needs a search term on each side")
        return True


def _boosted(node: Node, boost: float) -> Node:
    if boost == 1.0 or isinstance(node, Not):
        return node
    return replace(node, boost=node.boost * boost)
