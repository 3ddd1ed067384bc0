"""The pipeline, stage by stage: discover files -> load YAML with positions -> recognise the
format -> Deployments -> resolve against the catalogs -> Budget -> rules -> Diagnostics.

Each file is linted alone: whatever goes wrong in one file becomes a finding in that file and
the others are still linted.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import field, replace
from functools import cached_property
from pathlib import Path
from typing import Any

from . import budget as budget_stage
from . import catalog, files, shared_gpu
from .diagnostics import Diagnostic, Fix, Severity, input_diagnostic
from .engines.args import FORWARDED_FLAGS
from .expressions import ExpressionError
from .formats import (
    SCRIPT_SUFFIXES,
    code_file,
    detect_format,
    field_value,
    format_named,
    may_embed_values,
    mentions_engine,
    read_as,
    render_first,
    script_reader,
    unread_file,
)
from .lazyre import LazyPattern
from .records import dataclass
from .resolve import ResolveOptions, resolve
from .results import DeploymentResult, FileResult
from .rules import Rule, evaluate_rule, evaluate_rules, forget_scope
from .spec import Deployment, GpuSpec, ParallelSpec, ServingSpec
from .units import in_bytes
from .yamlsrc import YamlDocument, load_documents, load_documents_without_positions

YAML_SUFFIXES = (".yaml", ".yml")
# what a directory walk lints: manifests, and launch scripts (one that starts no engine has
# nothing to report)
SEARCHED_SUFFIXES = YAML_SUFFIXES + SCRIPT_SUFFIXES + (".service",)  # systemd units too
STDIN = "-"
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", ".venv", "venv", "__pycache__", ".tox"}
# Larger files are refused with a finding rather than read (see docs: hostile input).
MAX_FILE_BYTES = files.MAX_FILE_BYTES


@dataclass(frozen=True)
class LintOptions:
    """Settings from the command line or configuration that change how files are read."""

    default_gpu: str | None = None  # for manifests that name no GPU (--gpu)
    # rule id -> parameter values from the configuration, overriding the rule's own
    rule_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the configuration's `formats`: (glob, format name) pairs, with the directory they are
    # relative to; a matching file is read as that format whatever detection says
    format_overrides: tuple[tuple[str, str], ...] = ()
    config_root: Path | None = None
    # the configuration's `model-paths`: (a model path as manifests write it, the model id)
    model_paths: tuple[tuple[str, str], ...] = ()
    # Keep each deployment's budget and field locations after its rules ran? The budget views
    # and the job summary need them; a plain lint of thousands of files should not hold them.
    keep_budgets: bool = True
    # --set KEY=VALUE (overrides.Override), applied to each Deployment before resolve
    overrides: tuple[Any, ...] = ()

    @cached_property
    def resolve_options(self) -> ResolveOptions:
        """What resolve reads of these settings: made once a run, not once a deployment."""
        return ResolveOptions(default_gpu=self.default_gpu, model_paths=self.model_paths)


def discover(paths: Iterable[str]) -> Iterator[tuple[Path, str]]:
    """YAML files and shell scripts under ``paths`` in a stable order, as (path, display name).

    Files named explicitly are linted whatever their suffix; directories are searched for
    .yaml/.yml files, .sh/.bash launch scripts and systemd .service units, skipping VCS and
    virtualenv folders, without
    following symlinked directories (no loops)."""
    for raw in paths:
        if raw == STDIN:  # standard input: `helm template ... | hbmlint -`
            yield Path(STDIN), "<stdin>"
            continue
        path = Path(raw)
        # os.path.isdir, not Path.is_dir: before Python 3.14 Path.is_dir raises PermissionError
        # for a path inside a folder the user may not search (`locked/x.yaml`), which ended the
        # run as an internal error; a path that cannot be examined is read as a file, and the
        # reader reports why it cannot be (HBM001)
        if os.path.isdir(raw):
            # a folder that cannot be listed is reported (HBM001 where reading it fails), not
            # skipped: its manifests would pass in silence
            unlisted: list[OSError] = []
            for root, dirs, names in os.walk(path, followlinks=False, onerror=unlisted.append):
                yield from _unlisted(unlisted)
                dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
                folder = Path(root)
                # a folder below the working directory names its files by its own relative
                # path plus theirs (one relpath a folder, not one a file)
                below = _relative_below_cwd(root)
                for name in sorted(names):
                    if name.endswith(SEARCHED_SUFFIXES):
                        child = folder / name
                        if below is None:  # nor is any file in it: named as found
                            yield child, str(child)
                            continue
                        shown = name if below == "." else os.path.join(below, name)
                        # "..x.yaml" in the working directory reads as a parent's path
                        yield child, _display(child) if shown.startswith("..") else shown
            yield from _unlisted(unlisted)
        else:
            yield path, _display(path)


def _unlisted(errors: list[OSError]) -> Iterator[tuple[Path, str]]:
    while errors:
        folder = Path(errors.pop(0).filename)
        yield folder, _display(folder)


def _relative_below_cwd(path: str | Path) -> str | None:
    """``path`` relative to the working directory, None where it is not below it; symlinks are
    not resolved (a symlink loop must still get a name)."""
    relative = os.path.relpath(os.path.abspath(path))
    return None if relative.startswith("..") else relative


def _display(path: Path) -> str:
    """The path relative to the working directory where it is below it, else as given."""
    relative = _relative_below_cwd(path)
    return str(path) if relative is None else relative


def lint_file(
    path: Path, display: str, rules: list[Rule], options: LintOptions | None = None
) -> FileResult:
    """Every finding and budget of one file."""
    options = options or LintOptions()
    result = FileResult(path, display)
    text = _read_ahead.pop(str(path), None) if _read_ahead else None
    if text is not None:  # read a moment ago by this run's shared_objects
        return _lint_text(text, result, rules, options)
    try:
        if str(path) == STDIN:
            text = files.read_stdin_text(MAX_FILE_BYTES)
        else:
            text = files.read_text(path, MAX_FILE_BYTES)
    except files.FileReadError as exc:
        reason = exc.reason
        if reason.startswith("file is "):
            reason = reason.replace(" limit;", " limit for a manifest;")
        result.diagnostics.append(input_diagnostic("HBM001", reason, display))
        return result
    return _lint_text(text, result, rules, options)


def _lint_text(
    text: str, result: FileResult, rules: list[Rule], options: LintOptions
) -> FileResult:
    path, display = result.path, result.display
    forced = _forced_format(display, options)
    script = script_reader(display, text, forced)
    # a shell script is never parsed as YAML: its text is not YAML, and never meant to be; nor
    # is a file of code or prose named on the command line (a Modal app in Python, a README):
    # an engine it starts is an info (unread_file), never a YAML syntax error
    code = forced is None and not script and code_file(display)
    if code == "prose":
        return result  # a README's commands and suppression comments are examples
    documents, error = ([], None) if script or code else load_documents(text)
    if documents and ("ConfigMap" in text or "Secret" in text):
        # the ConfigMaps and Secrets a container reads from this file, from the documents just
        # read (before any reader or overlay touches them): the pod-spec reader would parse the
        # whole file again for them
        from .formats.podspec import file_objects

        file_objects(text, documents)
    if "hbmlint:" in text or "hbmlint.io" in text or "\\" in text:  # a directive, an annotation
        # (or one spelled in escapes): suppressions.py reads them
        from .suppressions import scan as scan_suppressions

        found = scan_suppressions(text, documents, display)
        result.suppressions, result.suppression_problems = found
    # Broken YAML is reported only where it seems to be a manifest of ours: repositories hold
    # many YAML-like files (Helm templates with {{ }}) that are not ours to judge. A template
    # that runs an engine is reported once, as "render first".
    if error is not None and (
        forced is not None
        or (
            (
                _looks_like_manifest(text)
                # UTF-16 without a byte-order mark reads as UTF-8 with a NUL after each ASCII
                # letter
                or ("\0" in text and _looks_like_manifest(text.replace("\0", "")))
            )
            and not _only_kinds_that_run_no_engine(text)
        )
    ):
        result.is_manifest = True
        found = render_first(text, display, error.span)
        if found is not None and path is not None and "templates" in str(path):
            found = _once_a_chart(found, path)
        result.diagnostics.append(
            found or input_diagnostic("HBM002", error.message, display, error.span)
        )
    if "Kustomization" in text and documents:
        # an overlay's JSON patches: the objects they change, as the overlay builds them
        from .formats.kustomize import built_documents

        overlay, findings = built_documents(documents, path, display)
        documents = documents + overlay
        result.diagnostics.extend(findings)
        result.is_manifest |= bool(findings)
    if documents and may_embed_values(text):
        # chart values an Argo CD Application, a kustomization or a helmfile holds where the
        # chart readers do not look (a `helm.values: |` string), each read in place
        from .formats.embedded_values import embedded_documents

        documents = documents + embedded_documents(documents, text)
    checked_elsewhere = False  # a document another file's deployment reads (a KServe runtime)
    # the models the file downloads into directories (an init container's `hf download`)
    downloads = _downloads(text) if "download" in text else None
    if script is not None:
        deployments, findings = script.to_script_deployments(text, path, display)
        result.diagnostics.extend(findings)
        result.is_manifest = bool(deployments or findings)
        for deployment in deployments:
            if downloads:
                _note_downloads(deployment, downloads)
            # no fix edits: fixes write YAML; a script's findings keep the rules' words
            _lint_read(deployment, script.NAME, rules, result, options)
            _done(deployment, options)
    for document in documents:
        module = detect_format(document.data)
        if forced is not None and document.data is not None:
            if not read_as(forced, document.data):
                result.is_manifest = True
                result.diagnostics.append(_not_the_forced_format(forced, display, document))
                continue
            module = forced
        if module is None:
            continue  # YAML that is not a manifest hbmlint knows: skipped silently
        result.is_manifest = True
        # from the module's namespace: getattr's default on a module it lacks costs an
        # AttributeError made and dropped (~7k instructions a document on Python 3.11)
        read_elsewhere = vars(module).get("read_elsewhere")
        checked_elsewhere |= bool(read_elsewhere and read_elsewhere(document.data))
        first = len(result.diagnostics)
        deployments, findings = module.to_deployments(document, path, display)
        result.diagnostics.extend(findings)
        for position, deployment in enumerate(deployments):
            if downloads:
                _note_downloads(deployment, downloads)
            _lint_read(deployment, module.NAME, rules, result, options)
            if (
                not options.overrides
                and not getattr(document, "overlay", "")  # its values sit in several files
                and _has_edits(result.diagnostics[first:])
            ):
                # fixes for a what-if would not describe the file; fixes.py (and the rewriters
                # it uses) is loaded only for a file with a fix to write
                from .fixes import FixContext
                from .fixes import complete as complete_fixes

                context = FixContext(
                    text,
                    document,
                    _rereader(text, module, path, display, document),
                    position,
                    deployment,
                    # an edit of one scalar is read from data only where the whole text
                    # loaded: otherwise the edited text does not load either
                    None if error is not None else _data_reader(module, path, display, document),
                )
                complete_fixes(result.diagnostics[first:], deployment, context)
            _done(deployment, options)
    if any(item.deployment.placement is not None for item in result.deployments):
        # engines of one file on one GPU (compose services), with the budgets' fractions
        deployments = [item.deployment for item in result.deployments]
        result.diagnostics.extend(shared_gpu.findings(deployments, display))
        for deployment in deployments:
            deployment.placement = None
    if (
        error is None
        and not result.deployments
        and not result.diagnostics
        and not checked_elsewhere
    ):
        # nothing read and nothing said: a file that runs an engine must not pass in silence
        unread = unread_file(text, documents, display)
        if unread is not None:
            result.is_manifest = True
            result.diagnostics.append(unread)
    result.diagnostics = _unique(result.diagnostics)
    if "#" in text and any(f.code == "HBM005" for f in result.diagnostics):
        result.diagnostics = _with_gpu_from_comments(result.diagnostics, text)
    if (
        _overlays_in_run
        and path is not None
        and any(
            f.code in ("HBM005", "HBM006") or f.severity == Severity.ERROR
            for f in result.diagnostics
        )
    ):
        result.diagnostics = _unless_an_overlay_builds_it(result.diagnostics, path)
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


def _unless_an_overlay_builds_it(findings: list[Diagnostic], path: Any) -> list[Diagnostic]:
    """The findings of a kustomize base that an overlay of the run builds on, with patches or
    generated values of its own: the base is not deployed alone (the overlay chooses the GPU,
    and is checked as it builds it), so its missing GPU is a note; where the overlay writes
    the values the base's workloads read (a ConfigMap it patches or generates), what the base
    refuses with its own values is a warning, the overlay's build says what it makes of them."""
    if str(path) == STDIN:
        return findings
    from .formats.kustomize import overlay_building

    overlay = overlay_building(path)
    if overlay is None:
        return findings
    where = overlay.get("overlay", "")
    shown = os.path.relpath(where) if os.path.isabs(where) else where
    kept = []
    for f in findings:
        if f.code in ("HBM005", "HBM006"):  # the GPU, the model: what an overlay chooses
            chooses = ", with the GPU it selects" if f.code == "HBM005" else ""
            f = replace(
                f,
                severity=Severity.INFO,
                message=(
                    f"{f.message}. This file is a kustomize base that the overlay {shown} builds "
                    f"on: that overlay is checked as it builds it{chooses}"
                ),
            )
        elif f.severity == Severity.ERROR and overlay.get("values"):
            f = replace(
                f,
                severity=Severity.WARNING,
                message=(
                    f"{f.message} (with this base's own values; the overlay {shown} builds on "
                    "it with values of its own, and is checked as it builds it)"
                ),
            )
        kept.append(f)
    return kept


def _with_gpu_from_comments(findings: list[Diagnostic], text: str) -> list[Diagnostic]:
    """HBM005 (no GPU type) where a comment of the file names a GPU of the catalog ("# vLLM on
    2x RTX 3090"): home-lab files record the hardware so. A comment is prose, not a setting the
    engine sees, so the budget does not take it; the finding names it, with the --gpu to pass."""
    named = _gpu_in_comments(text)
    where = "the comment"
    if named is None:
        named = _gpu_in_rocm_tag(text)
        where = "the ROCm image tag"
    if named is None:
        return findings
    line, written, gpu = named
    fix = f"Run with --gpu {gpu}, the GPU {where} at line {line} names ('{written}')"
    return [
        replace(
            f,
            message=f"{f.message} ({where} at line {line} names {gpu}: '{written}')",
            fixes=[fix, *f.fixes],
        )
        if f.code == "HBM005"
        else f
        for f in findings
    ]


_COMMENT_WORD = LazyPattern(r"[A-Za-z0-9][A-Za-z0-9+.]*")
# a whole run of non-space characters with a slash in it; the look-behind starts a match only
# where a run starts: without it a 300,000-character comment with no slash was tried from every
# one of its characters to the end of the line (quadratic: a lint that took minutes)
_PATH_WORD = LazyPattern(r"(?<!\S)\S*[/\\]\S*")


def _gpu_in_comments(text: str) -> tuple[int, str, str] | None:
    """(line, the words as written, the catalog GPU) of the first GPU a full-line comment names:
    the longest run of up to four words, at the earliest place, that the catalog knows (a name
    or an alias, as a node label would give it); a word with no letter (a port, a year) is
    none."""
    from .catalog import find_gpu
    from .catalog.labels import instance_types

    shapes = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if not stripped.startswith("#") or stripped.startswith(("#!", "# hbmlint:")):
            continue
        if stripped.startswith(("#SBATCH", "#PBS")):
            # a batch directive, not prose: the Slurm reader reads its GPU type, and says what
            # a type it cannot take means (h100-47 is a 47 GB slice: not an 80 GB H100)
            continue
        # a path or an address (`# source: github.com/org/vllm-rtx3090 run.sh`) is a name, not
        # prose about the hardware
        prose = _PATH_WORD.sub(" ", stripped)
        words = [m.group() for m in _COMMENT_WORD.finditer(prose)]
        for i in range(len(words)):
            for n in (4, 3, 2, 1):
                run = words[i : i + n]
                if len(run) < n or not any(c.isalpha() for c in run[0] + run[-1]):
                    continue
                if n >= 3:
                    # a cloud machine type (`a2-ultragpu-1g`: A100 80GB), not the NVIDIA A2
                    shapes = shapes if shapes is not None else instance_types()
                    shape = shapes.get("-".join(run).lower())
                    if shape is not None:
                        return number, "-".join(run), str(shape["gpu"])
                gpu = find_gpu("-".join(run))
                if gpu is not None:
                    return number, " ".join(run), gpu.name
    return None


# AMD's ROCm engine images name the Instinct GPU they are built for in the tag
# (rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4, rocm/sgl-dev:..-mi30x, ..._mi35x):
# a hint for the HBM005 finding, never a setting the budget takes
_ROCM_TAG_GPU = LazyPattern(
    r"rocm/[\w.-]+:[\w.-]*?[_-](mi300x?|mi30x|mi325x?|mi35[05]x?|mi35x)(?![a-z0-9])", re.I
)
_ROCM_TAG_NAMES = {"mi300": "MI300X", "mi300x": "MI300X", "mi30x": "MI300X", "mi325": "MI325X"}


def _gpu_in_rocm_tag(text: str) -> tuple[int, str, str] | None:
    """(line, the tag's word, the catalog GPU) of the first ROCm image whose tag names an
    Instinct GPU; the MI350 series is named by its larger part (the MI355X)."""
    from .catalog import find_gpu

    found = _ROCM_TAG_GPU.search(text)
    if found is None:
        return None
    word = found.group(1)
    name = _ROCM_TAG_NAMES.get(word.lower(), "MI355X" if word.lower().startswith("mi35") else word)
    gpu = find_gpu(name)
    if gpu is None:
        return None
    return text.count("\n", 0, found.start()) + 1, word, gpu.name


def _downloads(text: str) -> list[Any]:
    from .downloads import downloads_in

    return downloads_in(text)


def _note_downloads(deployment: Deployment, downloads: list[Any]) -> None:
    """Label the directories the deployment serves that the file downloads a model into."""
    from .downloads import labels_for

    drafter = deployment.speculative.model
    names = [deployment.model.name, drafter.name if drafter is not None else None]
    deployment.hints = [*deployment.hints, *labels_for(names, downloads)]


def _lint_read(
    deployment: Deployment,
    source_format: str,
    rules: list[Rule],
    result: FileResult,
    options: LintOptions,
) -> None:
    """A deployment a reader built: the command line's --set overrides, then the rules."""
    deployment.source_format = source_format
    if options.overrides:
        from .overrides import apply

        apply(deployment, options.overrides)
    result.deployments.append(_lint_deployment(deployment, rules, result.diagnostics, options))


def _done(deployment: Deployment, options: LintOptions) -> None:
    """The rules and fixes are done with ``deployment``: its writer does not cross processes,
    and a plain lint keeps only what the report reads."""
    deployment.writer = None
    if not options.keep_budgets:
        _thin(deployment)


# What a thinned deployment points at in place of its settings: shared, never written to.
_NO_GPU, _NO_PARALLEL, _NO_SERVING = GpuSpec(), ParallelSpec(), ServingSpec()


def _thin(deployment: Deployment) -> None:
    """Drop what no report of a plain lint reads once the rules and fixes are done (a run
    over 50,000 files keeps every result until the report): the settings and where they
    are written. Kept: the names, the engine and the models (the command line must not
    overwrite a model's configuration file with --output)."""
    deployment.gpu, deployment.parallel, deployment.serving = _NO_GPU, _NO_PARALLEL, _NO_SERVING
    deployment.workload = None
    deployment.locations = {}
    for name in ("hints", "assumed", "unread"):
        if getattr(deployment, name):
            setattr(deployment, name, type(getattr(deployment, name))())


def _has_edits(findings: list[Diagnostic]) -> bool:
    """Whether fixes.complete has anything to do: a finding whose fixes change a setting, or a
    removed flag to migrate (HBM010)."""
    return any(
        finding.code == "HBM010" or any(getattr(fix, "changes", None) for fix in finding.fixes)
        for finding in findings
    )


def _rereader(text: str, module: Any, path: Path, display: str, document: Any) -> Any:
    """Reads an edited text back as the same format: the deployments of the same document,
    or None where it no longer reads as one (what fixes.py checks every edit with)."""

    def reread(edited: str) -> list[Deployment] | None:
        documents = load_documents_without_positions(edited)
        if documents is None or len(documents) <= document.index:
            return None
        return _read_back(module, documents[document.index], path, display)

    return reread


def _data_reader(module: Any, path: Path, display: str, document: Any) -> Any:
    """Reads an edited document back from its data, which fixes.py builds from ``document``'s
    where an edit changes one scalar (the other documents are then as they were): the same
    reading as ``_rereader``'s, without composing the edited text again."""

    def read(edited: str, data: Any) -> list[Deployment] | None:
        edited_document = YamlDocument(data=data, index=document.index, text=edited)
        return _read_back(module, edited_document, path, display)

    return read


def _read_back(module: Any, document: Any, path: Path, display: str) -> list[Deployment] | None:
    try:
        deployments, _ = module.to_deployments(document, path, display)
    except Exception:  # an edit that breaks the reader is not an edit we offer
        return None
    return deployments


def _unique(findings: list[Diagnostic]) -> list[Diagnostic]:
    """Each finding once per place: two deployments of one document (an LWS leader and its
    workers, a prefill and a decode pool, containers sharing a model) that trip on the same
    field report it once, not once each."""
    seen: set[tuple] = set()
    unique = []
    for finding in findings:
        key = (finding.code, finding.file, finding.span.line, finding.span.column, finding.message)
        if key not in seen:
            seen.add(key)
            unique.append(finding)
    return unique


def _forced_format(display: str, options: LintOptions) -> Any:
    """The format module the configuration maps this file to, or None."""
    if not options.format_overrides:
        return None
    from .config import format_override

    return format_named(format_override(options.format_overrides, options.config_root, display))


def _not_the_forced_format(module: Any, display: str, document: Any) -> Diagnostic:
    return input_diagnostic(
        "HBM003",
        f"the configuration's `formats` maps this file to the {module.NAME} format, but this "
        f"document is not a {module.NAME} manifest",
        display,
        document.span(()),
    )


def _once_a_chart(found: Diagnostic, path: Any) -> Diagnostic:
    """A chart's "render first" is said once, as a warning at its first template that runs an
    engine (the vendored vllm-stack chart spells the engine in three): the others say it as
    a note that names that one."""
    try:
        here = Path(path).resolve()
        templates = next(p for p in here.parents if p.name == "templates")
        if not (templates.parent / "Chart.yaml").is_file():
            return found
        candidates = sorted(
            p for p in templates.rglob("*") if p.suffix in (".yaml", ".yml", ".tpl") and p.is_file()
        )
    except (OSError, StopIteration, ValueError):
        return found
    for other in candidates:
        if other == here:
            return found
        try:
            text = other.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if "{{" not in text or not _looks_like_manifest(text):
            continue
        if _only_kinds_that_run_no_engine(text):
            continue
        _, error = load_documents(text)  # the other template gets the warning only if broken
        if error is not None and render_first(text, str(other), error.span) is not None:
            shown = other.relative_to(templates.parent)
            return replace(
                found,
                severity=Severity.INFO,
                message=f"{found.message} (said as a warning once for the chart, at {shown})",
            )
    return found


_KIND_LINE = LazyPattern(r"^kind:[ \t]*[\"']?([A-Za-z][A-Za-z0-9]*)", flags=re.MULTILINE)


def _only_kinds_that_run_no_engine(text: str) -> bool:
    """Whether every object a template writes is of a kind that runs no engine (an Ingress that
    names TGI in an annotation): there is nothing to render first for."""
    from .formats import NO_ENGINE_KINDS

    kinds = _KIND_LINE.findall(text)
    return bool(kinds) and all(kind in NO_ENGINE_KINDS for kind in kinds)


def _looks_like_manifest(text: str) -> bool:
    return "hbmlint/" in text or "ServingManifest" in text or mentions_engine(text)


def _lint_deployment(
    deployment: Deployment, rules: list[Rule], findings: list[Diagnostic], options: LintOptions
) -> DeploymentResult:
    resolved, problems = resolve(
        deployment,
        options=options.resolve_options,
    )
    findings.extend(problems)
    if resolved is None:
        first_error = next((p.message for p in problems), "could not be resolved")
        # only the GPU type unknown (the GPU count may be off too: said already)
        if any(p.code == "HBM005" for p in problems) and all(
            p.code in ("HBM005", "HBM007") for p in problems
        ):
            _gpu_free_rules(deployment, rules, findings, options)
        if deployment.placement is not None:
            shared_gpu.settle(deployment.placement, deployment, None)
        return DeploymentResult(deployment, error=first_error)
    # the budget's notes (what it assumed) are for the budget reports alone
    budget = budget_stage.build(resolved, notes=options.keep_budgets)
    if deployment.placement is not None:
        shared_gpu.settle(deployment.placement, deployment, budget)
    tradeoff = _tradeoff_params(rules, options)
    # the rules that do not hold, in order (almost every rule holds)
    for rule, finding in evaluate_rules(rules, budget, options.rule_params, tradeoff):
        if isinstance(finding, ExpressionError):
            findings.append(
                input_diagnostic(
                    "HBM009",
                    f"rule {rule.id} failed on {deployment.name}: {finding}",
                    rule.file,
                    rule.span("check"),
                )
            )
        else:
            finding = _unless_the_larger_part_fits(finding, rule, resolved, options)
            split = _unless_the_kv_is_split(finding, rule, budget)
            if split is not None and not _kv_bytes_unread(rule, deployment):
                split = _unless_the_layout_is_guessed(split, rule, budget)
                split = _unless_a_local_config_extends_it(split, rule, budget)
                kept = _unless_a_setting_is_unread(split, rule, deployment)
                if kept is not None:
                    findings.append(kept)
    # The rules' scope (names, what-if budgets) is done with: a run over thousands of files
    # would otherwise hold every one of them until the report is written.
    forget_scope(budget)
    if not options.keep_budgets:
        deployment.locations = {}
        return DeploymentResult(deployment)
    return DeploymentResult(deployment, budget=budget)


# The built-in rules whose every expression and text read nothing a GPU decides: not its memory
# nor compute capability, nor a default the engine picks by GPU (max_num_seqs and
# max_num_batched_tokens by memory tier, the dtype "auto" makes on a card without bfloat16,
# TGI's memory-derived limits). They say what the engine refuses on any GPU (a TP size that
# does not divide the heads, a max_model_len above the model's), so they run where the
# manifest names no GPU too (tests/test_gpu_free_rules.py holds the list to that).
GPU_FREE_RULES = frozenset(
    ("HBM206", "HBM301", "HBM302", "HBM303", "HBM310", "HBM311", "HBM314")
    + ("HBM316", "HBM320", "HBM324", "HBM325", "HBM329", "HBM330", "HBM331")
)
# Rules that read only the GPU's vendor (a checkpoint format vLLM refuses the flag for on NVIDIA
# and AMD alike, not where ipex takes over on CPU and XPU): the stand-in card is the vendor's
# the manifest says (amd.com/gpu, a ROCm image), else NVIDIA's.
GPU_VENDOR_RULES = frozenset(("HBM309",))
# Weights that exceed the largest card of the vendor exceed every card of it: HBM101 on that
# card is a refusal whatever GPU the pod lands on (kcns008/llm-on-k8s: a 1T-parameter model at
# TP 1 with no GPU type named).
_WEIGHTS_RULE = "HBM101"
# rule list (by identity) -> its rules for a deployment with no GPU type, the same list object
# each time (evaluate_rules keeps what it works out per list)
_GPU_FREE: dict[int, tuple[list[Rule], list[Rule]]] = {}
_LARGEST_GPU: dict[str, str] = {}


def _largest_gpu(vendor: str) -> str:
    """The name of the vendor's catalog GPU with the most memory."""
    name = _LARGEST_GPU.get(vendor)
    if name is None:
        cards = [catalog.find_gpu(n) for n in catalog.gpu_names()]
        ours = (g for g in cards if g is not None and g.vendor == vendor)
        name = _LARGEST_GPU[vendor] = max(ours, key=lambda g: g.memory).name
    return name


def _gpu_free_rules(
    deployment: Deployment, rules: list[Rule], findings: list[Diagnostic], options: LintOptions
) -> None:
    """The rules that hold on any GPU (GPU_FREE_RULES, GPU_VENDOR_RULES) on a deployment that
    names no GPU type, budgeted on the largest card of its vendor; and HBM101 there, which
    refuses on every smaller card too. The stand-in's other findings are not reported."""
    kept = _GPU_FREE.get(id(rules))
    if kept is None or kept[0] is not rules:
        wanted = GPU_FREE_RULES | GPU_VENDOR_RULES | {_WEIGHTS_RULE}
        kept = _GPU_FREE[id(rules)] = (rules, [r for r in rules if r.id in wanted])
    free = kept[1]
    if not free:
        return
    vendor = "amd" if catalog.gpu_from_labels(deployment.gpu.labels).vendor == "amd" else "nvidia"
    largest = _largest_gpu(vendor)
    stand_in = replace(options.resolve_options, default_gpu=largest)
    resolved, _ = resolve(deployment, options=stand_in)
    if resolved is None:
        return
    budget = budget_stage.build(resolved, notes=False)
    for rule, finding in evaluate_rules(free, budget, options.rule_params, None):
        if isinstance(finding, ExpressionError):
            continue
        if rule.id == _WEIGHTS_RULE:
            finding = _unless_the_layout_is_guessed(_on_any_gpu(finding, largest), rule, budget)
        finding = _unless_a_local_config_extends_it(finding, rule, budget)
        kept = _unless_a_setting_is_unread(finding, rule, deployment)
        if kept is not None:
            findings.append(kept)
    forget_scope(budget)


def _on_any_gpu(finding: Diagnostic, largest: str) -> Diagnostic:
    """HBM101 on the largest card, said of every card: its fixes (a tensor-parallel size that
    fits the largest card) would not hold on a smaller one."""
    return replace(
        finding,
        message=(
            f"{finding.message}. The manifest names no GPU type, but the {largest} is the "
            "largest GPU hbmlint knows, so the engine refuses on whichever GPU this runs"
        ),
        fixes=[
            Fix(
                "Spread the weights over more GPUs (tensor or pipeline parallelism) or serve a "
                "smaller (quantized) checkpoint; name the GPU type (--gpu, or a node label) "
                "for the tensor-parallel size it takes"
            )
        ],
    )


def _unless_the_larger_part_fits(
    finding: Diagnostic, rule: Rule, resolved: Any, options: LintOptions
) -> Diagnostic:
    """An error on a GPU whose name stands for two memory sizes (a bare "V100": 16 or 32 GB)
    is a promise only when the larger part refuses too; otherwise it is a warning that says
    which part refuses."""
    larger = resolved.gpu_larger_variant
    if finding.severity != Severity.ERROR or larger is None:
        return finding
    other = budget_stage.build(replace(resolved, gpu=larger, gpu_larger_variant=None))
    try:
        again = evaluate_rule(rule, other, options.rule_params.get(rule.id))
    except ExpressionError:
        again = finding
    finally:
        forget_scope(other)
    if again is not None:
        return finding
    return replace(
        finding,
        severity=Severity.WARNING,
        message=(
            f"{finding.message} (on the {resolved.gpu.name}; the GPU's name does not say its "
            f"memory size, and on the {larger.name} this does not refuse: name the part, "
            "for example with a node label or --gpu, to know)"
        ),
    )


# rules whose verdict rests on the budget's figures (memory, KV, drafter), not on one flag
_BUDGET_RULE = ("HBM1", "HBM2")


def _unless_the_layout_is_guessed(finding: Diagnostic, rule: Rule, budget: Any) -> Diagnostic:
    """A budget error on a quantized upload whose layout (which layers stay in 16 bits) is taken
    from its family's other exports, not from its own config.json (catalog/variants.py), or on
    a model taken from a local path's name: the weights rest on that guess, so the refusal is
    a warning that says how to know."""
    if finding.severity != Severity.ERROR or not rule.id.startswith(_BUDGET_RULE):
        return finding
    resolved = budget.resolved
    if resolved.layout_guessed:
        why = (
            "the checkpoint's weights are sized from its name, and which of its layers stay "
            "unquantized is a guess: `hbmlint models pull` reads its config.json"
        )
    elif (
        resolved.model_guessed_from is not None
        and budget.usable.magnitude > 0
        and not _refuses_without_weights(budget)
    ):
        # (with no usable memory at all the engine refuses whatever checkpoint it loads, and
        # so it does where the runtime overhead alone leaves no room)
        # a local directory named after a model may hold any checkpoint of it (the AWQ one a
        # loader job downloaded): the weights rest on which
        why = (
            f"the model is taken from {resolved.model_guessed_from}, which does not say which "
            "of its checkpoints the directory holds; name it with the configuration's "
            "model-paths or the annotation hbmlint.io/model"
        )
    else:
        return finding
    return replace(finding, severity=Severity.WARNING, message=f"{finding.message} ({why})")


# Rules that compare the context asked for with the model's config.json, and how many times
# its own length a context may be where a local copy's config.json is edited: the model cards
# of Qwen2.5 and Qwen3 tell users to add a YaRN rope_scaling of factor 4 to config.json for
# 131,072 tokens (and vLLM then derives 4x max_position_embeddings).
_CONTEXT_RULES = {"HBM303": "max_length", "HBM311": "max_length_sglang"}
_YARN_EDIT_FACTOR = 4


def _unless_a_local_config_extends_it(finding: Diagnostic, rule: Rule, budget: Any) -> Diagnostic:
    """A context longer than the model's config.json allows, on a model read from a local
    directory's name: the directory's config.json may carry the YaRN rope_scaling its model card
    says to add (up to _YARN_EDIT_FACTOR times the length), which hbmlint cannot see; a refusal
    is then a warning that says so. Further than that no documented edit reaches."""
    key = _CONTEXT_RULES.get(rule.id)
    if key is None or finding.severity != Severity.ERROR:
        return finding
    resolved = budget.resolved
    if resolved.model_guessed_from is None:
        return finding
    length = getattr(resolved.target, key, None) or resolved.target.max_length or 0
    asked = budget.settings.max_model_len
    if not length or asked > length * _YARN_EDIT_FACTOR:
        return finding
    why = (
        f"the model is taken from {resolved.model_guessed_from}; a local copy's config.json may "
        f"add the rope_scaling (YaRN) its model card describes, up to {_YARN_EDIT_FACTOR}x the "
        "length, which hbmlint cannot see: it refuses only where the directory's config.json "
        "is the published one"
    )
    return replace(finding, severity=Severity.WARNING, message=f"{finding.message} ({why})")


def _refuses_without_weights(budget: Any) -> bool:
    """Whether no KV cache is left even at the generous edge of the estimate were the target's
    weights nothing at all: then no checkpoint of the model, however small, starts (TGI's
    dense warm-up attention of Gemma 3 at a long prefill)."""
    high = in_bytes(budget.kv_cache) + in_bytes(budget.kv_uncertainty(True))
    return high + in_bytes(budget.weights) <= 0


def _kv_bytes_unread(rule: Rule, deployment: Deployment) -> bool:
    """A budget rule on a vLLM deployment whose --kv-cache-memory-bytes is set to a value hbmlint
    cannot read: with that flag vLLM takes the KV cache's bytes and no memory fraction, so a
    budget made with the fraction as written (`--gpu-memory-utilization 0.05` beside it)
    judges memory the engine does not limit; the HBM011 at the flag says why it is unchecked."""
    return rule.id.startswith(_BUDGET_RULE) and "serving.kv_cache_memory_bytes" in deployment.unread


def _unless_a_setting_is_unread(
    finding: Diagnostic, rule: Rule, deployment: Deployment
) -> Diagnostic | None:
    """A budget error where the manifest sets a memory setting to a value hbmlint cannot read
    (``--max-model-len $(MAX_LEN)``): the budget used the engine default in its place, so the
    refusal is a warning that names the setting. A finding of another rule about that very
    setting (HBM322 on ``--gpu-memory-utilization "${GMEM}"``, a script's computed fraction)
    judges the default, not what the manifest sets: none (the HBM011 note says it is unread)."""
    if (
        rule.at in deployment.unread
        and not rule.id.startswith(_BUDGET_RULE)
        and field_value(deployment, rule.at) is None
    ):
        return None
    unread = sorted(p for p in deployment.unread if p.split(".")[0] not in ("parallel", "command"))
    forwarded = FORWARDED_FLAGS in deployment.unread
    if finding.severity != Severity.ERROR or not rule.id.startswith(_BUDGET_RULE):
        return finding
    if forwarded and not unread:
        line = deployment.unread[FORWARDED_FLAGS].line
        return replace(
            finding,
            severity=Severity.WARNING,
            message=(
                f"{finding.message}, if the script is run with no flags added (it passes on "
                f"the ones it is given, at line {line}, which may set the tensor-parallel size "
                "and more)"
            ),
        )
    if not unread:
        return finding
    # a template's own default (`${MAX_LEN:=8192}`) was read into the field; else it is unset
    defaulted = [p for p in unread if field_value(deployment, p) is not None]
    engine = [p for p in unread if p not in defaulted]
    said = []
    if engine:
        said.append(f"the engine default for {', '.join(p.rpartition('.')[2] for p in engine)}")
    if defaulted:
        names = ", ".join(p.rpartition(".")[2] for p in defaulted)
        said.append(f"the template's default for {names}")
    return replace(
        finding,
        severity=Severity.WARNING,
        message=(
            f"{finding.message} (with {' and '.join(said)}, which the manifest sets to a value "
            "hbmlint cannot read: lint the rendered manifest to know)"
        ),
    )


def _unless_the_kv_is_split(finding: Diagnostic, rule: Rule, budget: Any) -> Diagnostic | None:
    """A budget finding on a deployment that splits each sequence's KV cache over its GPUs
    (vLLM --decode-context-parallel-size N, SGLang --dcp-size N: each GPU holds up to N times
    the tokens the budget counts): the budget does not model that, so a refusal is a warning,
    and a warning says so, unless one sequence does not fit even in N times the tokens (HBM102
    stays an error then). The weights (HBM101) do not depend on it and stay an error. One
    sequence that fits as the engine checks it, max_model_len / N tokens a GPU (vLLM's
    FullAttentionSpec.max_memory_usage_bytes divides max_model_len by the DCP x PCP size;
    SGLang's pool holds max_total_num_tokens x N), even at the estimate's low edge, is no
    finding at all (None)."""
    split = budget.deployment.parallel.decode_context or 1
    hisparse = budget.deployment.serving.kv_pool_host_ratio or 1
    if rule.id == "HBM104" and hisparse > 1:
        split *= hisparse  # SGLang's HiSparse pool: the GPU's share of it times the ratio
    if split > 1 and rule.id in ("HBM102", "HBM105", "HBM104"):
        low = budget.kv_tokens_if(budget.kv_cache - budget.kv_uncertainty(up=False))
        if low.magnitude * split >= budget.settings.max_model_len:
            return None
    budget_rule = rule.id.startswith(_BUDGET_RULE) and rule.id != "HBM101"
    if finding.severity == Severity.INFO or split <= 1 or not budget_rule:
        return finding
    if rule.id == "HBM102":
        high = budget.kv_tokens_if(budget.kv_cache + budget.kv_uncertainty(up=True))
        if high.magnitude * split < budget.settings.max_model_len:
            return finding
    flag, engine = (
        ("--dcp-size", "SGLang")
        if budget.settings.engine == "sglang"
        else ("--decode-context-parallel-size", "vLLM")
    )
    if rule.id == "HBM104" and hisparse > 1:
        return replace(
            finding,
            severity=Severity.WARNING,
            message=(
                f"{finding.message} (counting the GPU's pool alone; with --enable-hisparse "
                f"SGLang's pool reaches {hisparse} times what the GPU holds, in host memory, which "
                "hbmlint does not model: check the engine's logged max_total_num_tokens)"
            ),
        )
    return replace(
        finding,
        severity=Severity.WARNING,
        message=(
            f"{finding.message} (counting each GPU's KV cache as whole sequences; with {flag} "
            f"{split} {engine} splits every sequence's KV cache over {split} GPUs, which "
            "hbmlint does not model: check the engine's logged KV cache size)"
        ),
    )


def _tradeoff_params(rules: list[Rule], options: LintOptions) -> dict[str, Any]:
    """The speculative-tradeoff rule's parameters with the configuration's overrides: what
    ``tradeoff()`` starts from in every rule that calls it."""
    global _TRADEOFF_PARAMS
    last = _TRADEOFF_PARAMS
    if last is not None and last[0] is rules and last[1] is options:
        return last[2]  # the same for every deployment of a run
    from .rules import TRADEOFF_RULE  # not speculative's: that module loads when a rule asks

    rule = next((r for r in rules if r.name == TRADEOFF_RULE), None)
    params = {} if rule is None else {**rule.params, **options.rule_params.get(rule.id, {})}
    _TRADEOFF_PARAMS = (rules, options, params)
    return params


_TRADEOFF_PARAMS: tuple[list[Rule], LintOptions, dict[str, Any]] | None = None


def lint_paths(
    paths: Iterable[str], rules: list[Rule], options: LintOptions | None = None
) -> list[FileResult]:
    items = list(discover(paths))
    _use_tree_objects(shared_objects(items, _read_ahead))
    try:
        return [lint_file(path, display, rules, options) for path, display in items]
    finally:
        _read_ahead.clear()


# How much of the text shared_objects reads it may keep for the lint, which then need not read
# those files again: the first files of the run, up to this many characters in all (4 MiB of
# ASCII, 16 MiB at most). The lint lets go of each text as it lints it, and a run over 50,000
# files keeps only its first thousands, so the run's peak memory (its results, at the end)
# does not grow.
KEPT_TEXT_CHARS = 4 * 2**20
# The texts kept, by the path's text, for the run in progress in this process: filled by
# shared_objects for lint_many and lint_paths, taken by lint_file (each once), emptied when the
# run ends. Empty outside a run, so a lint_file call of its own reads its file. Keyed by
# str(path), which each Path keeps once made (the run compares it with "-" anyway): a Path's
# own hash is worked out from its case-folded parts the first time, ~17k instructions a file.
_read_ahead: dict[str, str] = {}


def shared_objects(
    items: list[tuple[Path, str]], texts: dict[str, str] | None = None
) -> dict[tuple[str, str], dict[str, str]]:
    """The ConfigMaps and Secrets the files of a run define, so that a workload's
    ``configMapKeyRef`` to another file of the run is read, and KServe's serving runtimes and
    which InferenceServices use them (a file that cannot be read is skipped here: linting it
    reports why). With ``texts``, the texts of the first files read are kept there, by the
    path's text (str), up to KEPT_TEXT_CHARS characters in all, for the lint to take (the same
    read, with the same limit, that lint_file would make)."""
    objects: dict[tuple[str, str], dict[str, str]] = {}
    room = KEPT_TEXT_CHARS if texts is not None else 0
    for path, _ in items:
        name = str(path)
        if name == STDIN:
            continue
        try:
            text = files.read_text(path, MAX_FILE_BYTES)
        except files.FileReadError:
            continue
        if texts is not None and len(text) <= room:
            texts[name] = text
            room -= len(text)
        else:
            room = 0  # only the first files: the lint takes them in order, one after another
        # the readers are imported only for a run whose files hold such objects
        if "ConfigMap" in text or "Secret" in text:
            from .formats import podspec

            for key, values in podspec.tree_objects(text).items():
                known = objects.get(key)
                if known is None:
                    objects[key] = values
                elif known != values and podspec.AMBIGUOUS not in known:
                    # sibling overlays each defining ConfigMap `runtime`: which one a pod reads
                    # depends on the overlay applied, not on the order files are read in
                    objects[key] = {podspec.AMBIGUOUS: name}
        if "Kustomization" in text:
            from .formats import kustomize

            objects.update(kustomize.tree_objects(text, path))
        if "ServingRuntime" in text or "InferenceService" in text:
            from .formats import kserve

            objects.update(kserve.tree_objects(text))
        if "ome.io/" in text:
            from .formats import ome

            objects.update(ome.tree_objects(text))
        if "llmaz.io/" in text:
            from .formats import llmaz

            objects.update(llmaz.tree_objects(text))
    return objects


def _use_tree_objects(objects: dict[tuple[str, str], dict[str, str]]) -> None:
    """Give the pod-spec reader the run's cross-file objects (and forget an earlier run's),
    without importing it for a run that needs neither."""
    global _overlays_in_run
    _overlays_in_run = any(key[0] == "KustomizeBase" for key in objects)
    if objects or "hbmlint.formats.podspec" in sys.modules:
        from .formats import podspec

        podspec.use_tree_objects(objects)


# whether a kustomize overlay of the run builds on a folder of it (shared_objects found one): a
# base's findings are then looked at again (_unless_an_overlay_builds_it); most runs have none
_overlays_in_run = False


def lint_one(
    path: Path, display: str, rules: list[Rule], options: LintOptions | None = None
) -> tuple[FileResult, bool]:
    """``lint_file``, except that a bug of ours becomes an HBM000 finding on this file (and the
    second value says so, for exit code 2) while every other file is still linted."""
    try:
        return lint_file(path, display, rules, options), False
    except Exception as exc:
        import traceback

        detail = traceback.format_exception_only(type(exc), exc)[-1].strip()
        finding = input_diagnostic(
            "HBM000", f"hbmlint failed on this file ({detail}); please report it", display
        )
        return FileResult(path, display, diagnostics=[finding], is_manifest=True), True


# Below this many files a process pool costs more than it saves (pre-commit passes a few).
PARALLEL_MIN_FILES = 64
_worker: dict[str, Any] = {}


def _start_worker(rules: list[Rule], options: LintOptions, catalogs: tuple, objects: dict) -> None:
    from . import catalog

    catalog.use_extra_files(list(catalogs))
    _use_tree_objects(objects)
    _worker.update(rules=rules, options=options)


def _lint_in_worker(item: tuple[Path, str]) -> tuple[FileResult, bool]:
    return lint_one(item[0], item[1], _worker["rules"], _worker["options"])


def lint_many(
    items: list[tuple[Path, str]],
    rules: list[Rule],
    options: LintOptions | None = None,
    jobs: int = 1,
    catalogs: tuple = (),
) -> list[tuple[FileResult, bool]]:
    """Lint ``items`` with up to ``jobs`` processes; results come back in the order given, so
    the output is the same whatever ``jobs`` is. Standard input is always read here."""
    options = options or LintOptions()
    here = jobs <= 1 or len(items) < PARALLEL_MIN_FILES or any(str(p) == STDIN for p, _ in items)
    # linted in this process: the texts shared_objects reads first are linted as read, not
    # read again (worker processes read their own files)
    objects = shared_objects(items, _read_ahead if here else None)
    _use_tree_objects(objects)
    if here:
        try:
            return [lint_one(path, display, rules, options) for path, display in items]
        finally:
            _read_ahead.clear()
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    chunk = max(1, len(items) // (jobs * 8))
    try:
        with ProcessPoolExecutor(
            max_workers=jobs,
            mp_context=context,
            initializer=_start_worker,
            initargs=(rules, options, catalogs, objects),
        ) as pool:
            return _hub_warnings_once(list(pool.map(_lint_in_worker, items, chunksize=chunk)))
    except Exception as exc:  # the pool itself failed (no /dev/shm, a pickling bug): lint here
        sys.stderr.write(f"hbmlint: parallel linting failed ({exc!r}); linting in one process\n")
        return [lint_one(path, display, rules, options) for path, display in items]


def _hub_warnings_once(results: list[tuple[FileResult, bool]]) -> list[tuple[FileResult, bool]]:
    """A model the Hub could not give is warned about once a run (HBM015); each worker process
    keeps its own record of what it reported, so the first file in order keeps the warning."""
    seen: set[str] = set()
    for result, _ in results:
        kept = []
        for diagnostic in result.diagnostics:
            if diagnostic.code == "HBM015":
                if diagnostic.message in seen:
                    continue
                seen.add(diagnostic.message)
            kept.append(diagnostic)
        result.diagnostics = kept
    return results


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity), not all the machine has."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1
