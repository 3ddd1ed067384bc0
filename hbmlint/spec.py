"""The Deployment: one normalised, engine-neutral description of a serving replica.

Every format adapter produces Deployments; nothing after the adapter knows which file format the
values came from. ``locations`` maps a field path such as ``"speculative.model"`` to the span in
the user's file that set it, so a rule can point there.
"""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from .records import dataclass
from .yamlsrc import Span

ENGINES = ("vllm", "sglang", "trtllm", "tgi")

# Speculative methods, grouped by what they cost in HBM.
DRAFT_MODEL_METHODS = ("draft_model",)
# DFlash: a block-diffusion drafter of a few decoder layers fed the target's hidden states
# (z-lab/dflash; vLLM qwen3_dflash.py, SGLang --speculative-algorithm DFLASH)
HEAD_METHODS = ("eagle", "eagle3", "medusa", "mtp", "dflash")
WEIGHTLESS_METHODS = ("ngram", "suffix", "prompt_lookup", "lookahead")
# What only a drafter with weights takes (SpeculativeSpec's fields, the native manifest's keys):
# an n-gram drafter has none of them
DRAFT_ONLY_FIELDS = ("model", "tensor_parallel", "kv_cache_dtype", "max_model_len")
# Self-speculation that drafts with the target's own first layers (LayerSkip): no extra weights.
SELF_METHODS = ("early_exit",)
SPECULATIVE_METHODS = (
    *DRAFT_MODEL_METHODS,
    *HEAD_METHODS,
    *WEIGHTLESS_METHODS,
    *SELF_METHODS,
    "none",
)
# Other names users write for a method, and the method they mean.
METHOD_ALIASES = {"layerskip": "early_exit", "self_speculative": "early_exit"}


@dataclass(slots=True)
class Label:
    """A label or annotation a manifest sets (a node label a pod requires, a workload's own
    label), with where it is written. Format readers pass them on; resolve reads them."""

    key: str
    value: str
    span: Span


# The key of the Label a pod reader adds for a container running a ROCm image (the value is the
# image): no manifest writes it, it says the GPUs are AMD's where no resource does
ROCM_IMAGE = "hbmlint/rocm-image"
# ... and the one lint.py adds where the file downloads a model into a directory the deployment
# serves (downloads.py; the value is "DIRECTORY\nREPOSITORY", the directory normalised)
DOWNLOADED = "hbmlint/downloaded"
# ... and the one a script or compose reader adds where the engine's environment or container
# says ROCm (HIP_VISIBLE_DEVICES, /dev/kfd, a ROCm image): the value says what says so
ROCM_SAID = "hbmlint/rocm"
# ... and the one a reader adds for an image built for one GPU (the value is the image,
# ``lmsysorg/sglang:v0.5.8-rocm700-mi35x``, ``scitrera/dgx-spark-vllm:0.13.0-t4``): resolve
# takes the GPU from its name (catalog.labels.image_build_gpu)
IMAGE_BUILD = "hbmlint/image-build"
# ... and the one a reader adds where the model is an alias hbmlint cannot look up and the file
# serves it under a Hugging Face id (an srt-slurm recipe's model.path `dsr1-fp8` beside its
# served-model-name deepseek-ai/DeepSeek-R1): resolve tries that id, as a guess
SERVED_AS = "hbmlint/served-as"
# ... and the one the Compose reader adds where the model is a container path a volume mounts
# from the host (`./models/Qwen2-7B-Instruct-GPTQ-Int4:/data` for `--model-id=/data`): the value
# is "CONTAINER PATH\nHOST PATH", whose name resolve tries, as a guess
MOUNTED_FROM = "hbmlint/mounted-from"
# HAMi's vGPU device plugin (Project-HAMi/HAMi): a container's share of a GPU's memory, in MiB
# (nvidia.com/gpumem) or as a percentage (nvidia.com/gpumem-percentage); HAMi-core makes the
# CUDA driver report that share as the device's total, so the engine sizes itself by it
VGPU_MEMORY = "nvidia.com/gpumem"
VGPU_PERCENT = "nvidia.com/gpumem-percentage"
# ... and the one a pod reader adds for a container that asks for its GPU under another name
# than nvidia.com/gpu (the value is the resource): a cluster's name for one model
# (NRP Nautilus: nvidia.com/a100, nvidia.com/rtxa6000), the device plugin's time-sliced or MPS
# share renamed (nvidia.com/gpu.shared), or one hbmlint does not know (said, not counted)
GPU_RESOURCE = "hbmlint/gpu-resource"
# ... and the one the Slurm reader adds for a gres type that names a GPU by its memory, which the
# catalog does not know (h100-47, a 47 GB MIG slice of an H100; h100-96; 80g): the value is the
# type as written, which resolve explains in HBM005 (catalog.labels.sized_gpu_type)
GRES_TYPE = "hbmlint/gres-type"


@dataclass(slots=True)
class ModelRef:
    """A model named by catalog id and/or a Hugging Face config.json."""

    name: str | None = None
    config: Path | None = None
    dtype: str | None = None
    quantization: str | None = None
    # the engine's own name for it as the manifest writes it (vLLM --quantization awq_marlin),
    # where the engine checks the name itself against the checkpoint
    quantization_method: str | None = None
    # the name the API serves it under (--served-model-name): an alias the operator chose, read
    # as the model only where a local path's last part says the same
    served_name: str | None = None

    @property
    def label(self) -> str:
        if self.name:
            return self.name
        return str(self.config) if self.config else "(unnamed model)"


@dataclass(slots=True)
class GpuSpec:
    type: str | None = None
    memory: Any = None  # pint Quantity of bytes, overriding the catalog's figure
    count: int | None = None  # GPUs requested for one engine instance
    # how the count is known when it is not a request: "visible (CUDA_VISIBLE_DEVICES=1)"
    count_why: str | None = None
    # node labels the pod requires (nodeSelector, required affinity): resolve picks the GPU
    labels: list[Label] = field(default_factory=list)
    # the pods one instance spans (--nnodes copies of one pod), each requesting count / pods
    pods: int | None = None


@dataclass(slots=True)
class ParallelSpec:
    tensor: int | None = None
    pipeline: int | None = None
    # Read from engine flags; the budget does not use these yet (one replica = tensor x pipeline).
    data: int | None = None  # data-parallel replicas inside one engine instance
    # the data-parallel ranks this process runs, where it runs fewer than ``data`` (vLLM
    # --data-parallel-size-local, or 1 with --data-parallel-rank: one pod a rank, the other
    # ranks on other nodes); its GPUs are tensor x pipeline x this
    data_local: int | None = None
    expert: bool | None = None  # expert parallelism on (MoE)
    # vLLM EPLB's redundant expert copies (--eplb-config num_redundant_experts), held by the
    # expert-parallel ranks beside the model's own experts
    redundant_experts: int | None = None
    # SGLang --enable-dp-attention: the data-parallel ranks run inside the tensor-parallel
    # group, so they need no GPUs of their own
    dp_attention: bool | None = None
    # SGLang's parts held whole (or over the attention-TP group) on each GPU by flag:
    # "dp_lm_head" (--enable-dp-lm-head), "dense_mlp_whole" (--moe-dense-tp-size 1),
    # "shared_experts_whole" (a DeepEP all-to-all); vLLM's "vision_whole" (--mm-encoder-tp-mode
    # data); see hbmlint/dp_attention.py
    whole_parts: tuple[str, ...] | None = None
    # vLLM --decode-context-parallel-size: the KV cache of a sequence is split over this many
    # ranks of the tensor-parallel group, so each GPU holds up to that many times the tokens
    # (not modelled in the budget: a refusal it predicts is not a promise, see lint.py)
    decode_context: int | None = None


@dataclass(slots=True)
class ServingSpec:
    max_model_len: int | None = None
    # vLLM --max-model-len auto (or -1): the engine fits the length to what its KV cache holds
    max_model_len_auto: bool | None = None
    max_model_len_cap: int | None = None  # vLLM --max-model-len-cap: the most auto may pick
    # SGLang --enable-hisparse: the KV pool's tokens reach that many times what the GPU holds
    # (HiSparseTokenToKVPoolAllocator: size x host_to_device_ratio, 2 by default); not budgeted
    kv_pool_host_ratio: int | None = None
    max_num_seqs: int | None = None
    max_num_batched_tokens: int | None = None
    gpu_memory_utilization: float | None = None
    kv_cache_dtype: str | None = None
    block_size: int | None = None
    enforce_eager: bool | None = None
    # vLLM's CUDA graph mode as --compilation-config / -cc cudagraph_mode or -O0 / -O1 set it
    # (NONE, PIECEWISE, FULL_DECODE_ONLY, ...); None: the release's default (full graphs)
    cudagraph_mode: str | None = None
    # vLLM --max-cudagraph-capture-size / -cc max_cudagraph_capture_size and the explicit
    # cudagraph_capture_sizes: which batch sizes get a graph (hbmlint/cudagraphs.py)
    cudagraph_max_capture_size: int | None = None
    cudagraph_capture_sizes: tuple[int, ...] | None = None
    # SGLang --cuda-graph-max-bs: the largest decode batch captured; its default fraction keeps
    # 2 MiB a batch size back for the graphs
    cuda_graph_max_bs: int | None = None
    # Read from engine flags; the budget does not use these yet (kv_cache_max_tokens: SGLang's
    # --max-total-tokens caps its pool).
    kv_cache_memory_bytes: int | None = None  # vLLM --kv-cache-memory-bytes (bypasses the fraction)
    cpu_offload_gb: float | None = None  # vLLM --cpu-offload-gb: weights kept in host memory
    # vLLM --enable-lora with --max-loras, --max-lora-rank, --fully-sharded-loras: the adapter
    # slots whose A/B matrices it preallocates in HBM (lora.py); None: LoRA off
    lora_slots: int | None = None
    lora_rank: int | None = None
    lora_fully_sharded: bool | None = None
    # vLLM --language-model-only: every modality's limit is 0 (no tower built or profiled)
    language_model_only: bool | None = None
    # vLLM --limit-mm-per-prompt: the modalities whose limit is set to 0
    mm_zero_limits: tuple[str, ...] = ()
    performance_mode: str | None = None  # vLLM --performance-mode (0.17 and later)
    kv_cache_max_tokens: int | None = None  # SGLang --max-total-tokens, TGI max batch total tokens
    # Start-up checks (rules HBM3xx): what the manifest says explicitly, None where it is silent.
    chunked_prefill: bool | None = None  # vLLM --enable-chunked-prefill / --no-enable-...
    # vLLM --enable-prefix-caching / --no-enable-..., SGLang --disable-radix-cache (False)
    prefix_caching: bool | None = None
    mamba_cache_mode: str | None = None  # vLLM --mamba-cache-mode: none, align or all
    # vLLM --disable-hybrid-kv-cache-manager (True) / --no-disable-... (False), SGLang
    # --disable-hybrid-swa-memory: every sliding-window layer keeps the whole context
    disable_hybrid_kv_cache_manager: bool | None = None
    # SGLang --swa-full-tokens-ratio: its window layers' pool in tokens per full-layer token
    swa_full_tokens_ratio: float | None = None
    # vLLM --async-scheduling (True) / --no-async-scheduling (False); None: the release's own
    async_scheduling: bool | None = None
    # the engine's switch for a length above the model's: env VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
    # (vLLM), SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 (SGLang)
    allow_long_max_model_len: bool | None = None
    max_input_tokens: int | None = None  # TGI --max-input-tokens: the longest prompt
    # the settings written with a k/K/m/M suffix (32k), which older vLLM's argparse refuses
    human_readable: tuple[str, ...] = ()
    model_overrides: str | None = None  # vLLM --hf-overrides / --rope-scaling: config changed
    disaggregation_mode: str | None = None  # SGLang --disaggregation-mode: prefill or decode
    # SGLang's recurrent-state pool of hybrid models: --mamba-ssm-dtype (the SSM state's dtype;
    # vLLM's --mamba-ssm-cache-dtype too), --max-mamba-cache-size (its slots, instead of the
    # ratio's), --mamba-full-memory-ratio
    mamba_ssm_dtype: str | None = None
    max_mamba_cache_size: int | None = None
    mamba_full_memory_ratio: float | None = None


@dataclass(slots=True)
class SpeculativeSpec:
    method: str = "none"
    model: ModelRef | None = None
    num_speculative_tokens: int | None = None
    tensor_parallel: int | None = None
    kv_cache_dtype: str | None = None  # the draft's own KV dtype (default: the target's)
    max_model_len: int | None = None  # the draft's context limit (vLLM speculative max_model_len)
    offload: bool | None = None  # draft weights kept in host memory, streamed over PCIe
    exit_layer: int | None = None  # early_exit: the layer the draft exits after
    # SGLang --speculative-token-map (FR-Spec): the file of hot token ids an EAGLE-1 head's
    # lm_head is cut to, and that vocabulary's size (the native block's hot_vocab_size, or read
    # from the map's file name)
    token_map: str | None = None
    hot_vocab_size: int | None = None
    # vLLM's use_heterogeneous_vocab: a draft model of another tokenizer, its tokens mapped onto
    # the target's (token-level intersection)
    heterogeneous_vocab: bool | None = None


@dataclass(slots=True)
class WorkloadSpec:
    concurrency: int | None = None
    context_tokens: int | None = None


@dataclass(slots=True)
class Placement:
    """The host GPUs a service of a compose file runs on, as the file names them (its
    ``device_ids``, NVIDIA_VISIBLE_DEVICES), for the check after the budgets that two engines
    of one file do not share a card past its memory (shared_gpu.py)."""

    devices: frozenset[str]
    where: Span  # where the service names them
    profiles: frozenset[str] = frozenset()  # Compose profiles: none means it always runs
    # what the budget settled on: the share of the card the engine takes, its memory fraction
    # and how it is read (engines.yaml memory_fraction.meaning), "" where the file sets the
    # fraction, else ", the engine's default"; share None before the budget
    share: float | None = None
    fraction: float = 0.0
    meaning: str = "of_total"
    said: str = ""


@dataclass(slots=True)
class Deployment:
    name: str
    file: str
    document: int = 0
    engine: str = "vllm"
    engine_version: str | None = None
    gpu: GpuSpec = field(default_factory=GpuSpec)
    model: ModelRef = field(default_factory=ModelRef)
    parallel: ParallelSpec = field(default_factory=ParallelSpec)
    serving: ServingSpec = field(default_factory=ServingSpec)
    speculative: SpeculativeSpec = field(default_factory=SpeculativeSpec)
    workload: WorkloadSpec | None = None
    # field path ("serving.max_model_len") -> where the user's file sets it; "" is the document
    locations: dict[str, Span] = field(default_factory=dict)
    # which format module read it (formats/*.NAME), for `hbmlint formats`; None or "hbmlint"
    # is hbmlint's own format, where an unknown name is an error rather than a warning
    source_format: str | None = None
    # the workload's own labels and annotations that may name the model or the GPU
    # (ai.gke.io/model, hbmlint.io/model, hbmlint.io/gpu)
    hints: list[Label] = field(default_factory=list)
    # what the orchestrator decides that the file leaves out, as the format reader knows it
    # (KAITO's memory fraction, a chart's default image): {setting: why}, shown in the
    # budget's `assumed` list in place of the engine's own default
    assumed: dict[str, str] = field(default_factory=dict)
    # settings the manifest writes as values hbmlint cannot read (an unset variable, a template):
    # field path -> where; the budget takes the engine default for them, so a refusal it
    # predicts is not a promise (lint.py makes such an error a warning)
    unread: dict[str, Span] = field(default_factory=dict)
    # how to write a setting back into the file (rewrite.ArgvWriter, rewrite.FieldWriter): set
    # by the format reader, used by the fix stage, dropped after it (it is not picklable)
    writer: Any = None
    # the GPUs a compose service names, for shared_gpu.py (None where the format has no such
    # thing, or the file does not say)
    placement: Placement | None = None

    @property
    def written_for_hbmlint(self) -> bool:
        """Read from hbmlint's own format: its names are input to hbmlint (a typo is an error),
        not names an engine resolves (what hbmlint cannot identify there is a warning)."""
        return self.source_format in (None, "hbmlint")

    def location(self, path: str) -> Span:
        """Where ``path`` is set, else its nearest set parent, else the document itself."""
        while path:
            if path in self.locations:
                return self.locations[path]
            path = path.rpartition(".")[0]
        return self.locations.get("", Span(1, 1))
