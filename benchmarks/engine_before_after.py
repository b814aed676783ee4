"""`python -m benchmarks.engine_before_after ROOT [RUNS]`: benchmarks.engine_table's cases
on an indexed root, in-process, as JSON {case: [matches, wall p50 ms, CPU p50 ms]}. Run the
code before and after a change alternately (each on a root of its own index format) and
compare the lower of each: a shared machine is noisy, and CPU time shows what waiting
for a core hid."""

from __future__ import annotations

import json
import statistics
import sys
import time

from benchmarks.engine_table import query_cases
from pdfindex import PdfIndex, load_settings


def main() -> None:
    index = PdfIndex(load_settings({}, root=sys.argv[1]))
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 15
    index.search("hyphenation")
    cases, _ = query_cases(index, "generic_pgf_pgfmanual")
    out = {}
    for name, call in cases:
        found = call()
        wall, cpu = [], []
        for _ in range(runs):
            began, began_cpu = time.perf_counter(), time.process_time()
            call()
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        out[name] = [found, round(statistics.median(wall), 2), round(statistics.median(cpu), 2)]
    index.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
