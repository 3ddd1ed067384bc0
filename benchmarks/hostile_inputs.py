"""How lint time grows with pathological inputs that once made it grow with the square of the
file (session 37's hardening: benchmarks/fuzz.py seeds 3701, 3702, 3703 and 4101): a megabyte
comment line, a command of tens of thousands of words, thousands of deeply indented lines, a
megabyte line in a here-document. Each input is linted in process at a size and at twice it;
the ratio of the two times is about 2 where the reading is linear and about 4 where it is
quadratic. Times are the median of --runs runs (CPU time of this process).

    python benchmarks/hostile_inputs.py            # sizes x1 and x2, 3 runs
    python benchmarks/hostile_inputs.py --scale 4  # larger inputs
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

SERVE = "vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\n"


def comment_line(n: int) -> str:
    return "#!/bin/bash\n# " + "y" * (250_000 * n) + "\n# on an L4\n" + SERVE


def many_words(n: int) -> str:
    return "#!/bin/bash\necho " + "w " * (15_000 * n) + "\n" + SERVE


def deep_indent(n: int) -> str:
    return "#!/bin/bash\n" + "".join(" " * (2 * i) + "k:\n" for i in range(700 * n)) + SERVE


def heredoc_line(n: int) -> str:
    body = "cat > extra.yml << EOF\nprint_iter_log: true\n# " + "y" * (250_000 * n) + "\nEOF\n"
    return "#!/bin/bash\n" + body + SERVE


INPUTS: dict[str, Callable[[int], str]] = {
    "comment line": comment_line,
    "many words": many_words,
    "deep indentation": deep_indent,
    "here-document line": heredoc_line,
}


def timed(path: Path, rules: list, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        lint_file(path, path.name, rules)
        times.append(time.process_time() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=int, default=1, help="the smaller size's multiple")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    rules, _ = load_rules()
    print(f"{'input':<20} {'bytes x1':>10} {'bytes x2':>10} {'x1 s':>7} {'x2 s':>7} {'growth':>7}")
    with tempfile.TemporaryDirectory() as folder:
        warm = Path(folder) / "warm.sh"
        warm.write_text(SERVE, encoding="utf-8")
        timed(warm, rules, 1)  # imports and first-use caches out of the first row
        for name, make in INPUTS.items():
            row = []
            for n in (args.scale, 2 * args.scale):
                path = Path(folder) / "serve.sh"
                text = make(n)
                path.write_text(text, encoding="utf-8")
                row.append((len(text), timed(path, rules, args.runs)))
            (size, small), (size2, large) = row
            # the time's growth over the bytes': ~1 linear, ~bytes ratio quadratic
            growth = (large / small) / (size2 / size) if small else float("nan")
            print(f"{name:<20} {size:>10,} {size2:>10,} {small:>7.2f} {large:>7.2f} {growth:>7.2f}")


if __name__ == "__main__":
    main()
