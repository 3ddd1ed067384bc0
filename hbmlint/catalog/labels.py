"""Which GPU a pod's node labels select, and which model a local path or a workload's labels
name. Format readers collect labels with their lines; resolve asks here what they mean. The
label keys and the instance shapes live in labels.yaml and instance_types.yaml, with sources."""

from __future__ import annotations

import re
import sys
from dataclasses import field
from functools import cache, lru_cache
from pathlib import PurePosixPath
from typing import Any

from ..lazyre import LazyPattern
from ..records import dataclass
from ..spec import GPU_RESOURCE, IMAGE_BUILD, ROCM_IMAGE, ROCM_SAID, Label
from ..units import parse_quantity
from ..yamlsrc import Span

__all__ = [
    "GpuChoice",
    "gpu_from_labels",
    "instance_types",
    "label_keys",
    "model_candidates",
    "model_path_parts",
]


def _data(name: str) -> Any:
    from . import _load  # the package's cached YAML loader

    return _load(name)


@cache
def label_keys(kind: str) -> tuple[str, ...]:
    """The label keys of one kind in labels.yaml (gpu_type, gpu_generic, instance_type,
    gpu_memory, model)."""
    return tuple(str(entry["key"]) for entry in _data("labels.yaml")[kind])


@cache
def _unblock(key: str) -> str:
    for entry in _data("labels.yaml")["gpu_generic"]:
        if entry["key"] == key:
            return str(entry.get("unblock", ""))
    return ""


@cache
def instance_types() -> dict[str, dict]:
    """Cloud instance shape (lower case) -> {gpu, count}."""
    table = _data("instance_types.yaml")["instance_types"]
    return {str(k).lower(): v for k, v in table.items()}


@cache
def _family_gpus() -> dict[str, str]:
    """Instance family (lower case, the shape's name before its dot) -> the GPU all of its shapes
    in instance_types.yaml carry; a family whose shapes differ is left out."""
    found: dict[str, set[str]] = {}
    for shape, entry in instance_types().items():
        family, dot, _ = shape.partition(".")
        if dot:
            found.setdefault(family, set()).add(str(entry["gpu"]))
    return {family: gpus.pop() for family, gpus in found.items() if len(gpus) == 1}


@dataclass
class GpuChoice:
    """What the labels say about the GPU: a type (a catalog name, or the label's value when the
    catalog does not know it), or only a memory size, or that a GPU is there but not which."""

    type: str | None = None
    type_span: Span | None = None
    label: str | None = None  # the label key the type came from
    known: bool = False  # type is a catalog GPU
    written: str | None = None  # the name as the label gives it (Tesla-V100)
    memory: Any = None  # pint Quantity of bytes
    memory_span: Span | None = None
    # labels that say "a GPU" without naming it, with how to name it: (label, advice)
    generic: list[tuple[Label, str]] = field(default_factory=list)
    # the vendor the pod's GPU request names (amd.com/gpu: "amd"), and where
    vendor: str | None = None
    vendor_span: Span | None = None
    vendor_why: str = "the container asks for AMD GPUs (amd.com/gpu)"
    # a MIG slice of that GPU the pod gets (its profile, "1g.10gb"), and where it is said
    mig: str | None = None
    mig_span: Span | None = None
    # what chose the type or the memory beyond the type label itself (a memory label that
    # narrows "a100" to the 80 GB part, a memory label that is a catalog card's total): said
    # in the budget's assumptions
    why: str | None = None


# A MIG profile: compute slices and memory (1g.10gb, 3g.40gb, 1g.12gb+me). GPU feature
# discovery appends it to nvidia.com/gpu.product under the single strategy
# (NVIDIA-A100-SXM4-80GB-MIG-1g.10gb), the mixed strategy names it in the resource
# (nvidia.com/mig-1g.10gb), GKE in cloud.google.com/gke-gpu-partition-size.
MIG_PROFILE = LazyPattern(r"(\d+)g\.(\d+)gb(?:\+me)?", re.I)
_MIG_SUFFIX = re.compile(r"-MIG-(\d+g\.\d+gb(?:\+me)?)$", re.I)
# GPU feature discovery's product suffix on a shared card (NVIDIA GPU operator docs, GPU
# time-slicing: "nvidia.com/gpu.product = A100-SXM4-40GB-SHARED")
_SHARED = "-SHARED"
SHARED_SAID = (
    "a time-sliced or MPS share of the card: its memory is not split, and other pods on it "
    "use it too"
)


# ROCm images built for one GPU family, as their tags say: SGLang's `-rocm700-mi35x` builds are
# for the MI350 / MI355 (SGLang's DeepSeek-V3.2 docs: "# MI350/MI355 docker pull
# lmsysorg/sglang:v0.5.8-rocm700-mi35x"); gfx950 is their LLVM target. Both cards carry 288 GB,
# so the one catalog entry budgets either. (`mi30x` builds run on the MI300X and the MI325X,
# 192 or 256 GB: no one memory, so no GPU is taken from them.)
_IMAGE_BUILD_GPU = LazyPattern(r"(?:^|[-_.])(?:mi35x|gfx950)(?:$|[-_.])", re.I)


# NVIDIA images built for the DGX Spark alone (GB10, Arm with sm_121 kernels): their name says
# so (`scitrera/dgx-spark-vllm:0.13.0-t4`, LePhanFF/MyOpenclawAgent's launch scripts; a `-gb10`
# tag). "gb10" as a word only (not GB100 / GB200).
_SPARK_BUILD = LazyPattern(r"(?:^|[-_./:])(?:dgx-?spark|gb10)(?:$|[-_./:])", re.I)


def image_build_gpu(image: str) -> str | None:
    """The GPU an image's name says it is built for (``lmsysorg/sglang:v0.5.8-rocm700-mi35x``
    is MI355X, ``scitrera/dgx-spark-vllm`` GB10), or None."""
    lowered = image.lower()
    if ("spark" in lowered or "gb10" in lowered) and _SPARK_BUILD.search(lowered):
        return "GB10"
    return _rocm_build_gpu(image)


def _rocm_build_gpu(image: str) -> str | None:
    tag = image.rpartition("/")[2].partition(":")[2].lower()
    if "mi35x" not in tag and "gfx950" not in tag:
        return None  # (most images: the pattern is not compiled for them)
    return "MI355X" if _IMAGE_BUILD_GPU.search(tag) else None


def gpu_from_labels(labels: list[Label]) -> GpuChoice:
    """The GPU the node labels a pod requires select. Where several are allowed (``In`` with
    many values, several labels), the one with the least memory: the budget must hold on every
    node the pod may land on."""
    # the catalog package imports this module (no module-level import back): its find_gpu is
    # read from the loaded package at call time, without an import statement's machinery
    find_gpu = sys.modules[__package__].find_gpu

    candidates: list[tuple[str, Span, str]] = []
    by_key = {label.key: label for label in labels}
    shapes = instance_types()
    mig: tuple[str, Span] | None = None
    shared: Label | None = None
    for label in labels:
        if label.key in label_keys("mig"):
            # the MIG manager's all-<profile> configuration: every slice of that profile
            profile = label.value.strip().removeprefix("all-")
            if MIG_PROFILE.fullmatch(profile):
                mig = (profile, label.span)
        if label.key in label_keys("gpu_type"):
            value = label.value
            if value.upper().endswith(_SHARED) and label.key == "nvidia.com/gpu.product":
                # GPU feature discovery on a card the device plugin shares (time-slicing,
                # MPS) without renaming its resource: the card's name, then -SHARED
                value = value[: -len(_SHARED)]
                shared = label
            suffix = _MIG_SUFFIX.search(value)
            if suffix:
                mig = (suffix.group(1), label.span)
                candidates.append((value[: suffix.start()], label.span, label.key))
                continue
            candidates.append((value, label.span, label.key))
        elif label.key in label_keys("instance_type") and label.value.lower() in shapes:
            candidates.append((shapes[label.value.lower()]["gpu"], label.span, label.key))
        elif label.key == GPU_RESOURCE:
            # a GPU resource named for its model (NRP Nautilus: nvidia.com/a100)
            tail = label.value.partition("/")[2]
            if not tail.endswith(".shared") and find_gpu(tail) is not None:
                candidates.append((tail, label.span, label.key))
        elif label.key == IMAGE_BUILD:
            built_for = image_build_gpu(label.value)
            if built_for is not None:
                candidates.append((built_for, label.span, label.key))
        elif label.key in label_keys("instance_family"):
            gpu = _family_gpus().get(label.value.strip().lower())
            if gpu is not None:
                candidates.append((gpu, label.span, label.key))
    family = by_key.get("karpenter.k8s.aws/instance-family")
    size = by_key.get("karpenter.k8s.aws/instance-size")
    if family and size and f"{family.value}.{size.value}".lower() in shapes:
        sku = f"{family.value}.{size.value}".lower()
        candidates.append((shapes[sku]["gpu"], family.span, family.key))
    choice = GpuChoice()
    memories = [
        # int() strips fewer characters than str.strip() ("0\x1f"): convert what was checked
        (int(label.value.strip()), label.span, label.key)
        for label in labels
        if label.key in label_keys("gpu_memory")
        and label.value.strip().isdecimal()
        and label.value.strip().isascii()
    ]
    least = min(memories, key=lambda m: m[0]) if memories else None
    known = [
        (*_narrowed(find_gpu(name), name, least), name, span, key) for name, span, key in candidates
    ]
    named = [k for k in known if k[0] is not None]
    if named:
        info, why, written, span, key = min(named, key=lambda k: k[0].memory)
        if why is not None:
            written = info.name  # the memory label said which part: no other is left
        if shared is not None:
            why = ", ".join(filter(None, [why, f"{shared.key}: {shared.value}, {SHARED_SAID}"]))
        return GpuChoice(
            type=info.name,
            type_span=span,
            label=key,
            known=True,
            written=written,
            mig=mig[0] if mig else None,
            mig_span=mig[1] if mig else None,
            why=why,
        )
    if candidates:
        choice.type, choice.type_span, choice.label = candidates[0]
    if mig is not None:  # a slice of a card named elsewhere (--gpu): resolve cuts it
        choice.mig, choice.mig_span = mig
    if least is not None:
        mib, span, key = least
        choice.memory = parse_quantity(f"{mib} MiB", "[information]")
        choice.memory_span = span
        card = reported_memory(mib)
        if card is not None:
            choice.memory, said = card
            choice.why = f"{key}: {mib} {said}"
    choice.generic = [
        (label, _unblock(label.key)) for label in labels if label.key in label_keys("gpu_generic")
    ]
    amd = by_key.get("amd.com/gpu")
    rocm = by_key.get(ROCM_IMAGE)
    said = by_key.get(ROCM_SAID)
    if amd is not None:
        choice.vendor, choice.vendor_span = "amd", amd.span
    elif rocm is not None:
        choice.vendor, choice.vendor_span = "amd", rocm.span
        choice.vendor_why = f"the container runs the ROCm image {rocm.value} (AMD GPUs)"
    elif said is not None:
        choice.vendor, choice.vendor_span = "amd", said.span
        choice.vendor_why = f"{said.value}, so the engine runs on AMD GPUs"
    return choice


def _narrowed(info: Any, name: str, least: tuple[int, Span, str] | None) -> tuple[Any, str | None]:
    """The catalog GPU a type label names, narrowed by a memory label of the same pod: "a100"
    names the 40 GB and the 80 GB part alike, and Karpenter's instance-gpu-memory beside it
    says which (81920 MiB holds the larger part's 80 GB as sold; 40960 does not). With the
    reason, said in the budget; None where no memory label settles it."""
    if info is None or least is None:
        return info, None
    larger = sys.modules[__package__].larger_variant(name)
    if larger is None or larger.marketing_memory is None or larger.name == info.name:
        return info, None
    mib, _, key = least
    sold = f"{larger.marketing_memory.to('GB').magnitude:g} GB"
    if parse_quantity(f"{mib} MiB", "[information]") < larger.marketing_memory:
        return (
            info,
            f"'{name}' names no memory size, and {key}: {mib} (MiB) rules out the {sold} part",
        )
    return larger, f"'{name}' names no memory size, and {key}: {mib} (MiB) selects the {sold} part"


@cache
def _nvidia_smi_totals() -> dict[int, list[str]]:
    """nvidia-smi's total (MiB) -> the catalog GPUs that show it (gpus.yaml nvidia_smi_mib)."""
    from . import _entries

    totals: dict[int, list[str]] = {}
    for entry in _entries("gpus.yaml", "gpus"):
        mib = entry.get("nvidia_smi_mib")
        if isinstance(mib, int) and not isinstance(mib, bool):
            totals.setdefault(mib, []).append(str(entry["name"]))
    return totals


def reported_memory(mib: int) -> tuple[Any, str] | None:
    """The memory the engine sees on an NVIDIA GPU a memory label gives as ``mib`` MiB, with
    what says so: a label (GPU feature discovery's nvidia.com/gpu.memory) that equals a catalog
    card's nvidia-smi total is that card, whose driver keeps 0.3-0.9 GiB of it; one that is a
    whole number of GiB equal to cards' size as sold (Karpenter's 81920: "80 GB") is one of
    them. Where several cards match, the most any of them reports (never below what the card
    the pod gets reports). None where no card matches: the label's figure is taken as it is."""
    from ..units import format_bytes
    from . import _entries

    find_gpu = sys.modules[__package__].find_gpu
    label = parse_quantity(f"{mib} MiB", "[information]")
    names = _nvidia_smi_totals().get(mib, [])
    sold = None
    if not names and mib % 1024 == 0:
        sold = parse_quantity(f"{mib // 1024} GB", "[information]")
        names = [
            str(e["name"])
            for e in _entries("gpus.yaml", "gpus")
            if (info := find_gpu(str(e["name"]))) is not None and info.marketing_memory == sold
        ]
    cards = [
        info
        for info in map(find_gpu, names)
        if info is not None and info.vendor == "nvidia" and info.memory < label
    ]
    if not cards:
        return None
    best = max(cards, key=lambda info: info.memory)
    shown = format_bytes(best.memory)
    if sold is not None:
        said = (
            f"(MiB) is {mib // 1024} GiB, the size the catalog's {mib // 1024} GB NVIDIA cards "
            f"are sold as ({len(cards)} of them); the most any of them reports to the engine is "
            f"{shown} (the {best.name}'s)"
        )
    elif len(cards) == 1:
        said = (
            f"(MiB) is the nvidia-smi total of the {best.name}, which reports {shown} to the engine"
        )
    else:
        listed = ", ".join(sorted(c.name for c in cards))
        said = (
            f"(MiB) is the nvidia-smi total of the {listed}; the most any of them reports to "
            f"the engine is {shown} (the {best.name}'s)"
        )
    return best.memory, said


# a Slurm gres type (a site's name) that gives the GPU's memory in GB beside its model, or alone:
# h100-96, a100-80, h200-141, a100_40gb, h100-47 (NUS SoC: a 47 GB MIG slice of its H100s), 80g
_SIZED = LazyPattern(r"(?:([a-z][a-z0-9]*?)[-_])?(\d+)(?:g|gb)?", re.I)


def sized_gpu_type(written: str) -> tuple[Any, int, Any] | None:
    """A site's GPU type that says a memory size: (the catalog GPU its model part names, or None
    where it names only the size; the size in GB; the catalog GPU of that model and that size
    as sold, or None where the catalog has none). None for a name of another shape."""
    find_gpu = sys.modules[__package__].find_gpu
    found = _SIZED.fullmatch(written.strip())
    if found is None or (found.group(1) is None and not written.strip()[-1:].isalpha()):
        return None  # a bare number is a count, not a size
    model, gb = found.group(1), int(found.group(2))
    base = find_gpu(model) if model else None
    if model and base is None:
        return None
    exact = find_gpu(f"{model}-{gb}GB") if model else None
    sold = parse_quantity(f"{gb} GB", "[information]")
    if exact is not None and exact.marketing_memory != sold:
        exact = None
    return base, gb, exact


# ------------------------------------------------------------------------------------- models


def _loose(name: str) -> str:
    """Model names compared loosely: case, and '.', '_', '-' and spaces alike (a label value
    cannot hold a dot-free "3.1", so GKE writes Llama-3-1-8B)."""
    return re.sub(r"[\s._\-]+", "-", name.strip().lower())


@cache
def _by_basename(aliases: bool, loose: bool) -> dict[str, list[str]]:
    """Catalog models by repository name, each with the ids it may mean: the ids' names, and
    with ``aliases`` the aliases' too (Meta-Llama-3.1-8B-Instruct); compared ``loose``ly (a
    dot as a hyphen, as labels must write it) or as catalog lookups compare names."""
    from . import _key, _model_index

    compared = _loose if loose else _key
    index: dict[str, set[str]] = {}
    for name, entry in _model_index().items():
        if aliases or name == _key(entry["id"]):
            index.setdefault(compared(name.rpartition("/")[2]), set()).add(entry["id"])
    return {name: sorted(ids) for name, ids in index.items()}


def catalog_model_named(repository: str, aliases: bool = False, loose: bool = True) -> str | None:
    """The one catalog model whose repository name (an id's, or with ``aliases`` an alias's
    too) is ``repository``; None where none or several are."""
    from . import _key

    ids = _by_basename(aliases, loose).get((_loose if loose else _key)(repository), [])
    return ids[0] if len(ids) == 1 else None


def looks_like_path(name: str) -> bool:
    """A model given as a directory (``/models/llama``, ``./ckpt``, ``~/m``, ``s3://...``)
    rather than a Hugging Face id."""
    return name.startswith(("/", "./", "../", "~")) or "://" in name or name.count("/") > 1


_BRANCHES = ("main", "master")
_COMMIT = LazyPattern(r"[0-9a-f]{40}")


def model_candidates(name: str) -> list[tuple[str, str]]:
    """Hugging Face ids a local path (or an unknown name) may hold, best first, each with the
    hint it comes from: a cache directory (``models--org--name``), an ``org/name`` tail, a last
    component that is a catalog model's name."""
    return list(_model_candidates(name))


def model_path_parts(name: str) -> list[str]:
    """A local path's components up to the directory that holds the model: a cache snapshot
    path ends in snapshots/<revision>, a download kept per revision in ORG/NAME/main (or its
    commit hash), and the model is above those."""
    parts = [p for p in PurePosixPath(name.split("://", 1)[-1]).parts if p not in ("/", ".", "..")]
    if len(parts) > 2 and parts[-2] == "snapshots":
        return parts[:-2]
    if len(parts) > 2 and (parts[-1] in _BRANCHES or _COMMIT.fullmatch(parts[-1])):
        return parts[:-1]
    return parts


# a directory named ORG--NAME, as the Hugging Face cache names its own (models--ORG--NAME) and
# as download scripts flatten an id into one directory (/models/meta-llama--Llama-3.1-8B)
_ID_PART = LazyPattern(r"[A-Za-z0-9][\w.-]*")


def _flattened_id(directory: str) -> str | None:
    org, sep, repository = directory.partition("--")
    if not sep or org == "models" or not _ID_PART.fullmatch(org):
        return None
    return f"{org}/{repository}" if _ID_PART.fullmatch(repository) else None


def _joined_with_org(directory: str) -> str | None:
    """The catalog model a directory named ORG-NAME holds (``google-gemma-4-31B-it``, as
    download scripts flatten an id with one hyphen): a catalog model named NAME whose
    organisation is ORG. Only the catalog's ids, so a hyphen inside a name is never split into
    an organisation that does not publish it."""
    for at, char in enumerate(directory):
        if char != "-" or not at:
            continue
        model = catalog_model_named(directory[at + 1 :])
        if model is not None and model.partition("/")[0].casefold() == directory[:at].casefold():
            return model
    return None


# the hint a Hugging Face cache directory gives: the id itself, as the cache writes it
# (models--ORG--NAME), not a name made up from a path
HF_CACHE_HINT = "its Hugging Face cache directory name"


@lru_cache(maxsize=1024)  # a run's manifests name the same few models, file after file
def _model_candidates(name: str) -> tuple[tuple[str, str], ...]:
    found: list[tuple[str, str]] = []
    cache_dir = re.search(r"models--([^/]+?)--([^/]+)", name)
    if cache_dir:
        found.append((f"{cache_dir[1]}/{cache_dir[2]}", HF_CACHE_HINT))
    parts = model_path_parts(name)
    if parts and looks_like_path(name):
        flattened = _flattened_id(parts[-1])
        if flattened:
            found.append((flattened, f"the path's last part '{parts[-1]}' (ORG--NAME)"))
        joined = _joined_with_org(parts[-1])
        if joined:
            found.append((joined, f"the path's last part '{parts[-1]}' (ORG-NAME)"))
    if len(parts) >= 2 and looks_like_path(name):
        found.append((f"{parts[-2]}/{parts[-1]}", "the last two parts of the path"))
    if parts:
        model = catalog_model_named(parts[-1])  # an ambiguous basename is no hint
        if model is not None:
            found.append((model, f"'{parts[-1]}', the name of a catalog model"))
        elif "/" not in name:
            # a name with no organisation is most often a directory (old Hub ids such as gpt2
            # aside, a served model's has one; the name itself is asked first): as a quantized
            # upload's name (Qwen3-32B-FP8), resolve's last resort
            found.append((name, f"the directory name '{name}'"))
    if "___" in name and looks_like_path(name):
        # ModelScope's cache writes a "." of the id as "___" (Qwen/Qwen3___5-35B-A3B-FP8 holds
        # Qwen/Qwen3.5-35B-A3B-FP8): the same hints, of the id as published
        found += [
            (candidate, f"{why}, read as ModelScope escapes '.' ('___')")
            for candidate, why in _model_candidates(name.replace("___", "."))
        ]
    seen: set[str] = set()
    return tuple(c for c in found if not (c[0] in seen or seen.add(c[0])))
