"""Numbered equations: telling math from prose, finding a numbered formula's row on a
page, and an approximate LaTeX reading of its text. Math has its own clues (signs, Greek,
math fonts) that share nothing with captions or drawings."""

from __future__ import annotations

import re
import unicodedata

from pdfindex.elements.pagescan import Found, PageScan
from pdfindex.layout.geometry import centre_in, union
from pdfindex.layout.records import group_rows

_EQ_NUMBER_CORE = r"\((?:\d{1,3}(?:\.\d{1,3}){0,2}[a-z]?|[A-Z]\.\d{1,3})\)"
_EQ_NUMBER = re.compile(rf"(?:^|\s){_EQ_NUMBER_CORE}$")
_MATH_CHARS = "=<>≤≥≠≈≡∼≃≅∝±∓×÷·∙∑∏∐∫∬∮√∂∇∞∈∉∋⊂⊃⊆⊇∪∩∧∨¬→←↔⇒⇐⇔↦∀∃′″⊗⊕∘‖ℓħ⟨⟩"
_GREEK = "α-ωΑ-Ωϑϕϵϱϖ"
_CANDIDATE_NUMBER = re.compile(rf"{_EQ_NUMBER_CORE}[ \t\r]*$", re.MULTILINE)
_CANDIDATE_MATH = re.compile(rf"[{_MATH_CHARS}{_GREEK}+−^]")

_MATH_FONT = re.compile(r"CMMI|CMSY|CMEX|MSBM|MSAM|Math|Symbol|STIX|LMRoman.*Math|rsfs|eufm", re.I)
_STRONG_MATH = re.compile(rf"[{_MATH_CHARS}{_GREEK}]")
_WEAK_MATH = re.compile(r"[\w)]\s*[+−/^*]\s*[\w(]")
_LONG_WORD = re.compile(r"[^\W\d_]{4,}")


def has_numbered_math(text: str) -> bool:
    """A line ending with an equation number "(4)" with a math sign before it, on that
    line or the three before (text extraction may break a display formula into lines)."""
    for match in _CANDIDATE_NUMBER.finditer(text):
        start = match.start()
        for _ in range(4):
            start = text.rfind("\n", 0, start - 1) + 1 if start > 0 else 0
        if _CANDIDATE_MATH.search(text, start, match.start()):
            return True
    return False


def find_equations(scan: PageScan, found: list[Found]) -> list[Found]:
    """Lines ending with "(4)" (the number may be a line of its own at the row's end),
    with the row's math to their left, outside the figures and tables found. Numbers
    printed left of the formula (leqno) are not looked for."""
    out: list[Found] = []
    rows = group_rows(scan.lines)
    row_of = {id(x): row for row in rows for x in row}
    taken = set().union(*(f.own for f in found)) if found else set()
    for line in scan.lines:
        match = _EQ_NUMBER.search(line.text)
        if match is None or id(line) in taken:
            continue
        if any(centre_in(line.bbox, f.bbox) for f in found if f.kind != "equation"):
            continue
        pieces = [line.text[: match.start()].strip()] if match.start() else []
        parts = [line]
        side = line.x0 <= scan.page.width / 2
        for other in sorted(row_of[id(line)], key=lambda x: -x.x1):
            if other is line or other.x1 > line.x0 + 1 or id(other) in taken:
                continue
            if _prose(other.text) or (
                scan.two_columns  # the other column's text, unless a piece of math
                and (other.x1 <= scan.page.width / 2) != side
                and (
                    other.x1 - other.x0 > 0.3 * scan.page.width
                    or not _mathy(other.text, [other.font_name])
                )
            ):
                break
            pieces.insert(0, other.text)
            parts.insert(0, other)
        body = " ".join(p for p in pieces if p)
        fonts = [x.font_name for x in parts]
        if not body or _prose(body) or not _mathy(body, fonts):
            continue
        number = match.group(0).strip()
        region = union([x.bbox for x in parts])
        height = max(x.height for x in parts)
        size = max(x.font_size for x in parts)
        scripts = [  # sub/superscripts the layout set apart: smaller, just above or below
            x
            for x in scan.lines
            if id(x) not in taken
            and x not in parts
            and x.font_size < 0.85 * size
            and region[0] - 1 <= x.x0
            and x.x1 <= line.x0 + 1
            and region[1] - 0.8 * height <= (x.top + x.bottom) / 2 <= region[3] + 0.8 * height
        ]
        equation = Found(
            f"Equation {number}",
            "equation",
            union([region, *(x.bbox for x in scripts)]),
            latex=to_latex(body),
            body=body,
            located=True,
        )
        equation.own = {id(x) for x in parts + scripts}
        taken |= equation.own
        out.append(equation)
    return out


def _mathy(text: str, fonts: list[str]) -> bool:
    """Math: a relation, operator or Greek letter, a math font, or an operation (a + b,
    x/y) in a short line of few words ("input/output option" is not)."""
    if _STRONG_MATH.search(text) or any(_MATH_FONT.search(f) for f in fonts):
        return True
    words = len(_LONG_WORD.findall(text))
    return bool(_WEAK_MATH.search(text)) and len(text) <= 60 and words <= 2


def _prose(text: str) -> bool:
    """Words rather than math: five or more words of four letters or more, most of it."""
    words = _LONG_WORD.findall(text)
    return len(words) >= 5 and sum(map(len, words)) * 2 >= len(text.replace(" ", ""))


_GREEK_NAMES = (
    "alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi o pi rho "
    "varsigma sigma tau upsilon varphi chi psi omega"
)
_GREEK_CAPITALS = (
    "A B Gamma Delta E Z H Theta I K Lambda M N Xi O Pi P - Sigma T Upsilon Phi X Psi Omega"
)
_SYMBOLS = "≤≥≠≈≡∼≃≅∝±∓×÷·∙∑∏∐∫∬∮√∂∇∞∈∉∋⊂⊃⊆⊇∪∩∧∨¬→←↔⇒⇐⇔↦∀∃⊗⊕∘ℓħ⟨⟩‖∅…⋯ϑϕϵϱϖ"
_COMMANDS = (
    r"\leq \geq \neq \approx \equiv \sim \simeq \cong \propto \pm \mp \times \div \cdot "
    r"\cdot \sum \prod \coprod \int \iint \oint \sqrt \partial \nabla \infty \in \notin "
    r"\ni \subset \supset \subseteq \supseteq \cup \cap \wedge \vee \neg \to \leftarrow "
    r"\leftrightarrow \Rightarrow \Leftarrow \Leftrightarrow \mapsto \forall \exists "
    r"\otimes \oplus \circ \ell \hbar \langle \rangle \| \emptyset \dots \cdots "
    r"\vartheta \phi \epsilon \varrho \varpi"
)
_LATEX = {
    **{chr(0x3B1 + i): f"\\{name}" for i, name in enumerate(_GREEK_NAMES.split())},
    **{
        chr(0x391 + i): f"\\{name}" if len(name) > 1 else name
        for i, name in enumerate(_GREEK_CAPITALS.split())
        if name != "-"  # U+03A2 is unassigned
    },
    **dict(zip(_SYMBOLS, _COMMANDS.split(), strict=True)),
    **dict(zip("ℝℕℤℚℂ", (f"\\mathbb{{{x}}}" for x in "RNZQC"), strict=True)),
    "ο": "o",
    "−": "-",
    "∗": "*",
    "′": "'",
    "″": "''",
}
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿⁱ", "0123456789+-=()ni", strict=True))
_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑₒₓₙᵢⱼₖ", "0123456789+-=()aeoxnijk", strict=True))


def to_latex(text: str) -> str | None:
    """An approximate LaTeX reading of an equation's text layer: Greek letters, operators
    and relations become commands, Unicode super/subscripts become ^{}/_{}, math italic
    letters plain ones. Layout is lost (fractions, roots' extent, scripts the PDF sets by
    position only), so it is a searchable hint, not a faithful source. None when the text
    holds nothing mathematical (or undecodable glyphs)."""
    body = _EQ_NUMBER.sub("", text).strip()
    if not body or "(cid:" in body or "\ufffd" in body:
        return None
    if not (_mathy(body, []) or re.search("[ℝℕℤℚℂ]", body)):
        return None
    out: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        for table, mark in ((_SUPERSCRIPTS, "^"), (_SUBSCRIPTS, "_")):
            if char in table:
                end = index
                while end < len(body) and body[end] in table:
                    end += 1
                out.append(mark + "{" + "".join(table[c] for c in body[index:end]) + "}")
                index = end
                break
        else:
            if char in _LATEX:
                command = _LATEX[char]
                following = body[index + 1 : index + 2]
                spacer = (
                    " "
                    if command[-1].isalpha() and following.isascii() and following.isalnum()
                    else ""
                )
                out.append(command + spacer)
            elif 0x1D400 <= ord(char) <= 0x1D7FF:  # mathematical alphanumerics: 𝑥 -> x
                out.append(unicodedata.normalize("NFKC", char))
            else:
                out.append(char)
            index += 1
    return " ".join("".join(out).split())
