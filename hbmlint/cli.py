"""hbmlint's command line: ``hbmlint PATH...`` lints; ``budget``, ``rules``, ``explain``,
``gpus`` and ``models`` show what it knows. Heavy modules are imported inside the commands
that need them, to keep start-up fast for pre-commit."""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import re
import sys
from pathlib import Path
from typing import Any

import click

from . import __version__
from .records import dataclass

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
GPU_HELP = "GPU type for manifests that name none (a catalog name or alias, e.g. H100)."
COLOR_HELP = (
    "Colour the findings: auto colours on a terminal unless NO_COLOR is set (FORCE_COLOR "
    "colours when piped); always and never decide whatever the environment says."
)
STDIN_FILENAME_HELP = (
    "The name to report, and to match the configuration's per-file settings against, for "
    "standard input (`-`)."
)
CONFIG_HELP = (
    "Configuration file (default: the nearest .hbmlint.yaml, or pyproject.toml with "
    "[tool.hbmlint], from the working directory up to the repository root)."
)


# PyYAML compiles, when imported, this class of the characters a YAML stream may not hold, used
# only by its pure-Python reader (hbmlint reads with libyaml). Written as a negated class over all
# of Unicode it costs a tenth of hbmlint's start-up to compile; the same set written as the
# characters it holds compiles in a thirteenth of that time. Seeded in re's cache under PyYAML's
# text, it is the pattern PyYAML gets (tests/test_cli_yaml_pattern.py: the two sets are one).
# Written as two classes, the Latin-1 characters and the wider ones, each matching one character
# (the {1} keeps re's parser from folding them back into one class): one class holding both
# kinds is compiled into a table of all 65,536 BMP characters, twice (as the pattern and as its
# search prefix), which cost three times as much as the two parts (4.4M instructions, 1.4M).
YAML_NON_PRINTABLE = "[^\x09\x0a\x0d\x20-\x7e\x85\xa0-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]"
YAML_NON_PRINTABLE_HELD = (
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]|[\ud800-\udfff\ufffe\uffff]{1}"
)


def _seed_yaml_pattern() -> None:
    """Where PyYAML is not loaded yet and re keeps its cache as Python 3.10 to 3.13 do (a dict
    by (type, text, flags)); anywhere else nothing changes and PyYAML compiles its own."""
    cache = getattr(re, "_cache", None)
    if "yaml.reader" not in sys.modules and isinstance(cache, dict):
        cache.setdefault((str, YAML_NON_PRINTABLE, 0), re.compile(YAML_NON_PRINTABLE_HELD))


_seed_yaml_pattern()

# At exit, Python's cyclic collector walks every object still alive (modules, catalogs, rules,
# every file's results) only to free memory the process is about to give back: objects frozen
# first are not walked. Registered at import, it runs when the process exits, never between
# runs of a process that lints more than once.
atexit.register(gc.freeze)


# The cyclic collector's first threshold while a command runs (Python's default is 700): every
# tenth collection of the young objects also walks those that survived one, and a lint keeps
# what it builds (modules, catalogs, rules, every file's results) while it makes a few hundred
# thousand short-lived objects: at 700 the collections cost a fiftieth of a lint. Cyclic
# garbage is still collected, a few thousand allocations later.
COMMAND_GC_THRESHOLD = 7000

# Until a run's first file is linted, nearly every object a command makes (the modules it
# imports, the rules, the file list) lives as long as the process, and each collection walks
# them only to find them alive: the collector is off for that start-up, and what it made is
# then frozen (gc.freeze: never walked again) before the collector is turned back on for the
# files. main() thaws it all when the command ends, for a process that runs more than one.
# Nothing is paused where the caller had the collector off or had frozen objects itself.
_start_up_paused = False


def start_up_paused_here() -> None:
    """hbmlint.__main__.main imported this module with the collector off: the start-up pause began
    there, and the command goes on with it (unless the command has started since)."""
    global _start_up_paused
    if not gc.isenabled() and not gc.get_freeze_count():
        _start_up_paused = True


def _pause_for_start_up() -> bool:
    global _start_up_paused
    if _start_up_paused:  # begun by hbmlint.__main__.main as it imported this module
        return True
    if not gc.isenabled() or gc.get_freeze_count():
        return False
    gc.disable()
    _start_up_paused = True
    return True


def _start_up_done() -> None:
    """The run's long-lived objects are made: freeze them, and collect from here on."""
    global _start_up_paused
    if _start_up_paused:
        _start_up_paused = False
        gc.freeze()
        gc.enable()


def _end_pause(paused: bool) -> None:
    global _start_up_paused
    if paused:
        _start_up_paused = False
        gc.unfreeze()
        gc.enable()


class _DefaultToLint(click.Group):
    """``hbmlint PATH`` means ``hbmlint lint PATH``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args and ctx.resilient_parsing:
            # shell completion of the first word: offer the commands, not lint's paths
            return super().parse_args(ctx, args)
        if not args or (
            args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")
        ):
            args = ["lint", *args]
        return super().parse_args(ctx, args)

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """Exit codes are a promise: 0 clean, 1 findings, 2 hbmlint could not do its job. An
        exception that escapes a command (a bug, or memory exhausted) is one line on standard
        error and exit 2, never a traceback with Python's exit 1, which reads as "findings".
        HBMLINT_TRACEBACK=1 shows the traceback, for a bug report."""
        before = gc.get_threshold()
        gc.set_threshold(max(before[0], COMMAND_GC_THRESHOLD), *before[1:])
        paused = _pause_for_start_up()
        try:
            return super().main(*args, **kwargs)
        except Exception as exc:  # click's own errors and sys.exit never reach here
            if os.environ.get("HBMLINT_TRACEBACK"):
                raise
            _internal_error(exc)
        finally:  # a process that runs the command more than once (tests) gets its own back
            gc.set_threshold(*before)
            _end_pause(paused)


def _internal_error(exc: BaseException) -> None:
    try:
        detail = " ".join(str(exc).split())[:200]
    except Exception:  # an exception whose str() fails (or needs memory we lack)
        detail = ""
    line = f"hbmlint: internal error: {type(exc).__name__}" + (f": {detail}" if detail else "")
    with contextlib.suppress(Exception):
        sys.stderr.write(line + " (a bug: please report it; HBMLINT_TRACEBACK=1 shows where)\n")
        sys.stderr.flush()
    sys.exit(EXIT_ERROR)


@click.group(cls=_DefaultToLint, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hbmlint")
def main() -> None:
    """Lint LLM serving manifests for their GPU memory (HBM) budget.

    Run `hbmlint PATH...` to lint files and directories (the same as `hbmlint lint PATH...`).
    """


def _load_rules(rules_dirs: tuple[str, ...]) -> tuple[list, list]:
    from .rules import builtin_rule_files, load_rules

    builtin = builtin_rule_files()
    paths = list(builtin)
    for directory in rules_dirs:
        paths += sorted(p for p in Path(directory).iterdir() if p.suffix in (".yaml", ".yml"))
    return load_rules(paths, builtin_files=builtin)


@dataclass
class _Run:
    """What the pipeline produced, before the filter stage."""

    results: list
    diagnostics: list  # every finding, unfiltered
    internal: bool  # hbmlint itself failed on some file (exit 2)
    rules: list  # the rules that ran
    filter: Any  # config.Filter: what is reported, where, how severe


def _run(
    paths: tuple[str, ...],
    rules_dirs: tuple[str, ...],
    default_gpu: str | None = None,
    config: Any = None,
    selection: Any = None,
    jobs: int = 1,
    keep_budgets: bool = True,
    stdin_filename: str | None = None,
    overrides: tuple = (),
) -> _Run:
    """Lint every file; an unexpected error in one file is reported on that file and the
    others are still linted. Raises config.ConfigError for an unusable configuration."""
    from . import catalog
    from .config import Config, Filter
    from .diagnostics import INPUT_CHECKS
    from .lint import LintOptions, discover, lint_many

    config = config or Config()
    catalog.use_extra_files(config.catalogs)
    rules, rule_findings = _load_rules((*(str(d) for d in config.rules_dirs), *rules_dirs))
    known = {c.code: c.name for c in INPUT_CHECKS.values()} | {r.id: r.name for r in rules}
    selected = Filter(config, known, selection)
    params = selected.rule_params(rules)
    rules = [r for r in rules if selected.is_enabled(r.id)]  # an ignored rule does not run
    options = LintOptions(
        default_gpu=default_gpu or config.default_gpu,
        rule_params=params,
        format_overrides=tuple(config.formats.items()),
        config_root=config.root,
        model_paths=tuple(config.model_paths.items()),
        keep_budgets=keep_budgets,
        overrides=overrides,
    )
    items = [
        (path, display)
        for path, display in _discover(discover, paths or (".",), stdin_filename)
        if not config.is_excluded(display)
    ]
    _start_up_done()  # before any file, and before a process pool's workers fork
    linted = lint_many(items, rules, options, jobs, tuple(config.catalogs))
    results = [result for result, _ in linted]
    internal = any(failed for _, failed in linted)
    diagnostics = list(rule_findings)
    for result in results:
        diagnostics.extend(result.diagnostics)
    return _Run(results, diagnostics, internal, rules, selected)


def _discover(discover: Any, paths: tuple[str, ...], stdin_filename: str | None) -> Any:
    """discover(), with standard input named as --stdin-filename says."""
    for path, display in discover(paths):
        yield path, (stdin_filename if stdin_filename and str(path) == "-" else display)


SET_HELP = (
    "What-if without editing: replace a manifest field in every deployment, e.g. "
    "parallel.tensor=2, gpu.type=H200, serving.max_model_len=32k, speculative.method=ngram "
    "(repeatable; any format)."
)


def _overrides(items: tuple[str, ...]) -> tuple:
    """--set, read; a key or value hbmlint cannot apply is a usage error (exit 2)."""
    if not items:
        return ()
    from .overrides import OverrideError, parse

    try:
        return parse(items)
    except OverrideError as exc:
        raise click.BadParameter(str(exc), param_hint="--set") from None


def use_color(choice: str, stream: Any) -> bool:
    """--color: always and never win; auto follows NO_COLOR (no-color.org), then FORCE_COLOR,
    then whether the stream is a terminal. Either variable counts when set and not empty."""
    if choice != "auto":
        return choice == "always"
    if os.environ.get("NO_COLOR"):
        return False
    if os.environ.get("FORCE_COLOR"):
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _lint(
    paths: tuple[str, ...],
    rules_dirs: tuple[str, ...],
    default_gpu: str | None = None,
    config: Any = None,
) -> tuple[list, list, bool]:
    """(results, all diagnostics, internal error seen), as the budget views need them."""
    run = _run(paths, rules_dirs, default_gpu, config)
    return run.results, run.diagnostics, run.internal


OUTSIDE_HELP = (
    "Let the configuration's rules-dirs and catalogs name paths outside its repository "
    "(refused by default: a configuration may come from a pull request)."
)


def _load_config(config_file: str | None, allow_outside: bool = False) -> Any:
    """The configuration in effect; an unusable one ends the command with exit 2."""
    from .config import ConfigError, load

    try:
        return load(config_file, allow_outside=allow_outside)
    except ConfigError as exc:
        click.echo(str(exc), err=True)
        sys.exit(EXIT_ERROR)


def _filter(run: _Run) -> tuple[list, list]:
    """The filter stage: configuration (select, ignore, per-file-ignores, severity), then inline
    suppressions. Returns (reported findings, [(suppressed finding, its suppression)])."""
    diagnostics = run.filter.apply(run.diagnostics)
    suppressions = [s for r in run.results for s in r.suppressions]
    problems = [p for r in run.results for p in r.suppression_problems]
    if not suppressions and not problems:  # nothing to apply (suppressions.py not imported)
        from .diagnostics import Diagnostic

        return run.filter.apply(sorted(diagnostics, key=Diagnostic.sort_key)), []
    from .suppressions import apply

    kept, suppressed = apply(
        diagnostics, suppressions, problems, run.filter.known, run.filter.is_enabled
    )
    return run.filter.apply(kept), suppressed  # again, for the unused-suppression findings


def _inputs(run: _Run, config: Any, rules_dirs: tuple[str, ...]) -> list[Path]:
    """Every file this run read: --output must never overwrite one of them."""
    inputs = [r.path for r in run.results if str(r.path) != "-"]
    inputs += [Path(r.file) for r in run.rules if getattr(r, "file", "")]
    inputs += list(config.catalogs)
    if config.file:
        inputs.append(config.root / Path(config.file).name)
    for result in run.results:
        for item in result.deployments:
            for ref in (item.deployment.model, getattr(item.deployment.speculative, "model", None)):
                if ref is not None and getattr(ref, "config", None) is not None:
                    inputs.append(Path(ref.config))
    return inputs


# The commands' path parameters, one of each kind: making a click.Path looks its name up with
# gettext (~0.17M instructions a lookup, a dozen at import); a type holds only its settings.
# The manifest paths are not checked for read permission here: click's check would end the whole
# run with a usage error (exit 2) for one unreadable file, where the promise is an HBM001 finding
# at that file and the others linted (a file in a folder walk gets it already).
ANY_PATH = click.Path(readable=False)
FILE_PATH = click.Path(dir_okay=False)
FOLDER_PATH = click.Path(file_okay=False)
EXISTING_FOLDER = click.Path(file_okay=False, exists=True)


def _split(values: tuple[str, ...]) -> list[str]:
    """Repeatable, comma-separated selector options: --select HBM1,HBM2 --select HBM201."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@main.command()
@click.argument("paths", nargs=-1, type=ANY_PATH)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["auto", "text", "json", "github", "sarif"]),
    default="auto",
    show_default=True,
    help="Output format; auto is github inside GitHub Actions (GITHUB_ACTIONS=true), else text.",
)
@click.option(
    "--output",
    "-o",
    type=FILE_PATH,
    help="Write the report to this file instead of standard output: atomically, through a "
    "symlink to its target, keeping its mode; never over an input of the run.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default=None,
    help="Lowest severity that makes the exit code 1.  [default: error]",
)
@click.option(
    "--rules-dir",
    "rules_dirs",
    multiple=True,
    type=EXISTING_FOLDER,
    help="A directory of your own rule files (repeatable).",
)
@click.option("--gpu", "default_gpu", help=GPU_HELP)
@click.option("--config", "config_file", type=FILE_PATH, help=CONFIG_HELP)
@click.option("--allow-outside-paths", is_flag=True, help=OUTSIDE_HELP)
@click.option(
    "--select",
    multiple=True,
    help="Codes, code prefixes or rule names to report, replacing the configuration's "
    "(comma-separated, repeatable; ALL for every one).",
)
@click.option("--extend-select", multiple=True, help="Report these too.")
@click.option("--ignore", multiple=True, help="Do not report these.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help=COLOR_HELP,
)
@click.option("--quiet", "-q", is_flag=True, help="Print the findings and nothing else.")
@click.option(
    "--statistics",
    is_flag=True,
    help="Print a count per code (most frequent first) instead of the findings.",
)
@click.option("--stdin-filename", metavar="NAME", help=STDIN_FILENAME_HELP)
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
@click.option(
    "--fix",
    is_flag=True,
    help="Apply the safe fixes (those that keep what the deployment does, e.g. vLLM's removed "
    "--speculative-model flags rewritten as --speculative-config) to the files, then report "
    "what remains.",
)
@click.option(
    "--unsafe-fixes",
    is_flag=True,
    help="With --fix or --diff (or alone, meaning --fix), also apply each finding's first fix "
    "that can be written as an edit, though it changes the deployment (a shorter context, an "
    "FP8 KV cache).",
)
@click.option(
    "--diff",
    is_flag=True,
    help="Print the fixes as a unified diff and write nothing; exit 1 when there is a diff.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Processes to lint with; the output is the same whatever the number.  "
    "[default: the cores available]",
)
def lint(
    paths: tuple[str, ...],
    output_format: str,
    output: str | None,
    fail_on: str | None,
    rules_dirs: tuple[str, ...],
    default_gpu: str | None,
    config_file: str | None,
    select: tuple[str, ...],
    extend_select: tuple[str, ...],
    ignore: tuple[str, ...],
    jobs: int | None,
    allow_outside_paths: bool = False,
    color: str = "auto",
    quiet: bool = False,
    statistics: bool = False,
    stdin_filename: str | None = None,
    settings: tuple[str, ...] = (),
    fix: bool = False,
    unsafe_fixes: bool = False,
    diff: bool = False,
) -> None:
    """Lint manifests: files, or directories searched for YAML files, .sh/.bash launch
    scripts, Slurm/PBS batch scripts (.slurm/.sbatch/.pbs) and systemd .service units (`-`
    reads standard input)."""
    from . import reporters
    from .config import CommandLine, ConfigError
    from .diagnostics import Severity
    from .lint import available_cores
    from .results import RenderOptions

    overrides = _overrides(settings)
    if (fix or diff or unsafe_fixes) and (overrides or "-" in paths):
        raise click.UsageError(
            "--fix, --unsafe-fixes and --diff edit files as written: not with --set or "
            "standard input"
        )
    config = _load_config(config_file, allow_outside_paths)
    selection = CommandLine(
        select=_split(select) if select else None,
        extend_select=_split(extend_select),
        ignore=_split(ignore),
    )

    def lint_all() -> _Run:
        return _run(
            paths,
            rules_dirs,
            default_gpu,
            config,
            selection,
            jobs or available_cores(),
            keep_budgets=bool(os.environ.get("GITHUB_STEP_SUMMARY")),  # only the summary needs them
            stdin_filename=stdin_filename,
            overrides=overrides,
        )

    try:
        run = lint_all()
        diagnostics, suppressed = _filter(run)
        fixed: list = []
        if diff:
            fixed = _apply_fixes(run, diagnostics, unsafe_fixes, write=False)
            click.echo(_diffs(fixed), nl=False)
            count = sum(len(f.applied) for f in fixed)
            if count:
                click.echo(
                    f"hbmlint: would apply {count} fix{'es' if count != 1 else ''} to "
                    f"{len(fixed)} file{'s' if len(fixed) != 1 else ''} (--fix writes them)",
                    err=True,
                )
            sys.exit(EXIT_ERROR if run.internal else EXIT_FINDINGS if fixed else EXIT_OK)
        if fix or unsafe_fixes:
            fixed = _fix_until_done(lint_all, run, diagnostics, unsafe_fixes)
            if fixed:  # lint again: the report shows what remains
                run = lint_all()
                diagnostics, suppressed = _filter(run)
    except ConfigError as exc:
        click.echo(str(exc), err=True)
        sys.exit(EXIT_ERROR)
    colored = use_color(color, None if output else sys.stdout)
    chosen = _resolve_format(output_format)
    result = _report(run, diagnostics, suppressed)
    result.fixed = fixed
    options = RenderOptions(color=colored, quiet=quiet, statistics=statistics)
    report = reporters.render("lint", chosen, result, options)
    if output:
        from .output import OutputError, write_report

        try:
            write_report(output, report, _inputs(run, config, rules_dirs))
        except OutputError as exc:
            click.echo(f"hbmlint: {exc}", err=True)
            sys.exit(EXIT_ERROR)
    else:
        click.echo(report, nl=False, color=colored)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary_file:
        from .reporters import summary

        problem = summary.append(summary_file, reporters.render("summary", "markdown", result))
        if problem:
            click.echo(f"hbmlint: cannot append the job summary: {problem}", err=True)
    threshold = Severity.parse(fail_on) if fail_on else (config.fail_on or Severity.ERROR)
    if run.internal:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if any(d.severity >= threshold for d in diagnostics) else EXIT_OK)


def _resolve_format(output_format: str) -> str:
    if output_format != "auto":
        return output_format
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


MAX_FIX_PASSES = 4  # a fix may uncover a finding another fix then applies to (as ruff does)


def _apply_fixes(run: _Run, diagnostics: list, unsafe: bool, write: bool) -> list:
    """Pick and apply each file's fixes (fixes.chosen, fixes.apply); write the files when
    ``write``. Returns a results.FixedFile for each file that changed."""
    from . import files as file_io
    from . import fixes as fix_stage
    from .output import OutputError, write_in_place
    from .results import FixedFile

    out = []
    for result in run.results:
        if str(result.path) == "-":
            continue
        mine = [d for d in diagnostics if d.file == result.display]
        picked = fix_stage.chosen(mine, unsafe)
        if not picked:
            continue
        try:
            raw = file_io.read_bytes(result.path)
            text = file_io.decode(raw, result.path)
        except file_io.FileReadError:
            continue
        if raw.startswith(file_io.UTF16_BOMS):
            continue  # fixes are written as UTF-8; a UTF-16 file keeps its findings instead
        new, applied = fix_stage.apply(text, result.display, picked)
        if new == text:
            continue
        if write:
            bom = "\ufeff" if raw.startswith(b"\xef\xbb\xbf") else ""  # kept as it was
            try:
                write_in_place(result.path, bom + new)
            except OutputError as exc:
                click.echo(f"hbmlint: {exc}", err=True)
                continue
        out.append(FixedFile(result.display, [f.message for f in applied], text, new))
    return out


def _fix_until_done(lint_all: Any, run: _Run, diagnostics: list, unsafe: bool) -> list:
    """--fix: apply, lint again, apply what the new findings offer, until nothing changes."""
    done: dict[str, Any] = {}
    for _ in range(MAX_FIX_PASSES):
        fixed = _apply_fixes(run, diagnostics, unsafe, write=True)
        if not fixed:
            break
        for item in fixed:
            if item.display in done:
                done[item.display].applied += item.applied
                done[item.display].after = item.after
            else:
                done[item.display] = item
        run = lint_all()
        diagnostics, _ = _filter(run)
    return list(done.values())


def _diffs(fixed: list) -> str:
    """Unified diffs, as `git apply` and `patch -p1` take them (a/ and b/ prefixes)."""
    import difflib

    out = []
    for item in fixed:
        out += difflib.unified_diff(
            item.before.splitlines(keepends=True),
            item.after.splitlines(keepends=True),
            f"a/{item.display}",
            f"b/{item.display}",
        )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in out
    )


def _report(run: _Run, diagnostics: list, suppressed: list) -> Any:
    """The one result model the reporters receive (results.Report)."""
    from .diagnostics import INPUT_CHECKS
    from .results import Report

    checks = [c for c in INPUT_CHECKS.values() if run.filter.is_enabled(c.code)]

    def rule_docs() -> list:
        from . import ruledoc

        return ruledoc.all_docs(run.rules, checks)

    return Report(
        files=run.results,
        findings=diagnostics,
        suppressed=suppressed,
        rule_docs=rule_docs,
        internal=run.internal,
    )


@main.command()
@click.argument("paths", nargs=-1, type=ANY_PATH)
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "svg", "html"]),
    default="text",
    show_default=True,
    help="svg: a picture of each deployment's per-GPU split; html: one self-contained page "
    "with the pictures and their numbers.",
)
@click.option("--gpu", "default_gpu", help=GPU_HELP)
@click.option("--config", "config_file", type=FILE_PATH, help=CONFIG_HELP)
@click.option("--allow-outside-paths", is_flag=True, help=OUTSIDE_HELP)
@click.option(
    "--compare-speculative",
    is_flag=True,
    help="Compare speculative-decoding alternatives (draft, FP8/INT8 draft, EAGLE-3, MTP, "
    "early exit, CPU offload, n-gram, none) for each deployment: an estimate.",
)
@click.option("--stdin-filename", metavar="NAME", help=STDIN_FILENAME_HELP)
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE", help=SET_HELP)
def budget(
    paths: tuple[str, ...],
    output_format: str,
    default_gpu: str | None,
    config_file: str | None,
    compare_speculative: bool = False,
    allow_outside_paths: bool = False,
    stdin_filename: str | None = None,
    settings: tuple[str, ...] = (),
) -> None:
    """Show where every GiB of each GPU goes, per deployment; with --set, before and after."""
    from . import reporters
    from .config import ConfigError
    from .results import Report, speculative_comparisons

    overrides = _overrides(settings)
    if overrides and "-" in paths and not compare_speculative:
        raise click.UsageError(
            "--set shows the budget before and after, which reads each "
            "file twice: give a file rather than standard input"
        )
    config = _load_config(config_file, allow_outside_paths)
    try:
        run = _run(
            paths, (), default_gpu, config, stdin_filename=stdin_filename, overrides=overrides
        )
        before = None
        if overrides and not compare_speculative:
            before = _run(paths, (), default_gpu, config, stdin_filename=stdin_filename)
        # the trade-off rule's parameters, with the configuration's overrides: the comparison
        # takes them from here rather than reading rule files itself
        params: dict[str, Any] = {}
        if compare_speculative:
            every_rule = _load_rules(tuple(str(d) for d in config.rules_dirs))[0]
            params = _tradeoff_params(every_rule, run.filter.rule_params(every_rule))
    except ConfigError as exc:
        click.echo(str(exc), err=True)
        sys.exit(EXIT_ERROR)
    results, internal = run.results, run.internal
    keep = [i for i, r in enumerate(results) if r.deployments or r.diagnostics]
    results = [results[i] for i in keep]
    report = Report(files=results, internal=internal)
    view = "budget"
    if compare_speculative:
        report.comparisons = speculative_comparisons(results, params)
        view = "speculative"
    elif before is not None:
        report.before = [before.results[i] for i in keep]
        report.overrides = overrides
        view = "whatif"
    click.echo(reporters.render(view, output_format, report), nl=False)
    failed = any(item.budget is None for r in results for item in r.deployments) or any(
        r.error() for r in results
    )
    sys.exit(EXIT_ERROR if internal else EXIT_FINDINGS if failed else EXIT_OK)


def _tradeoff_params(rules: list[Any], overrides: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The speculative trade-off rule's parameters with the configuration's overrides."""
    from .reporters.speculative import RULE_ID

    rule = next((r for r in rules if r.id == RULE_ID), None)
    if rule is None:
        raise click.ClickException(f"the built-in rule {RULE_ID} is missing")
    return {**rule.params, **overrides.get(RULE_ID, {})}


@main.command(name="rules")
@click.option("--rules-dir", "rules_dirs", multiple=True, type=EXISTING_FOLDER)
def list_rules(rules_dirs: tuple[str, ...]) -> None:
    """List every check and rule with its code, severity and summary; a rule also with the
    engines and releases it holds for."""
    from .diagnostics import INPUT_CHECKS
    from .ruledoc import engines_text

    rules, problems = _load_rules(rules_dirs)
    for check in INPUT_CHECKS.values():
        click.echo(f"{check.code}  {str(check.severity):7}  {check.name:28} {check.summary}")
    for rule in sorted(rules, key=lambda r: r.id):
        click.echo(
            f"{rule.id}  {str(rule.severity):7}  {rule.name:28} {rule.summary} "
            f"[{engines_text(rule.engines)}]"
        )
    for problem in problems:
        click.echo(
            f"{problem.file}:{problem.span.line}:{problem.span.column}: "
            f"{problem.code} {problem.message}",
            err=True,
        )


@main.command()
@click.argument("codes", nargs=-1)
@click.option("--all", "everything", is_flag=True, help="Every check and rule.")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json", "markdown"]),
    default="text",
    show_default=True,
    help="json: a list of objects; markdown: docs/rules.md (with --all, the whole file).",
)
@click.option("--rules-dir", "rules_dirs", multiple=True, type=EXISTING_FOLDER)
def explain(
    codes: tuple[str, ...], everything: bool, output_format: str, rules_dirs: tuple[str, ...]
) -> None:
    """Explain rules by code or name: what they check, their parameters and fixes."""
    from . import ruledoc
    from .diagnostics import INPUT_CHECKS
    from .units import format_quantity

    if not codes and not everything:
        raise click.UsageError("name a code or rule (or give --all)")
    rules, _ = _load_rules(rules_dirs)
    if output_format != "text":
        docs = ruledoc.all_docs(rules)
        if not everything:
            wanted = {code.upper() for code in codes}
            unknown = wanted - {d.code.upper() for d in docs} - {d.name.upper() for d in docs}
            for code in sorted(unknown):
                click.echo(f"hbmlint: no rule or check called '{code}'", err=True)
            docs = [d for d in docs if d.code.upper() in wanted or d.name.upper() in wanted]
        if output_format == "json":
            import json

            click.echo(json.dumps([d.as_dict() for d in docs], indent=2))
        elif everything:
            click.echo(ruledoc.rules_markdown(docs), nl=False)
        else:
            click.echo("\n".join(d.markdown_section() for d in docs), nl=False)
        sys.exit(EXIT_ERROR if not everything and unknown else EXIT_OK)
    if everything:
        codes = tuple(d.code for d in ruledoc.all_docs(rules))
    by_key = {r.id.upper(): r for r in rules} | {r.name.upper(): r for r in rules}
    checks = {c.code: c for c in INPUT_CHECKS.values()} | {
        c.name.upper(): c for c in INPUT_CHECKS.values()
    }
    status = EXIT_OK
    for code in codes:
        key = code.upper()
        if key in by_key:
            rule = by_key[key]
            click.echo(f"{rule.id} {rule.name} ({rule.severity})\n\n{rule.summary}\n")
            if rule.description:
                click.echo(" ".join(rule.description.split()) + "\n")
            if rule.when:
                click.echo(f"Runs when:  {rule.when}")
            click.echo(f"Passes when: {rule.check}")
            click.echo(f"Points at:  {rule.at}")
            for name, value in rule.params.items():
                click.echo(f"Parameter:  {name} = {format_quantity(value)}")
            if rule.fixes:
                click.echo("Fixes it suggests (numbers computed per deployment):")
                for fix in rule.fixes:
                    click.echo(f"  - {' '.join(fix.text.split())}")
            click.echo(f"Defined in: {rule.file}\n")
        elif key in checks:
            check = checks[key]
            click.echo(f"{check.code} {check.name} ({check.severity})\n\n{check.summary}\n")
        else:
            click.echo(
                f"hbmlint: no rule or check called '{code}'; `hbmlint rules` lists them", err=True
            )
            status = EXIT_ERROR
    sys.exit(status)


@main.command()
def gpus() -> None:
    """List the GPU catalog: memory as the device reports it, FP8 support."""
    from . import catalog
    from .units import format_bytes

    for name in catalog.gpu_names():
        info = catalog.find_gpu(name)
        click.echo(f"{name:24} {format_bytes(info.memory):>12}  fp8={'yes' if info.fp8 else 'no'}")


@main.group(invoke_without_command=True)
@click.pass_context
def models(ctx: click.Context) -> None:
    """List the models hbmlint can budget and where each one's figures come from: the
    repository's lock directory (.hbmlint/models/), the catalog, the local Hugging Face cache.
    Any other Hub model is read from the Hub when a manifest names it."""
    if ctx.invoked_subcommand is not None:
        return
    from . import models as models_listing

    for model_id, source in models_listing.rows():
        click.echo(f"{model_id:48} {source}")


@models.command(name="pull")
@click.argument("targets", nargs=-1, required=True)
@click.option(
    "--dir",
    "folder",
    type=FOLDER_PATH,
    help="Lock directory to write (default: the nearest .hbmlint/models/, else "
    ".hbmlint/models/ at the repository root).",
)
def models_pull(targets: tuple[str, ...], folder: str | None) -> None:
    """Write what hbmlint needs of each model (config.json and a tensor-size summary, a few KB)
    into the lock directory, which later runs read before the Hub: commit it for CI without
    network. TARGETS are model ids, or manifests (files or directories) whose models to pull."""
    from . import models as models_listing

    status = EXIT_OK
    for line, ok in models_pull_lines(targets, folder, models_listing):
        click.echo(line, err=not ok)
        if not ok:
            status = EXIT_FINDINGS
    sys.exit(status)


def models_pull_lines(targets: tuple[str, ...], folder: str | None, listing: Any) -> Any:
    names: list[str] = []
    for target in targets:
        if os.path.exists(target):
            found = listing.models_in(target)
            if not found:
                yield f"{target}: names no model to pull", False
            names += [n for n in found if n not in names]
        elif target not in names:
            names.append(target)
    destination = Path(folder) if folder else listing.default_lock_dir()
    for name in names:
        yield listing.pull(name, destination)


@main.command(name="formats")
@click.argument("paths", nargs=-1, required=True, type=ANY_PATH)
@click.option("--gpu", "default_gpu", help=GPU_HELP)
@click.option("--config", "config_file", type=FILE_PATH, help=CONFIG_HELP)
@click.option("--stdin-filename", metavar="NAME", help=STDIN_FILENAME_HELP)
def formats_command(
    paths: tuple[str, ...],
    default_gpu: str | None = None,
    config_file: str | None = None,
    stdin_filename: str | None = None,
) -> None:
    """Show which format each document was read as, and how each field was read (value and
    line). `-` reads standard input."""
    from . import files
    from .config import format_override
    from .formats import describe, format_named, podspec
    from .lint import discover, shared_objects

    config = _load_config(config_file)
    gpu = default_gpu or config.default_gpu
    status = EXIT_OK
    items = list(_discover(discover, paths, stdin_filename))
    podspec.use_tree_objects(shared_objects(items))  # ConfigMaps in other files of the run
    for path, display in items:
        forced = format_named(format_override(config.formats.items(), config.root, display))
        try:
            text = files.read_stdin_text() if str(path) == "-" else files.read_text(path)
        except files.FileReadError as exc:
            click.echo(f"{display}: cannot read: {exc.reason}", err=True)
            status = EXIT_ERROR
            continue
        click.echo(describe(text, path, display, forced, gpu), nl=False)
    sys.exit(status)


if __name__ == "__main__":
    main()
