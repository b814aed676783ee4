"""`python -m benchmarks.engine_before_after ROOT [RUNS]`: benchmarks.engine_table's cases
on an indexed root, in-process, as JSON {case: [matches, wall p50 ms, CPU p50 ms]}. Run the
code before and after a change alternately (each on a root of its own index format) and
compare the lower of each: a shared machine is noisy, and CPU time shows what waiting
for a core hid."""

from __future__ import annotations

import json
import sys

from benchmarks.engine_table import query_cases
from benchmarks.million import latency
from pdfindex import PdfIndex, load_settings


def main() -> None:
    index = PdfIndex(load_settings({}, root=sys.argv[1]))
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    index.search("hyphenation")
    cases, _ = query_cases(index, "generic_pgf_pgfmanual")
    out = {}
    for name, call in cases:
        measured = latency(call, runs)
        out[name] = [measured["count"], measured["p50_ms"], measured["cpu_p50_ms"]]
    index.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
