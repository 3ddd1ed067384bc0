"""A launch script's engine command cut short by a comment: `\\` at the end of a comment does
not continue the line (the comment runs to the end of it), so the shell ends the command there
and runs the lines after it as a command of their own (HBM017). The shell splitter
(engines/shell.py) finds such comments as it reads the script (quotes, here-documents and bash
arrays, where a newline ends nothing, are its business); this says which of them cut an engine
command short: where the next line carries on with an option (`--flag`)."""

from __future__ import annotations

import bisect

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_engine, names_engine
from ..yamlsrc import Span

# an engine's program, module or image among a command's words (`--entrypoint
# /usr/local/bin/vllm`, `"${IMAGE}" serve` with the image in a variable)
_ENGINE_NAMES = ("vllm", "sglang", "text-generation-launcher", "trtllm-serve")


def comments_ending_commands(
    text: str, breaks: list[tuple[int, int]], display: str
) -> list[Diagnostic]:
    """HBM017 at each comment of ``breaks`` (split_script's: the `#`'s offset and its command's)
    whose next line carries on with an option and whose command, with the lines meant to
    continue it, runs an engine."""
    if not breaks:
        return []
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]
    lines = text.split("\n")
    findings: list[Diagnostic] = []
    for hash_at, begun in breaks:
        row = bisect.bisect_right(starts, hash_at) - 1
        after = _next_option_lines(lines, row + 1)
        if after is None:
            continue
        first, end = after
        if not _runs_engine(text[begun : starts[end] if end < len(starts) else len(text)]):
            continue
        word = lines[first].split()[0]
        findings.append(
            input_diagnostic(
                "HBM017",
                "the `\\` at the end of this comment does not continue the command: the shell "
                f"ends it at the `#`, so the lines from line {first + 1} (`{word}` ...) are not "
                "part of it: they run as a command of their own and never reach the engine",
                display,
                Span(row + 1, hash_at - starts[row] + 1),
                None,
                [
                    "Move the comment to its own line above the command (or remove it), so that "
                    "every line of the command ends in `\\`"
                ],
            )
        )
    return findings


def _runs_engine(block: str) -> bool:
    if names_engine(block) or any(image_engine(w) for w in block.split()):
        return True
    lowered = block.lower()
    return any(name in lowered for name in _ENGINE_NAMES)


def _next_option_lines(lines: list[str], start: int) -> tuple[int, int] | None:
    """The first non-blank line from ``start`` if it starts with an option (`-`), and the line
    after those that continue it; None where the next line is not an option."""
    first = next((i for i in range(start, len(lines)) if lines[i].strip()), None)
    if first is None or not lines[first].lstrip().startswith("-"):
        return None
    end = first
    while end < len(lines) and lines[end].rstrip().endswith("\\"):
        end += 1
    return first, min(end + 1, len(lines))
