"""`python -m benchmarks.extraction_vs_pdftotext --corpus DIR`: pdfindex's page text
against poppler's `pdftotext`, page by page, as word multisets (issue 28 item 5).

For every page of every PDF in DIR, the words (casefolded `\\w+` runs, after pdfindex's
`normalize_text` on both sides, so NFKC ligatures and line ends do not count) of what
pdfindex stores (`extract_text` with the default engine, pypdfium2, no OCR) are compared
with those of `pdftotext -enc UTF-8` (whole document, split at form feeds). A page
*differs* when more than 2% of the words of its longer side have no twin on the other.
Each differing page is put down to one cause, the one that explains most of its odd
words (heuristics, see `classify`):

- `ligature/PUA`: words that match once ff, fi, fl, ffi, ffl are taken out (`deffnition`
  against `definition`, `denition` against `definition`), or that hold a control code,
  a private-use character or U+FFFD;
- `hyphenation`: a word one side joins across a line-end hyphen and the other keeps as
  two (`writ-`/`ing` against `writing`);
- `spacing/columns`: other words one side runs together or splits (`theword` against
  `the word`, `chemformula` against letter-spaced `chemfo r m u l a`), which is what a
  different reading order or column split leaves in a multiset;
- `CJK text`: Chinese, Japanese or Korean words only one side has (pdftotext without the
  poppler-data CMaps reads no Japanese in some fonts, and cuts runs elsewhere);
- `numbers`: numbers only one side has (code listings' line numbers, axis labels);
- `accents/encoding`: words equal without their accents, or of the same length differing
  only in non-ASCII letters;
- `missing text (pdfindex)` / `missing text (pdftotext)`: one side has under half the
  other's words (text drawn as paths, a form or annotation only one reads, an empty page);
- `other`: nothing above explains most of them.

`--watch WORD` (repeatable; default the issue's `deffnition speciffc ffrst ffgure`)
counts the pages and files whose pdfindex text holds the word. Writes
`benchmarks/results/<date>-extraction-vs-pdftotext-<corpus>.json` (the figures, examples
of each cause with their odd words, and each file's differing pages per cause; every
differing page with `--every-page`) and `.md` (the tables). `--pdftotext-cache DIR` keeps
pdftotext's output between runs. Two worker processes by default (`--workers`).
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import re
import subprocess
import time
import unicodedata
from collections import Counter
from multiprocessing import Pool
from pathlib import Path

THRESHOLD = 0.02  # a page differs when more than this share of its words has no twin
WATCH = ("deffnition", "speciffc", "ffrst", "ffgure")
WORD = re.compile(r"\w+")
LIGATURES = re.compile("ffi|ffl|ff|fi|fl")
ODD_CHARS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ue000-\uf8ff\ufffd]")
EXAMPLES_PER_CAUSE = 12
CJK = re.compile("[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]")
MAX_SPLIT = 40  # longer words are not looked at for run-together parts
CAUSES = (
    "ligature/PUA",
    "hyphenation",
    "spacing/columns",
    "CJK text",
    "numbers",
    "accents/encoding",
    "missing text (pdfindex)",
    "missing text (pdftotext)",
    "other",
)


def words(text: str) -> Counter[str]:
    return Counter(word.casefold() for word in WORD.findall(text))


def difference(ours: Counter[str], theirs: Counter[str]) -> float:
    """The share of the longer side's words that have no twin on the other side."""
    longer = max(sum(ours.values()), sum(theirs.values()))
    if not longer:
        return 0.0
    return 1.0 - sum((ours & theirs).values()) / longer


def _strip_accents(word: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _split(word: str, parts: Counter[str]) -> list[str] | None:
    """`word` as two or more words of `parts` run together, if it is one."""
    if len(word) > MAX_SPLIT:
        return None
    best: list[list[str] | None] = [[]] + [None] * len(word)  # best[i]: word[:i] in parts
    for end in range(1, len(word) + 1):
        for start in range(end - 1, -1, -1):
            head = best[start]
            if head is not None and parts[word[start:end]] and (start or end < len(word)):
                best[end] = [*head, word[start:end]]
                break
    found = best[len(word)]
    return found if found and len(found) > 1 else None


def _joins(joined: Counter[str], parts: Counter[str]) -> list[tuple[str, list[str]]]:
    """Words of `joined` that are words of `parts` run together."""
    found = []
    for word in joined:
        pieces = _split(word, parts)
        if pieces:
            found.append((word, pieces))
    return found


def classify(
    ours: Counter[str], theirs: Counter[str], our_text: str, their_text: str
) -> tuple[str, dict[str, int]]:
    """The cause that explains most odd words of a differing page, and each cause's count
    of words explained."""
    n_ours, n_theirs = sum(ours.values()), sum(theirs.values())
    if n_ours < n_theirs / 2:
        return "missing text (pdfindex)", {}
    if n_theirs < n_ours / 2:
        return "missing text (pdftotext)", {}
    extra, missing = ours - theirs, theirs - ours  # words only pdfindex / only pdftotext has
    explained = dict.fromkeys(CAUSES, 0)
    # ligatures: the same word once the ligature letters are out, or an odd character
    bare_missing = Counter()
    for word, count in missing.items():
        bare_missing[LIGATURES.sub("", word)] += count
    for word, count in extra.items():
        if ODD_CHARS.search(word) or (
            LIGATURES.sub("", word) in bare_missing and word not in missing
        ):
            explained["ligature/PUA"] += 2 * count
    explained["ligature/PUA"] += 2 * sum(c for w, c in missing.items() if ODD_CHARS.search(w))
    # words joined on one side, split on the other: at a line-end hyphen or not
    for joined, parts, text in ((extra, missing, their_text), (missing, extra, our_text)):
        for word, pieces in _joins(joined, parts):
            line_end = r"-\s*\n\s*".join(re.escape(piece) for piece in pieces)
            hyphenated = len(pieces) == 2 and re.search(line_end, text, re.I)
            cause = "hyphenation" if hyphenated else "spacing/columns"
            explained[cause] += (1 + len(pieces)) * joined[word]
    for odd_words in (extra, missing):
        explained["CJK text"] += sum(c for w, c in odd_words.items() if CJK.search(w))
        explained["numbers"] += sum(c for w, c in odd_words.items() if w.isdigit())
    # accents and other encodings
    stripped = {_strip_accents(w) for w in missing}
    lengths = Counter(len(w) for w in missing if not w.isascii())
    for word, count in extra.items():
        if _strip_accents(word) in stripped and word not in missing:
            explained["accents/encoding"] += 2 * count
        elif not word.isascii() and lengths[len(word)]:
            explained["accents/encoding"] += count
    odd = sum(extra.values()) + sum(missing.values())
    best = max(explained, key=lambda cause: explained[cause])
    if sum(explained.values()) * 2 < odd:  # the causes found explain under half of them
        best = "other"
    return best, {cause: count for cause, count in explained.items() if count}


def _pdftotext(path: Path, cache: Path | None) -> list[str]:
    cached = cache / f"{path.stem}.txt.gz" if cache else None
    if cached and cached.exists():
        return gzip.decompress(cached.read_bytes()).decode("utf-8").split("\f")[:-1]
    done = subprocess.run(
        ["pdftotext", "-q", "-enc", "UTF-8", str(path), "-"],
        capture_output=True,
        timeout=600,
        check=False,
    )
    text = done.stdout.decode("utf-8", errors="replace")
    if cached:
        cached.write_bytes(gzip.compress(text.encode("utf-8")))
    return text.split("\f")[:-1]  # every page ends with a form feed


def compare_file(task: tuple[Path, Path | None, tuple[str, ...]]) -> dict:
    """One file: its pages' differences and causes, the watched words, the time taken."""
    from pdfindex.extract.text import normalize_text
    from pdfindex.extract.worker import extract_text

    path, cache, watch = task
    began = time.perf_counter()
    extraction = extract_text(path, "pdfium")
    ours_s = time.perf_counter() - began
    theirs_pages = [normalize_text(page) for page in _pdftotext(path, cache)]
    result: dict = {
        "file": path.name,
        "status": extraction.status,
        "pages": len(extraction.pages),
        "pdftotext_pages": len(theirs_pages),
        "seconds": round(ours_s, 3),
        "watched": {},
        "differing": [],
        "compared": 0,
    }
    for word in watch:
        hits = [n + 1 for n, page in enumerate(extraction.pages) if word in page.casefold()]
        if hits:
            result["watched"][word] = hits
    if len(extraction.pages) != len(theirs_pages):
        return result  # not comparable page by page (a failed or odd file)
    for number, (our_text, their_text) in enumerate(
        zip(extraction.pages, theirs_pages, strict=True), start=1
    ):
        ours, theirs = words(our_text), words(their_text)
        result["compared"] += 1
        share = difference(ours, theirs)
        if share > THRESHOLD:
            cause, explained = classify(ours, theirs, our_text, their_text)
            result["differing"].append(
                {
                    "page": number,
                    "difference": round(share, 4),
                    "words": max(sum(ours.values()), sum(theirs.values())),
                    "cause": cause,
                    "explained": explained,
                    "only_pdfindex": [w for w, _ in (ours - theirs).most_common(6)],
                    "only_pdftotext": [w for w, _ in (theirs - ours).most_common(6)],
                }
            )
    return result


def summarise(results: list[dict], corpus: Path, seconds: float, watch: tuple[str, ...]) -> dict:
    pages = sum(r["compared"] for r in results)
    differing = [dict(d, file=r["file"]) for r in results for d in r["differing"]]
    by_cause = Counter(d["cause"] for d in differing)
    examples = {
        cause: [d for d in differing if d["cause"] == cause][:EXAMPLES_PER_CAUSE]
        for cause in CAUSES
    }
    watched = {
        word: {
            "files": sum(1 for r in results if word in r["watched"]),
            "pages": sum(len(r["watched"].get(word, [])) for r in results),
        }
        for word in watch
    }
    return {
        "corpus": str(corpus),
        "files": len(results),
        "files_compared": sum(1 for r in results if r["compared"]),
        "files_not_compared": [
            {k: r[k] for k in ("file", "status", "pages", "pdftotext_pages")}
            for r in results
            if not r["compared"] and (r["pages"] or r["pdftotext_pages"])
        ],
        "pages_compared": pages,
        "threshold": THRESHOLD,
        "pages_differing": len(differing),
        "share_differing": round(len(differing) / pages, 4) if pages else 0.0,
        "by_cause": {cause: by_cause[cause] for cause in CAUSES},
        "watched": watched,
        "pdfindex_seconds": round(sum(r["seconds"] for r in results), 1),
        "wall_seconds": round(seconds, 1),
        "examples": examples,
        "differing": differing,  # every page: `compact` keeps counts per file instead
    }


def compact(summary: dict) -> dict:
    """The summary as committed: each file's count of differing pages per cause instead
    of every page (47,970 pages made a 4 MB list)."""
    per_file: dict[str, Counter[str]] = {}
    for page in summary["differing"]:
        per_file.setdefault(page["file"], Counter())[page["cause"]] += 1
    kept = {k: v for k, v in summary.items() if k != "differing"}
    kept["differing_by_file"] = {f: dict(c.most_common()) for f, c in sorted(per_file.items())}
    return kept


def markdown(summary: dict) -> str:
    pages = summary["pages_compared"] or 1
    other = summary["pages_differing"] - summary["by_cause"]["hyphenation"]
    lines = [
        f"# pdfindex (pypdfium2) against pdftotext: {summary['corpus']}",
        "",
        f"{summary['files_compared']} of {summary['files']} files, "
        f"{summary['pages_compared']:,} pages compared (files whose page counts differ "
        f"are left out: {len(summary['files_not_compared'])}). A page differs when more "
        f"than {summary['threshold']:.0%} of its words have no twin on the other side.",
        "",
        f"**Pages differing: {summary['pages_differing']:,} "
        f"({summary['share_differing']:.2%})**; for another cause than hyphenation "
        f"(pdftotext joins a word hyphenated at a line end, pdfindex keeps it as printed): "
        f"{other:,} ({other / pages:.2%}).",
        "",
        "| cause | pages | share of pages |",
        "|---|---:|---:|",
    ]
    for cause, count in summary["by_cause"].items():
        lines.append(f"| {cause} | {count:,} | {count / pages:.2%} |")
    lines += ["", "| word in pdfindex's text | files | pages |", "|---|---:|---:|"]
    for word, found in summary["watched"].items():
        lines.append(f"| `{word}` | {found['files']} | {found['pages']} |")
    lines += [
        "",
        f"pdfindex extraction: {summary['pdfindex_seconds']} s of worker time; "
        f"the whole run {summary['wall_seconds']} s.",
        "",
        "## Examples (only in pdfindex / only in pdftotext)",
    ]
    for cause, examples in summary["examples"].items():
        if not examples:
            continue
        lines += ["", f"### {cause}", ""]
        for d in examples[:4]:
            lines.append(
                f"- {d['file']} p. {d['page']} ({d['difference']:.1%} of {d['words']} words): "
                f"{', '.join(d['only_pdfindex'][:4]) or '-'} / "
                f"{', '.join(d['only_pdftotext'][:4]) or '-'}"
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True, help="a folder of PDFs")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N files")
    parser.add_argument("--pdftotext-cache", type=Path, default=None)
    parser.add_argument("--watch", action="append", default=None, help="a word to count")
    parser.add_argument("--name", default=None, help="results file name (default: dated)")
    parser.add_argument("--every-page", action="store_true", help="list every differing page")
    args = parser.parse_args()
    files = sorted(args.corpus.glob("*.pdf"))[: args.limit or None]
    watch = tuple(args.watch or WATCH)
    if args.pdftotext_cache:
        args.pdftotext_cache.mkdir(parents=True, exist_ok=True)
    began = time.perf_counter()
    with Pool(args.workers, maxtasksperchild=25) as pool:
        tasks = [(path, args.pdftotext_cache, watch) for path in files]
        results = list(pool.imap_unordered(compare_file, tasks, chunksize=1))
    results.sort(key=lambda r: r["file"])
    summary = summarise(results, args.corpus, time.perf_counter() - began, watch)
    name = args.name or (
        f"{datetime.date.today().isoformat()}-extraction-vs-pdftotext-{args.corpus.name}"
    )
    args.out.mkdir(parents=True, exist_ok=True)
    kept = summary if args.every_page else compact(summary)
    (args.out / f"{name}.json").write_text(json.dumps(kept, indent=1, ensure_ascii=False))
    table = markdown(summary)
    (args.out / f"{name}.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
