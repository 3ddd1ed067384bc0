"""Whether a manifest is part of a kustomize build: a file that the kustomization.yaml beside it
names under ``patches`` (``- path: FILE``), ``patchesStrategicMerge`` (``- FILE``) or
``resources`` (``- FILE``).

kustomize merges such a file into an object of its bases; what the file leaves out (a
container's ``args`` when the patch only sets ``command``) comes from the base, so a patch
read alone may lack the model without the built manifest lacking it. llm-d's guides are built
this way (llm-d/llm-d guides/*/modelserver/.../patch-vllm.yaml, a Deployment patch with
``command: ["vllm", "serve"]`` whose args are in recipes/modelserver/base). A resource of a base
may leave a field blank for the overlays to fill (opendatahub-io/llm-d-playbooks
08-benchmarking/intelligent-inference-scheduler/llm-d/base/llm-infra.yaml: ``uri: ''``, which
llm-d/qwen/kustomization.yaml replaces with hf://Qwen/Qwen3-0.6B).

An overlay's JSON 6902 patches (``patches:`` entries whose patch is a list of ``op``s, inline or
in a file, and ``patchesJson6902``) are applied when the whole build is one hbmlint can do:
resources that are files or directories with a kustomization of their own, built the same way,
and no transformer that could change what the engine runs (strategic-merge patches,
components, generators, helm charts, replacements). Each object a patch changes is then read as
the overlay builds it, in the overlay's file: a value a patch writes at the patch's line, the
rest at the ``resources`` entry it comes from. Where the build is not one hbmlint can do, a
finding at the patch says what was not checked.
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import field, fields, is_dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..diagnostics import Diagnostic, Severity, input_diagnostic
from ..records import dataclass
from ..yamlsrc import Span, YamlDocument, load_documents
from . import NO_ENGINE_KINDS
from .json_patch import Located, NotRead, PatchError, apply, locate, pointer, unlocate
from .podspec import object_name, value_at
from .strategic_merge import merge

# kustomize's own names for the file, in the order it looks for them
# (sigs.k8s.io/kustomize api/konfig: RecognizedKustomizationFileNames)
_FILES = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def listed_by(path: Path | str) -> tuple[Path, Span, str] | None:
    """The kustomization file that names ``path``, where it names it, and as what ("patch" or
    "resource"); None when none in the file's directory does (or the path is not on disk)."""
    try:
        file = Path(path)
        directory = file.parent.resolve()
    except (OSError, ValueError):
        return None
    found = _entries(str(directory))
    if found is None:
        return None
    kustomization, named = found
    entry = named.get(file.name)
    return (kustomization, *entry) if entry is not None else None


@lru_cache(maxsize=256)
def _entries(directory: str) -> tuple[Path, dict[str, tuple[Span, str]]] | None:
    """The files a directory's kustomization names, each with the line naming it and its role."""
    for name in _FILES:
        kustomization = Path(directory, name)
        try:
            if not kustomization.is_file():
                continue
            text = kustomization.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        documents, _ = load_documents(text)
        named: dict[str, tuple[Span, str]] = {}
        for document in documents:
            data = document.data
            if not isinstance(data, dict):
                continue
            for index, entry in enumerate(data.get("patches") or []):
                if isinstance(entry, dict) and _here(entry.get("path")):
                    span = document.span(("patches", index, "path"))
                    named[_here(entry["path"])] = (span, "patch")
            for key, role in (("patchesStrategicMerge", "patch"), ("resources", "resource")):
                for index, entry in enumerate(data.get(key) or []):
                    if _here(entry):
                        named.setdefault(_here(entry), (document.span((key, index)), role))
        return kustomization, named
    return None


def tree_objects(text: str, path: Path | str) -> dict[tuple[str, str], dict[str, str]]:
    """The directories an overlay of the run builds on (its ``resources`` that are directories),
    when it patches or generates what they hold: key ("KustomizeBase", the directory), value the
    overlay's kustomization file."""
    documents, _ = load_documents(text)
    found: dict[tuple[str, str], dict[str, str]] = {}
    for document in documents:
        data = document.data
        if not _is_kustomization(data) or not any(k in data for k in _CHANGES):
            continue
        # whether it writes values the base's workloads read: a generated or patched ConfigMap
        # or Secret
        values = any(k in data for k in ("configMapGenerator", "secretGenerator"))
        values = values or _patches_values(data, Path(path).parent)
        entries = data.get("resources")
        for entry in (entries if isinstance(entries, list) else []) + _list(data.get("bases")):
            if not isinstance(entry, str) or "://" in entry:
                continue
            try:
                target = (Path(path).parent / entry).resolve()
                if target.is_dir():
                    found[("KustomizeBase", str(target))] = {
                        "overlay": str(path),
                        "values": "yes" if values else "",
                    }
            except (OSError, ValueError):
                continue
    return found


# what an overlay writes into the objects of its bases
_CHANGES = (
    "patches",
    "patchesStrategicMerge",
    "patchesJson6902",
    "configMapGenerator",
    "secretGenerator",
)


def _list(value: Any) -> list:
    return value if isinstance(value, list) else []


def _patches_values(data: dict, directory: Path) -> bool:
    """Whether a patch of the kustomization, inline or in a file, targets or is a ConfigMap or
    Secret."""
    entries = [e for e in _list(data.get("patches")) if isinstance(e, dict)]
    entries += [e for e in _list(data.get("patchesJson6902")) if isinstance(e, dict)]
    if any(
        isinstance(e.get("target"), dict) and e["target"].get("kind") in _VALUE_KINDS
        for e in entries
    ):
        return True
    texts = [e["patch"] for e in entries if isinstance(e.get("patch"), str)]
    names = [e["path"] for e in entries if isinstance(e.get("path"), str)]
    for entry in _list(data.get("patchesStrategicMerge")):
        if isinstance(entry, str):
            (texts if "\n" in entry else names).append(entry)
    documents = [d for t in texts for d in load_documents(t)[0]]
    documents += [d for n in names for d in _yaml_file(str(directory / n)) or []]
    return any(isinstance(d.data, dict) and d.data.get("kind") in _VALUE_KINDS for d in documents)


_VALUE_KINDS = ("ConfigMap", "Secret")


def overlay_building(path: Path | str) -> dict[str, str] | None:
    """The overlay of the run that builds on the base this file is a resource of (and patches
    or generates for it): its kustomization file ("overlay") and whether it writes values the
    base's workloads read ("values": "yes"); None for none."""
    from .podspec import tree_object

    listed = listed_by(path)
    if listed is None or listed[2] != "resource":
        return None
    try:
        directory = str(listed[0].parent.resolve())
    except (OSError, ValueError):
        return None
    return tree_object("KustomizeBase", directory)


def _here(entry: object) -> str:
    """The file name an entry gives when it names a file of the kustomization's own directory
    (``patch.yaml``, ``./patch.yaml``); "" for anything else (a directory above, a URL, an
    inline patch)."""
    if not isinstance(entry, str) or "\n" in entry:
        return ""
    name = entry.strip().removeprefix("./")
    return name if name and "/" not in name else ""


# --- building an overlay's JSON 6902 patches -------------------------------------------------

# what a kustomization may hold that changes nothing an engine's budget reads
# (https://kubectl.docs.kubernetes.io/references/kustomize/kustomization/)
_INERT = {
    "apiVersion",
    "kind",
    "metadata",
    "namespace",
    "labels",
    "commonLabels",
    "commonAnnotations",
    "configurations",
    "generatorOptions",
    "buildMetadata",
    "sortOptions",
    "openapi",
    "crds",
    "replicas",
}
# what hbmlint applies itself
_APPLIED = {
    "resources",
    "bases",
    "patches",
    "patchesJson6902",
    "patchesStrategicMerge",
    "configMapGenerator",
    "secretGenerator",
    "replacements",
    "images",
    "namePrefix",
    "nameSuffix",
}
# patched fields no reader of hbmlint's looks at: a patch of these alone is not built
_UNREAD_FIELDS = {
    "metadata",
    "ports",
    "volumeMounts",
    "volumes",
    "securityContext",
    "tolerations",
    "readinessProbe",
    "livenessProbe",
    "startupProbe",
    "lifecycle",
    "serviceAccountName",
    "resourceClaims",
    "claims",
    "imagePullPolicy",
    "imagePullSecrets",
    "hostNetwork",
    "dnsPolicy",
    "selector",
    "strategy",
    "replicas",
    "terminationGracePeriodSeconds",
    "priorityClassName",
    "schedulerName",
}
# fields that decide the model, the engine's flags or the GPUs: an overlay that changes one and
# cannot be built is a deployment hbmlint did not check (a warning, not a note)
_DECISIVE_FIELDS = {"args", "command", "image", "model", "storageUri", "uri", "size"}
_DEPTH = 8  # bases of bases: kustomize has no limit, real guides nest four or five


class _Unbuildable(Exception):
    """A build hbmlint does not do; the message says why, in a few words."""


class _OpFailed(Exception):
    """An op of the overlay being linted that kustomize would refuse: its build fails."""

    def __init__(self, patch: _Patch, op: _Op, why: str):
        super().__init__(why)
        self.patch, self.op = patch, op


@dataclass
class _Op:
    op: str
    path: str
    value: Located | None
    at: Span  # the op's ``path:`` line, where a finding about it is reported


@dataclass
class _Patch:
    target: dict[str, Any]
    ops: list[_Op]  # of a strategic-merge patch: one "merge" op per value it sets
    merge: Located | None = None  # the strategic-merge patch itself


@dataclass
class _Object:
    tree: Located
    name: str  # before any prefix: kustomize matches a target on either
    touched: list[_Op] = field(default_factory=list)
    before: Located | None = None  # before the linted overlay's own patches


@dataclass
class OverlayDocument(YamlDocument):
    """An object as a kustomize overlay builds it, placed in the overlay's file. Fixes are not
    written for it: its values sit in several files."""

    overlay: str = ""
    # every object of the same build, so a reader finds an object the one it reads refers to
    # (a KServe runtime, renamed by namePrefix as its service's reference is)
    siblings: list[YamlDocument] = field(default_factory=list)
    # the build's ConfigMaps and Secrets (generated or listed), by (kind, name as the
    # workloads refer to them: before namePrefix and the generator's hash, which kustomize
    # writes into the references too): each key's value where the build sets it
    build_objects: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)


def built_documents(
    documents: list[YamlDocument], path: Path | str, display: str
) -> tuple[list[YamlDocument], list[Diagnostic]]:
    """The objects an overlay's patches and generators change, as the overlay builds them (each
    to be read like any manifest), or a finding at a patch that changes what an engine runs
    where the build is not one hbmlint can do; nothing for any other file."""
    kustomization = next((d for d in documents if _is_kustomization(d.data)), None)
    if kustomization is None:
        return [], []
    try:
        directory = Path(path).parent
    except (TypeError, ValueError):
        return [], []
    patches, blocker = _patches(kustomization, directory, None)
    read = [(p, op) for p in patches for op in p.ops if _reads(op.path) and _may_run(p)]
    generated = _generated_names(kustomization.data)
    if not read and not generated:
        return [], []
    try:
        objects = _build(kustomization, directory, None, 0, frozenset(), (patches, blocker))
    except _Unbuildable as why:
        if not read or not _engine_in_reach(kustomization, directory, 0, frozenset()):
            return [], []  # an overlay of a controller or a gateway: no engine to leave unchecked
        return [], [_not_built(p, op, str(why), display) for p, op in _first_per_target(read)]
    except _OpFailed as failed:
        return [], [_fails(failed.patch, failed.op, str(failed), display)]
    documents = [_document(obj.tree, index, display) for index, obj in enumerate(objects)]
    values = _build_objects(objects, documents)
    # the ConfigMaps and Secrets this overlay changes: generated here, or patched (a model
    # written into a base's ConfigMap, take566/kubernetes overlays/kubeadm)
    generated = generated | {
        (_kind(obj.tree), obj.name)
        for obj in objects
        if obj.before is not None
        and _kind(obj.tree) in ("ConfigMap", "Secret")
        and any(_reads(op.path) for op in obj.touched)
    }
    for document in documents:
        _flags_at_patched_values(document)
    built: list[YamlDocument] = []
    for obj, document in zip(objects, documents, strict=True):
        document.siblings = documents
        document.build_objects = values
        if _refers_to(obj.tree, generated):
            built.append(document)  # its values come from what this overlay generates or patches
            continue
        if obj.before is None or not any(_reads(op.path) for op in obj.touched):
            continue  # the base's own file shows the object as it is
        before = _document(obj.before, document.index, display)
        before.siblings = documents
        before.build_objects = values
        if _read_alike(document, before, path, display):
            continue  # a patch of nothing a reader uses (an NCCL variable): the base says it all
        built.append(document)
    return built, []


def _generated_names(data: dict) -> set[tuple[str, str]]:
    """The ConfigMaps and Secrets a kustomization's own generators make, by (kind, name)."""
    names = set()
    for key, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
        entries = data.get(key)
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, dict) and entry.get("name"):
                names.add((kind, str(entry["name"])))
    return names


def _refers_to(tree: Located, names: set[tuple[str, str]]) -> bool:
    """Whether an object's pods take a value from one of the named ConfigMaps or Secrets."""
    if not names:
        return False
    data, _ = unlocate(tree)
    return bool(_references(data) & names)


# the references a pod spec makes to a ConfigMap's or Secret's values, by the field naming it
_REFERENCES = {
    "configMapKeyRef": "ConfigMap",
    "configMapRef": "ConfigMap",
    "secretKeyRef": "Secret",
    "secretRef": "Secret",
}


def _references(data: Any, depth: int = 0) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    if depth > 64:
        return found
    if isinstance(data, dict):
        for key, value in data.items():
            kind = _REFERENCES.get(key) if isinstance(key, str) else None
            if kind is not None and isinstance(value, dict) and value.get("name"):
                found.add((kind, str(value["name"])))
            else:
                found |= _references(value, depth + 1)
    elif isinstance(data, list):
        for value in data:
            found |= _references(value, depth + 1)
    return found


def _build_objects(
    objects: list[_Object], documents: list[OverlayDocument]
) -> dict[tuple[str, str], dict[str, Any]]:
    """The ConfigMaps and Secrets of a build, by the name workloads refer to them by (before
    namePrefix): each key's value as a pod-spec token at the line that sets it."""
    from .podspec import objects_in

    found: dict[tuple[str, str], dict[str, Any]] = {}
    for obj, document in zip(objects, documents, strict=True):
        for (kind, _), keys in objects_in([document]).items():
            found[(kind, obj.name)] = keys
    return found


def _flags_at_patched_values(document: OverlayDocument) -> None:
    """A flag of the base whose value (the next item of args or command) a patch writes is
    placed at that value: a finding about the setting belongs at the line that chose it, not
    at the ``resources`` entry every unpatched item of the base sits at."""
    for path, span in list(document.spans.items()):
        if len(path) < 2 or path[-2] not in ("args", "command") or not isinstance(path[-1], int):
            continue
        word = value_at(document.data, path)
        if not isinstance(word, str) or not word.startswith("-") or "=" in word:
            continue
        after = document.spans.get((*path[:-1], path[-1] + 1))
        if after is not None and span == document.spans.get(path[:-1]) and after != span:
            document.spans[path] = after


def _names_what_is_read(hint: Any) -> bool:
    key = str(hint.get("key", "")).lower() if isinstance(hint, dict) else ""
    return key.startswith("hbmlint.io/") or any(w in key for w in ("model", "gpu", "accelerator"))


def _document(tree: Located, index: int, display: str) -> OverlayDocument:
    data, spans = unlocate(tree)
    return OverlayDocument(
        data=data, index=index, spans=spans, key_spans=dict(spans), text="", overlay=display
    )


def _read_alike(patched: YamlDocument, base: YamlDocument, path: Path | str, display: str) -> bool:
    """Whether the format that reads an object reads the same deployments and findings from it
    with and without the overlay's patches (positions aside)."""
    from . import detect_format

    module = detect_format(patched.data)
    if module is None:
        return True
    if detect_format(base.data) is not module:
        return False
    return _substance(module.to_deployments(patched, path, display)) == _substance(
        module.to_deployments(base, path, display)
    )


# what says where a value sits, or how to write it back, rather than what it is
_POSITIONAL = {"span", "locations", "unread", "writer", "document", "file"}


def _substance(read: Any) -> Any:
    """Deployments and findings as plain data without positions, to compare two readings."""
    if is_dataclass(read) and not isinstance(read, type):
        read = {f.name: getattr(read, f.name) for f in fields(read)}
    if isinstance(read, dict):
        out = {k: _substance(v) for k, v in read.items() if k not in _POSITIONAL}
        if isinstance(out.get("hints"), list):  # of a workload's annotations, only those that
            # may name the model or the GPU are read (a display name is not)
            out["hints"] = [h for h in out["hints"] if _names_what_is_read(h)]
        return out
    if isinstance(read, (list, tuple)):
        return [_substance(v) for v in read]
    if isinstance(read, Span):
        return None
    return read if isinstance(read, (str, int, float, bool, type(None))) else repr(read)


def _is_kustomization(data: Any) -> bool:
    return isinstance(data, dict) and data.get("kind") == "Kustomization"


def _may_run(patch: _Patch) -> bool:
    return str(patch.target.get("kind", "")) not in NO_ENGINE_KINDS


def _reads(path: str) -> bool:
    """Whether a patched path is one a reader of hbmlint's could read (not a port, a probe...)."""
    try:
        tokens = pointer(path)
    except PatchError:
        return False
    if not tokens or tokens[0] == "metadata" or any(t in _UNREAD_FIELDS for t in tokens):
        return False
    if "resources" in tokens:  # of a container's resources, only the GPUs matter
        rest = tokens[tokens.index("resources") + 1 :]
        return len(rest) < 2 or "gpu" in rest[1].lower()
    return True


def _decisive(path: str) -> bool:
    tokens = pointer(path)
    return "resources" in tokens or any(t in _DECISIVE_FIELDS for t in tokens)


def _first_per_target(read: list[tuple[_Patch, _Op]]) -> list[tuple[_Patch, _Op]]:
    """One finding per object patched: its first decisive op, else its first op hbmlint
    reads."""
    chosen: dict[str, tuple[_Patch, _Op]] = {}
    for patch, op in read:
        key = _what(patch)
        held = chosen.get(key)
        if held is None or (_decisive(op.path) and not _decisive(held[1].path)):
            chosen[key] = (patch, op)
    return list(chosen.values())


def _what(patch: _Patch) -> str:
    kind, name = patch.target.get("kind"), patch.target.get("name")
    if kind and name:
        return f"{kind} {name}"
    return str(kind or name or "the objects it targets")


def _kind_of(op: _Op) -> str:
    return "strategic-merge patch" if op.op == "merge" else "JSON patch"


def _not_built(patch: _Patch, op: _Op, why: str, display: str) -> Diagnostic:
    decisive = _decisive(op.path)
    return input_diagnostic(
        "HBM014",
        f"this overlay's {_kind_of(op)} changes {op.path} of {_what(patch)}, but hbmlint cannot "
        f"build what the overlay makes ({why}), so {_what(patch)} as patched was not checked",
        display,
        op.at,
        fixes=[
            "Lint what the overlay builds: `kubectl kustomize DIR | hbmlint -` "
            "(or `kustomize build DIR | hbmlint -`)"
        ],
        severity=Severity.WARNING if decisive else None,
    )


def _fails(patch: _Patch, op: _Op, why: str, display: str) -> Diagnostic:
    return input_diagnostic(
        "HBM014",
        f"kustomize cannot apply this JSON patch to {_what(patch)} as its bases define it "
        f"({why}); what the overlay would run was not checked",
        display,
        op.at,
        fixes=["Point the op's path at a field the base has (`kubectl kustomize DIR` shows it)"],
        severity=Severity.WARNING,
    )


def _build(
    kustomization: YamlDocument,
    directory: Path,
    at: Span | None,
    depth: int,
    seen: frozenset[Path],
    read: tuple[list[_Patch], str | None] | None = None,
) -> list[_Object]:
    """The objects a kustomization builds. ``at``: where every value of it is reported (a base
    seen from the overlay being linted); None for the overlay itself, whose values are reported
    at their own lines."""
    data = kustomization.data
    unknown = sorted(str(k) for k in data if k not in _INERT and k not in _APPLIED)
    if unknown:
        raise _Unbuildable(f"{_shown(directory)} uses `{unknown[0]}`, which hbmlint does not apply")
    _check_replacements(data.get("replacements"), directory)
    patches, blocker = read if read is not None else _patches(kustomization, directory, at)
    if blocker:
        raise _Unbuildable(blocker)
    objects: list[_Object] = []
    for key in ("resources", "bases"):
        entries = data.get(key) or []
        if not isinstance(entries, list):
            raise _Unbuildable(f"`{key}` is not a list")
        for index, entry in enumerate(entries):
            where = at or kustomization.span((key, index))
            objects += _resource(entry, directory, where, depth, seen)
    _generate(kustomization, directory, at, objects)
    prefix, suffix = str(data.get("namePrefix") or ""), str(data.get("nameSuffix") or "")
    for obj in objects:
        meta = obj.tree.value.get("metadata")
        if (prefix or suffix) and meta and isinstance(meta.value, dict) and "name" in meta.value:
            name = meta.value["name"]
            name.value = f"{prefix}{name.value}{suffix}"
    for patch in patches:
        for obj in objects:
            if _targets(patch.target, obj):
                if at is None and obj.before is None:
                    obj.before = copy.deepcopy(obj.tree)
                if patch.merge is not None:
                    try:
                        merge(obj.tree, patch.merge)
                    except NotRead as why:
                        raise _Unbuildable(f"a strategic-merge patch: {why}") from why
                    obj.touched += patch.ops
                    continue
                for op in patch.ops:
                    try:
                        apply(obj.tree, op.op, op.path, op.value)
                    except PatchError as why:
                        if not _may_hold_engine(obj):
                            break  # a Deployment of a controller, an operator: not ours to judge
                        if isinstance(why, NotRead):
                            raise _Unbuildable(str(why)) from why
                        if at is None:
                            raise _OpFailed(patch, op, str(why)) from why
                        raise _Unbuildable(f"a patch in {_shown(directory)} fails: {why}") from why
                obj.touched += patch.ops
    _images(data, kustomization, objects, at)
    return objects


def _engine_in_reach(
    kustomization: YamlDocument, directory: Path, depth: int, seen: frozenset[Path]
) -> bool:
    """Whether the kustomization, or a file its resources and components name (through the
    kustomizations of folders, as far as they can be read), mentions an inference engine."""
    from . import mentions_engine

    if mentions_engine(kustomization.text):
        return True
    data = kustomization.data
    for key in ("resources", "bases", "components"):
        entries = data.get(key) if isinstance(data, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, str) or "://" in entry or depth >= _DEPTH:
                continue
            try:
                target = (directory / entry).resolve()
                is_dir = target.is_dir()
            except (OSError, ValueError):
                continue
            if target in seen:
                continue
            if is_dir:
                inner = next(iter(_kustomization_in(str(target)) or []), None)
                if (
                    inner is not None
                    and isinstance(inner.data, dict)
                    and _engine_in_reach(inner, target, depth + 1, seen | {target})
                ):
                    return True
                continue
            documents = _yaml_file(str(target))
            if documents and mentions_engine(documents[0].text):
                return True
    return False


def _may_hold_engine(obj: _Object) -> bool:
    """Whether a format of hbmlint's reads the object (before this patch), or could."""
    from . import detect_format, mentions_engine

    data, _ = unlocate(obj.tree)
    return detect_format(data) is not None or mentions_engine(json.dumps(data, default=str))


def _shown(directory: Path) -> str:
    return f"{directory.name}/kustomization" if directory.name else "the kustomization"


def _resource(
    entry: Any, directory: Path, where: Span, depth: int, seen: frozenset[Path]
) -> list[_Object]:
    if not isinstance(entry, str) or "://" in entry or entry.startswith(("github.com/", "git@")):
        raise _Unbuildable(f"resource {entry!r} is not a local file or directory")
    try:
        target = (directory / entry).resolve()
        is_dir = target.is_dir()
    except (OSError, ValueError) as exc:  # a name with a NUL byte, a loop of links
        raise _Unbuildable(f"resource {entry!r} cannot be read") from exc
    if is_dir:
        if depth >= _DEPTH or target in seen:
            raise _Unbuildable(f"{entry} nests kustomizations too deep")
        documents = _kustomization_in(str(target))
        if documents is None:
            raise _Unbuildable(f"{entry} has no kustomization hbmlint can read")
        inner = next((d for d in documents if isinstance(d.data, dict)), None)
        if inner is None or inner.data.get("kind") == "Component":
            raise _Unbuildable(f"{entry} has no kustomization hbmlint can read")
        return _build(inner, target, where, depth + 1, seen | {target})
    documents = _yaml_file(str(target))
    if documents is None:
        raise _Unbuildable(f"resource {entry} cannot be read")
    objects = []
    for document in documents:
        if not isinstance(document.data, dict):
            continue
        try:
            tree = locate(document.data, lambda _path: where)
        except NotRead as why:
            raise _Unbuildable(f"resource {entry}: {why}") from why
        meta = document.data.get("metadata")
        name = str(meta.get("name", "")) if isinstance(meta, dict) else ""
        objects.append(_Object(tree, name))
    return objects


def _targets(target: dict[str, Any], obj: _Object) -> bool:
    """Whether a patch's target selects an object: kind and name are regular expressions that
    must match whole (kustomize api/resource: "^" + pattern + "$"), the name before or after a
    prefix; group and version against its apiVersion."""
    data = obj.tree.value
    kind = data.get("kind").value if "kind" in data else ""
    meta = data.get("metadata")
    name = ""
    if meta is not None and isinstance(meta.value, dict) and "name" in meta.value:
        name = str(meta.value["name"].value)
    api = str(data["apiVersion"].value) if "apiVersion" in data else ""
    group, _, version = api.rpartition("/")
    for key, wanted in target.items():
        if key == "kind" and not _full(wanted, str(kind)):
            return False
        if key == "name" and not (_full(wanted, name) or _full(wanted, obj.name)):
            return False
        if key == "group" and str(wanted) != group:
            return False
        if key == "version" and str(wanted) != version:
            return False
        if key in ("labelSelector", "annotationSelector"):
            raise _Unbuildable(f"a target's {key} is not applied by hbmlint")
    return True


def _full(pattern: Any, text: str) -> bool:
    try:
        return re.fullmatch(str(pattern), text) is not None
    except re.error:
        return str(pattern) == text


def _images(data: dict, kustomization: YamlDocument, objects: list[_Object], at: Span | None):
    """kustomize's ``images`` transformer: an image named ``name`` takes ``newName``,
    ``newTag`` or ``digest``, reported at the entry."""
    for index, entry in enumerate(data.get("images") or []):
        if not isinstance(entry, dict) or "name" not in entry:
            continue
        where = at or kustomization.span(("images", index))
        for obj in objects:
            _retag(obj.tree, entry, where)


def _retag(tree: Located, entry: dict, where: Span) -> None:
    if isinstance(tree.value, list):
        for member in tree.value:
            _retag(member, entry, where)
        return
    if not isinstance(tree.value, dict):
        return
    for key, member in tree.value.items():
        if key == "image" and isinstance(member.value, str):
            image = member.value
            name, digest = image.split("@", 1) if "@" in image else (image, "")
            tag = ""
            if ":" in name.rsplit("/", 1)[-1]:
                name, tag = name.rsplit(":", 1)
            if name != str(entry["name"]):
                continue
            name = str(entry.get("newName") or name)
            if entry.get("digest"):
                member.value, member.span = f"{name}@{entry['digest']}", where
            elif entry.get("newTag") is not None:
                member.value, member.span = f"{name}:{entry['newTag']}", where
            else:
                rest = f":{tag}" if tag else ""
                member.value = f"{name}{rest}@{digest}" if digest else f"{name}{rest}"
                member.span = where
        else:
            _retag(member, entry, where)


def _patches(
    kustomization: YamlDocument, directory: Path, at: Span | None
) -> tuple[list[_Patch], str | None]:
    """The patches of a kustomization (JSON 6902 and strategic-merge), with their values placed:
    at their own lines in the file being linted (``at`` None), else all at ``at``; and why the
    build is not one hbmlint can do, if it is not."""
    data = kustomization.data
    found: list[_Patch] = []
    blocker: str | None = None
    entries = data.get("patchesStrategicMerge") or []
    for index, entry in enumerate(entries if isinstance(entries, list) else []):
        try:
            if isinstance(entry, str) and "\n" in entry:  # the patch itself, inline
                where = kustomization.span(("patchesStrategicMerge", index))
                found += _read_patch(entry, kustomization.text, where, at, {})
            else:
                where = at or kustomization.span(("patchesStrategicMerge", index))
                found += _read_patch(_patch_file(directory, str(entry)), "", where, where, {})
        except _Unbuildable as why:
            blocker = blocker or str(why)
    for key in ("patches", "patchesJson6902"):
        entries = data.get(key) or []
        if not isinstance(entries, list):
            return found, f"`{key}` is not a list"
        for index, entry in enumerate(entries):
            try:
                if not isinstance(entry, dict):
                    raise _Unbuildable(f"a `{key}` entry is not a mapping")
                target = entry.get("target") if isinstance(entry.get("target"), dict) else {}
                if isinstance(entry.get("patch"), str):
                    where = kustomization.span((key, index, "patch"))
                    found += _read_patch(entry["patch"], kustomization.text, where, at, target)
                elif isinstance(entry.get("path"), str):
                    where = at or kustomization.span((key, index, "path"))
                    text = _patch_file(directory, entry["path"])
                    found += _read_patch(text, "", where, where, target)
                else:
                    raise _Unbuildable(f"a `{key}` entry has neither patch nor path")
            except _Unbuildable as why:
                blocker = blocker or str(why)
    return found, blocker


def _read_patch(
    text: str, file_text: str, block: Span, at: Span | None, target: dict[str, Any]
) -> list[_Patch]:
    """A patch's text as patches: one of its ops for a JSON patch, one per document for a
    strategic-merge patch (whose own kind and name select its object, unless a target does)."""
    documents, error = load_documents(text)
    if error is not None or not documents:
        raise _Unbuildable("a patch is not YAML hbmlint can read")
    if isinstance(documents[0].data, list):
        ops = _ops(documents[0], file_text, block, at, target)
        return [_Patch(target, ops)] if ops else []
    place = _placer(file_text, block, at)
    patches = []
    for document in documents:
        data = document.data
        if not isinstance(data, dict):
            continue
        selects = dict(target) or {
            k: v
            for k, v in (("kind", data.get("kind")), ("name", object_name(data)))
            if isinstance(v, str) and v
        }
        if str(selects.get("kind", "")) in NO_ENGINE_KINDS:
            continue  # a Service, a route: changes nothing hbmlint reads
        if not selects.get("kind") and not selects.get("name"):
            raise _Unbuildable("a strategic-merge patch names no object")
        if data.get("$patch") is not None:
            raise _Unbuildable("a strategic-merge patch that deletes or replaces an object")
        body = {k: v for k, v in data.items() if k not in ("apiVersion", "kind", "metadata")}
        try:
            tree = locate(body, lambda p, d=document: place(d.span(p)))
        except NotRead as why:
            raise _Unbuildable(f"a strategic-merge patch: {why}") from why
        ops: list[_Op] = []
        _merge_ops(tree, [], ops)
        patches.append(_Patch(selects, ops, tree))
    return patches


def _merge_ops(tree: Located, path: list[str], ops: list[_Op]) -> None:
    """One "merge" op per value a strategic-merge patch sets, at a JSON pointer (a list's
    mapping named by its merge key's value), so that what it touches is judged as an op's is."""
    value = tree.value
    if isinstance(value, dict) and value:
        for key, member in value.items():
            if not str(key).startswith("$"):
                _merge_ops(member, [*path, str(key)], ops)
        return
    if isinstance(value, list) and value and all(isinstance(m.value, dict) for m in value):
        for index, member in enumerate(value):
            name = member.value.get("name")
            token = str(name.value) if name is not None else str(index)
            _merge_ops(member, [*path, token], ops)
        return
    ops.append(_Op("merge", _pointer_of(path), None, tree.span))


def _pointer_of(tokens: list[str]) -> str:
    """The JSON pointer of a path's tokens (RFC 6901: ``~`` as ``~0``, ``/`` as ``~1``)."""
    return "".join("/" + t.replace("~", "~0").replace("/", "~1") for t in tokens)


def _check_replacements(replacements: Any, directory: Path) -> None:
    """kustomize's ``replacements`` copy a value of one object into fields of others; hbmlint
    does not apply them, so a build is one it can do only where no target field is one a reader
    of hbmlint's reads (a label, a namespace, a volume's bucket)."""
    if not replacements:
        return
    if not isinstance(replacements, list):
        raise _Unbuildable("`replacements` is not a list")
    for replacement in replacements:
        if not isinstance(replacement, dict) or "path" in replacement:
            raise _Unbuildable(f"{_shown(directory)} uses `replacements` from a file")
        for target in replacement.get("targets") or []:
            paths = target.get("fieldPaths") if isinstance(target, dict) else None
            for field_path in paths if isinstance(paths, list) else []:
                tokens = [
                    t.split("=", 1)[-1].strip("[]")
                    for t in re.findall(r"\[[^\]]*\]|[^.\[\]]+", str(field_path))
                ]
                if _reads(_pointer_of(tokens)):
                    raise _Unbuildable(
                        f"{_shown(directory)} uses `replacements` into {field_path}, "
                        "which hbmlint does not apply"
                    )


def _generate(
    kustomization: YamlDocument, directory: Path, at: Span | None, objects: list[_Object]
) -> None:
    """kustomize's ``configMapGenerator`` and ``secretGenerator``: a ConfigMap (Secret) of the
    key=value lines of ``envs`` files, of ``literals`` and of ``files`` (the file's name, or the
    key before ``=``, to its text); ``behavior: merge`` or ``replace`` changes one of a base.
    Each value is placed at the entry that brings it. (The hash kustomize appends to the name
    is written into the references too, so references match on the name as given.)"""
    data = kustomization.data
    for key, kind in (("configMapGenerator", "ConfigMap"), ("secretGenerator", "Secret")):
        entries = data.get(key) or []
        if not isinstance(entries, list):
            raise _Unbuildable(f"`{key}` is not a list")
        for index, entry in enumerate(entries):
            if not isinstance(entry, dict) or not entry.get("name"):
                raise _Unbuildable(f"a `{key}` entry without a name")
            here = at or kustomization.span((key, index))
            values: dict[str, Located] = {}
            for field_name in ("envs", "env", "literals", "files"):
                listed = entry.get(field_name)
                if field_name == "env" and isinstance(listed, str):
                    listed = [listed]
                for j, item in enumerate(listed if isinstance(listed, list) else []):
                    entry_path = (key, index, field_name, *(() if field_name == "env" else (j,)))
                    where = at or kustomization.span(entry_path)
                    for name, value in _generator_values(field_name, str(item), directory):
                        values[name] = Located(value, where)
            section = "stringData" if kind == "Secret" else "data"
            name = str(entry["name"])
            behavior = str(entry.get("behavior") or "create")
            held = next((o for o in objects if o.name == name and _kind(o.tree) == kind), None)
            if held is not None and behavior in ("merge", "replace"):
                old = held.tree.value.get(section)
                if behavior == "merge" and old is not None and isinstance(old.value, dict):
                    old.value.update(values)
                else:
                    held.tree.value[section] = Located(values, here)
                continue
            tree = {
                "apiVersion": Located("v1", here),
                "kind": Located(kind, here),
                "metadata": Located({"name": Located(name, here)}, here),
                section: Located(values, here),
            }
            objects.append(_Object(Located(tree, here), name))


def _kind(tree: Located) -> str:
    kind = tree.value.get("kind") if isinstance(tree.value, dict) else None
    return str(kind.value) if kind is not None else ""


def _generator_values(field_name: str, item: str, directory: Path) -> list[tuple[str, str]]:
    """The key and value pairs one entry of a generator gives."""
    if field_name == "literals":
        name, _, value = item.partition("=")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        return [(name.strip(), value)]
    if field_name == "files":
        name, _, file = item.partition("=") if "=" in item else ("", "", item)
        text = _patch_file(directory, file.strip(), "the generator's file")
        return [(name.strip() or Path(file).name, text)]
    pairs = []
    for line in _patch_file(directory, item, "the generator's env file").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, equals, value = line.partition("=")
        if not equals:
            raise _Unbuildable(f"{item}: a line without `=`")
        pairs.append((name.strip(), value))
    return pairs


def _patch_file(directory: Path, name: str, what: str = "patch file") -> str:
    try:
        file = directory / name
        if file.stat().st_size > 4 * 1024 * 1024:
            raise _Unbuildable(f"{what} {name} is too large")
        text = file.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError) as exc:
        raise _Unbuildable(f"{what} {name} cannot be read") from exc
    return text


def _ops(
    document: YamlDocument, file_text: str, block: Span, at: Span | None, target: dict[str, Any]
) -> list[_Op]:
    """A JSON patch's ops (positions: inside a ``|`` block of the file being linted, each op at
    its own line)."""
    if not target:
        raise _Unbuildable("a JSON patch without a target")
    place = _placer(file_text, block, at)
    ops: list[_Op] = []
    for index, raw in enumerate(document.data):
        if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
            raise _Unbuildable("an op without a path")
        op = str(raw.get("op", ""))
        if op not in ("add", "replace", "remove", "test"):
            raise _Unbuildable(f"op {op!r} is not applied by hbmlint")
        value = None
        if op != "remove":
            if "value" not in raw:
                raise _Unbuildable(f"op {op!r} without a value")
            try:
                value = locate(
                    raw["value"], lambda p, i=index: place(document.span((i, "value", *p)))
                )
            except NotRead as why:
                raise _Unbuildable(f"an op's value: {why}") from why
        ops.append(_Op(op, raw["path"], value, place(document.span((index, "path")))))
    return ops


def _placer(file_text: str, block: Span, at: Span | None):
    """A span inside a patch's text, as a span of the file being linted: a literal block
    (``patch: |-``) starts on the line after its indicator, at the block's indentation; a
    patch written on one line, or in another file, is placed at ``at`` or the block."""
    lines = file_text.split("\n") if at is None and file_text else []
    start = block.line  # the indicator's line; the block's first line follows
    head = lines[start - 1][block.column - 1 :] if 0 < start <= len(lines) else ""
    if not head.startswith(("|", ">")) or start >= len(lines):
        return lambda _span: at or block
    first = lines[start]
    indent = len(first) - len(first.lstrip(" "))

    def place(span: Span) -> Span:
        return Span(start + span.line, indent + span.column)

    return place


@lru_cache(maxsize=256)
def _kustomization_in(directory: str) -> list[YamlDocument] | None:
    for name in _FILES:
        documents = _yaml_file(str(Path(directory, name)))
        if documents is not None:
            return documents
    return None


@lru_cache(maxsize=512)
def _yaml_file(path: str) -> list[YamlDocument] | None:
    try:
        file = Path(path)
        if not file.is_file() or file.stat().st_size > 4 * 1024 * 1024:
            return None
        text = file.read_text(encoding="utf-8", errors="replace")
    except (OSError, ValueError):
        return None
    documents, error = load_documents(text)
    return None if error is not None else documents
