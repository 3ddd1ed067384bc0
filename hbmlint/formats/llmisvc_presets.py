"""KServe LLMInferenceService ``spec.baseRefs``: the LLMInferenceServiceConfig presets a service
names, merged under it as KServe's controller does before it renders the pods.

kserve/kserve@aaac4e2 pkg/controller/v1alpha2/llmisvc/config_merge.go (combineBaseRefsConfig,
mergeSpecs): the well-known presets, then each ``baseRefs`` config in order, then the service's
own spec, each merged onto the one before with a Kubernetes strategic merge patch. For the
fields hbmlint reads that is: mappings merge key by key, the later value wins; ``containers``,
``initContainers``, ``env``, ``volumes`` and ``volumeMounts`` merge item by item on ``name``
(their patchMergeKey in k8s.io/api core/v1 types.go); any other list is replaced whole.

A preset found in the same file keeps its own lines; one from another file of the run is placed
at the service's ``baseRefs`` entry that names it. A preset found nowhere in the run is a
warning: what it sets (often the engine's command line, its flags, the GPUs) is not in the
budget, which is then of the service over KServe's default template.
"""

from __future__ import annotations

import json

from ..diagnostics import Diagnostic, Severity, input_diagnostic
from ..yamlsrc import Span, YamlDocument, load_documents
from .json_patch import Located, NotRead, locate, unlocate
from .podspec import object_name, tree_kind, value_at

CONFIG_KIND = "LLMInferenceServiceConfig"
_BY_NAME = {"containers", "initContainers", "env", "volumes", "volumeMounts"}


def with_presets(
    document: YamlDocument, display: str, name: str
) -> tuple[YamlDocument, list[Diagnostic], list[str]]:
    """The service merged over the presets its ``baseRefs`` name that the run holds; findings for
    those it does not; and the names of the presets not found."""
    refs = value_at(document.data, ("spec", "baseRefs"))
    if not isinstance(refs, list) or not refs:
        return document, [], []
    try:
        return _merged(document, display, name, refs)
    except NotRead:  # a value nested past any manifest's depth (a YAML alias holding itself)
        return document, [], []


def _merged(
    document: YamlDocument, display: str, name: str, refs: list
) -> tuple[YamlDocument, list[Diagnostic], list[str]]:
    here = _configs_here(document)
    merged: Located | None = None
    findings: list[Diagnostic] = []
    missing: list[str] = []
    for index, ref in enumerate(refs):
        wanted = str(ref.get("name", "")) if isinstance(ref, dict) else ""
        at = document.span(("spec", "baseRefs", index))
        if wanted in here:
            config = here[wanted]
            tree = locate(config.data.get("spec") or {}, lambda p, c=config: c.span(("spec", *p)))
        else:
            spec = _config_elsewhere(wanted)
            if spec is None:
                missing.append(wanted)
                findings.append(_missing(wanted, at, display, name))
                continue
            tree = locate(spec, lambda _p, a=at: a)
        merged = tree if merged is None else merge(merged, tree)
    if merged is None:
        return document, findings, missing
    own = locate(document.data.get("spec") or {}, lambda p: document.span(("spec", *p)))
    spec, spans = unlocate(merge(merged, own), ("spec",))
    data = {**document.data, "spec": spec}
    spans.update({p: s for p, s in document.spans.items() if not p or p[0] != "spec"})
    keys = {**spans, **{p: s for p, s in document.key_spans.items() if p in spans}}
    merged_document = YamlDocument(
        data=data, index=document.index, spans=spans, key_spans=keys, text=document.text
    )
    return merged_document, findings, missing


def merge(base: Located, override: Located) -> Located:
    """``override`` merged onto ``base`` as a strategic merge patch does for these fields."""
    if isinstance(base.value, dict) and isinstance(override.value, dict):
        out = dict(base.value)
        for key, value in override.value.items():
            if key in out and key in _BY_NAME:
                out[key] = _merge_named(out[key], value)
            elif key in out:
                out[key] = merge(out[key], value)
            else:
                out[key] = value
        return Located(out, override.span)
    return override


def _merge_named(base: Located, override: Located) -> Located:
    if not isinstance(base.value, list) or not isinstance(override.value, list):
        return override
    out = list(base.value)
    for item in override.value:
        key = item.value.get("name") if isinstance(item.value, dict) else None
        position = next(
            (
                i
                for i, held in enumerate(out)
                if key is not None
                and isinstance(held.value, dict)
                and held.value.get("name")
                and held.value["name"].value == key.value
            ),
            None,
        )
        if position is None:
            out.append(item)
        else:
            out[position] = merge(out[position], item)
    return Located(out, override.span)


def _configs_here(document: YamlDocument) -> dict[str, YamlDocument]:
    if CONFIG_KIND not in document.text:
        return {}
    documents, _ = load_documents(document.text)
    return {
        object_name(d.data): d
        for d in documents
        if isinstance(d.data, dict) and d.data.get("kind") == CONFIG_KIND and object_name(d.data)
    }


def _config_elsewhere(wanted: str) -> dict | None:
    for name, values in tree_kind(CONFIG_KIND):
        if name == wanted:
            try:
                spec = json.loads(values.get("json", "")).get("spec")
            except (ValueError, AttributeError):
                return None
            return spec if isinstance(spec, dict) else {}
    return None


def _missing(wanted: str, at: Span, display: str, name: str) -> Diagnostic:
    return input_diagnostic(
        "HBM014",
        f"spec.baseRefs names {CONFIG_KIND} '{wanted}', which is not in the files linted: what "
        "it sets (often the engine's command line and flags, the GPUs) is not in this budget, "
        "which is of the service over KServe's default template",
        display,
        at,
        name,
        [
            f"Lint the file that defines {CONFIG_KIND} '{wanted}' together with this one "
            f"(`kubectl get llminferenceserviceconfig {wanted} -o yaml`)"
        ],
        severity=Severity.WARNING,
    )


# the pre-pass's key for a preset some service of the run names in its baseRefs
_NAMED = "llmisvc-baseref"


def tree_objects(documents: list[YamlDocument]) -> dict[tuple[str, str], dict[str, str]]:
    """For the run's pre-pass: the presets a file defines, each as its object in JSON, and the
    presets its services name."""
    found: dict[tuple[str, str], dict[str, str]] = {}
    for document in documents:
        data = document.data
        if not isinstance(data, dict):
            continue
        if data.get("kind") == CONFIG_KIND and object_name(data):
            found[(CONFIG_KIND, object_name(data))] = {"json": json.dumps(data, default=str)}
        refs = value_at(data, ("spec", "baseRefs")) if data.get("kind") != CONFIG_KIND else None
        for ref in refs if isinstance(refs, list) else []:
            if isinstance(ref, dict) and ref.get("name"):
                found[(_NAMED, str(ref["name"]))] = {}
    return found


def named_by_a_service(data: dict) -> bool:
    """Whether a preset is named in the baseRefs of a service of the run: it is read there."""
    return any(name == object_name(data) for name, _ in tree_kind(_NAMED))
