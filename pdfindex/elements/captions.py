"""Caption labels ("Figure 3", "Fig. 2-1:", "TABLE IV", "Abb. 4") and the captions
they start on a page. Every other finder starts from a caption, and the label rules are
the detector's most language-bound part, so they live together here."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pdfindex.layout.geometry import overlap, union
from pdfindex.layout.records import BBox, PageLayout, TextLine, join_lines

MAX_CAPTION_LINES = 8

# Label word (any case, printed with a capital) -> element kind; English, then German,
# French, Spanish, Italian, Portuguese, Dutch, Polish, Czech, Russian.
_LABEL_WORDS = {
    word: kind
    for kind, words in (
        ("figure", "figure fig abbildung abb figura figuur rysunek rys obrázek рисунок рис"),
        ("table", "table tab tabelle tableau tabla tabella tabela tabel tabulka таблица"),
        ("chart", "chart graph"),
        ("diagram", "diagram"),
        ("equation", "equation eq eqn gleichung équation ecuación"),
    )
    for word in words.split()
}
_WORDS = "|".join(sorted((re.escape(w) for w in _LABEL_WORDS), key=len, reverse=True))
_NUMBER_CORE = r"(?:[A-Z]?\d{1,3}(?:[.\-–‐]\d{1,3})*[a-z]?|[A-Z](?:[.\-]\d{1,3})+|[IVXLC]{1,7})"
_NUMBER = rf"(?:\({_NUMBER_CORE}\)|{_NUMBER_CORE})(?!\w)"
_CAPTION = re.compile(rf"^(?P<word>(?i:{_WORDS}))(?P<dot>\.?)\s*(?P<num>{_NUMBER})(?P<rest>.*)$")
# The same, for candidate_pages over whole page texts: a label at a line start that is not
# followed by a lower-case word (running text: "Table 3 shows ...").
_CANDIDATE_CAPTION = re.compile(
    rf"^[ \t]*(?i:{_WORDS})\.?[ \t]*{_NUMBER}(?![ \t]+[a-z])", re.MULTILINE
)
_STRONG_SEPARATORS = ":.—–-|"
_LEADERS = re.compile(r"(?:\.\s?){4,}|…|(?:\s\.){3,}")
_ENDS_IN_PAGE_NUMBER = re.compile(r"\s\d{1,4}$")
_SENTENCE_END = (".", ":", ";", "!", "?")

_DIAGRAM_WORDS = re.compile(
    r"\b(?:diagram|flow ?chart|schematic|architecture|block diagram|workflow)s?\b", re.I
)
_CHART_WORDS = re.compile(
    r"\b(?:chart|plot|histogram|scatter ?plot|bar graph|line graph|pie)s?\b", re.I
)


@dataclass
class Caption:
    """A caption found on a page: its label, the kind the label names, and its lines."""

    label: str
    kind: str
    lines: list[TextLine]  # the label line, then its continuation
    strong: bool  # label then ":" "." "—" or nothing: a caption whatever surrounds it
    emphasised: bool  # bold, or set in another size than the body text

    @property
    def bbox(self) -> BBox:
        return union([x.bbox for x in self.lines])

    @property
    def text(self) -> str:
        return join_lines(x.text for x in self.lines)


def has_caption_line(text: str) -> bool:
    """Whether a whole page's text has a line that starts with a caption label not
    followed by a lower-case word."""
    return _CANDIDATE_CAPTION.search(text) is not None


def parse_label(text: str) -> tuple[str, str, str] | None:
    """(label as printed, kind, separator class) for a caption-like line, else None.

    The class is "strong" (label then punctuation, or the label alone), "weak" (label then
    a capitalised word: a caption only if it looks like one) or None for running text.
    """
    match = _CAPTION.match(text)
    if match is None or not match["word"][0].isupper():
        return None
    rest = match["rest"].lstrip()
    if not rest or rest[0] in _STRONG_SEPARATORS:
        strength = "strong"
    elif rest[0].islower():
        return None
    else:
        strength = "weak"
    label = " ".join(text[: match.end("num")].split())
    return label, _LABEL_WORDS[match["word"].casefold()], strength


def refine_kind(kind: str, caption: str) -> str:
    """A figure whose caption says "diagram" or "chart" (or "plot", "histogram") is one."""
    if kind != "figure":
        return kind
    if _DIAGRAM_WORDS.search(caption):
        return "diagram"
    if _CHART_WORDS.search(caption):
        return "chart"
    return kind


def credible(caption: Caption | None) -> bool:
    """Kept without a region found: a strong caption, or a weak one set apart."""
    return caption is not None and (caption.strong or caption.emphasised)


def find_captions(page: PageLayout, body: float) -> list[Caption]:
    """The captions on a page, block by block; `body` is the body text's font size."""
    captions: list[Caption] = []
    for block in page.blocks:
        lines = [x for x in block.lines if x.text]
        width = block.bbox[2] - block.bbox[0]
        index = 0
        while index < len(lines):
            caption = _caption_at(page, body, lines, index, width)
            if caption is None:
                index += 1
                continue
            captions.append(caption)
            index += len(caption.lines)
    numbered = [c for c in captions if _ENDS_IN_PAGE_NUMBER.search(c.lines[0].text)]
    if len(numbered) >= 3:  # a list of figures or tables, not captions
        captions = [c for c in captions if c not in numbered]
    return captions


def _caption_at(
    page: PageLayout, body: float, lines: list[TextLine], index: int, width: float
) -> Caption | None:
    line = lines[index]
    parsed = parse_label(line.text)
    if parsed is None or _LEADERS.search(line.text):
        return None
    label, kind, strength = parsed
    emphasised = line.bold or abs(line.font_size - body) > 0.08 * max(body, 1)
    if index > 0:  # a full line of the same look before: a line break in running text
        previous = lines[index - 1]
        same_look = abs(previous.font_size - line.font_size) < 0.5 and previous.bold == line.bold
        if same_look and previous.x1 - previous.x0 >= 0.7 * width:
            if not previous.text.endswith(_SENTENCE_END) or strength == "weak":
                return None
    taken = [line]
    for following in lines[index + 1 : index + MAX_CAPTION_LINES]:
        gap = following.top - taken[-1].bottom
        if (
            parse_label(following.text)
            or gap > max(taken[-1].height, 1.0)
            or abs(following.font_size - line.font_size) > 0.15 * max(line.font_size, 1)
        ):
            break
        taken.append(following)
    if len(taken) == 1 and line.text.rstrip(".:") == label:
        taken += _title_of(page, line)
    return Caption(label, kind, taken, strength == "strong", emphasised)


def _title_of(page: PageLayout, line: TextLine) -> list[TextLine]:
    """The caption text of a label printed alone ("TABLE IV", a bold "Figure 3:"), when
    the layout put it in a block of its own: on the same row just right of the label,
    else just below it."""
    size = max(line.font_size, 1.0)
    for block in page.blocks:
        first = block.lines[0] if block.lines else None
        if first is None or first is line or parse_label(first.text):
            continue
        same_row = overlap(first.top, first.bottom, line.top, line.bottom) >= 0.5 * min(
            first.height, line.height
        )
        if same_row and 0 <= first.x0 - line.x1 <= 4 * size:
            return [x for x in block.lines[:MAX_CAPTION_LINES] if x.text]
    for block in page.blocks:
        first = block.lines[0] if block.lines else None
        if (
            first is not None
            and first is not line
            and 0 <= first.top - line.bottom <= max(line.height, 1.0)
            and overlap(first.x0, first.x1, line.x0, line.x1) > 0
            and len(block.lines) <= 3
            and not parse_label(first.text)
        ):
            return [x for x in block.lines if x.text]
    return []
