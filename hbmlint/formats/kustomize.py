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
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from ..yamlsrc import Span, load_documents

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


def _here(entry: object) -> str:
    """The file name an entry gives when it names a file of the kustomization's own directory
    (``patch.yaml``, ``./patch.yaml``); "" for anything else (a directory above, a URL, an
    inline patch)."""
    if not isinstance(entry, str) or "\n" in entry:
        return ""
    name = entry.strip().removeprefix("./")
    return name if name and "/" not in name else ""
