"""Where a lint's CPU goes, stage by stage, in one process after start-up.

Lints a directory (by default speed.py's generated 1,000-file corpus) three times and prints
the best whole pass in ms per file, then one more pass with each stage's entry point wrapped
in a CPU timer: YAML loading, format detection, the native and Kubernetes readers, resolve,
the budget, the rules and fix verification. The stages are inclusive (a fix's re-read counts
in fix verification and again in its reader) and the wrapping adds a little; the rest is
lint.py itself and reading the files.

Usage::

    python benchmarks/stages.py [DIRECTORY] [--count 1000]
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hbmlint import fixes, lint
from hbmlint.formats import kubernetes, native
from hbmlint.rules import builtin_rule_files, load_rules

# (module, function, label): the entry point of each stage, as lint.py calls it
STAGES: list[tuple[Any, str, str]] = [
    (lint, "load_documents", "yaml load"),
    (lint, "detect_format", "detect_format"),
    (native, "to_deployments", "native read"),
    (kubernetes, "to_deployments", "kubernetes read"),
    (lint, "resolve", "resolve"),
    (lint.budget_stage, "build", "budget build"),
    (lint, "evaluate_rules", "rules"),
    (fixes, "complete", "fix verification"),
]


def _lint_all(files: list[Path], rules: list[Any]) -> float:
    options = lint.LintOptions(keep_budgets=False)
    start = time.process_time()
    for path in files:
        lint.lint_file(path, path.name, rules, options)
    return time.process_time() - start


def _timed(function: Callable[..., Any], label: str, spent: dict[str, float]) -> Callable:
    @functools.wraps(function)
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - start

    return timed


def measure(directory: Path) -> None:
    rules, _ = load_rules(builtin_rule_files())
    files = sorted(p for p in directory.rglob("*") if p.suffix in (".yaml", ".yml"))
    best = min(_lint_all(files, rules) for _ in range(3))
    print(f"whole pass, best of 3: {best:.3f} s CPU, {best / len(files) * 1e3:.3f} ms a file")
    spent: dict[str, float] = {}
    for module, name, label in STAGES:
        setattr(module, name, _timed(getattr(module, name), label, spent))
    total = _lint_all(files, rules)
    for label, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        print(f"  {label:17s} {seconds:6.3f} s  {seconds / total:6.1%}")
    print(f"  (the wrapped pass: {total:.3f} s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("directory", nargs="?", type=Path, help="manifests to lint")
    parser.add_argument("--count", type=int, default=1000, help="generated files, no directory")
    args = parser.parse_args(argv)
    if args.directory is not None:
        measure(args.directory)
        return 0
    sys.path.insert(0, str(Path(__file__).parent))
    import speed  # the same seeded corpus speed.py times

    with tempfile.TemporaryDirectory() as folder:
        speed.generate(Path(folder), args.count)
        measure(Path(folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
