"""Resolve a Deployment against the catalogs: which GPU, which target and draft architectures,
how many GPUs and how they are split. Problems become located findings.

Severity follows who wrote the name. In hbmlint's own format a name hbmlint does not know is an
error (it was written for hbmlint: most likely a typo). In a manifest written for an engine
(Kubernetes, KServe, compose, Helm values, vLLM config, any format added later) it is a warning
that says how to unblock it in that manifest's terms: hbmlint cannot check it, the engine may
well run it.

A model name is looked up as a list of candidates (the name, then what a local path or the
workload's labels hint at), each in the sources of MODEL_SOURCES in order; a new source (a
Hugging Face Hub client) is one more function in that list.
"""

from __future__ import annotations

import posixpath
import re
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import field, replace
from pathlib import Path
from typing import Any

from . import catalog
from .catalog import Architecture, ConfigError, GpuInfo, devices, lookup
from .catalog.architecture import block_misfit
from .catalog.labels import (
    HF_CACHE_HINT,
    SHARED_SAID,
    label_keys,
    looks_like_path,
    model_path_parts,
    sized_gpu_type,
)
from .diagnostics import Diagnostic, Severity, input_diagnostic
from .identity_memo import NOT_KEPT, IdentityMemo
from .lazyre import LazyPattern
from .records import dataclass
from .spec import (
    DOWNLOADED,
    DRAFT_MODEL_METHODS,
    GPU_RESOURCE,
    GRES_TYPE,
    HEAD_METHODS,
    MOUNTED_FROM,
    ROCM_SAID,
    SERVED_AS,
    VGPU_MEMORY,
    VGPU_PERCENT,
    Deployment,
    Label,
    ModelRef,
    SpeculativeSpec,
)
from .units import Q, format_bytes
from .yamlsrc import Span

# The annotations (or labels) a user adds to a workload to name what hbmlint cannot read.
MODEL_ANNOTATION = "hbmlint.io/model"
GPU_ANNOTATION = "hbmlint.io/gpu"


@dataclass(frozen=True)
class ResolveOptions:
    default_gpu: str | None = None  # --gpu / default-gpu: for manifests that name no GPU
    # the configuration's `model-paths`: (a local path or name, the model id it holds)
    model_paths: tuple[tuple[str, str], ...] = ()


@dataclass
class Resolved:
    deployment: Deployment
    gpu: GpuInfo
    target: Architecture
    draft: Architecture | None
    tensor_parallel: int
    pipeline_parallel: int
    gpu_count: int
    gpu_from_default: bool = False  # the manifest named no GPU; --gpu / default-gpu was used
    # the larger part the GPU's name may also stand for (a bare "V100": the 32 GB one); a
    # refusal that part would not make is then not an error (lint.py)
    gpu_larger_variant: GpuInfo | None = None
    # what resolve had to assume, for the budget's `assumed` list: {setting: why}
    assumed: dict[str, str] = field(default_factory=dict)
    # the target is a quantized upload read from its name, whose layout (which layers stay in
    # 16 bits) is its family's other exports' (catalog/variants.py): its weights rest on that
    # guess, so a budget refusal is not a promise (lint.py)
    layout_guessed: bool = False
    # where the target is a catalog model taken from a local path's name, what it was taken
    # from: the directory may hold another checkpoint of it (a quantized one), so a budget
    # refusal is not a promise either (lint.py)
    model_guessed_from: str | None = None


@dataclass
class _Run:
    """One deployment being resolved: where findings and assumptions go."""

    deployment: Deployment
    findings: list[Diagnostic] = field(default_factory=list)
    assumed: dict[str, str] = field(default_factory=dict)
    gpu_written: str | None = None  # the GPU name the manifest (or its node labels) gives
    # the manifest names a device that is not a GPU (tpu-v6e-8, Trainium): nothing to budget
    not_a_gpu: bool = False
    layout_guessed: bool = False  # Resolved.layout_guessed
    model_guessed_from: str | None = None  # Resolved.model_guessed_from

    @property
    def strict(self) -> bool:
        return self.deployment.written_for_hbmlint

    def report(
        self,
        code: str,
        message: str,
        where: str | Span,
        fixes: list[str] | None = None,
        severity: Severity | None = None,
    ) -> None:
        d = self.deployment
        span = where if isinstance(where, Span) else d.location(where)
        self.findings.append(input_diagnostic(code, message, d.file, span, d.name, fixes, severity))

    def unknown(self, code: str, message: str, where: str | Span, fixes: list[str]) -> None:
        """A name hbmlint cannot identify: an error in its own format, else a warning."""
        self.report(code, message, where, fixes, None if self.strict else Severity.WARNING)

    def hint(self, key: str) -> tuple[str, Span] | None:
        for label in self.deployment.hints:
            if label.key == key and label.value.strip():
                return label.value.strip(), label.span
        return None


def resolve(
    deployment: Deployment,
    default_gpu: str | None = None,
    options: ResolveOptions | None = None,
) -> tuple[Resolved | None, list[Diagnostic]]:
    """``default_gpu`` (from --gpu or the configuration) is used when the manifest names none."""
    options = options or ResolveOptions()
    if default_gpu is not None:
        options = replace(options, default_gpu=default_gpu)
    run = _Run(deployment)
    gpu, gpu_from_default = _resolve_gpu(run, options.default_gpu)
    if run.not_a_gpu:
        return None, run.findings
    if gpu is not None and deployment.gpu.labels:
        gpu = _vgpu_share(run, gpu)
    target = _resolve_model(run, deployment.model, "model", options)
    draft = None
    spec = deployment.speculative
    if spec.model is not None and spec.method == "mtp" and deployment.engine == "vllm":
        # vLLM's MTP drafts with the target's own MTP layers whatever model the config names,
        # but for a Gemma 4 assistant checkpoint (a drafter of its own): only that is resolved
        draft = _gemma4_assistant(run, spec.model, deployment.model, options)
        if draft is None:
            deployment = replace(deployment, speculative=replace(spec, model=None))
            spec = deployment.speculative
    elif spec.model is not None and spec.method in (*DRAFT_MODEL_METHODS, *HEAD_METHODS):
        draft = _resolve_model(run, spec.model, "speculative", options)
    if spec.model is not None and draft is None and spec.method != "mtp" and not run.strict:
        # An unknown drafter does not hide the target's budget: budget the target alone
        # (the warning above says what is missing) and say so in the budget.
        if target is not None:
            run.assumed["speculative"] = (
                f"not counted: the drafter {spec.model.label} could not be identified, so its "
                "weights and KV cache are missing from this budget"
            )
        deployment = replace(deployment, speculative=SpeculativeSpec())
        spec = deployment.speculative
    parallel = _resolve_parallel(run, target)
    if (
        gpu is None
        or target is None
        or parallel is None
        or (spec.model is not None and draft is None and spec.method != "mtp")
    ):
        return None, run.findings
    for arch, where in ((target, "model"), (draft, "speculative.model")):
        for note in arch.approximations if arch else ():
            run.report("HBM008", f"{arch.name}: {note}", where)
    tp, pp, count = parallel
    written = run.gpu_written
    larger = catalog.larger_variant(written) if written and not gpu_from_default else None
    if larger is not None and larger.name != gpu.name:
        run.assumed.setdefault(
            "gpu",
            f"{gpu.name} ('{written}' names no memory size; a refusal the {larger.name} would "
            "not make is a warning)",
        )
    else:
        larger = None
    resolved = Resolved(
        deployment,
        gpu,
        target,
        draft,
        tp,
        pp,
        count,
        gpu_from_default,
        assumed=run.assumed,
        gpu_larger_variant=larger,
        layout_guessed=run.layout_guessed,
        model_guessed_from=run.model_guessed_from,
    )
    return resolved, run.findings


# ----------------------------------------------------------------------------------- GPU


def _resolve_gpu(run: _Run, default_gpu: str | None) -> tuple[GpuInfo | None, bool]:
    """The GPU, and whether it is the default one (the manifest named none it could)."""
    d = run.deployment
    gpu_type, memory = d.gpu.type, d.gpu.memory
    label = None
    mig: tuple[str, Any] | None = None
    if gpu_type is None and memory is None:
        annotated = run.hint(GPU_ANNOTATION)
        choice = catalog.gpu_from_labels(d.gpu.labels)
        if annotated is not None:
            gpu_type = annotated[0]
            d.locations["gpu.type"] = annotated[1]
        elif choice.type is not None:
            gpu_type, label = choice.type, choice.label
            run.gpu_written = choice.written
            d.locations["gpu.type"] = choice.type_span or d.location("gpu")
            if choice.mig is not None:
                mig = (choice.mig, choice.mig_span or d.location("gpu"))
            if choice.why is not None:
                run.assumed["gpu"] = f"{gpu_type} ({choice.why})"
            shared = next((g for g in d.gpu.labels if g.key == GPU_RESOURCE), None)
            if shared is not None and shared.value.endswith(".shared"):
                run.assumed["gpu"] = (
                    f"{gpu_type}, all of its memory ({shared.value}: {SHARED_SAID})"
                )
        elif choice.memory is not None:
            memory = choice.memory
            d.locations["gpu.memory"] = choice.memory_span or d.location("gpu")
            if choice.why is not None:
                run.assumed["gpu"] = f"{format_bytes(memory)} each ({choice.why})"
        if gpu_type is None and memory is None:
            default = catalog.find_gpu(default_gpu) if default_gpu is not None else None
            if default is not None and choice.vendor == "amd" and default.vendor != "amd":
                # --gpu H100 for a pod that asks for amd.com/gpu, or a script on ROCm: budgeting
                # it on the NVIDIA card would make up its memory
                on_nodes = not any(g.key == ROCM_SAID for g in d.gpu.labels)
                run.unknown(
                    "HBM005",
                    f"{choice.vendor_why}, but the manifest names no type, and the default GPU "
                    f"{default.name} is not AMD's, so the budget is not checked; "
                    + (
                        "select the GPU with the node label amd.com/gpu.product-name, or "
                        if on_nodes
                        else ""
                    )
                    + "run hbmlint with an AMD --gpu (for example --gpu MI300X)",
                    choice.vendor_span or "gpu",
                    [],
                )
                return None, False
            if default_gpu is not None:
                info = _named_gpu(run, default_gpu, None, None)
                if info is not None and choice.mig is not None:
                    # --gpu A100-80GB for a pod that asks for nvidia.com/mig-1g.10gb: the
                    # engine sees the slice, not the card
                    info = _mig_slice(run, info, choice.mig, choice.mig_span or d.location("gpu"))
                return info, True
            said = "".join(
                f"{g.key}: {g.value} says only that the node has a GPU, not which ({why}); "
                for g, why in choice.generic
            )
            said += "".join(
                f"the pod selects a node pool by the name its cluster gave it ({g.key}: "
                f"{g.value}), which does not say the GPU; "
                for g in run.deployment.gpu.labels
                if g.key in label_keys("node_pool")
            )
            if choice.vendor == "amd":
                said += f"{choice.vendor_why}; "
            said += _resource_said(d.gpu.labels)
            gres, unblock = _gres_said(d.gpu.labels)
            said += gres
            said += _own_label_gpu(run.deployment.gpu.labels)
            if choice.mig is not None:
                # a slice's memory is its share of the card it is cut from (_mig_slice)
                said += (
                    f"the engine gets a MIG {choice.mig} slice, sized as its share of the GPU "
                    "it is cut from, so name that GPU: "
                )
            if (
                d.source_format == "kubernetes"
                and d.gpu.count is None
                and choice.vendor is None
                and not d.gpu.labels
            ):
                # siri1404/llm-infrastructure: the nvidia.com/gpu limit commented out
                said += (
                    "the container requests no GPU either (no nvidia.com/gpu limit), so "
                    "Kubernetes gives it none unless the node's default runtime exposes them all; "
                )
            run.unknown(
                "HBM005",
                "the manifest names no GPU type; "
                + said
                + (unblock or _gpu_unblock(run, choice.vendor)),
                choice.generic[0][0].span if choice.generic else "gpu",
                [],
            )
            return None, False
    run.gpu_written = (run.gpu_written or gpu_type) if memory is None else None
    info = catalog.find_gpu(gpu_type) if gpu_type else None
    device = devices.not_a_gpu(gpu_type) if gpu_type and info is None and memory is None else None
    if device is not None:
        # Ray Serve LLM's accelerator_type: TPU-V6E, a TPU node label: budgeting it on --gpu
        # would make up the memory it has
        run.report(
            "HBM014",
            f"the manifest names '{gpu_type}': the engine runs on {device}, whose memory "
            "hbmlint does not budget (NVIDIA and AMD GPUs only); this deployment is not checked",
            "gpu.type",
        )
        run.not_a_gpu = True
        return None, False
    if info is None and memory is None:
        if default_gpu is not None and not run.strict:
            run.assumed["gpu"] = (
                f"{default_gpu} (the default GPU; the manifest's '{gpu_type}' is not in the "
                "catalog)"
            )
            return _named_gpu(run, default_gpu, None, None), False
        return _named_gpu(run, gpu_type or "", memory, label), False
    info = _gpu_of(run, gpu_type, memory, label, info)  # the lookup above, not a second one
    if info is not None and mig is not None:
        info = _mig_slice(run, info, *mig)
    return info, False


def _vgpu_share(run: _Run, info: GpuInfo) -> GpuInfo:
    """The memory a container gets of each GPU under HAMi's vGPU plugin (nvidia.com/gpumem in
    MiB, or nvidia.com/gpumem-percentage): HAMi-core reports it to CUDA as the device's total,
    so the engine's memory fraction is a fraction of it."""
    label = next(
        (g for g in run.deployment.gpu.labels if g.key in (VGPU_MEMORY, VGPU_PERCENT)), None
    )
    if label is None:
        return info
    try:
        amount = float(label.value)
    except ValueError:
        return info  # a template or a quantity HAMi does not take: the card's memory
    if amount <= 0:
        return info  # HAMi reads 0 as no limit
    if label.key == VGPU_MEMORY:
        share = Q(amount, "MiB").to(info.memory.units)
        said = f"{amount:g} MiB"
    else:
        share = info.memory * min(amount, 100.0) / 100.0
        said = f"{min(amount, 100.0):g}%"
    if share >= info.memory:
        return info
    run.deployment.locations["gpu.memory"] = label.span
    run.assumed["gpu"] = (
        f"a HAMi vGPU share of the {info.name}: {format_bytes(share)} ({label.key}: {said}), "
        "which HAMi-core reports to the engine as the device's memory"
    )
    return replace(info, memory=share, name=f"{info.name} vGPU {format_bytes(share)}")


def _mig_slice(run: _Run, info: GpuInfo, profile: str, span: Any) -> GpuInfo:
    """The MIG slice of ``info`` a pod gets: the engine sees the slice's memory, not the card's.
    Its share of the card is the profile's size over the card's (1g.10gb: 10 of an 80 GB
    A100's); the slice reports somewhat less than that share (nvidia-smi mig -lgip: 10.75 GiB for
    the H100 NVL's 1g.12gb, 20 GiB for the GB200's 1g.24gb), so the budget is an upper bound."""
    from .catalog.labels import MIG_PROFILE

    size = MIG_PROFILE.fullmatch(profile)
    if info.marketing_memory is None or size is None:
        return info
    sold = float(info.marketing_memory.to("GB").magnitude)  # profiles are named in decimal GB
    share = min(1.0, int(size.group(2)) / sold)
    memory = info.memory * share
    run.deployment.locations["gpu.memory"] = span
    run.assumed["gpu"] = (
        f"a MIG {profile} slice of the {info.name}: {format_bytes(memory)}, its share of the "
        f"card's {format_bytes(info.memory)} (an upper bound: a slice reports somewhat less)"
    )
    return replace(info, memory=memory, name=f"{info.name} MIG {profile}")


def _named_gpu(run: _Run, name: str | None, memory: Any, label: str | None) -> GpuInfo | None:
    return _gpu_of(run, name, memory, label, catalog.find_gpu(name) if name else None)


def _gpu_of(
    run: _Run, name: str | None, memory: Any, label: str | None, info: GpuInfo | None
) -> GpuInfo | None:
    """_named_gpu with the catalog's GPU for ``name`` (``info``) already looked up."""
    if info is None and memory is None:
        close = _close_matches(name or "", catalog.gpu_names(), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        origin = f" (node label {label})" if label else ""
        if run.strict:
            advice = "Give gpu.memory (for example '80 GiB') to lint it anyway"
        else:
            advice = _gpu_unblock(run)
            advice = advice[:1].upper() + advice[1:]  # not capitalize(): it lowercases "TYPE"
        run.unknown(
            "HBM005",
            f"unknown GPU type '{name}'{origin}{hint} {advice}; `hbmlint gpus` lists the catalog",
            "gpu.type",
            [],
        )
        return None
    if memory is not None and info is not None:
        # the card's other facts (compute capability, datasheet figures, NVLink) still hold
        return replace(info, memory=memory, source="the manifest")
    if memory is not None:
        return GpuInfo(
            name=name or "custom GPU",
            memory=memory,
            fp8=False,
            vendor="unknown",
            source="the manifest",
        )
    return info


def _resource_said(labels: list[Label]) -> str:
    """What a GPU resource of another name than nvidia.com/gpu says (formats/podspec.py
    gpu_resource), for HBM005: a shared GPU, or a name hbmlint does not know."""
    for label in labels:
        if label.key != GPU_RESOURCE:
            continue
        if label.value.endswith(".shared"):
            return (
                f"the container asks for {label.value}, a share of a GPU (the device plugin's "
                "time-slicing or MPS, renamed): the card's memory is not split, and other pods "
                "on it use it too; "
            )
        if catalog.find_gpu(label.value.partition("/")[2]) is None:
            return (
                f"the container asks for {label.value} rather than nvidia.com/gpu, the name of "
                "a GPU resource of its cluster's own, which does not say a model hbmlint knows; "
            )
    return ""


def _gres_said(labels: list[Label]) -> tuple[str, str | None]:
    """What a Slurm gres type naming a memory size says (catalog.labels.sized_gpu_type), for
    HBM005, and how to unblock it where the usual advice would offer a larger card than the
    one named (a MIG slice's: never the whole card)."""
    label = next((g for g in labels if g.key == GRES_TYPE), None)
    sized = sized_gpu_type(label.value) if label is not None else None
    if label is None or sized is None:
        return "", None
    base, gb, _ = sized
    asks = f"the Slurm job asks for GPUs of gres type '{label.value}'"
    if base is None:
        return (
            f"{asks}, a GPU named by its memory ({gb} GB), not by its model: which card it is "
            "(and what it reports to the engine) the name does not say; ",
            f"run hbmlint with --gpu naming the card (one of {gb} GB, no larger)",
        )
    sold = float(base.marketing_memory.to("GB").magnitude) if base.marketing_memory else None
    if sold is not None and gb < sold:
        model = re.split(r"[-_]", label.value, maxsplit=1)[0].upper()
        article = "an" if model[:1] in "AEFHILMNORSX" else "a"
        return (
            f"{asks}, by its name a {gb} GB share of {article} {model} (the catalog's "
            f"{base.name} has {sold:g} GB; sites name MIG slices so), which hbmlint cannot "
            "budget from a site's name; ",
            f"run hbmlint with --set gpu.memory={gb}GB (the slice's size as named; a slice "
            "reports somewhat less to the engine), not with a --gpu of the whole card",
        )
    return (
        f"{asks}, by its name a card of {gb} GB, which the catalog does not have (its "
        f"{base.name} has {sold:g} GB: a budget on it holds on the larger card too); ",
        f"run hbmlint with --gpu {base.name} (less memory than the card named), or "
        f"--set gpu.memory={gb}GB",
    )


def _own_label_gpu(labels: list[Label]) -> str:
    """A node label of the cluster's own whose value names a GPU of the catalog (TobiasEdman/
    des-chatbot's `gpu-type: nvidia-2080ti`): said, with the --gpu to pass, not taken (what a
    cluster's own label means is its owner's)."""
    known = {
        key
        for keys in ("gpu_type", "gpu_generic", "instance_type", "node_pool")
        for key in label_keys(keys)
    }
    for label in labels:
        if label.key in known or label.key.startswith("hbmlint"):
            continue
        value = label.value.strip()
        lowered = value.lower()
        candidates = [value]
        for prefix in ("nvidia-tesla-", "nvidia-", "tesla-", "amd-"):
            if lowered.startswith(prefix):
                candidates.append(value[len(prefix) :])
        # `2080ti` as the catalog writes it, `2080-Ti`
        candidates += [re.sub(r"(\d)([A-Za-z])", r"\1-\2", c) for c in candidates]
        info = next(filter(None, map(catalog.find_gpu, candidates)), None)
        if info is not None:
            return (
                f"the node label {label.key}: {value} (line {label.span.line}) looks like the "
                f"{info.name}, but it is a label of your cluster's own, so it is not taken as the "
                f"GPU (run with --gpu {info.name} to check it on that card); "
            )
    return ""


def _gpu_unblock(run: _Run, vendor: str | None = None) -> str:
    if run.strict:
        return (
            "set one in the manifest, run hbmlint with --gpu TYPE (for example --gpu H100), or "
            "set default-gpu in the configuration"
        )
    fmt = run.deployment.source_format
    example = "MI300X" if vendor == "amd" else "H100"
    ways = (
        f"run hbmlint with --gpu TYPE (for example --gpu {example}) or set default-gpu in the "
        "configuration"
    )
    # the label of the GPU's vendor: AMD's node labeller writes amd.com/gpu.product-name
    labels = (
        "amd.com/gpu.product-name"
        if vendor == "amd"
        else "nvidia.com/gpu.product, cloud.google.com/gke-accelerator"
    )
    if fmt in ("kubernetes", "kserve"):
        ways = (
            f"select the GPU with a node label hbmlint reads ({labels}, an instance type), "
            f"annotate the workload {GPU_ANNOTATION}: TYPE, or {ways}"
        )
    elif fmt == "production-stack":
        label = "amd.com/gpu.product-name" if vendor == "amd" else "nvidia.com/gpu.product"
        ways = f"select it in nodeSelectorTerms ({label}), or {ways}"
    return ways


# --------------------------------------------------------------------------------- models


@dataclass(frozen=True)
class FoundModel:
    """A model's config.json fields (or the file holding them), and where they came from."""

    config: dict | Path
    name: str
    source: str
    checkpoint: Any = None  # the stored checkpoint's tensor sizes, when known (catalog/hub.py)
    # a speculator head's own embed_tokens / lm_head (catalog `stores`; None: the entry says
    # nothing) and which of them are copies of the target's (`target_copies`)
    stores: tuple[str, ...] | None = None
    target_copies: tuple[str, ...] = ()


# A source looks a model name up; None when it does not have it. It raises ConfigError when it
# has the model but cannot read it. ``guess`` is True for names derived from a hint (a path's
# last parts, a label), which a slow source may prefer to skip.
ModelSource = Callable[[str, bool], FoundModel | None]


def _from_catalog(name: str, guess: bool) -> FoundModel | None:
    entry = catalog.find_model(name)
    if entry is None:
        return None
    # Made once per catalog entry a run: every deployment of a model asks. Nobody writes to an
    # entry or a FoundModel; the base an entry inherits from is looked up in the catalogs read,
    # ours and the team files the key names (a team file read later may change it).
    key = (catalog._EXTRA_FILES,)
    found = _FOUND.find(entry, key)
    if found is NOT_KEPT:
        found = _FOUND.keep(entry, key, _found_in_catalog(entry))
    return found


_FOUND = IdentityMemo(limit=1024)


def _found_in_catalog(entry: dict) -> FoundModel:
    base = (catalog.find_model(entry["base"]) or {}) if entry.get("base") else {}
    parts = {}
    for key in ("stores", "target_copies"):  # a re-upload stores what its base stores
        found = entry.get(key, base.get(key))
        parts[key] = None if found is None else tuple(str(part) for part in found)
    return FoundModel(
        entry["config"],
        entry["id"],
        entry["source"],
        stores=parts["stores"],
        target_copies=parts["target_copies"] or (),
    )


def _from_hf_cache(name: str, guess: bool) -> FoundModel | None:
    cached = catalog.hf_cache_config(name)  # the local Hugging Face cache: no network
    if cached is None:
        return None
    config: dict | Path = cached
    if cached.name == "params.json":  # Mistral's own format, in config.json's terms
        config = lookup.mistral_config(catalog.read_config_file(cached))
    return FoundModel(config, name, str(cached), lookup.cached_checkpoint(name, cached))


def _from_lock_dir(name: str, guess: bool) -> FoundModel | None:
    entry = lookup.locked(name)  # `hbmlint models pull` wrote it: read before the catalog
    return FoundModel(entry.config, name, str(entry.path), entry.checkpoint) if entry else None


def _from_hub(name: str, guess: bool) -> FoundModel | None:
    """The Hub, for a name the manifest gives (not a guess); HubFailure when it cannot."""
    found = None if guess else lookup.from_hub(name)
    return FoundModel(found.config, name, found.source, found.checkpoint) if found else None


MODEL_SOURCES: list[ModelSource] = [_from_lock_dir, _from_catalog, _from_hf_cache, _from_hub]


@dataclass(frozen=True)
class _Candidate:
    name: str
    why: str | None = None  # None: the name the manifest gives; else the hint it comes from
    span: Span | None = None
    # a name the user or the file gives for the path (model-paths, a download into it), not
    # one hbmlint makes up from it: looked up everywhere, the Hub included
    given: bool = False
    # made up from a local path's name (its parts, or a served name its last part matches),
    # not from anything that says which checkpoint the path holds
    from_path: bool = False

    @property
    def guess(self) -> bool:
        return self.why is not None and not self.given


def _candidates(
    run: _Run, ref: ModelRef, where: str, options: ResolveOptions
) -> Iterator[_Candidate]:
    """The names to look the model up by, best first. Made as they are asked for: the first
    is found in the catalog for most deployments, and the others (a path's parts, the
    labels' names) are then never needed."""
    name = ref.name or ""
    if where == "model":
        annotated = run.hint(MODEL_ANNOTATION)
        if annotated is not None:
            yield _Candidate(annotated[0], f"the annotation {MODEL_ANNOTATION}", annotated[1])
    mapped = _mapped(name, options.model_paths)
    if mapped is not None:
        yield _Candidate(mapped, "the configuration's model-paths", given=True)
    downloaded = downloaded_into(run.deployment.hints, name)
    if downloaded is not None:
        repository, span = downloaded
        yield _Candidate(
            repository, f"the download of {repository} into it at line {span.line}", span, True
        )
    yield _Candidate(name)
    for c, why in catalog.model_candidates(name):
        # a cache directory's name is the id it was downloaded as: asked of the Hub like a name
        # the manifest gives
        yield _Candidate(c, why, given=why == HF_CACHE_HINT, from_path=why != HF_CACHE_HINT)
    served = _served_as_path(ref)
    if served is not None:
        yield served
    if where == "model":
        for label in run.deployment.hints:
            if label.key == MOUNTED_FROM and label.value.partition("\n")[0] == name:
                host = label.value.partition("\n")[2]
                why = f"the volume it is mounted from, {host} (line {label.span.line})"
                for c, _ in catalog.model_candidates(host):
                    yield _Candidate(c, why, label.span, from_path=True)
            if label.key == SERVED_AS:
                why = (
                    f"the served name {label.value} (line {label.span.line}): '{name}' is an "
                    "alias hbmlint cannot look up, and the name it is served under is a guess "
                    "at the checkpoint"
                )
                yield _Candidate(label.value, why, label.span, from_path=True)
    if where == "model":
        for label in run.deployment.hints:
            if label.key in label_keys("model") and label.key != MODEL_ANNOTATION:
                yield _Candidate(label.value, f"the label {label.key}", label.span)
                for c, _ in catalog.model_candidates(label.value):
                    yield _Candidate(c, f"the label {label.key}", label.span)


def downloaded_into(labels: list[Label], name: str) -> tuple[str, Span] | None:
    """The repository the file downloads into the directory ``name``, where lint.py found one
    (a DOWNLOADED label)."""
    if not labels or not name or "/" not in name:
        return None
    directory = posixpath.normpath(name)
    for label in labels:
        if label.key == DOWNLOADED:
            where, _, repository = label.value.partition("\n")
            if where == directory:
                return repository, label.span
    return None


def _served_as_path(ref: ModelRef) -> _Candidate | None:
    """The served name as the model, where a local path's last part says the same: the served
    name is an alias the operator chose (an NVFP4 checkpoint served as deepseek-ai/DeepSeek-R1),
    so it is taken only where the directory's name agrees with it."""
    served, name = ref.served_name, ref.name or ""
    if not served or served.count("/") != 1 or not looks_like_path(name):
        return None
    parts = model_path_parts(name)
    if not parts:
        return None
    last = parts[-1].casefold()
    if last not in (served.rpartition("/")[2].casefold(), served.replace("/", "--").casefold()):
        return None
    return _Candidate(
        served,
        f"--served-model-name {served}, which the path's last part '{parts[-1]}' matches",
        from_path=True,
    )


def _mapped(name: str, model_paths: tuple[tuple[str, str], ...]) -> str | None:
    """The model the configuration maps ``name`` to: an exact entry, else the longest entry
    that is a directory above it."""
    if not model_paths:  # none configured (most runs): nothing to normalise the name for
        return None
    clean = posixpath.normpath(name) if name else name
    best: tuple[int, str] | None = None
    for path, model in model_paths:
        key = posixpath.normpath(path)
        if clean == key:
            return model
        if clean.startswith(key.rstrip("/") + "/") and (best is None or len(key) > best[0]):
            best = (len(key), model)
    return best[1] if best else None


# The architectures of the configs read last, by identity: the catalog's configs are the same
# objects on every deployment of a run, so a model's architecture (and the parameter count it
# caches) is built once per model, not once per deployment. Frozen, so sharing is safe.
_ARCHITECTURES: OrderedDict[tuple[int, str, str], tuple[Any, Architecture]] = OrderedDict()


def _architecture(config: Any, label: str, source: str) -> Architecture:
    key = (id(config), label, source)
    hit = _ARCHITECTURES.get(key)
    if hit is not None and hit[0] is config:
        _ARCHITECTURES.move_to_end(key)
        return hit[1]
    arch = catalog.architecture_from_config(config, label, source)
    _ARCHITECTURES[key] = (config, arch)  # the config is kept, so its id is not reused
    if len(_ARCHITECTURES) > 64:
        _ARCHITECTURES.popitem(last=False)
    return arch


def _unmodelled(exc: Exception) -> Severity:
    """A model hbmlint does not budget is a warning (its budget is not checked), but an
    encoder-only model vLLM keeps no KV cache for is a note: there is no KV budget to check."""
    return Severity.INFO if isinstance(exc, catalog.NoKvCacheModel) else Severity.WARNING


def _read_model(
    run: _Run,
    where: str,
    field_name: str,
    config: Any,
    label: str,
    source: str,
    outside: bool = False,
) -> Architecture | None:
    """The architecture of a model's config (a dict or a config.json's path) that a source
    found; None, with a finding, where it cannot be read."""
    try:
        if isinstance(config, Path):
            config = catalog.read_config_file(config)
        return _architecture(config, label, source)
    except catalog.UnmodelledArchitecture as exc:  # a real model hbmlint cannot budget
        run.report("HBM006", f"{field_name}: {label}: {exc}", field_name, [], _unmodelled(exc))
        return None
    except ConfigError as exc:  # a broken catalog entry is our bug: report it, not crash
        message = f"{field_name}: {label}: {exc}"
        if outside:  # a config from the Hub or a cache hbmlint cannot read: not the engine's
            run.unknown(
                "HBM006",
                message + f" ({source}); point {where}.config at a config.json hbmlint can read",
                field_name,
                [],
            )
        else:
            run.report("HBM006", message, field_name)
        return None


def _gemma4_assistant(
    run: _Run, ref: ModelRef, target: ModelRef, options: ResolveOptions
) -> Architecture | None:
    """The Gemma 4 assistant drafter a vLLM MTP config names as its model (model_type
    gemma4_assistant), or None for any other model, which vLLM's MTP leaves to the target's own
    MTP layers: then nothing this lookup found or assumed is kept, so that such a deployment
    reads as it did before the model was looked at. A model that is the target itself (as
    DeepSeek recipes write it) is not looked up."""
    if ref.config is None and ref.name and ref.name == target.name:
        return None
    findings, assumed = len(run.findings), dict(run.assumed)
    arch = _resolve_model(run, ref, "speculative", options)
    if arch is not None and arch.assistant_backbone:
        return arch
    del run.findings[findings:]
    run.assumed.clear()
    run.assumed.update(assumed)
    return None


def _resolve_model(
    run: _Run, ref: ModelRef, where: str, options: ResolveOptions
) -> Architecture | None:
    if ref.config is not None:
        try:
            data = catalog.read_config_file(ref.config)
            return catalog.architecture_from_config(data, ref.label, str(ref.config))
        except catalog.UnmodelledArchitecture as exc:
            run.report("HBM006", f"{where}.config: {exc}", f"{where}.config", [], _unmodelled(exc))
            return None
        except ConfigError as exc:
            run.report("HBM006", f"{where}.config: {exc}", f"{where}.config")
            return None
    name = ref.name or ""
    first = _named_in_catalog(run, name, where, options)
    if first is not None:
        return first
    field_name = f"{where}.name" if where == "model" else f"{where}.model"
    candidates: list[_Candidate] = []  # those asked for: all of them past this loop
    for candidate in _candidates(run, ref, where, options):
        candidates.append(candidate)
        guess = candidate.guess  # asked of every source
        for source in MODEL_SOURCES:
            try:
                found = source(candidate.name, guess)
            except ConfigError as exc:  # a broken catalog entry is our bug: report, not crash
                run.report("HBM006", f"{candidate.name}: {exc}", field_name)
                return None
            except lookup.HubFailure as failure:  # a warning, once per model in a run
                found = _variant(run, candidate, where, failure)
                if found is not None:
                    return _from_name(
                        _read_model(run, where, field_name, found.config, found.name, found.source)
                    )
                if run.strict and failure.kind == "not-found":
                    # hbmlint's own format: a name the Hub says it lacks is a typo (an error,
                    # as for any unknown name). Closeness to a catalog id alone is not: with
                    # the Hub out of reach, granite-3.1-1b is a real model near granite-3.3-8b
                    _unknown_model(run, ref, where, field_name)
                elif lookup.first_report(candidate.name):
                    # the failure's advice ends without a full stop; the hint is sentences
                    hint = _hub_hint(candidate.name, where, run.strict)
                    run.report("HBM015", failure.message.rstrip(".") + "." + hint, field_name)
                return None
            if found is None:
                continue
            if candidate.why is not None:
                key = "model" if where == "model" else "speculative.model"
                run.assumed[key] = (
                    f"{found.name} (from {candidate.why}; the manifest says {ref.name})"
                )
                if where == "model" and candidate.from_path:
                    run.model_guessed_from = candidate.why
            outside = found.checkpoint is not None
            arch = _read_model(
                run, where, field_name, found.config, found.name, found.source, outside
            )
            if arch is not None and found.checkpoint is not None:
                arch = replace(arch, checkpoint=found.checkpoint)
            if arch is not None and found.stores is not None:
                arch = replace(
                    arch,
                    head_stores=frozenset(found.stores),
                    head_stores_known=True,
                    head_target_copies=frozenset(found.target_copies),
                )
            if arch is not None and source is _from_catalog and candidate.why is None:
                _keep_named(candidate.name, found, arch)
            return arch
    # then a hint's name (a path's last parts, a label) as a quantized upload or copy of a
    # catalog model, once every hint has had its exact turn
    for candidate in candidates:
        found = _variant(run, candidate, where, None) if candidate.why is not None else None
        if found is not None:
            if where == "model" and candidate.from_path:
                run.model_guessed_from = candidate.why
            return _from_name(
                _read_model(run, where, field_name, found.config, found.name, found.source)
            )
    _unknown_model(run, ref, where, field_name)
    return None


# The architecture of a model the manifest names by a catalog id, by that name: what
# _resolve_model's loop gives when the name itself, its first candidate, is found in the catalog
# (the lock directory, asked first, having no entry for it), with the catalog's FoundModel it
# was read from. Every deployment of a model asks; reading it again through the candidates,
# the sources and the architecture memo cost more than the rest of resolve's model lookup.
_NAMED: dict[str, tuple[FoundModel, Architecture]] = {}


def _keep_named(name: str, found: FoundModel, arch: Architecture) -> None:
    if len(_NAMED) >= 1024:  # a run names a few models; bounded all the same
        _NAMED.clear()
    _NAMED[name] = (found, arch)


def _named_in_catalog(
    run: _Run, name: str, where: str, options: ResolveOptions
) -> Architecture | None:
    """_resolve_model's answer for a name kept by _keep_named, where its loop would give it
    again: the name is the first candidate (no model annotation, no model-paths entry for
    it), the lock directory still has no entry for it and the catalog still gives the same
    FoundModel (_from_catalog's memo: the same entry and team catalogs). None otherwise."""
    kept = _NAMED.get(name)
    if kept is None or MODEL_SOURCES[:2] != [_from_lock_dir, _from_catalog]:
        return None
    if where == "model" and run.hint(MODEL_ANNOTATION) is not None:
        return None
    if _mapped(name, options.model_paths) is not None:
        return None
    try:
        if _from_lock_dir(name, False) is not None or _from_catalog(name, False) is not kept[0]:
            return None
    except ConfigError:  # a broken lock file or entry: the loop reports it
        return None
    return kept[1]


def _from_name(arch: Architecture | None) -> Architecture | None:
    """A model read from its name knows its weight format but not the quant_method string its
    config.json holds (an FP8 upload may say fp8, compressed-tensors or modelopt): no rule
    holds --quantization to it."""
    return None if arch is None else replace(arch, quant_method=None)


def _variant(
    run: _Run, candidate: _Candidate, where: str, failure: lookup.HubFailure | None
) -> FoundModel | None:
    """A quantized upload or copy of a catalog model, read from its repository name
    (catalog/variants.py), for a name the Hub cannot give (``failure``) or a hint's name the
    Hub is not asked for: not for one the Hub says does not exist (a typo)."""
    if failure is not None and failure.kind == "not-found":
        return None
    from .catalog.variants import variant

    found = variant(candidate.name)
    if found is None:
        return None
    key = "model" if where == "model" else "speculative.model"
    if where == "model" and found.layout:
        run.layout_guessed = True
    if failure is None:
        run.assumed[key] = f"{found.described} (from {candidate.why})"
    else:
        run.assumed[key] = (
            f"{found.described} (not in hbmlint's catalog, and the Hugging Face Hub could not "
            f"be read: `hbmlint models pull {candidate.name}` reads its own config.json)"
        )
    return FoundModel(found.config, found.name, f"{found.source} ({found.described})")


def _hub_hint(name: str, where: str, strict: bool) -> str:
    """What follows the Hub's failure: near catalog names, and where a config.json can be given
    instead (``model.config`` exists only in hbmlint's own format; elsewhere a team catalog)."""
    close = _close_matches(name, catalog.model_ids(), n=3, cutoff=0.6)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    if strict:
        return hint + f" Or point {where}.config at the model's config.json."
    return hint + (
        " Or list it in a team catalog (a file the configuration names under catalogs:, "
        f"holding models: [{{id: {name}, config: {{...}}}}] with its config.json's fields)."
    )


_GGUF_FILE = LazyPattern(r"([\w.-]+/[\w.-]+):([\w.-]+)")


def _unknown_model(run: _Run, ref: ModelRef, where: str, field_name: str) -> None:
    name = ref.name or ""
    role = "the drafter" if where == "speculative" else "model"
    if run.strict:
        close = _close_matches(name, catalog.model_ids(), n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        run.unknown(
            "HBM006",
            f"{role} '{name}' is not in hbmlint's catalog nor in the local Hugging Face "
            f"cache.{hint} Point {where}.config at the model's Hugging Face config.json (a path "
            "relative to this manifest) so hbmlint can read its architecture",
            field_name,
            [],
        )
        return
    what = (
        "a local path hbmlint cannot identify"
        if looks_like_path(name)
        else ("not in hbmlint's catalog nor in the local Hugging Face cache")
    )
    scheme = re.match(r"([a-z][a-z0-9+.-]*)://", name)
    if scheme:  # oci://, s3://, gs://, pvc://: a store the weights are copied from
        what = f"a storage URI ({scheme.group(1)}://) hbmlint cannot identify"
    # vLLM's `ORG/REPO:QUANT` names one GGUF file of a repository (unsloth/Qwen3-8B-GGUF:Q4_K_M):
    # no Hub repository id (a colon is not allowed in one), and such repositories hold no
    # config.json to download
    gguf = _GGUF_FILE.fullmatch(name)
    if gguf:
        what = (
            f"a GGUF checkpoint ({gguf.group(2)} of {gguf.group(1)}), whose quantized weights "
            "hbmlint does not model"
        )
    served = ref.served_name if where == "model" and looks_like_path(name) else None
    served_id = served
    if served and "/" not in served:
        # `--served-model-name Qwen3.5-2B`: the catalog's one model of that name, if one
        # (tanphong-sudo/qwen35-serving-contest serves /model so)
        ids = {c for c, _ in catalog.model_candidates(served)}
        served_id = ids.pop() if len(ids) == 1 else None
    if served and served_id and "/" in served_id:
        # the operator's alias, not read as the checkpoint: it may name the base model of a
        # quantized copy, so it only fills in the mapping the user confirms
        alias = (
            f"; it is served as '{served}', a name the operator chose that hbmlint does not "
            "take for the checkpoint"
        )
        mapping = f"model-paths: {{{name}: {served_id}}} if it holds that checkpoint"
    else:
        alias = ""
        mapping = f"model-paths: {{{name}: ORG/NAME}}"
    ways = [f"map it to its Hugging Face id in the configuration ({mapping})"]
    if gguf:
        # mapping it to the model it was quantized from would budget 16-bit weights: a false
        # HBM101 where the 4-bit file fits, so no mapping is offered
        ways = [
            "weigh it by hand (its weights take about the size of its .gguf file), then ignore "
            "HBM006 for this file in the configuration (per-file-ignores)"
        ]
    if where == "model" and run.deployment.source_format in ("kubernetes", "kserve"):
        ways.append(f"annotate the workload {MODEL_ANNOTATION}: ORG/NAME")
    if not looks_like_path(name) and "/" in name and not gguf:
        ways.append(
            f"put its config.json in the Hugging Face cache: hf download {name} config.json"
        )
    tail = "; the target is budgeted without it" if where == "speculative" else ""
    close = [] if gguf else _close_matches(name, catalog.model_ids(), n=3, cutoff=0.6)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    run.unknown(
        "HBM006",
        f"{role} '{name}' is {what}{hint}{alias}, so its memory cannot be checked{tail}. To "
        "check it, " + ", or ".join(ways),
        field_name,
        [],
    )


# ------------------------------------------------------------------------------ parallelism

_TP_FLAG = {"vllm": "--tensor-parallel-size", "sglang": "--tp-size", "tgi": "--num-shard"}


def _resolve_parallel(run: _Run, target: Architecture | None = None) -> tuple[int, int, int] | None:
    d = run.deployment
    count = d.gpu.count
    pp = d.parallel.pipeline or 1
    dp = 1 if run.strict else (d.parallel.data or 1)
    if d.parallel.dp_attention:
        dp = 1  # SGLang's DP attention splits the TP group's GPUs; it asks for no more
    local = getattr(d.parallel, "data_local", None)
    per_rank = (d.parallel.tensor or 1) * pp
    whole = count is not None and count == per_rank * dp  # the count spans every node's ranks
    if local is not None and not run.strict and not whole:
        dp = local  # vLLM: the ranks this process runs; the others run on other nodes
    elif "parallel.data_local" in d.unread and not run.strict and not whole:
        # how many ranks this process runs is a value hbmlint cannot read: whatever the pod's
        # GPUs hold, never a count claimed short or idle
        dp = count // per_rank if count and count % per_rank == 0 else 1
        run.assumed["data_parallel_local"] = (
            f"{dp} (--data-parallel-size-local is not readable; the ranks the requested GPUs hold)"
        )
    tp = d.parallel.tensor
    if tp is None:
        if count and count % (pp * dp) == 0 and (run.strict or _shards_over_every_gpu(d)):
            tp = count // (pp * dp)
        else:
            tp = 1  # vLLM's and SGLang's default, whatever the pod requests
            if count and count > pp * dp:
                run.assumed["tensor_parallel"] = (
                    f"1 ({d.engine} default; the manifest requests {count} GPUs but sets no "
                    f"{_TP_FLAG.get(d.engine, 'tensor parallelism')})"
                )
    need = tp * pp * dp
    if count is None or count == need:
        return tp, pp, tp * pp
    product = f"{tp} x {pp}" + (f" x {dp}" if dp > 1 else "")
    kinds = "tensor x pipeline" + (" x data" if dp > 1 else "")
    if run.strict:
        run.report(
            "HBM007",
            f"gpu.count is {count} but tensor x pipeline parallelism is {product} = {need}; a "
            "replica uses exactly tensor x pipeline GPUs",
            "gpu.count",
            [
                f"Set gpu.count to {need}, or parallel.tensor to {count // pp}"
                if count % pp == 0
                else f"Set gpu.count to {need}"
            ],
        )
        return None
    flag = _TP_FLAG.get(d.engine, "the tensor-parallel size")
    if count == 0 and not d.gpu.count_why:
        # The device plugin hands a container that asks for none no GPU; yet on nodes whose
        # default runtime is NVIDIA's, an image's own NVIDIA_VISIBLE_DEVICES=all (the CUDA
        # images') exposes every GPU of the node behind the scheduler's back. Not certain to
        # fail, so a warning; the budget is for the GPUs the engine uses.
        run.report(
            "HBM007",
            f"0 GPUs requested but {kinds} parallelism is {product} = {need}; the engine sees a "
            "GPU only where the node's default container runtime exposes them anyway (an "
            "image's NVIDIA_VISIBLE_DEVICES=all), which the scheduler neither counts nor "
            "reserves",
            "gpu.count",
            [f"Request {need} GPU{'s' if need != 1 else ''}"],
            Severity.WARNING,
        )
        return tp, pp, tp * pp
    # --nnodes copies of one pod (GpuSpec.pods): each requests count / pods and runs need / pods
    # of the ranks, so the request and its fix are said per pod
    pods = d.gpu.pods or 1
    each = count // pods if pods > 1 and count % pods == 0 and not d.gpu.count_why else None
    said = f"{count} GPU{'s' if count != 1 else ''} {d.gpu.count_why or 'requested'}"
    per_pod = None
    if each is not None:
        said = f"{each} GPU{'s' if each != 1 else ''} requested on each of {pods} pods"
        said += f" ({count} in all)"
        if need % pods == 0:
            per_pod = f"Request {need // pods} GPU{'s' if need // pods != 1 else ''} per pod"
    if count < need:
        fix = f"Request {need} GPUs, or lower {flag}"
        if d.gpu.count_why:
            fix = f"Make {need} GPUs visible, or lower {flag}"
        elif per_pod is not None:
            fix = f"{per_pod}, or lower {flag}"
        run.report(
            "HBM007",
            f"{said} but {kinds} parallelism is "
            f"{product} = {need}; the engine cannot start with fewer GPUs than that",
            "gpu.count",
            [fix],
        )
        return None
    if d.gpu.count_why:
        # more GPUs visible (CUDA_VISIBLE_DEVICES) than the engine uses: seeing a device
        # reserves nothing, so the ones it leaves alone are not idle on its account
        return tp, pp, tp * pp
    fits = count // (pp * dp) if count % (pp * dp) == 0 else None
    if fits and target is not None and block_misfit(target, fits, not d.parallel.expert):
        fits = None  # an FP8 block-quantized checkpoint that size splits into partial blocks
    fixes = ([per_pod] if per_pod else []) if each is not None else [f"Request {need} GPUs"]
    if fits:
        fixes.append(f"Set {flag} {fits} to use all {count}")
    run.report(
        "HBM007",
        f"{said} but {kinds} parallelism is {product} = {need}; the engine "
        f"starts on {need} and leaves {count - need} idle",
        "gpu.count",
        fixes,
        Severity.WARNING,
    )
    return tp, pp, tp * pp


def _shards_over_every_gpu(d: Deployment) -> bool:
    """Engines (and runtimes) that split the model over every GPU they see unless told not to:
    TGI (--num-shard defaults to all visible GPUs) and KServe's Hugging Face runtime."""
    return d.engine == "tgi" or d.source_format == "kserve"


def _close_matches(word: str, possibilities: Any, n: int, cutoff: float) -> list[str]:
    import difflib  # only for a name that is not found

    return difflib.get_close_matches(word, possibilities, n=n, cutoff=cutoff)
