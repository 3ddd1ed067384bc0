"""The fix stage: after the rules, each fix that says which settings it changes gets its
message in the manifest's own terms and the edits that apply it; ``--fix`` then picks and
applies them.

Rules say what to change in hbmlint's terms (``set: {serving.max_model_len: ...}``); the
format reader's writer (rewrite.py) says how this file writes it (``--max-model-len 11696``)
and where. Every edit is checked before it is offered: the edited file must still be YAML and
read back, with the same format reader, as the same deployment with exactly the changed
settings changed. An edit that does not is dropped, and the fix is shown, not applied.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Callable
from dataclasses import field, fields
from functools import cache, cached_property
from typing import Any

from .diagnostics import SAFE, UNSAFE, Diagnostic, Edit, Fix
from .records import dataclass
from .rewrite import WEIGHTLESS, Locator, Source, apply_edits
from .spec import DRAFT_ONLY_FIELDS, Deployment
from .yamlsrc import Span, YamlDocument

# Reads the edited text back: the deployments of the same document, or None when the text no
# longer reads (not YAML, another number of documents, the reader fails).
Reread = Callable[[str], "list[Deployment] | None"]

# "(serving.max_model_len)" or "(speculative.quantization: fp8)" in a rule's fix text: the
# setting in hbmlint's terms, which the manifest's own terms replace.
_FIELD_NOTE = re.compile(
    r"\s*\((?:gpu|model|parallel|serving|speculative|workload)\.[a-z_.]+(?::[^()]*)?\)"
)
_FLAG_NOTE = re.compile(
    r"(--[a-z0-9-]+) \((?:gpu|model|parallel|serving|speculative|workload)\.[a-z_.]+\)"
)
# where a field lives on the Deployment, where that is not its path
_ATTRIBUTES = {
    "speculative.quantization": ("speculative", "model", "quantization"),
    "speculative.model": ("speculative", "model", "name"),
}
_NOT_COMPARED = ("locations", "writer", "hints", "source_format")


def field_value(deployment: Deployment, path: str) -> Any:
    value: Any = deployment
    for part in _ATTRIBUTES.get(path, tuple(path.split("."))):
        value = getattr(value, part, None)
    return value


def _with_field(comparable: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """``comparable`` (a deployment's ``_comparable`` form) with ``path`` set as a reader would
    have set it on the deployment; the mappings on the way are copied, the rest is shared."""
    top = dict(comparable)
    if path == "speculative.method" and value in WEIGHTLESS:
        spec = top.get("speculative")
        if isinstance(spec, dict):
            top["speculative"] = {
                **spec,
                **dict.fromkeys(DRAFT_ONLY_FIELDS),
            }
    parts = _ATTRIBUTES.get(path, tuple(path.split(".")))
    target: dict[str, Any] = top
    for part in parts[:-1]:
        child = target.get(part)
        if not isinstance(child, dict):
            return top
        target[part] = target = dict(child)
    if parts[-1] in target:
        target[parts[-1]] = value
    return top


_SCALARS = (str, int, float, bool, type(None))


def _plain(value: Any) -> Any:
    """``value`` as plain data: dataclasses as dicts of their fields, containers of the same
    type, scalars as they are (dataclasses.asdict does the same, a few times slower)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is Span:
        return None  # where a value is written moves with an edit; it is not a setting
    names = _field_names(kind) if hasattr(kind, "__dataclass_fields__") else None
    if names is not None:
        # most fields hold a scalar or None: kept without a call of this function each
        plain = {}
        for name in names:
            field_value = getattr(value, name)
            plain[name] = field_value if type(field_value) in _SCALARS else _plain(field_value)
        return plain
    if kind is list or kind is tuple:
        return kind(_plain(item) for item in value)
    if kind is dict:
        return {key: _plain(item) for key, item in value.items()}
    return copy.deepcopy(value)


@cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in fields(kind))


def _comparable(deployment: Deployment) -> dict[str, Any]:
    """The deployment's settings as plain data, without what an edit may move (locations) or
    what is not a setting."""
    return {name: _plain(getattr(deployment, name)) for name in _compared(type(deployment))}


@cache
def _compared(kind: type) -> tuple[str, ...]:
    return tuple(name for name in _field_names(kind) if name not in _NOT_COMPARED)


@dataclass
class FixContext:
    """What the fix stage needs of one deployment's file."""

    text: str
    document: YamlDocument
    reread: Reread
    position: int  # the deployment's index among its document's deployments
    # the deployment as the reader built it from ``text``: the unedited side of every check
    # (reading the text again would give the same settings, at a second read's cost)
    deployment: Deployment | None = None

    # each edited text read back once: two findings often offer the same fix (a drafter's
    # weights and its share of the memory both suggest n-gram lookup), whose edits give the
    # same text, and a reading depends on the text alone. Per deployment, so bounded by its
    # fixes
    _read: dict[str, Deployment | None] = field(default_factory=dict, repr=False)

    def _nth(self, text: str) -> Deployment | None:
        if text in self._read:
            return self._read[text]
        found = self.reread(text)
        nth = None if found is None or self.position >= len(found) else found[self.position]
        self._read[text] = nth
        return nth

    @cached_property
    def _source(self) -> Source:
        """``text``'s line starts, for placing every fix's edits: worked out once, not per fix."""
        return Source(self.text, "")

    @cached_property
    def _before(self) -> dict[str, Any] | None:
        """The unedited deployment's comparable form, read once for every fix."""
        before = self.deployment if self.deployment is not None else self._nth(self.text)
        return None if before is None else _comparable(before)

    def reads_as(self, edits: list[Edit], changes: dict[str, Any], file: str) -> bool:
        """Whether the file with ``edits`` reads as the same deployment with ``changes``."""
        before = self._before
        if before is None:
            return False
        after = self._nth(apply_edits(self.text, self._source, edits))
        if after is None:
            return False
        expected = before
        for path, value in changes.items():
            expected = _with_field(expected, path, value)
        return expected == _comparable(after)


def complete(findings: list[Diagnostic], deployment: Deployment, context: FixContext) -> None:
    """Give the fixes of ``deployment``'s findings their manifest terms and edits. A failure
    here never costs the findings: they keep the fixes the rules gave them."""
    try:
        _complete_all(findings, deployment, context)
    except Exception:  # a bug in writing a fix must not turn a lint into an internal error
        if os.environ.get("HBMLINT_TRACEBACK"):
            raise


def _complete_all(findings: list[Diagnostic], deployment: Deployment, context: FixContext) -> None:
    writer = getattr(deployment, "writer", None)
    mine = [
        f
        for f in findings
        if f.deployment == deployment.name
        and f.file == deployment.file
        and (f.code == "HBM010" or any(fix.changes and not fix.setting for fix in f.fixes))
    ]
    if writer is None or not mine:
        return
    source = Source(context.text, deployment.file)
    locator = Locator(source, context.document)
    for finding in mine:
        if finding.code == "HBM010":
            if "speculative" not in finding.message:
                continue  # a removed flag with no replacement to write (--swap-space)
            migrated = _migration(writer, deployment, source, locator, context)
            if migrated is not None:
                finding.fixes = [migrated]
            continue
        finding.fixes = [
            _complete(fix, writer, deployment.file, source, locator, context)
            for fix in finding.fixes
        ]


def _complete(
    fix: Fix, writer: Any, file: str, source: Source, locator: Locator, context: FixContext
) -> Fix:
    if not fix.changes or fix.setting:
        return fix
    setting = writer.setting(fix.changes, locator)
    if setting is None:
        return fix
    message = fix.message
    if _FLAG_NOTE.search(message):  # "Lower --max-model-len (serving.max_model_len) to N."
        message = _FLAG_NOTE.sub(r"\1", message, count=1)
        message = f"{message.rstrip('.')} ({setting})."
    elif _FIELD_NOTE.search(message):
        message = _FIELD_NOTE.sub(f" ({setting})", message, count=1)
    else:
        message = f"{message.rstrip('.')} ({setting})."
    effect = " ".join(_FIELD_NOTE.sub("", fix.message).split())
    edits = writer.edits(fix.changes, source, locator)
    if edits and not context.reads_as(edits, fix.changes, file):
        edits = None
    return fix.replaced(message=message, setting=setting, effect=effect, edits=tuple(edits or ()))


def _migration(
    writer: Any, deployment: Deployment, source: Source, locator: Locator, context: FixContext
) -> Fix | None:
    """vLLM's removed speculative flags, replaced by --speculative-config."""
    found = writer.migration(source, locator) if hasattr(writer, "migration") else None
    if found is None:
        return None
    setting, keeps, edits = found
    if edits and not context.reads_as(edits, {}, deployment.file):
        edits = None
    if setting.startswith("remove "):
        message = f"Remove {setting[len('remove ') :]}: vLLM 0.8.3 and later do not take it"
        effect = "nothing the engine still does is lost"
    else:
        message = f"Use {setting} instead"
        effect = "the same drafter, written the way vLLM 0.8.3 and later read it"
    if not keeps:
        effect = (
            "the drafter moves to --speculative-config; the removed flags without a key there "
            "are dropped, which changes what the engine does"
        )
    return Fix(
        message,
        applicability=SAFE if keeps else UNSAFE,
        edits=tuple(edits or ()),
        setting=setting,
        effect=effect,
    )


# --- choosing and applying ---------------------------------------------------------------------


def chosen(findings: list[Diagnostic], unsafe: bool) -> list[Fix]:
    """The fix to apply for each finding: its first safe fix with edits; with ``unsafe``, its
    first fix with edits, safe or not (the rule lists its preferred fix first)."""
    picked = []
    for finding in findings:
        for fix in finding.fixes:
            if isinstance(fix, Fix) and fix.edits and (unsafe or fix.safe):
                picked.append(fix)
                break
    return picked


def _overlaps(a: tuple[int, int], b: tuple[int, int]) -> bool:
    if a[0] == a[1] or b[0] == b[1]:  # an insertion touching another edit: order unclear
        return a[0] <= b[1] and b[0] <= a[1]
    return a[0] < b[1] and b[0] < a[1]


def apply(text: str, file: str, fixes: list[Fix]) -> tuple[str, list[Fix]]:
    """``text`` with as many of ``fixes`` applied as do not conflict, in order (the same fix
    offered by several findings counts once); returns the new text and the fixes applied."""
    source = Source(text, file)
    taken: list[tuple[int, int]] = []
    seen: set[tuple[Edit, ...]] = set()
    applied: list[Fix] = []
    edits: list[Edit] = []
    for fix in fixes:
        mine = tuple(e for e in fix.edits if e.file == file)
        if not mine or mine in seen:
            continue
        ranges = [
            (source.offset(e.line, e.column), source.offset(e.end_line, e.end_column)) for e in mine
        ]
        if any(_overlaps(r, t) for r in ranges for t in taken) or any(
            _overlaps(a, b) for i, a in enumerate(ranges) for b in ranges[i + 1 :]
        ):
            continue
        seen.add(mine)
        taken.extend(ranges)
        edits.extend(mine)
        applied.append(fix)
    return apply_edits(text, source, edits), applied
