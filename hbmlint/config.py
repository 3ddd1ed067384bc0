"""Configuration: find it, read it, validate it, and turn it into the filter stage.

Found the usual way: ``--config FILE``, else the nearest ``.hbmlint.yaml`` / ``.hbmlint.yml`` or
``pyproject.toml`` with a ``[tool.hbmlint]`` table, from the working directory upward, stopping
at the repository root. The file is validated against schemas/config.schema.json and every
problem is reported at its line (exit 2); command-line flags win over the file.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from . import files
from .diagnostics import Diagnostic, Severity
from .lazyre import LazyPattern
from .records import dataclass
from .yamlsrc import Span, YamlDocument, load_documents

CONFIG_NAMES = (".hbmlint.yaml", ".hbmlint.yml")
PYPROJECT = "pyproject.toml"
# Never hidden by select/ignore: a crash of hbmlint itself must always be seen.
ALWAYS_ON = frozenset({"HBM000"})


class ConfigError(Exception):
    """A configuration that cannot be used; each problem carries its file and span."""

    def __init__(self, problems: list[tuple[str, str, Span]]):
        super().__init__(problems[0][0])
        self.problems = problems

    def __str__(self) -> str:
        # a message quotes values shortened (see shown); this cap is the backstop for any
        # that quotes more, such as a key name from the schema check
        return "\n".join(
            f"{file}:{span.line}:{span.column}: config error: "
            + (message if len(message) <= 300 else message[:297] + "...")
            for message, file, span in self.problems
        )


@dataclass
class Config:
    """The settings of one configuration file (or none: every default)."""

    file: str | None = None  # as shown in messages; None when no file was found
    root: Path = field(default_factory=lambda: Path(os.path.abspath(".")))
    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    severity: dict[str, Severity] = field(default_factory=dict)
    params: dict[str, dict[str, Any]] = field(default_factory=dict)
    rules_dirs: list[Path] = field(default_factory=list)
    default_gpu: str | None = None
    fail_on: Severity | None = None
    exclude: list[str] = field(default_factory=list)
    catalogs: list[Path] = field(default_factory=list)
    formats: dict[str, str] = field(default_factory=dict)  # glob -> format NAME, forced
    # a model path as manifests write it -> the Hugging Face id of the model it holds
    model_paths: dict[str, str] = field(default_factory=dict)
    spans: dict[tuple, Span] = field(default_factory=dict)

    def span(self, *path: Any) -> Span:
        """Where ``path`` is written in the file, else its nearest written parent."""
        key = tuple(str(p) if not isinstance(p, int) else p for p in path)
        while key and key not in self.spans:
            key = key[:-1]
        return self.spans.get(key, Span(1, 1))

    def error(self, message: str, *path: Any) -> ConfigError:
        return ConfigError([(message, self.file or "hbmlint", self.span(*path))])

    def is_excluded(self, display: str) -> bool:
        return any(glob_matches(pattern, self.relative(display)) for pattern in self.exclude)

    def relative(self, file: str) -> str:
        """``file`` (as the findings name it) relative to the configuration's directory, with
        forward slashes, as the globs are written."""
        return relative_path(self.root, file)


def relative_path(root: Path, file: str) -> str:
    """``file`` relative to ``root`` with forward slashes, else its absolute path."""
    absolute = Path(os.path.abspath(file))
    try:
        return absolute.relative_to(root).as_posix()
    except ValueError:
        return absolute.as_posix()


def format_override(
    overrides: Iterable[tuple[str, str]], root: Path | None, file: str
) -> str | None:
    """The format the configuration's ``formats`` maps ``file`` to (the last matching glob
    wins), or None where no glob matches."""
    relative = relative_path(root or Path(os.path.abspath(".")), file)
    found = None
    for glob, name in overrides:
        if glob_matches(glob, relative):
            found = name
    return found


# ---------------------------------------------------------------------------- discovery


def find_config(start: Path | None = None) -> Path | None:
    """The nearest configuration file from ``start`` (the working directory) upward; the
    search stops at the repository root (a directory holding .git) or the filesystem root."""
    directory = Path(os.path.abspath(start or "."))
    while True:
        for name in CONFIG_NAMES:
            if (directory / name).is_file():
                return directory / name
        pyproject = directory / PYPROJECT
        if pyproject.is_file() and _has_hbmlint_table(pyproject):
            return pyproject
        if (directory / ".git").exists() or directory.parent == directory:
            return None
        directory = directory.parent


def _has_hbmlint_table(path: Path) -> bool:
    try:
        text = files.read_text(path)
    except files.FileReadError:
        return False
    return re.search(r"^\s*\[\s*tool\s*\.\s*hbmlint\s*[\].]", text, re.MULTILINE) is not None


def load(
    explicit: str | None = None, start: Path | None = None, allow_outside: bool = False
) -> Config:
    """The configuration in effect: ``explicit`` (--config), else the one found, else none.
    ``allow_outside`` (--allow-outside-paths) lets its rules-dirs and catalogs leave the
    repository."""
    if explicit is not None:
        path = Path(explicit)
        if not os.path.lexists(path):
            raise ConfigError([("no such configuration file", explicit, Span(1, 1))])
    else:
        found = find_config(start)
        if found is None:
            return Config()
        path = found
    return load_file(path, allow_outside)


def load_file(path: Path, allow_outside: bool = False) -> Config:
    display = _display(path)
    try:
        text = files.read_text(path)
    except files.FileReadError as exc:
        raise ConfigError([(f"cannot read: {exc.reason}", display, Span(1, 1))]) from None
    if path.name == PYPROJECT or path.suffix == ".toml":
        document = _toml_document(text, display)
    else:
        document = _yaml_document(text, display)
    from .schema import validate  # jsonschema is imported only when there is a file to check

    problems = validate(document, "config", display)
    if problems:
        raise ConfigError(
            [(d.message.removeprefix("document: "), display, d.span) for d in problems]
        )
    return _build(document, display, Path(os.path.abspath(path.parent)), allow_outside)


def _display(path: Path) -> str:
    relative = os.path.relpath(os.path.abspath(path))
    return str(path) if relative.startswith("..") else relative


def _yaml_document(text: str, display: str) -> YamlDocument:
    documents, error = load_documents(text)
    if error is not None:
        raise ConfigError([(error.message, display, error.span)])
    if len(documents) > 1:
        raise ConfigError([("a configuration file holds one YAML document", display, Span(1, 1))])
    if not documents or documents[0].data is None:
        return YamlDocument(data={}, index=0)
    document = documents[0]
    if not isinstance(document.data, dict):
        raise ConfigError([("the configuration must be a mapping of keys", display, Span(1, 1))])
    return document


def _toml_document(text: str, display: str) -> YamlDocument:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"at line (\d+), column (\d+)", str(exc))
        if where:
            span = Span(int(where[1]), int(where[2]))
        else:  # "(at end of document)"
            span = Span(text.count("\n") + 1, len(text.rsplit("\n", 1)[-1]) + 1)
        message = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(exc))
        raise ConfigError([(f"TOML syntax error: {message}", display, span)]) from None
    table = data.get("tool", {}).get("hbmlint", {})
    spans = _toml_spans(text)
    if not isinstance(table, dict):
        raise ConfigError([("[tool.hbmlint] must be a table", display, spans.get((), Span(1, 1)))])
    return YamlDocument(data=table, index=0, spans=spans, key_spans=dict(spans))


_TOML_KEY = LazyPattern(r"""^(\s*)("([^"]*)"|'([^']*)'|[A-Za-z0-9_\-]+)\s*=""")
_TOML_PART = LazyPattern(r"""\s*(?:"([^"]*)"|'([^']*)'|([^.\s"']+))\s*(?:\.|$)""")


def _toml_spans(text: str) -> dict[tuple, Span]:
    """Where each key of [tool.hbmlint] is written. tomllib keeps no positions, and a located
    error is worth a small scan of table headers and ``key =`` lines."""
    spans: dict[tuple, Span] = {}
    table: tuple | None = None  # the current table's path below tool.hbmlint
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            inner = stripped.split("#", 1)[0].strip().strip("[]")
            parts = tuple(
                next(p for p in m.groups() if p is not None) for m in _TOML_PART.finditer(inner)
            )
            array = stripped.startswith("[[")
            if not array and parts[:2] == ("tool", "hbmlint"):
                table = parts[2:]
                spans.setdefault(table, Span(number, 1))
            else:
                table = None
            continue
        match = _TOML_KEY.match(line) if table is not None else None
        if match:
            key = next(g for g in (match[3], match[4], match[2]) if g is not None)
            spans.setdefault((*table, key), Span(number, len(match[1]) + 1))
    return spans


def shown(value: Any) -> str:
    """A rejected value as a configuration error quotes it: never in full when it is long (a
    configuration may come from a pull request, and its errors land in a CI log)."""
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else text[:56] + "...'"


def repository_root(directory: Path) -> Path:
    """The repository a configuration belongs to: the nearest folder upward holding .git, else
    the configuration's own folder."""
    directory = Path(os.path.realpath(directory))
    for folder in (directory, *directory.parents):
        if (folder / ".git").exists():
            return folder
    return directory


def _check_globs(config: Config) -> None:
    from .globs import GlobError, compile_glob

    places = [(g, ("exclude", i)) for i, g in enumerate(config.exclude)]
    places += [(g, ("per-file-ignores", g)) for g in config.per_file_ignores]
    places += [(g, ("formats", g)) for g in config.formats]
    for glob, where in places:
        try:
            compile_glob(glob)
        except GlobError as exc:
            raise config.error(f"{where[0]}: {shown(glob)} is not a glob: {exc}", *where) from None


def _build(document: YamlDocument, display: str, root: Path, allow_outside: bool = False) -> Config:
    data = document.data
    spans = {key: document.key_spans.get(key) or span for key, span in document.spans.items()}
    config = Config(file=display, root=root, spans=spans)
    config.select = data.get("select")
    config.extend_select = list(data.get("extend-select", []))
    config.ignore = list(data.get("ignore", []))
    config.per_file_ignores = dict(data.get("per-file-ignores", {}))
    config.severity = {k: Severity.parse(v) for k, v in data.get("severity", {}).items()}
    config.params = {k: dict(v) for k, v in data.get("params", {}).items()}
    config.default_gpu = data.get("default-gpu")
    if "fail-on" in data:
        config.fail_on = Severity.parse(data["fail-on"])
    config.exclude = list(data.get("exclude", []))
    config.formats = {str(k): str(v) for k, v in data.get("formats", {}).items()}
    config.model_paths = {str(k): str(v) for k, v in data.get("model-paths", {}).items()}
    _check_globs(config)
    repository = repository_root(root)
    for key, target in (("rules-dirs", config.rules_dirs), ("catalogs", config.catalogs)):
        for i, raw in enumerate(data.get(key, [])):
            path = root / raw
            real = Path(os.path.realpath(path))  # symlinks too: a link out is a path out
            if not allow_outside and not real.is_relative_to(repository):
                raise config.error(
                    f"{key}: {shown(raw)} is outside the repository ({repository}); run with "
                    "--allow-outside-paths to read it",
                    key,
                    i,
                )
            wanted = path.is_dir() if key == "rules-dirs" else path.is_file()
            if not wanted:
                kind = "directory" if key == "rules-dirs" else "file"
                raise config.error(f"{key}: no such {kind}: {shown(raw)}", key, i)
            target.append(path)
    for i, path in enumerate(config.catalogs):
        _check_catalog(path, config, i)
    return config


def _check_catalog(path: Path, config: Config, index: int) -> None:
    """A team catalog holds `gpus:` and/or `models:` lists shaped like hbmlint's own; a broken
    one is refused here, at its own line, rather than failing deep inside the budget."""
    from .units import UnitError, parse_quantity

    display = _display(path)
    try:
        text = files.read_text(path)
    except files.FileReadError as exc:
        raise config.error(
            f"catalogs: cannot read {display}: {exc.reason}", "catalogs", index
        ) from None
    documents, error = load_documents(text)
    if error is not None:
        raise ConfigError([(error.message, display, error.span)])
    document = documents[0] if documents else YamlDocument(data={}, index=0)
    data = document.data if isinstance(document.data, dict) else None
    if data is None or not set(data) & {"gpus", "models"}:
        raise ConfigError([("a catalog file holds a gpus: or models: list", display, Span(1, 1))])
    required = {"gpus": ("name", "memory"), "models": ("id", "config")}
    for section, keys in required.items():
        entries = data.get(section) or []
        if not isinstance(entries, list):
            raise ConfigError([(f"{section}: must be a list", display, document.span(section))])
        for i, entry in enumerate(entries):
            where = document.span((section, i))
            if not isinstance(entry, dict) or any(k not in entry for k in keys):
                need = " and ".join(keys)
                raise ConfigError([(f"{section}[{i}]: needs {need}", display, where)])
            if section == "gpus":
                try:
                    parse_quantity(entry["memory"], "[information]")
                except UnitError as exc:
                    span = document.span((section, i, "memory"))
                    raise ConfigError([(f"{section}[{i}].memory: {exc}", display, span)]) from None


# ------------------------------------------------------------------- selection and filter


def glob_matches(pattern: str, path: str) -> bool:
    """gitignore-like globs (see globs.py): ``*`` within a folder, ``**`` across folders; a
    pattern without a slash matches a file or folder name anywhere; a folder's pattern covers
    what is inside."""
    from .globs import glob_matches as matches

    return matches(pattern, path)


def selector_matches(selector: str, code: str, name: str) -> bool:
    """ALL, a code (HBM201), a code prefix (HBM2) or a rule name (draft-weights-share)."""
    key = selector.strip()
    if key.upper() == "ALL":
        return True
    if re.fullmatch(r"[A-Za-z]+[0-9]*", key) and code.upper().startswith(key.upper()):
        return True
    return key.lower() == name.lower()


@dataclass
class CommandLine:
    """The flags that override the configuration (None: not given)."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)


class Filter:
    """The filter stage for one run: which codes are reported, where, at which severity, and
    the parameters each rule runs with. ``known`` maps every code to its name."""

    def __init__(self, config: Config, known: Mapping[str, str], cli: CommandLine | None = None):
        self.config = config
        self.known = dict(known)
        cli = cli or CommandLine()
        self._check_selectors(config)
        for selector in [*(cli.select or []), *cli.extend_select, *cli.ignore]:
            if not self._codes(selector):
                raise ConfigError(
                    [(f"unknown rule selector {shown(selector)}", "command line", Span(1, 1))]
                )
        # Layers in order, each as ruff does: select replaces, extend-select adds, ignore removes.
        enabled = set(self.known)
        for select, extend, ignore in (
            (config.select, config.extend_select, config.ignore),
            (cli.select, cli.extend_select, cli.ignore),
        ):
            if select is not None:
                enabled = self._expand(select)
            enabled |= self._expand(extend)
            enabled -= self._expand(ignore)
        self.enabled = frozenset(enabled | (ALWAYS_ON & set(self.known)))

    def _codes(self, selector: str) -> set[str]:
        return {code for code, name in self.known.items() if selector_matches(selector, code, name)}

    def _expand(self, selectors: Iterable[str]) -> set[str]:
        return {code for selector in selectors for code in self._codes(selector)}

    def _check_selectors(self, config: Config) -> None:
        places: list[tuple[str, tuple]] = []
        for key in ("select", "extend-select", "ignore"):
            values = getattr(config, key.replace("-", "_")) or []
            places += [(s, (key, i)) for i, s in enumerate(values)]
        for glob, selectors in config.per_file_ignores.items():
            places += [(s, ("per-file-ignores", glob, i)) for i, s in enumerate(selectors)]
        places += [(s, ("severity", s)) for s in config.severity]
        problems = [
            (
                f"unknown rule selector {shown(s)} (`hbmlint rules` lists the codes)",
                config.file or "",
                config.span(*where),
            )
            for s, where in places
            if not self._codes(s)
        ]
        if problems:
            raise ConfigError(problems)

    def is_enabled(self, code: str, file: str | None = None) -> bool:
        if code not in self.enabled:
            return False
        if file is None or code in ALWAYS_ON or not self.config.per_file_ignores:
            return True
        relative = self.config.relative(file)
        name = self.known.get(code, "")
        return not any(
            glob_matches(glob, relative) and any(selector_matches(s, code, name) for s in selectors)
            for glob, selectors in self.config.per_file_ignores.items()
        )

    def severity(self, code: str, default: Severity) -> Severity:
        severity = default
        name = self.known.get(code, "")
        for selector, value in self.config.severity.items():  # later entries win
            if selector_matches(selector, code, name):
                severity = value
        return severity

    def apply(self, diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
        """The findings the configuration lets through, with their configured severity."""
        kept = []
        for d in diagnostics:
            if self.is_enabled(d.code, d.file):
                severity = self.severity(d.code, d.severity)
                kept.append(d if severity == d.severity else replace(d, severity=severity))
        return kept

    def rule_params(self, rules: Iterable[Any]) -> dict[str, dict[str, Any]]:
        """Rule id -> the parameters the configuration sets, parsed with their units and
        checked against the rule's own (a name it lacks or a value of another kind is refused
        here, at its line, rather than failing the rule on every deployment)."""
        from .rules import parse_param
        from .units import Q, UnitError, format_quantity

        by_key = {r.id.upper(): r for r in rules} | {r.name.lower(): r for r in rules}
        params: dict[str, dict[str, Any]] = {}
        for key, values in self.config.params.items():
            rule = by_key.get(key.upper()) or by_key.get(key.lower())
            if rule is None:
                raise self.config.error(f"params: no rule called {shown(key)}", "params", key)
            parsed = params.setdefault(rule.id, {})
            for name, raw in values.items():
                if name not in rule.params:
                    known = ", ".join(rule.params) or "none"
                    raise self.config.error(
                        f"params: {rule.id} has no parameter {shown(name)} (it has: {known})",
                        "params",
                        key,
                        name,
                    )
                try:
                    value = parse_param(raw)
                except UnitError as exc:
                    raise self.config.error(
                        f"params.{key}.{name}: {exc}", "params", key, name
                    ) from None
                if not _same_kind(value, rule.params[name]):
                    raise self.config.error(
                        f"params.{key}.{name}: {shown(raw)} is not the same kind of value as "
                        f"the default {format_quantity(rule.params[name])}",
                        "params",
                        key,
                        name,
                    )
                default = rule.params[name]
                bare = isinstance(value, (int, float)) and not isinstance(value, bool)
                if bare and getattr(default, "dimensionality", None) is not None:
                    value = Q(value, "").to(default.units)  # 0.15 -> 15 percent, as shown
                parsed[name] = value
        return params


def _same_kind(value: Any, default: Any) -> bool:
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    dims = [getattr(v, "dimensionality", None) for v in (value, default)]
    if dims[0] is None and dims[1] is None:
        return True
    from .units import Q

    as_quantities = [
        v if d is not None else Q(v, "") for v, d in zip((value, default), dims, strict=True)
    ]
    return as_quantities[0].dimensionality == as_quantities[1].dimensionality
