"""A launch script's engine command cut short by a comment: `\\` at the end of a comment does
not continue the line (the comment runs to the end of it), so the shell ends the command there
and runs the lines after it as a command of their own (HBM017). Read from the script's text,
line by line, as the shell sees comments: a `#` that starts a word, outside quotes; here-document
bodies and the insides of `( ... )` (a bash array, where a newline ends nothing) are left out."""

from __future__ import annotations

from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import image_engine, names_engine
from ..lazyre import LazyPattern
from ..yamlsrc import Span

_HEREDOC = LazyPattern(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?")


def _scan(line: str) -> tuple[int | None, int, bool]:
    """Where the line's comment starts (None: none), how many `(` it opens less those it
    closes outside quotes and the comment, and whether it leaves a quote open."""
    quote = ""
    depth = 0
    i = 0
    while i < len(line):
        c = line[i]
        if quote:
            if c == "\\" and quote == '"':
                i += 2
                continue
            if c == quote:
                quote = ""
        elif c == "\\":
            i += 2
            continue
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t;&|("):
            return i, depth, False
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        i += 1
    return None, depth, bool(quote)


def _continues(code: str) -> bool:
    """Whether a line's code (its comment left out) ends in a `\\` that continues it."""
    trailing = len(code) - len(code.rstrip("\\"))
    return trailing % 2 == 1


def comments_ending_commands(text: str, display: str) -> list[Diagnostic]:
    """HBM017 at each comment that ends in `\\` inside a continued command naming an engine,
    where the next line carries on with an option (`--flag`)."""
    if "\\" not in text or "#" not in text:
        return []
    lines = [line.rstrip("\r") for line in text.split("\n")]
    findings: list[Diagnostic] = []
    continued = False
    block_start = 0
    depth = 0
    heredoc: str | None = None
    for n, line in enumerate(lines):
        if heredoc is not None:
            if line.strip() == heredoc:
                heredoc = None
            continue
        comment, opened, open_quote = _scan(line)
        if open_quote:
            return findings  # a quote across lines: its text is not commands; stop here
        code = line if comment is None else line[:comment]
        if not continued:
            block_start = n
        if (
            continued
            and depth == 0
            and comment is not None
            and code.strip()
            and line.rstrip().endswith("\\")
        ):
            after = _next_option_block(lines, n + 1)
            if after is not None:
                first, end = after
                block = "\n".join(lines[block_start:end])
                if _runs_engine(block):
                    word = lines[first].split()[0]
                    findings.append(
                        input_diagnostic(
                            "HBM017",
                            "the `\\` at the end of this comment does not continue the "
                            "command: the shell ends it at the `#`, so the lines from "
                            f"line {first + 1} (`{word}` ...) are not part of it: they run "
                            "as a command of their own and never reach the engine",
                            display,
                            Span(n + 1, comment + 1),
                            None,
                            [
                                "Move the comment to its own line above the command (or "
                                "remove it), so that every line of the command ends in `\\`"
                            ],
                        )
                    )
        depth = max(depth + opened, 0)
        continued = comment is None and _continues(code)
        heredoc_at = _HEREDOC.search(code)
        if heredoc_at is not None:
            heredoc = heredoc_at.group(1)
    return findings


# an engine's program, module or image among a command's words (`--entrypoint
# /usr/local/bin/vllm`, `"${IMAGE}" serve` with the image in a variable)
_ENGINE_NAMES = ("vllm", "sglang", "text-generation-launcher", "trtllm-serve")


def _runs_engine(block: str) -> bool:
    if names_engine(block) or any(image_engine(w) for w in block.split()):
        return True
    lowered = block.lower()
    return any(name in lowered for name in _ENGINE_NAMES)


def _next_option_block(lines: list[str], start: int) -> tuple[int, int] | None:
    """The first non-blank line from ``start`` if it starts with an option (`-`), and the end
    of the lines that continue it; None where the next line is not an option."""
    first = next((i for i in range(start, len(lines)) if lines[i].strip()), None)
    if first is None or not lines[first].lstrip().startswith("-"):
        return None
    end = first
    while end < len(lines) and lines[end].rstrip().endswith("\\"):
        end += 1
    return first, min(end + 1, len(lines))
