"""hbmlint's command line: ``hbmlint PATH...`` lints; ``budget``, ``rules``, ``explain``,
``gpus`` and ``models`` show what it knows. Heavy modules are imported inside the commands
that need them, to keep start-up fast for pre-commit."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import click

from . import __version__

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
GPU_HELP = "GPU type for manifests that name none (a catalog name or alias, e.g. H100)."


class _DefaultToLint(click.Group):
    """``hbmlint PATH`` means ``hbmlint lint PATH``."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args or (
            args[0] not in self.commands and args[0] not in ("--help", "-h", "--version")
        ):
            args = ["lint", *args]
        return super().parse_args(ctx, args)


@click.group(cls=_DefaultToLint, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hbmlint")
def main() -> None:
    """Lint LLM serving manifests for their GPU memory (HBM) budget.

    Run `hbmlint PATH...` to lint files and directories (the same as `hbmlint lint PATH...`).
    """


def _load_rules(rules_dirs: tuple[str, ...]) -> tuple[list, list]:
    from .rules import builtin_rule_files, load_rules

    paths = builtin_rule_files()
    for directory in rules_dirs:
        paths += sorted(p for p in Path(directory).iterdir() if p.suffix in (".yaml", ".yml"))
    return load_rules(paths)


def _lint(
    paths: tuple[str, ...], rules_dirs: tuple[str, ...], default_gpu: str | None = None
) -> tuple[list, list, bool]:
    """Lint every file; an unexpected error in one file is reported on that file and the
    others are still linted. Returns (results, all diagnostics, internal error seen)."""
    from .diagnostics import input_diagnostic
    from .lint import FileResult, LintOptions, discover, lint_file

    rules, rule_findings = _load_rules(rules_dirs)
    options = LintOptions(default_gpu=default_gpu)
    results, internal = [], False
    for path, display in discover(paths or (".",)):
        try:
            results.append(lint_file(path, display, rules, options))
        except Exception as exc:  # a bug of ours: say so, keep going, exit 2
            internal = True
            detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
            finding = input_diagnostic(
                "HBM000", f"hbmlint failed on this file ({detail}); please report it", display
            )
            results.append(FileResult(path, display, diagnostics=[finding], is_manifest=True))
    diagnostics = list(rule_findings)
    for result in results:
        diagnostics.extend(result.diagnostics)
    return results, diagnostics, internal


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info"]),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code 1.",
)
@click.option(
    "--rules-dir",
    "rules_dirs",
    multiple=True,
    type=click.Path(file_okay=False, exists=True),
    help="A directory of your own rule files (repeatable).",
)
@click.option("--gpu", "default_gpu", help=GPU_HELP)
def lint(
    paths: tuple[str, ...],
    output_format: str,
    fail_on: str,
    rules_dirs: tuple[str, ...],
    default_gpu: str | None,
) -> None:
    """Lint manifests: files, or directories searched for YAML files."""
    from .diagnostics import Severity
    from .reporters import json as json_reporter
    from .reporters import text as text_reporter

    results, diagnostics, internal = _lint(paths, rules_dirs, default_gpu)
    files = sum(1 for r in results if r.is_manifest or r.diagnostics)
    deployments = sum(len(r.deployments) for r in results)
    if output_format == "json":
        click.echo(json_reporter.render(diagnostics), nl=False)
    else:
        click.echo(text_reporter.render(diagnostics, files, deployments), nl=False)
    threshold = Severity.parse(fail_on)
    if internal:
        sys.exit(EXIT_ERROR)
    sys.exit(EXIT_FINDINGS if any(d.severity >= threshold for d in diagnostics) else EXIT_OK)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path())
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
)
@click.option("--gpu", "default_gpu", help=GPU_HELP)
def budget(paths: tuple[str, ...], output_format: str, default_gpu: str | None) -> None:
    """Show where every GiB of each GPU goes, per deployment."""
    from .reporters import budget as budget_reporter

    results, diagnostics, internal = _lint(paths, (), default_gpu)
    results = [r for r in results if r.deployments or r.diagnostics]
    if output_format == "json":
        click.echo(budget_reporter.render_json(results), nl=False)
    else:
        click.echo(budget_reporter.render_text(results), nl=False)
    failed = any(item.budget is None for r in results for item in r.deployments) or any(
        budget_reporter.file_error(r) for r in results
    )
    sys.exit(EXIT_ERROR if internal else EXIT_FINDINGS if failed else EXIT_OK)


@main.command(name="rules")
@click.option(
    "--rules-dir", "rules_dirs", multiple=True, type=click.Path(file_okay=False, exists=True)
)
def list_rules(rules_dirs: tuple[str, ...]) -> None:
    """List every check and rule with its code, severity and summary."""
    from .diagnostics import INPUT_CHECKS

    rules, problems = _load_rules(rules_dirs)
    for check in INPUT_CHECKS.values():
        click.echo(f"{check.code}  {str(check.severity):7}  {check.name:28} {check.summary}")
    for rule in sorted(rules, key=lambda r: r.id):
        click.echo(f"{rule.id}  {str(rule.severity):7}  {rule.name:28} {rule.summary}")
    for problem in problems:
        click.echo(
            f"{problem.file}:{problem.span.line}:{problem.span.column}: "
            f"{problem.code} {problem.message}",
            err=True,
        )


@main.command()
@click.argument("codes", nargs=-1, required=True)
def explain(codes: tuple[str, ...]) -> None:
    """Explain rules by code or name: what they check, their parameters and fixes."""
    from .diagnostics import INPUT_CHECKS
    from .units import format_quantity

    rules, _ = _load_rules(())
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


@main.command()
def models() -> None:
    """List the model catalog."""
    from . import catalog

    for model_id in catalog.model_ids():
        click.echo(model_id)


if __name__ == "__main__":
    main()
