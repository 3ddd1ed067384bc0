"""GPU and model catalogs, and reading Hugging Face config.json files into an Architecture.

The data lives in YAML files beside this module, each entry naming its source. A model is
described by its config.json fields, verbatim, whether it comes from the catalog or from a file,
so both go through the same code.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import field, replace
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from .. import files
from ..identity_memo import IdentityMemo
from ..lazyre import LazyPattern
from ..records import dataclass
from ..units import parse_quantity
from . import labels
from .architecture import (
    Architecture,
    ConfigError,
    NoKvCacheModel,
    UnmodelledArchitecture,
    WeightFormat,
    architecture_from_config,
)
from .labels import GpuChoice, gpu_from_labels, model_candidates

__all__ = [
    "Architecture",
    "ConfigError",
    "NoKvCacheModel",
    "UnmodelledArchitecture",
    "GpuChoice",
    "WeightFormat",
    "architecture_from_config",
    "gpu_from_labels",
    "model_candidates",
]

_HERE = Path(__file__).parent


@cache
def _load(name: str) -> Any:
    """One of our own catalog files' data, read (and checked) once a process: several lookups
    read the same file (gpus.yaml: the index, the ambiguous names, each family's efficiency;
    labels.yaml and engines.yaml: one read per key or engine asked for), and the files ship
    with hbmlint, as the indexes built from them (kept for the process) already assume.
    Nobody writes to the data."""
    return load_yaml_cached(_HERE / name)


def load_yaml_cached(path: Path) -> Any:
    """A catalog file's data, parsed once and kept in the user's cache (see catalog/yamlcache.py:
    every entry is checked against the file's own bytes on every read, so the cache can never
    change an answer). The data of our own files as they ship is written with the package
    (shipped_data.py, with the bytes it was parsed from, used only for a file of those very
    bytes): loading it costs a fraction of decoding the cache's JSON, models.yaml's most of
    all."""
    from .yamlcache import load_yaml_cached as load

    shipped = source = None
    if path.parent == _HERE:
        try:
            from .shipped_data import CATALOGS, SOURCES
        except ImportError:  # a tree without the generated module: the cache does it all
            CATALOGS = SOURCES = {}
        shipped, source = CATALOGS.get(path.name), SOURCES.get(path.name)
    return load(path, shipped, source)


# A team's own catalog files (configuration key `catalogs`): read after ours, so theirs win.
_EXTRA_FILES: tuple[Path, ...] = ()


def use_extra_files(paths: list[Path]) -> None:
    """Read these YAML files' ``gpus:`` and ``models:`` lists too (same shape as ours)."""
    global _EXTRA_FILES
    if tuple(paths) != _EXTRA_FILES:
        _EXTRA_FILES = tuple(paths)
        _gpu_index.cache_clear()
        _larger_variants.cache_clear()
        _model_index.cache_clear()
        _MERGED.clear()
        labels._by_basename.cache_clear()


def _entries(builtin: str, section: str) -> list[dict]:
    entries = list(_load(builtin)[section])
    for path in _EXTRA_FILES:
        data = load_yaml_cached(path)  # bounded read; checked when the configuration loaded
        # an entry's source defaults to the team's file, where a reader would look
        entries += [{"source": str(path), **e} for e in (data or {}).get(section) or []]
    return entries


_SEPARATORS = re.compile(r"[\s_\-]+")


@lru_cache(maxsize=4096)  # every deployment (and what-if) looks up a few names again
def _key(name: str) -> str:
    """Catalog lookups ignore case and treat spaces, underscores and hyphens alike."""
    key = name.strip().lower()
    # Without an underscore, whitespace (str.split's is re's \s) or two hyphens in a row, every
    # run the pattern replaces is one hyphen, written back as it was: the key is the text. Most
    # names are so, and building the indexes looks up every catalog name once.
    if "_" in key or "--" in key or len(key.split()) != 1:
        return _SEPARATORS.sub("-", key)
    return key


@dataclass(frozen=True)
class GpuInfo:
    name: str
    memory: Any  # pint Quantity: what the device reports to the engine
    fp8: bool
    vendor: str = "nvidia"
    source: str = ""
    # CUDA compute capability as major.minor (8.9), None where unknown or not NVIDIA
    compute_capability: float | None = None
    performance: GpuPerformance | None = None  # datasheet figures; None where none is known
    # the memory is the host's, shared with the CPU (GB10): what is free at start-up is less
    unified_memory: bool = False
    # capacity as sold (gpus.yaml marketing_memory, decimal GB): what MIG profiles divide
    marketing_memory: Any = None


@dataclass(frozen=True)
class GpuPerformance:
    """A GPU's datasheet figures for the step-time model (hbmlint/roofline.py). A figure the
    vendor does not publish is None (or absent from ``dense``)."""

    family: str  # picks the efficiency (gpus.yaml ``efficiency:``)
    memory_bandwidth: Any = None  # bytes / second
    dense: dict[str, Any] = field(default_factory=dict)  # dtype -> FLOPS, no sparsity
    nvlink: Any = None  # bytes / second per GPU, both directions together
    pcie: Any = None  # bytes / second, both directions together
    source: str = ""


@dataclass(frozen=True)
class Efficiency:
    """The share of a datasheet figure a decode step achieves on a GPU family."""

    memory: float
    compute: float
    network: float
    source: str = ""


@cache
def _gpu_index() -> dict[str, list[Any]]:
    """Each GPU name and alias, by its key -> a one-item list shared by the entry's names: the
    entry's GpuInfo, or (our own entries) the entry itself until a lookup first asks for it. A
    run looks up a few of the catalog's GPUs, and making each one's quantities cost a tenth of
    a one-file lint's start-up; the tests make every one of ours. A team catalog's entries are
    made here, as all were before: one that does not parse fails the first lookup, whichever
    GPU it asks for."""
    index: dict[str, list[Any]] = {}
    ours = len(_load("gpus.yaml")["gpus"])  # _entries lists ours first
    for position, entry in enumerate(_entries("gpus.yaml", "gpus")):
        slot = [entry if position < ours else _gpu_info(entry)]
        for alias in [entry["name"], *entry.get("aliases", [])]:
            index[_key(str(alias))] = slot
    return index


def _gpu_info(entry: dict) -> GpuInfo:
    return GpuInfo(
        name=entry["name"],
        memory=parse_quantity(entry["memory"], "[information]"),
        fp8=bool(entry.get("fp8", False)),
        vendor=entry.get("vendor", "nvidia"),
        source=entry.get("source", ""),
        compute_capability=_capability(entry.get("compute_capability")),
        performance=_performance(entry.get("performance")),
        unified_memory=bool(entry.get("unified_memory", False)),
        marketing_memory=_optional_bytes(entry.get("marketing_memory")),
    )


def _optional_bytes(value: Any) -> Any:
    """A memory size an entry may give; None where it gives none or a team catalog's figure
    does not parse (it costs only what needs the figure, never the lint)."""
    from ..units import UnitError

    try:
        return None if value is None else parse_quantity(value, "[information]")
    except UnitError:
        return None


def _performance(data: Any) -> GpuPerformance | None:
    """An entry's ``performance:``; None where it has none or a figure does not parse (a team
    catalog's typo costs the estimate, never the lint)."""
    if not isinstance(data, dict) or not data.get("family"):
        return None
    from ..units import UnitError

    def rate(value: Any, dimension: str) -> Any:
        return None if value is None else parse_quantity(value, dimension)

    try:
        dense = {
            str(dtype): rate(value, "[compute] / [time]")
            for dtype, value in (data.get("dense") or {}).items()
        }
        return GpuPerformance(
            family=str(data["family"]),
            memory_bandwidth=rate(data.get("memory_bandwidth"), "[information] / [time]"),
            dense=dense,
            nvlink=rate(data.get("nvlink"), "[information] / [time]"),
            pcie=rate(data.get("pcie"), "[information] / [time]"),
            source=str(data.get("source", "")),
        )
    except (UnitError, TypeError, ValueError):
        return None


@cache  # asked for by every speculative comparison; the file is read (and checked) once
def efficiency(family: str) -> Efficiency | None:
    """The decode efficiency of a GPU family (gpus.yaml ``efficiency:``), or None."""
    entry = (_load("gpus.yaml").get("efficiency") or {}).get(family)
    if not isinstance(entry, dict):
        return None
    return Efficiency(
        memory=float(entry["memory"]),
        compute=float(entry["compute"]),
        network=float(entry["network"]),
        source=str(entry.get("source", "")),
    )


def _capability(value: Any) -> float | None:
    return None if value is None else float(str(value))


def find_gpu(name: str) -> GpuInfo | None:
    """The catalog GPU for a name or alias (``H100``, ``NVIDIA-H100-80GB-HBM3``), or None."""
    slot = _gpu_index().get(_key(name))
    if slot is None:
        return None
    info = slot[0]
    if not isinstance(info, GpuInfo):  # the entry, first asked for: made once, then shared
        info = slot[0] = _gpu_info(info)
    return info


@cache
def _larger_variants() -> dict[str, str]:
    """Names that stand for more than one memory size -> the largest variant's name
    (gpus.yaml ``ambiguous_aliases`` and ``larger_variant``)."""
    larger: dict[str, str] = {}
    for entry in _entries("gpus.yaml", "gpus"):
        for alias in entry.get("ambiguous_aliases") or []:
            if entry.get("larger_variant"):
                larger[_key(str(alias))] = str(entry["larger_variant"])
    return larger


def larger_variant(name: str) -> GpuInfo | None:
    """The larger-memory part a GPU name may also stand for ("V100": the 32 GB one), or None
    when the name says which part it is."""
    other = _larger_variants().get(_key(name))
    return find_gpu(other) if other else None


def gpu_names() -> list[str]:
    # an entry not yet made has the name its GpuInfo will have
    return sorted({_gpu_name(info) for (info,) in _gpu_index().values()})


def _gpu_name(info: GpuInfo | dict) -> str:
    return info.name if isinstance(info, GpuInfo) else info["name"]


@cache
def _model_index() -> dict[str, dict]:
    index: dict[str, dict] = {}
    for entry in _entries("models.yaml", "models"):
        for alias in [entry["id"], *entry.get("aliases", [])]:
            index[_key(alias)] = entry
    return index


# An entry with ``base:`` merged with its base once, by the entry's identity: every deployment
# of a quantized upload gets the same config object, so resolve builds its architecture once
# (resolve._architecture is keyed on the config's identity). Nobody writes to a catalog entry.
_MERGED = IdentityMemo(limit=1024)


def find_model(name: str) -> dict | None:
    """The catalog entry (id, source, config) for a Hugging Face id or alias, or None. An entry
    with ``base:`` (a quantized or re-uploaded checkpoint) takes its base's config and
    overrides the fields it lists."""
    entry = _model_index().get(_key(name))
    if entry is None or "base" not in entry:
        return entry
    return _MERGED.get(entry, lambda: _merged_with_base(entry))


def _merged_with_base(entry: dict) -> dict:
    base = find_model(entry["base"])
    if base is None:
        raise ConfigError(
            f"catalog entry {entry['id']}: base {entry['base']} is not in the catalog"
        )
    return {**entry, "config": {**base["config"], **(entry.get("config") or {})}}


def hf_cache_config(model_id: str) -> Path | None:
    """config.json (else Mistral's params.json) of a model in the local Hugging Face cache
    (``$HF_HUB_CACHE``, else ``$HF_HOME/hub``, else ``~/.cache/huggingface/hub``): no network
    call. The newest snapshot wins."""
    if "/" not in model_id or model_id.count("/") > 1 or ".." in model_id:
        return None
    hub = os.environ.get("HF_HUB_CACHE")
    if not hub:
        home = os.environ.get("HF_HOME") or os.path.join("~", ".cache", "huggingface")
        hub = os.path.join(home, "hub")
    folder = Path(hub).expanduser() / ("models--" + model_id.replace("/", "--"))
    dated = []
    # config.json, else Mistral's params.json (a repository in Mistral's own format)
    try:
        candidates = [*folder.glob("snapshots/*/config.json")] or [
            *folder.glob("snapshots/*/params.json")
        ]
    except OSError:  # a "model name" longer than a file name may be (ENAMETOOLONG)
        return None
    for candidate in candidates:
        try:  # a snapshot's files are symlinks into blobs/; a dangling one is skipped
            info = candidate.stat()
        except (OSError, ValueError):
            continue
        if stat.S_ISREG(info.st_mode):
            dated.append((info.st_mtime, str(candidate), candidate))
    return max(dated)[2] if dated else None


def model_ids() -> list[str]:
    return sorted({entry["id"] for entry in _model_index().values()})


def dtype_bytes(dtype: str) -> int:
    return int(_formats()["dtypes"][dtype])


@cache
def _formats() -> dict:
    return _load("quantization.yaml")


def weight_format_bytes(quantization: str | None) -> float | None:
    """Bytes per parameter of a quantized linear layer, or None for the model dtype."""
    fmt = weight_format(quantization)
    return None if fmt is None else fmt.bytes_per_param


def kv_dtype_bytes(kv_cache_dtype: str) -> float:
    return _formats()["kv_cache_dtypes"][kv_cache_dtype]


def kv_dtype_names() -> list[str]:
    """The KV-cache dtypes hbmlint knows the size of."""
    return list(_formats()["kv_cache_dtypes"])


@cache
def engine_defaults(engine: str) -> dict:
    return _load("engines.yaml")[engine]


@lru_cache(maxsize=256)  # a handful of version texts, asked for by every budget and rule
def release(text: str | None) -> tuple[int, ...] | None:
    """The release an engine version text names ("0.14.1", "v0.8.5.post1 (V0 engine)", "3.0.1"),
    as a tuple of integers; None when it names none ("V1 (Jul 2025)"). engines.yaml's release
    boundaries are read the same way."""
    match = re.search(r"(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(p) for p in match.groups() if p is not None) if match else None


_VENDOR_TAG = LazyPattern(r"v?(\d+)\.(\d+)(?:\.(\d+)(\.post\d+)?)?")
# a preview or a model's early-access build of a release (Dynamo's 1.3.0-dev.1,
# 1.2.0-deepseek-v4-dev.3), or a release candidate (llm-d's v0.6.0-rc.1, built before the
# release's vLLM pin moved): its backends are not the release's own
_PREVIEW_TAG = LazyPattern(r"[-.](?:dev|rc)(?![a-z])")


def _repository_matches(name: str, repository: str) -> bool:
    """``name`` is ``repository`` (or, for one ending in "-", begins with it); a name that leaves
    out the registry (nvidia/ai-dynamo/vllm-runtime, as Slurm recipes write nvcr.io's) counts."""
    host, _, path = repository.partition("/")
    if "." in host and "." not in name.partition("/")[0] and name.count("/") == path.count("/"):
        repository = path
    return name == repository or (repository.endswith("-") and name.startswith(repository))


@lru_cache(maxsize=256)
def vendor_image_release(image: str) -> tuple[str, str] | None:
    """(engine, release) that a vendor image's tag ships (vendor_images.yaml: NVIDIA Dynamo's
    runtimes, NGC's vLLM and Triton TensorRT-LLM containers, Red Hat AI Inference Server), or
    None where the image is none of them or its tag is in no table."""
    name, _, tag = image.rsplit("@", 1)[0].rpartition(":")
    if not name or "/" in tag:  # a registry port (host:5000/image) with no tag
        return None
    name = name.lower().removeprefix("docker.io/")
    for entry in _load("vendor_images.yaml")["images"]:
        if not any(_repository_matches(name, r) for r in entry["repositories"]):
            continue
        if not tag.endswith(entry.get("tag_suffix", "")):
            continue  # the same repository's other flavour (tritonserver:25.01-py3)
        match = _VENDOR_TAG.match(tag)
        if match is None or _PREVIEW_TAG.search(tag, match.end()):
            return None
        major, minor, patch, post = match.groups()
        tries = (
            [f"{major}.{minor}.{patch}{post or ''}", f"{major}.{minor}.{patch}"] if patch else []
        )
        for key in [*tries, f"{major}.{minor}"]:
            if key in entry["releases"]:
                return str(entry["engine"]), str(entry["releases"][key])
        for key in tries:
            day = (entry.get("out_by") or {}).get(key)
            if day is not None:
                engine = str(entry["engine"])
                bound = released_by(
                    engine, str(day), at_most=True, day_is=f"when the image's release {key} was out"
                )
                return (engine, bound) if bound else None
        return None
    return None


def released_by(
    engine: str, day: str, at_most: bool = False, day_is: str = "the build's day"
) -> str | None:
    """The newest release of ``engine`` published by ``day`` (YYYY-MM-DD), said as such
    ("0.4.8 (the newest release by 2025-07-01, the build's day)"): what a development image
    tagged only with its build day holds; None before the first known (release_dates.yaml).
    ``at_most``: the image packages a release, so one built that day holds that one or an older
    ("0.10.0 (at most the newest release by 2025-08-01, the build's day)")."""
    dates = _load("release_dates.yaml").get(engine) or {}
    published = [(str(d), v) for d, v in dates.items() if str(d) <= day]
    if not published:
        return None
    bound = f"{_AT_MOST} {_DATED_BUILD}" if at_most else _DATED_BUILD
    return f"{max(published)[1]} ({bound} {day}, {day_is})"


def vendor_repository(image: str) -> bool:
    """Whether ``image`` is a vendor image of vendor_images.yaml, whose tags are the vendor's
    own release numbers (Dynamo's sglang-runtime:0.5.1 is not SGLang 0.5.1)."""
    name = image.rsplit("@", 1)[0].rpartition(":")[0] or image
    name = name.lower().removeprefix("docker.io/")
    return any(
        _repository_matches(name, r)
        for entry in _load("vendor_images.yaml")["images"]
        for r in entry["repositories"]
    )


def is_release(engine: str, version: str) -> bool:
    """Whether ``version`` is a release of ``engine`` hbmlint knows (release_dates.yaml)."""
    dates = _load("release_dates.yaml").get(engine) or {}
    return version in {str(v) for v in dates.values()}


_DATED_BUILD = "the newest release by"
_AT_MOST = "at most"


def release_at_most(engine_version: str | None) -> bool:
    """Whether ``engine_version`` is an upper bound (released_by with ``at_most``): the image may
    hold an older release, so what only later releases refuse may still start there."""
    return f"({_AT_MOST} {_DATED_BUILD}" in (engine_version or "")


def dated_build(engine_version: str | None) -> bool:
    """Whether ``engine_version`` is a development build's day read as a release (released_by):
    the build holds that release and may hold later changes, so the release is a lower bound."""
    return _DATED_BUILD in (engine_version or "") and not release_at_most(engine_version)


def weight_format(
    quantization: str | WeightFormat | None, arch: Architecture | None = None
) -> WeightFormat | None:
    """The weight format a quantization name stands for, or None for the model dtype. When the
    name is the checkpoint's own format, the checkpoint's group size and bits are used."""
    if isinstance(quantization, WeightFormat):
        return quantization
    if not quantization or quantization == "none":
        return None
    if arch is not None and arch.weight_format and arch.weight_format.name == quantization:
        return arch.weight_format
    spec = _formats()["formats"].get(quantization)
    if spec is None:
        return None
    return WeightFormat(
        name=quantization,
        bits=float(spec["bits"]),
        group=int(spec.get("group", 0)),
        scale_bytes=float(spec.get("scale_bytes", 0)),
        zero_bits=float(spec.get("zero_bits", 0)),
        expert_align=int(spec.get("expert_align", 0)),
    )


def checkpoint_format(
    qconfig: Any,
) -> tuple[WeightFormat | None, frozenset[str], str | None]:
    """A config.json quantization_config read as (weight format, parts left unquantized, the
    KV-cache dtype it implies)."""
    if not isinstance(qconfig, dict):
        return None, frozenset(), None
    method = str(qconfig.get("quant_method", "")).lower()
    name = _formats()["config_quant_methods"].get(method)
    bits = qconfig.get("bits", qconfig.get("w_bit"))
    group = qconfig.get("group_size", qconfig.get("q_group_size"))
    scale_bytes = None
    kv_dtype = None
    if method == "fp8" and isinstance(qconfig.get("weight_block_size"), list):
        rows, cols = qconfig["weight_block_size"]
        group, scale_bytes = rows * cols, 4  # one fp32 scale per block
    elif method == "bitsandbytes":
        if qconfig.get("load_in_8bit"):
            name = "int8"
        elif qconfig.get("bnb_4bit_use_double_quant"):
            scale_bytes = 1 + 4 / 256  # 8-bit absmax, with an fp32 scale per 256 of them
    elif method == "modelopt":
        algo = str(qconfig.get("quant_algo", "")).upper()
        name = "fp8" if "FP8" in algo and "FP4" not in algo else "nvfp4"
        if qconfig.get("kv_cache_quant_algo"):
            kv_dtype = "fp8"
    elif method == "compressed-tensors":
        weights = _main_group(qconfig.get("config_groups"))
        bits = weights.get("num_bits", 8)
        group = weights.get("group_size")
        if weights.get("type") == "float":
            name = "fp8" if bits == 8 else "nvfp4"
            if bits == 4 and "mxfp4" in str(qconfig.get("format", "")):
                name = "mxfp4-pack"  # FP4 with an E8M0 exponent per 32 (Kimi-K3)
        else:
            name = "w8a8" if bits == 8 else "int4"
        if isinstance(weights.get("block_structure"), list):
            rows, cols = weights["block_structure"]
            group, scale_bytes = rows * cols, 4
        if qconfig.get("kv_cache_scheme"):
            kv_dtype = "fp8"
    if name is None:
        return None, frozenset(), kv_dtype
    fmt = weight_format(name)
    if fmt is not None:
        if isinstance(bits, int) and bits != fmt.bits and name in ("awq", "gptq", "int4"):
            fmt = replace(fmt, bits=float(bits))
        if isinstance(group, int) and group > 0:
            fmt = replace(fmt, group=group)
        if scale_bytes is not None:
            fmt = replace(fmt, scale_bytes=float(scale_bytes))
    skipped = [
        str(m)
        for key in ("modules_to_not_convert", "ignore", "llm_int8_skip_modules", "exclude_modules")
        for m in (qconfig.get(key) or [])
    ]
    return fmt, _unquantized_parts(skipped), kv_dtype


def _module_part(module: str) -> str | None:
    """The part of a model a module name or pattern in a quantization config belongs to, or
    None for a catch-all ("Linear") or a part hbmlint does not weigh apart."""
    if re.search(r"self_attn|linear_attn|attention|\.attn", module):
        return "attention"
    # Nemotron-H names every layer's mixer "mixer": a Mamba layer's in/out projections are
    # weighed with attention (Architecture.state_mixer_params), as its q/k/v/o projections are
    if re.search(r"\.mixer\.(in_proj|out_proj|[qkvo]_proj)", module):
        return "attention"
    if re.search(r"(^|\.)lm_head", module):
        return "lm_head"
    if "shared_expert" in module:
        return "shared_experts"
    if re.search(r"experts", module):
        return "experts"
    if re.search(r"\.mlp(\.|$|\*)", module) and not re.search(r"router|gate$", module):
        return "dense_mlp"
    return None


def _group_format(weights: dict) -> WeightFormat | None:
    """A compressed-tensors / ModelOpt config group's weight format."""
    bits = weights.get("num_bits", 8)
    if weights.get("type") == "float":
        fmt = weight_format("fp8" if bits == 8 else "nvfp4")
    else:
        fmt = weight_format("w8a8" if bits == 8 else "int4")
    group = weights.get("group_size")
    if fmt is not None and isinstance(group, int) and group > 0:
        fmt = replace(fmt, group=group)
    return fmt


def _main_group(groups: Any) -> dict:
    """The weights of the config group that quantizes the bulk of the model: the first whose
    targets are not all attention or lm_head modules (a mixed export lists those in a group
    of their own, NVIDIA's Qwen3.6 NVFP4 exports an FP8 one first)."""
    found = [
        g
        for g in (groups or {}).values()
        if isinstance(g, dict) and isinstance(g.get("weights"), dict)
    ]
    for group in found:
        targets = [str(t) for t in group.get("targets") or []]
        if not targets or any(_module_part(t) not in ("attention", "lm_head") for t in targets):
            return group["weights"]
    return found[0]["weights"] if found else {}


_ALGO_FORMATS = {"FP8": "fp8", "NVFP4": "nvfp4", "W4A16_NVFP4": "nvfp4"}


def checkpoint_part_formats(
    qconfig: Any, fmt: WeightFormat | None
) -> tuple[tuple[str, WeightFormat], ...]:
    """The parts a mixed-precision quantization_config stores in another format than ``fmt``
    (its config groups' targets, or ModelOpt's quantized_layers), and lm_head where the config
    quantizes it: ((part, format), ...). NVIDIA's Qwen3.6 NVFP4 exports keep attention and the
    linear-attention projections in FP8 and quantize lm_head to NVFP4 (aiconfigurator
    model_configs/nvidia--Qwen3.6-27B-NVFP4_config.json @ 90f7fc0f)."""
    if not isinstance(qconfig, dict) or fmt is None:
        return ()
    votes: dict[str, dict[WeightFormat, int]] = {}

    def vote(module: str, part_fmt: WeightFormat | None) -> None:
        part = _module_part(module)
        if part is not None and part_fmt is not None:
            counts = votes.setdefault(part, {})
            counts[part_fmt] = counts.get(part_fmt, 0) + 1

    for group in (qconfig.get("config_groups") or {}).values():
        if isinstance(group, dict) and isinstance(group.get("weights"), dict):
            group_fmt = _group_format(group["weights"])
            for target in group.get("targets") or []:
                vote(str(target), group_fmt)
    if not votes:
        for module, layer in (qconfig.get("quantized_layers") or {}).items():
            if isinstance(layer, dict):
                name = _ALGO_FORMATS.get(str(layer.get("quant_algo", "")).upper())
                layer_fmt = weight_format(name) if name else None
                if layer_fmt is not None and isinstance(layer.get("group_size"), int):
                    layer_fmt = replace(layer_fmt, group=layer["group_size"])
                vote(str(module), layer_fmt)
    parts = []
    for part, counts in sorted(votes.items()):
        most = max(counts, key=lambda f: counts[f])
        if part == "lm_head" or most.bytes_per_param != fmt.bytes_per_param:
            parts.append((part, most))
    return tuple(parts)


# attention projections other than the output one, by their names in DeepSeek / Llama checkpoints
_ATTENTION_INPUT = LazyPattern(
    r"\.(q_a_proj|q_b_proj|kv_a_proj_with_mqa|kv_b_proj|q_proj|k_proj|v_proj|indexer)\*?$"
)


# a normalisation layer's name (input_layernorm, post_attention_layernorm, q_norm, norm)
_NORM = LazyPattern(r"(^|[._])(\w*_)?(layer)?norm\*?$")


def _unquantized_parts(modules: list[str]) -> frozenset[str]:
    """Which parts of a layer a format's skip list leaves in the model dtype."""
    parts = set()
    # The engines match a skip list against linear layers only (vLLM quant_utils.is_layer_skipped
    # from the layer's get_quant_method; SGLang likewise), so a norm named in it changes nothing:
    # Qwen's FP8 uploads list every layer's post_attention_layernorm (Qwen3-235B-A22B-FP8,
    # Qwen3-30B-A3B-FP8 config.json), which is no attention layer
    modules = [m for m in modules if not _NORM.search(m)]
    attention = [m for m in modules if re.search(r"self_attn|linear_attn|attention|\.attn", m)]
    if attention and all(_ATTENTION_INPUT.search(m) for m in attention):
        # NVIDIA's DeepSeek NVFP4 exports name q_a/q_b/kv_a/kv_b (and the indexer) of every
        # layer but not o_proj, which is quantized (nvidia/DeepSeek-V3.2-NVFP4
        # hf_quant_config.json, aiconfigurator @095f58a5 model_configs)
        parts.add("attention_inputs")
    elif attention:
        parts.add("attention")
    for module in modules:
        if "shared_expert" in module:
            parts.add("shared_experts")
        # "model.layers.*.mlp", or a regex: "re:.*mlp\\.(gate|up|down)_proj.*" (Kimi-K3)
        if re.search(r"[.*]mlp(\\?\.|$|\*)", module) and not re.search(
            r"expert|router|gate$", module
        ):
            parts.add("dense_mlp")
        if re.match(r"(re:\^?)?(model\.)?mtp", module):
            parts.add("mtp")  # ModelOpt and llm-compressor exports keep MTP layers in 16 bits
    return frozenset(parts)


# A real config.json is a few KiB; the largest (with label maps) well under 1 MiB.
CONFIG_JSON_LIMIT = 4 * 1024 * 1024


def read_config_file(path: Path) -> dict:
    """Parse a config.json; ConfigError with a reason a user can act on."""
    from .config_check import parse_config_json

    try:
        text = files.read_text(path, CONFIG_JSON_LIMIT)
    except files.FileReadError as exc:
        if exc.reason == "no such file":
            raise ConfigError(f"config file {path} does not exist") from None
        raise ConfigError(f"config file {path}: {exc.reason}") from None
    return parse_config_json(text, str(path))
