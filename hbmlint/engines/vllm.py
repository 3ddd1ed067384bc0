"""vLLM's command line: ``vllm serve MODEL ...`` and
``python -m vllm.entrypoints.openai.api_server --model ...``.

Follows vLLM's own argparse rules: ``--flag value`` and ``--flag=value``, ``_`` and ``-`` alike,
unique prefixes, the last of a repeated flag wins, ``--no-`` switches, human-readable lengths
(``32k``). ``--speculative-config`` is read as JSON, as dotted keys, and from the legacy flags
that vLLM has removed (each of which is also a finding). Unknown flags are ignored.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from typing import Any

from ..catalog import find_model, release
from ..lazyre import LazyPattern
from ..yamlsrc import Span
from .args import (
    DYNAMO_MULTIMODAL_FLAGS,
    BadValue,
    EngineCommand,
    Flag,
    FlagTable,
    Instead,
    Item,
    Refusal,
    Token,
    Unsupported,
    apply,
    choice,
    dtype,
    dynamo_multimodal_role,
    flag_value,
    flags_removed,
    flags_unread,
    fraction,
    holds_flags_only,
    human_int,
    json_loads,
    kv_cache_dtype_of,
    model_name,
    nonnegative_float,
    nonnegative_int,
    placeholder,
    placeholder_message,
    positive_int,
    quantization,
    scan,
    settings_left_to_config_file,
    switch_given_a_value,
    unreadable_message,
)

NAME = "vllm"
# the gRPC server takes the same engine arguments (vllm/entrypoints/grpc_server.py: "python -m
# vllm.entrypoints.grpc_server --model <model_path>"; llm-d's config/manifests/vllm/
# gpu-grpc-deployment.yaml runs it)
SERVER_MODULES = (
    "vllm.entrypoints.openai.api_server",
    "vllm.entrypoints.api_server",
    "vllm.entrypoints.grpc_server",
    # SkyRL's remote inference server parses vLLM's own serve arguments (make_arg_parser) and
    # starts vLLM's engine (NovaSky-AI/SkyRL skyrl_train/inference_engines/vllm/vllm_server.py)
    "skyrl_train.inference_engines.vllm.vllm_server",
)


def _model_len(text: str) -> int | Instead:
    if text.strip().lower() in ("auto", "-1"):
        # the engine fits the length to its KV cache after profiling (vllm-project/vllm#29431;
        # engines.yaml vllm.max_model_len_auto_since); the budget does the same
        return Instead("serving.max_model_len_auto", True)
    return human_int(text)


def _performance_mode(text: str) -> str:
    mode = text.strip()  # argparse choices: as written, lower case
    if mode not in ("balanced", "interactivity", "throughput"):
        raise BadValue(f"'{text}' is not balanced, interactivity or throughput")
    return mode


def _mm_encoder_tp_mode(text: str) -> bool:
    mode = text.strip()  # argparse choices (config/multimodal.py MMEncoderTPMode)
    if mode not in ("weights", "data"):
        raise BadValue(f"'{text}' is not weights or data")
    return mode == "data"


_mamba_dtype = choice(
    {"auto": None, "float32": "float32", "float16": "float16", "bfloat16": "bfloat16"},
    "Mamba cache dtype",
)


# --kv-cache-dtype: the names some vLLM release takes (CacheDType in vllm/config/cache.py, read
# in the 0.10.1-0.33.0 wheels; the argparse choices, and from 0.20 the CacheConfig validator
# "Invalid kv_cache_dtype"). No name was dropped; each was added in a release, and the releases
# before it refuse it: name -> (the last release read without it, the first with it).
VLLM_KV_DTYPE_ADDED = {
    "bfloat16": ("0.10.2", "0.11"),
    "fp8_ds_mla": ("0.11.0", "0.11.2"),
    "float16": ("0.17.0", "0.18"),
    **dict.fromkeys(
        (
            "turboquant_k8v4",
            "turboquant_4bit_nc",
            "turboquant_k3v4_nc",
            "turboquant_3bit_nc",
            "int8_per_token_head",
            "fp8_per_token_head",
            "nvfp4",
        ),
        ("0.19.0", "0.20"),
    ),
    "int4_per_token_head": ("0.24.0", "0.25"),
    "nvfp4_4over6": ("0.27.1", "0.28"),
    "nvfp4_ds_mla": ("0.29.0", "0.30"),
    "ultraquant_4bit": ("0.31.0", "0.32"),
    **dict.fromkeys(("octave_k3v4", "octave_k3v3", "octave_k3v3_compact"), ("0.32.0", "0.33")),
}
VLLM_KV_DTYPES = frozenset(("auto", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", *VLLM_KV_DTYPE_ADDED))
_kv_cache_dtype = kv_cache_dtype_of(
    "vLLM",
    VLLM_KV_DTYPES,
    {
        "fp16": "float16 (vLLM 0.18 and later) or auto (the model's dtype, any release)",
        "half": "float16 (vLLM 0.18 and later) or auto (the model's dtype, any release)",
        "bf16": "bfloat16 (vLLM 0.11 and later) or auto (the model's dtype, any release)",
        "fp8_e4m3fn": "fp8_e4m3",
    },
    "auto, float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2 and, by release, quantized formats such "
    "as nvfp4 or turboquant_k8v4",
)


# MaxLoRARanks in vllm/config/lora.py (0.11.2-0.33.0 wheels: argparse choices); releases before
# took the same ranks but 1 (LoRAConfig's possible_max_ranks, a ValueError)
LORA_RANKS = (1, 8, 16, 32, 64, 128, 256, 320, 512)


def _lora_rank(text: str) -> int:
    rank = positive_int(text)
    if rank not in LORA_RANKS:
        raise BadValue(
            f"{rank} is not a LoRA rank vLLM offers ({', '.join(map(str, LORA_RANKS))}), so it "
            "refuses to start (argparse: invalid choice); take the next one up"
        )
    return rank


# the paths _lora reads and drops: without any of them it has nothing to do
_LORA_PATHS = (
    "serving.lora_enabled",
    "serving.lora_cpu_slots",
    "serving.lora_slots",
    "serving.lora_rank",
    "serving.lora_fully_sharded",
)


def _lora(command: EngineCommand) -> None:
    """vLLM builds its LoRA manager only with --enable-lora: then --max-loras slots (default
    1) are preallocated; without it the LoRA flags do nothing. LoRAConfig refuses fewer
    --max-cpu-loras than --max-loras (vllm/config/lora.py, "max_cpu_loras (N) must be >=
    max_loras (M)", in every release read)."""
    values, where = command.values, command.locations
    enabled = values.pop("serving.lora_enabled", False)
    enabled_at = where.pop("serving.lora_enabled", None)
    cpu = values.pop("serving.lora_cpu_slots", None)
    cpu_at = where.pop("serving.lora_cpu_slots", None)
    if not enabled:
        for path in ("serving.lora_slots", "serving.lora_rank", "serving.lora_fully_sharded"):
            values.pop(path, None)
            where.pop(path, None)
        return
    slots = values.setdefault("serving.lora_slots", 1)
    where.setdefault("serving.lora_slots", enabled_at or command.span)
    if cpu is not None and cpu_at is not None and cpu < slots:
        command.note(
            "HBM004",
            f"--max-cpu-loras {cpu} is fewer than --max-loras {slots}: vLLM refuses to start "
            f'("max_cpu_loras ({cpu}) must be >= max_loras ({slots})")',
            cpu_at,
        )


def _mamba_cache_mode(text: str) -> str:
    mode = text.strip()  # argparse choices (config/cache.py MambaCacheMode), lower case
    if mode not in ("none", "align", "all"):
        raise BadValue(f"'{text}' is not none, align or all")
    return mode


# optional=True: the flag's EngineArgs field is `X | None`, so `--flag=` (an unset variable in
# a launch script) and `--flag None` leave the default (vllm/engine/arg_utils.py _compute_kwargs)
FLAGS = FlagTable(
    [
        Flag(("--model",), "model.name", model_name),
        Flag(("--dtype",), "model.dtype", dtype),
        Flag(("--quantization", "-q"), "model.quantization", quantization, optional=True),
        Flag(("--tensor-parallel-size", "-tp"), "parallel.tensor", positive_int),
        Flag(("--pipeline-parallel-size", "-pp"), "parallel.pipeline", positive_int),
        Flag(("--data-parallel-size", "-dp"), "parallel.data", positive_int),
        # the ranks this process runs when the others run on other nodes (multi-node or
        # external-LB data parallelism, vLLM's docs/serving/data_parallel_deployment.md)
        Flag(("--data-parallel-size-local", "-dpl"), "parallel.data_local", nonnegative_int),
        Flag(("--data-parallel-rank", "-dpn"), parse=str),
        Flag(("--data-parallel-start-rank", "-dpr"), parse=str),
        Flag(("--enable-expert-parallel", "-ep"), "parallel.expert"),
        # expert-parallel load balancing: redundant expert copies on the EP ranks (only with
        # --enable-eplb; --num-redundant-experts before --eplb-config took the setting)
        Flag(("--enable-eplb",), "parallel.eplb"),
        Flag(("--num-redundant-experts",), "parallel.redundant_experts", nonnegative_int),
        Flag(("--eplb-config",), parse=str),
        # the KV cache split over ranks of the TP group (vllm/engine/arg_utils.py)
        Flag(("--decode-context-parallel-size", "-dcp"), "parallel.decode_context", positive_int),
        Flag(("--nnodes", "-n"), "nodes", positive_int),
        Flag(("--distributed-executor-backend",), parse=str),  # ray: GPUs of other nodes
        Flag(("--max-model-len",), "serving.max_model_len", _model_len, optional=True),
        # the longest length auto may pick (vllm-project/vllm#41391, 2026-05)
        Flag(("--max-model-len-cap",), "serving.max_model_len_cap", human_int),
        Flag(("--max-num-seqs",), "serving.max_num_seqs", positive_int, optional=True),
        Flag(
            ("--max-num-batched-tokens",),
            "serving.max_num_batched_tokens",
            human_int,
            optional=True,
        ),
        Flag(("--gpu-memory-utilization",), "serving.gpu_memory_utilization", fraction),
        Flag(("--kv-cache-dtype",), "serving.kv_cache_dtype", _kv_cache_dtype),
        Flag(("--block-size",), "serving.block_size", positive_int, optional=True),
        Flag(("--enforce-eager",), "serving.enforce_eager"),
        # the largest batch (in tokens) a CUDA graph is captured for (hbmlint/cudagraphs.py)
        Flag(
            ("--max-cudagraph-capture-size",),
            "serving.cudagraph_max_capture_size",
            positive_int,
            optional=True,
        ),
        Flag(
            ("--enable-chunked-prefill", "--no-enable-chunked-prefill"), "serving.chunked_prefill"
        ),
        # how many state pages a hybrid model's request holds (budget._vllm_state_pages)
        Flag(("--enable-prefix-caching", "--no-enable-prefix-caching"), "serving.prefix_caching"),
        Flag(("--mamba-cache-mode",), "serving.mamba_cache_mode", _mamba_cache_mode),
        # the recurrent state's dtype: --mamba-ssm-cache-dtype for the SSM state, else
        # --mamba-cache-dtype for conv and SSM state alike; auto follows the config
        # (vllm/config/cache.py MambaDType at v0.33.0; budget._vllm_state_dtype)
        Flag(("--mamba-ssm-cache-dtype",), "serving.mamba_ssm_dtype", _mamba_dtype),
        Flag(("--mamba-cache-dtype",), "serving.mamba_cache_dtype", _mamba_dtype),
        # without the hybrid KV cache manager window layers keep the whole context
        Flag(
            ("--disable-hybrid-kv-cache-manager", "--no-disable-hybrid-kv-cache-manager"),
            "serving.disable_hybrid_kv_cache_manager",
        ),
        # with async scheduling a window layer keeps two batches' tokens in flight (budget.py
        # _in_flight_batches)
        Flag(("--async-scheduling", "--no-async-scheduling"), "serving.async_scheduling"),
        # change the model's config.json (RoPE scaling raises its maximum length)
        Flag(("--hf-overrides",), "serving.model_overrides", str),
        Flag(("--rope-scaling",), "serving.model_overrides", str),
        Flag(
            ("--kv-cache-memory-bytes",), "serving.kv_cache_memory_bytes", human_int, optional=True
        ),
        Flag(("--cpu-offload-gb",), "serving.cpu_offload_gb", nonnegative_float),
        # how the weights are read: some formats went with their loaders (_release_refusals)
        Flag(("--load-format",), parse=str),
        # LoRA adapters: slots and rank of the A/B matrices vLLM preallocates (lora.py); the
        # slots only count with --enable-lora (_lora)
        Flag(("--enable-lora", "--no-enable-lora"), "serving.lora_enabled"),
        Flag(("--max-loras",), "serving.lora_slots", positive_int),
        Flag(("--max-lora-rank",), "serving.lora_rank", _lora_rank),
        Flag(("--max-cpu-loras",), "serving.lora_cpu_slots", positive_int, optional=True),
        Flag(("--fully-sharded-loras", "--no-fully-sharded-loras"), "serving.lora_fully_sharded"),
        # text only: no modality's encoder is built or profiled (vllm/config/multimodal.py
        # get_limit_per_prompt; engines.yaml vllm.language_model_only_since)
        Flag(("--language-model-only",), "serving.language_model_only"),
        # balanced, interactivity or throughput; throughput doubles the batch defaults
        # (engines.yaml vllm.performance_mode_since)
        Flag(("--performance-mode",), "serving.performance_mode", _performance_mode),
        Flag(("--limit-mm-per-prompt",), parse=str),
        # "data": the vision tower whole on every TP rank (dp_attention._vllm_sharding); before
        # 0.13 the switch --enable-multimodal-encoder-data-parallel (REMOVED below)
        Flag(("--mm-encoder-tp-mode",), "serving.mm_encoder_data", _mm_encoder_tp_mode),
        Flag(("--enable-multimodal-encoder-data-parallel",), "serving.mm_encoder_data"),
        Flag(("--speculative-config", "-sc"), parse=str),
        # newer shorthands for the common speculative keys
        Flag(("--spec-method",), parse=str),
        Flag(("--spec-model",), parse=str),
        Flag(("--spec-tokens",), parse=str),
        # removed from vLLM (legacy speculative decoding); read as their replacement
        Flag(("--speculative-model",), parse=str),
        Flag(("--num-speculative-tokens",), parse=str),
        Flag(("--speculative-draft-tensor-parallel-size", "-spec-draft-tp"), parse=str),
        Flag(("--speculative-model-quantization",), parse=str),
        Flag(("--speculative-disable-mqa-scorer",)),
        Flag(("--typical-acceptance-sampler-posterior-threshold",), parse=str),
        Flag(("--typical-acceptance-sampler-posterior-alpha",), parse=str),
        Flag(("--disable-logprobs-during-spec-decoding",)),
        Flag(("--ngram-prompt-lookup-max",), parse=str),
        Flag(("--ngram-prompt-lookup-min",), parse=str),
        Flag(("--speculative-max-model-len",), parse=str),
        Flag(("--speculative-disable-by-batch-size",), parse=str),
        Flag(("--spec-decoding-acceptance-method",), parse=str),
        Flag(("--use-v2-block-manager",)),
        # take several words: the positional model must not be mistaken for one of them
        Flag(("--served-model-name",), multi=True),
        Flag(("--lora-modules",), multi=True),
        Flag(("--middleware",), multi=True),
        # Dynamo's vLLM worker: `--connector kvbm nixl` (nargs="*", ai-dynamo/dynamo
        # components/src/dynamo/vllm/args.py); its last word is no positional model
        Flag(("--connector",), multi=True),
        # list fields of vLLM's configs, which its parser gives nargs="+" ("--cudagraph-capture-
        # sizes CUDAGRAPH_CAPTURE_SIZES [CUDAGRAPH_CAPTURE_SIZES ...]" in `vllm serve --help`;
        # SchedulerConfig.cuda_graph_sizes before 0.13): `... 1 2 4 8` are all its values
        Flag(("--cudagraph-capture-sizes",), multi=True),
        Flag(("--cuda-graph-sizes",), multi=True),
    ],
    switches=[
        "--trust-remote-code",
        "--disable-log-requests",
        "--disable-log-stats",
        "--enable-auto-tool-choice",
        "--disable-custom-all-reduce",
        "--enable-reasoning",
        "--disable-frontend-multiprocessing",
        "--enable-log-requests",
        "--headless",
        # optimization levels written as one word (-O0: no CUDA graphs; -O1: piecewise only)
        "-O0",
        "-O1",
        "-O2",
        "-O3",
        "--enable-sleep-mode",
        "--skip-tokenizer-init",
        "--disable-sliding-window",
        "--enable-prompt-tokens-details",
        "--enable-force-include-usage",
        "--enable-server-load-tracking",
        "--enable-dbo",
        "--enable-eplb",
        # more of vLLM's booleans, so that a model written after one is not taken as its value
        "--disable-uvicorn-access-log",
        "--allow-credentials",
        "--enable-ssl-refresh",
        "--return-tokens-as-token-ids",
        "--disable-fastapi-docs",
        "--enable-request-id-headers",
        "--use-tqdm-on-load",
        "--disable-cascade-attn",
        "--enable-lora-bias",
        "--enable-prompt-embeds",
        "--disable-chunked-mm-input",
        "--data-parallel-hybrid-lb",
        "--data-parallel-external-lb",
        "--enable-log-outputs",
        "--enable-tokenizer-info-endpoint",
        "--log-error-stack",
        "--kv-sharing-fast-prefill",
        "--calculate-kv-scales",
        "--disable-mm-preprocessor-cache",
        "--multi-step-stream-outputs",
        "--disable-async-output-proc",
        "--ray-workers-use-nsight",
        "--exclude-tools-when-tool-choice-none",
        "--worker-use-ray",
        "--enable-expert-parallel",
        "--disable-log-stats",
        "--grpc",
        "--allow-deprecated-quantization",
    ],
)

# Flags that take a model-like value that is not the model.
_NOT_THE_MODEL = ("--tokenizer", "--chat-template", "--download-dir", "--config")
_MODEL_LIKE = LazyPattern(r"^(?:[\w.-]+/[\w.-]+|/\S+)$")
_FILE = LazyPattern(r"\.[A-Za-z]\w{0,4}$")  # key.pem, chat.jinja: a file, not a model


def _model_like(text: str) -> bool:
    return bool(_MODEL_LIKE.match(text)) and not _FILE.search(text)


_SPEC_KEYS = {
    # JSON key -> how to read it (None: kept as text)
    "method": None,
    "model": None,
    "num_speculative_tokens": positive_int,
    "draft_tensor_parallel_size": positive_int,
    "quantization": quantization,
    "max_model_len": positive_int,
    "kv_cache_dtype": None,
    "use_heterogeneous_vocab": None,
}

# Removed flags: the --speculative-config key they became (None: dropped without a successor).
# vLLM v0.8.0 added --speculative-config and deprecated the separate flags (PR #14434); PR
# #15466 removed them from vllm/engine/arg_utils.py, first released in v0.8.3. The V0-only
# tuning flags (acceptance method, typical acceptance, MQA scorer, logprobs) have no key in
# today's SpeculativeConfig (vllm/config/speculative.py); --use-v2-block-manager was a no-op
# from v0.6.2 and went with them.
_LEGACY = {
    "--speculative-model": "model",
    "--num-speculative-tokens": "num_speculative_tokens",
    "--speculative-draft-tensor-parallel-size": "draft_tensor_parallel_size",
    "--speculative-model-quantization": "quantization",
    "--ngram-prompt-lookup-max": "prompt_lookup_max",
    "--ngram-prompt-lookup-min": "prompt_lookup_min",
    "--speculative-max-model-len": "max_model_len",
    "--speculative-disable-by-batch-size": "disable_by_batch_size",
    "--spec-decoding-acceptance-method": None,
    "--typical-acceptance-sampler-posterior-threshold": None,
    "--typical-acceptance-sampler-posterior-alpha": None,
    "--speculative-disable-mqa-scorer": None,
    "--disable-logprobs-during-spec-decoding": None,
    "--use-v2-block-manager": None,
}
# Keys today's SpeculativeConfig still has: moving a removed flag to one keeps its meaning.
# The others (and the dropped flags but --use-v2-block-manager) change what the engine does.
CURRENT_SPEC_KEYS = (
    "method",
    "model",
    "num_speculative_tokens",
    "draft_tensor_parallel_size",
    "quantization",
    "max_model_len",
    "prompt_lookup_max",
    "prompt_lookup_min",
)
_SHORTHANDS = {
    "--spec-method": "method",
    "--spec-model": "model",
    "--spec-tokens": "num_speculative_tokens",
}

# vLLM's method names, by what they cost in HBM (spec.py); every "*_mtp" is MTP.
METHODS = {
    "draft_model": "draft_model",
    "dflash": "dflash",
    "eagle": "eagle",
    "eagle3": "eagle3",
    "medusa": "medusa",
    "mlp_speculator": "medusa",  # heads with weights and no KV cache, as Medusa
    "mtp": "mtp",
    "ngram": "ngram",
    "ngram_gpu": "ngram",
    "suffix": "suffix",
    "prompt_lookup": "prompt_lookup",
}


# methods vLLM 0.33 no longer takes (Refusal in _speculative)
_METHODS_DROPPED = ("medusa", "mlp_speculator")

# Flags vLLM has removed: the first release whose argparse no longer takes them ("unrecognized
# arguments", and the server exits), and what replaces them. Read in the releases' wheels
# (engine/arg_utils.py, entrypoints/openai/cli_args.py): --cuda-graph-sizes is deprecated in
# 0.12.0 ("will be removed in v0.13.0") and gone in 0.13.0; --swap-space (CPU blocks for V0's
# swapping) is in 0.17.0 and not 0.18.0; --calculate-kv-scales is in 0.27.1 and not 0.28.0;
# --num-redundant-experts is in 0.11.2 ("will be removed in v0.12.0") and not 0.12.0;
# --disable-mm-preprocessor-cache, --enable-multimodal-encoder-data-parallel and --task are in
# 0.12.0 and not 0.13.0; --disable-log-requests ("[DEPRECATED]" since vllm-project/vllm#21739)
# is in 0.16.0 and not 0.17.0; --disable-frontend-multiprocessing is in 0.18.0 and not 0.19.0.
# V0's scheduler flags went with V0: --num-scheduler-steps is in 0.10.0 and not 0.10.1;
# --max-seq-len-to-capture, --scheduler-delay-factor and --preemption-mode are in 0.10.2 and
# not 0.11.0; --lora-extra-vocab-size is in 0.11.2 and not 0.12.0. None of them in 0.33.0.
REMOVED = {
    "--num-scheduler-steps": ("0.10.1", "Remove it: multi-step scheduling went with the V0 engine"),
    "--max-seq-len-to-capture": ("0.11", "Remove it"),
    "--scheduler-delay-factor": ("0.11", "Remove it"),
    "--preemption-mode": ("0.11", "Remove it"),
    "--num-redundant-experts": (
        "0.12",
        "Use --eplb-config '{\"num_redundant_experts\": N}' (with --enable-eplb)",
    ),
    "--disable-mm-preprocessor-cache": ("0.13", "Use --mm-processor-cache-gb 0"),
    "--enable-multimodal-encoder-data-parallel": ("0.13", "Use --mm-encoder-tp-mode data"),
    "--task": ("0.13", "Use --runner (generate, pooling) and --convert instead"),
    "--disable-log-requests": (
        "0.17",
        "Remove it: request logging is off by default (--enable-log-requests turns it on)",
    ),
    "--disable-frontend-multiprocessing": (
        "0.19",
        "Remove it: vLLM 0.19 and later do not take it",
    ),
    "--cuda-graph-sizes": (
        "0.13",
        "Use --max-cudagraph-capture-size, or --compilation-config "
        "'{\"cudagraph_capture_sizes\": [...]}'",
    ),
    "--swap-space": ("0.18", "Remove it: the CPU swap space it sized is gone"),
    "--calculate-kv-scales": ("0.28", "Remove it"),
    # in 0.11.2 ("deprecated and will be removed"), not in 0.12.0 (engine/arg_utils.py)
    "--lora-extra-vocab-size": ("0.12", "Remove it: adapters no longer add vocabulary"),
    # --device is in 0.9.2 and not 0.10.0; --rope-scaling and --rope-theta in 0.11.0 and not
    # 0.11.1; the guided-decoding and EPLB tuning flags in 0.11.2 and not 0.12.0, where
    # StructuredOutputsConfig.backend and EPLBConfig's window_size, step_interval and
    # log_balancedness take them (vllm/config/structured_outputs.py, parallel.py)
    "--device": ("0.10", "Remove it: vLLM takes the device from the platform it runs on"),
    # deprecated in 0.9.0 (vllm-project/vllm#17452, #18404: --reasoning-parser alone turns it
    # on) and refused by 0.10.0 ("unrecognized arguments: --enable-reasoning": vllm-project/
    # vllm#18538, gpustack/gpustack#2616)
    "--enable-reasoning": ("0.10", "Remove it: --reasoning-parser alone turns reasoning on"),
    # V0's switches: --tokenizer-pool-size and --enable-prompt-adapter are in 0.9.2 and not
    # 0.10.0, --multi-step-stream-outputs in 0.10.0 and not 0.10.1,
    # --disable-async-output-proc in 0.10.2 and not 0.11.0
    "--tokenizer-pool-size": ("0.10", "Remove it"),
    "--enable-prompt-adapter": ("0.10", "Remove it: prompt adapters went with the V0 engine"),
    "--multi-step-stream-outputs": ("0.10.1", "Remove it"),
    "--disable-async-output-proc": ("0.11", "Remove it: the V1 engine has no such switch"),
    "--rope-scaling": (
        "0.11.1",
        "Use --hf-overrides '{\"rope_scaling\": {...}}' with the same JSON",
    ),
    "--rope-theta": ("0.11.1", "Use --hf-overrides '{\"rope_theta\": N}'"),
    "--guided-decoding-backend": (
        "0.12",
        'Use --structured-outputs-config \'{"backend": "NAME"}\'',
    ),
    **dict.fromkeys(
        ("--eplb-window-size", "--eplb-step-interval", "--eplb-log-balancedness"),
        (
            "0.12",
            'Use --eplb-config \'{"window_size": N, "step_interval": N, '
            '"log_balancedness": true}\' (the keys you set)',
        ),
    ),
}


# Flags of REMOVED a later release takes once more: from 0.33.0 FlexibleArgumentParser registers
# EnableDisableAction for every BooleanOptionalAction (vllm/utils/argparse_utils.py, not in the
# 0.32.0 wheel), which pairs --enable-log-requests with --disable-log-requests (as
# --no-enable-log-requests): only 0.17.0-0.32.x refuse it.
TAKEN_AGAIN = {"--disable-log-requests": "0.33"}


def removed_flags(
    command: EngineCommand, engine_version: str | None, image: str | None = None
) -> list[tuple[str, Span, str, bool]]:
    """(message, where, fix, certain) for each flag of ``command`` that the release has removed (a
    manifest that names no release runs the newest)."""
    return flags_removed(command, engine_version, REMOVED, "vLLM", image, TAKEN_AGAIN)


# What vLLM does with no model: `vllm serve`'s model is an optional positional (nargs="?",
# vllm/entrypoints/cli/serve.py), so it serves ModelConfig's default model: "facebook/opt-125m"
# through 0.9.2 (vllm/config.py), "Qwen/Qwen3-0.6B" from 0.10.0 (vllm/config.py; 0.11.0-0.33.0
# vllm/config/model.py). From 0.17.0, `vllm serve` with --served-model-name, no model and no
# --config refuses to start (FlexibleArgumentParser.parse_args in vllm/utils/argparse_utils.py;
# not in 0.16.0).
_DEFAULT_MODEL_FROM = (("0.10.0", "Qwen/Qwen3-0.6B"), ("0.0", "facebook/opt-125m"))
_SERVED_NAME_NEEDS_MODEL_FROM = "0.17.0"


def without_model(command: EngineCommand, engine_version: str | None) -> tuple[str, str]:
    """(message, severity) for a vLLM command that names no model: an error where the release
    refuses to start (`vllm serve --served-model-name NAME` from 0.17.0), else a warning: vLLM
    starts and serves its default model, which no manifest means."""
    have = release(engine_version)
    fix = "give the model as `vllm serve MODEL` or --model"
    if command.served_name is not None and command.launcher in ("serve", "image"):
        since = _SERVED_NAME_NEEDS_MODEL_FROM
        if have is not None and have >= release(since):  # type: ignore[operator]
            return (
                f"the vllm command names no model, only --served-model-name: vLLM "
                f"{engine_version} refuses to start ('`model` should be provided as the first "
                f"positional argument', from {since} on); {fix}",
                "error",
            )
        if have is None:
            return (
                f"the vllm command names no model, only --served-model-name: vLLM {since} and "
                "later refuse to start, and the manifest names no release (an older one serves "
                f"its default model); {fix}",
                "warning",
            )
    if have is None:
        default = f"{_DEFAULT_MODEL_FROM[0][1]} ({_DEFAULT_MODEL_FROM[1][1]} before 0.10)"
    else:
        default = next(m for v, m in _DEFAULT_MODEL_FROM if have >= release(v))  # type: ignore[operator]
    return (
        f"the vllm command names no model, so vLLM starts with its default model, {default}, "
        f"and this deployment is not budgeted; {fix}",
        "warning",
    )


def find(argv: list[Token]) -> int | None:
    """The index of the first engine argument when ``argv`` runs vLLM's server, else None."""
    for i, token in enumerate(argv):
        is_vllm = token.text.rsplit("/", 1)[-1] == "vllm"
        if is_vllm and i + 1 < len(argv) and argv[i + 1].text == "serve":
            return i + 2
        if token.text in SERVER_MODULES and i > 0 and argv[i - 1].text == "-m":
            return i + 1
        # NVIDIA Dynamo's vLLM worker passes vLLM's own flags to vLLM's parser
        # (ai-dynamo/dynamo components/src/dynamo/vllm/args.py), in a graph or any pod spec
        if token.text == "dynamo.vllm" and i > 0 and argv[i - 1].text == "-m":
            return i + 1
    return None


def parse(
    tokens: list[Token], launcher: Span, env: Mapping[str, Token] | None = None
) -> EngineCommand:
    """Read vLLM's engine arguments (what follows ``vllm serve``)."""
    command = EngineCommand(engine=NAME, span=launcher)
    spec: dict[str, tuple[Any, Span]] = {}
    spec_span: Span | None = None
    legacy: list[Item] = []
    positional: Token | None = None
    served: Item | None = None
    config: Item | None = None
    guessed: Token | None = None  # a model-like word taken as the value of a flag we don't know
    command.items = scan(tokens, FLAGS)
    after_unknown = False  # the item before was a flag hbmlint does not know (any arity)
    for item in command.items:
        # each item's flag, name and first name read once: a dozen items a command line
        flag, name = item.flag, item.name
        unknown_before, after_unknown = after_unknown, flag is None and bool(name)
        if flag is None:
            if not name:
                word = item.word
                text = word.text
                if (
                    text[:1].isupper()
                    and "_" in text
                    and not unknown_before  # it may be that flag's second value
                    and _ENV_ASSIGNMENT.match(text)
                ):
                    command.note(
                        "HBM004",
                        f"'{text}' is an argument here, not an environment variable: "
                        "vLLM's parser takes no such word (unrecognized arguments) and "
                        "refuses to start",
                        word.span,
                        "Set it in the container's environment (env:) instead of its arguments",
                    )
                    continue
                if (
                    positional is None
                    and not word.text.startswith("-")
                    and not (word.unresolved and holds_flags_only(word))
                ):
                    positional = word  # `vllm serve MODEL`: the first positional is the model
                elif not word.readable and word.text.startswith("$"):
                    command.note("HBM011", flags_unread(word), word.span)
                continue
            if name == "--config":
                config = item
                continue
            # an unknown flag. `--flag=VALUE` keeps its value: only a separate word may be the
            # positional model
            value = item.value
            if (
                value is not None
                and guessed is None
                and "=" not in item.word.text
                and name not in _NOT_THE_MODEL
            ):
                guessed = value if _model_like(value.text) else None
            long = None
        else:
            long = flag.names[0]
            if long == "--served-model-name":
                served = item  # names the API serves it under; never the model itself
                command.served_name = item.word.span
                continue
        if name.startswith("--speculative-config."):
            key = name[len("--speculative-config.") :].replace("-", "_")
            if item.value is None or not item.value.readable:
                _unreadable_or_missing(command, item)
                if item.value is not None:  # given, unread: the drafter is not known
                    spec[key] = (None, item.word.span)
                continue
            spec[key] = (item.value.text, item.word.span)
            spec_span = spec_span or item.word.span
            continue
        if flag is None:
            continue  # an unknown flag: not ours to judge (apply sets nothing for it)
        if long == "--quantization":
            _quantization_as_written(command, item)
        if flag.field in _HUMAN_READABLE:
            _suffix_as_written(command, item)
        # --enable-chunked-prefill took a value up to 0.8 (vllm.utils.StoreBoolean, nargs="?");
        # it is made from SchedulerConfig's bool field by 0.9.0 (the release judged: it may
        # have come in 0.8.5, where nothing is said)
        switch_given_a_value(command, item, "vLLM", {"--enable-chunked-prefill": "0.9.0"})
        if apply(command, item):
            continue
        if long == "--speculative-config":
            if item.value is None or not item.value.readable:
                partly = _spec_json_partly(command, item)
                if partly is None:
                    _unreadable_or_missing(command, item)
                    continue
                spec = {k: (v, item.value.span) for k, v in partly.items()}  # type: ignore[union-attr]
                spec_span = item.word.span
                continue
            if item.value.text in ("", "None"):
                continue  # optional_type(json.loads): no speculative decoding, as if not given
            loaded = _spec_json(command, item)
            if loaded is not None:
                # each key is located at the JSON (which may sit on the line after the flag)
                spec = {k: (v, item.value.span) for k, v in loaded.items()}  # type: ignore[union-attr]
                spec_span = item.word.span
        elif long == "--eplb-config" and item.value is not None and item.value.readable:
            _eplb_config(command, item)
        elif long == "--limit-mm-per-prompt" and item.value is not None and item.value.readable:
            _mm_limits(command, item)
        elif long in _SHORTHANDS:
            if item.value is None or not item.value.readable:
                _unreadable_or_missing(command, item)
                continue
            spec[_SHORTHANDS[long]] = (item.value.text, item.word.span)
            spec_span = spec_span or item.word.span
        elif long in _LEGACY:
            legacy.append(item)
    for item in legacy:
        key = _LEGACY[item.flag.names[0]]  # type: ignore[union-attr]
        if key and item.value is not None and item.value.readable:
            spec.setdefault(key, (item.value.text, item.word.span))
            spec_span = spec_span or item.word.span
    _report_legacy(command, legacy, spec)
    if positional is not None:
        # `vllm serve MODEL` wins over --model, as in vLLM
        if positional.readable and not placeholder(positional.text):
            command.set("model.name", model_name(positional.text), positional.span)
            command.model_unreadable = False  # an unreadable --model no longer matters
        else:
            command.model_unreadable = True
            show = placeholder_message if positional.readable else unreadable_message
            command.note(
                "HBM011",
                show("the model", positional, "this deployment cannot be checked"),
                positional.span,
            )
    elif "model.name" not in command.values and not command.model_unreadable:
        if config is not None:
            # `vllm serve --config FILE`: the model and other settings may be in the file
            where = config.value or config.word
            command.model_unreadable = True
            command.note(
                "HBM011",
                f"the model is not on the command line; vLLM reads it from --config "
                f"{where.text}, which hbmlint reads when that file is linted itself",
                where.span,
            )
        elif served is not None and len(served.values) > 1:
            _served_names_took_the_model(command, served)
        elif guessed is not None and guessed.readable:
            # a boolean flag hbmlint does not know, then the model: vLLM knows its flags, so the
            # model-like word after it is the positional model
            command.set("model.name", model_name(guessed.text), guessed.span)
    if config is not None and "model.name" in command.values:
        _settings_in_config_file(command, config)
    # The checks below each walk the command line for a few flags and do nothing without
    # them: they are called only where one of their flags is written (a dozen words a
    # command, every container). ``written``: the names as scan gives them, which the
    # checks compare; ``canonical``: each known flag's first name, whatever its spelling.
    items = command.items
    written = {item.name for item in items}
    canonical = {item.flag.names[0] for item in items if item.flag is not None}
    if "--omni" in written:
        _omni(command)
    if "--ec-transfer-config" in written:
        _encoder_producer(command)
    if "--disaggregation-mode" in written:
        _dynamo_encode_worker(command)
    if not written.isdisjoint(DYNAMO_MULTIMODAL_FLAGS):
        dynamo_multimodal_role(command)
    # a dotted name may be -cc.cudagraph_mode
    if not written.isdisjoint(_GRAPH_NAMES) or "." in " ".join(written):
        _cudagraph_mode(command)
    if not canonical.isdisjoint(_REFUSAL_FLAGS):
        _release_refusals(command)
    if not (
        command.values.keys().isdisjoint(_LORA_PATHS)
        and command.locations.keys().isdisjoint(_LORA_PATHS)
    ):
        _lora(command)
    _tensor_by_decode_context(command)
    if not command.values.pop("parallel.eplb", False):
        command.values.pop("parallel.redundant_experts", None)  # ignored without EPLB
    command.locations.pop("parallel.eplb", None)
    if spec:
        _speculative(command, spec, spec_span or launcher)
    _allow_long(command, env)
    if "--data-parallel-rank" in canonical:
        _external_data_parallel(command)
    _deprecated_checkpoint(command)
    both = command.values.pop("serving.mamba_cache_dtype", None)
    both_span = command.locations.pop("serving.mamba_cache_dtype", None)
    if both and both_span is not None and "serving.mamba_ssm_dtype" not in command.values:
        command.set("serving.mamba_ssm_dtype", both, both_span)
    if command.values.pop("serving.mm_encoder_data", False):
        command.set(
            "parallel.whole_parts", ("vision_whole",), command.locations["serving.mm_encoder_data"]
        )
    command.locations.pop("serving.mm_encoder_data", None)
    return command


# --quantization methods vLLM dropped: the last release read with the name in QuantizationMethods
# (model_executor/layers/quantization/__init__.py of the 0.11.0-0.33.0 wheels) and the first
# without it, whose ModelConfig refuses it ("Unknown quantization method"). bitsandbytes went in
# 0.28 with its loader and load format.
VLLM_QUANTIZATION_DROPPED = {
    "tpu_int8": ("0.13.0", "0.14"),
    **dict.fromkeys(("auto-round", "deepspeedfp", "hqq", "rtn"), ("0.14.0", "0.15")),
    **dict.fromkeys(("bitblas", "gptq_bitblas", "gptq_marlin_24", "ipex"), ("0.15.0", "0.16")),
    "ptpc_fp8": ("0.18.0", "0.19"),
    "petit_nvfp4": ("0.19.0", "0.20"),
    "cpu_awq": ("0.22.1", "0.23"),
    "gguf": ("0.23.0", "0.24"),
    "bitsandbytes": ("0.27.1", "0.28"),
}
# Dropped names that still start where the checkpoint is of a format another method claims
# whatever --quantization says (ModelConfig._verify_quantization lets the first
# override_quantization_method that answers replace the flag, vllm 0.33.0 config/model.py):
# INCConfig takes every quant_method auto-round checkpoint (inc/inc.py), ModelOptNvFp4Config
# every ModelOpt NVFP4 export (modelopt.py), the checkpoints these two names were for.
_DROPPED_UNLESS = {
    "auto-round": "the checkpoint is an AutoRound export (vLLM serves it as inc)",
    "petit_nvfp4": "the checkpoint is a ModelOpt NVFP4 export (vLLM serves it as modelopt_fp4)",
}
# --quantization methods in DEPRECATED_QUANTIZATION_METHODS, which ModelConfig refuses from 0.14
# on unless --allow-deprecated-quantization is given ("The quantization method %s is deprecated
# ... To bypass, set `--allow-deprecated-quantization`", config/model.py _verify_quantization;
# the list and the check read in the 0.14.0-0.33.0 wheels, neither in 0.13.0): name -> the first
# release that no longer refuses it (None: refused up to 0.33). fbgemm_fp8 and fp_quant are
# listed from 0.14.0 to 0.33.0, experts_int8 from 0.14.0 to 0.19.0; ptpc_fp8, deepspeedfp, hqq
# and rtn until the release that dropped them (VLLM_QUANTIZATION_DROPPED says the rest). Names
# another method's override may replace (bitblas, gptq_marlin_24, gptq_bitblas, ipex,
# petit_nvfp4, auto-round) are left out: whether the check sees them depends on the checkpoint.
VLLM_QUANTIZATION_DEPRECATED = {
    "fbgemm_fp8": None,
    "fp_quant": None,
    "experts_int8": "0.20",
    "ptpc_fp8": "0.19",
    **dict.fromkeys(("deepspeedfp", "hqq", "rtn"), "0.15"),
}
_DEPRECATED_SINCE = "0.14"
_ALLOW_DEPRECATED = "--allow-deprecated-quantization"
_ALLOW_DEPRECATED_NAMES = (_ALLOW_DEPRECATED, "--no-" + _ALLOW_DEPRECATED[2:])

# --load-format names vLLM dropped with their loaders: the last release read with the name in
# _LOAD_FORMAT_TO_MODEL_LOADER (model_executor/model_loader/__init__.py of the 0.23.0, 0.24.0,
# 0.27.1 and 0.28.0 wheels) and the first without it, where get_model_loader raises "Load format
# `gguf` is not supported" as the model loads (LoadConfig takes any string, so argparse does not)
VLLM_LOAD_FORMAT_DROPPED = {
    "gguf": ("0.23.0", "0.24"),
    "bitsandbytes": ("0.27.1", "0.28"),
}


# the flags (by their first name) whose values _release_refusals judges
_REFUSAL_FLAGS = frozenset(
    ("--kv-cache-dtype", "--quantization", "--load-format", "--mamba-cache-mode")
)


def _release_refusals(command: EngineCommand) -> None:
    """Values that only some vLLM releases take, judged once the manifest's release is known
    (args.refused_at): a KV cache dtype newer than the release, and --mamba-cache-mode all,
    which 0.32 dropped (MambaCacheMode is "all", "align", "none" in vllm/config/cache.py from
    0.15.0 to 0.31.0 and "align", "none" in 0.32.0 and 0.33.0: argparse's choices). The last of
    a repeated flag wins."""
    last: dict[str, Item] = {}
    for item in command.items:
        if item.flag is not None and item.value is not None and item.value.readable:
            last[item.flag.names[0]] = item
    kv = last.get("--kv-cache-dtype")
    name = kv.value.text.strip() if kv is not None and kv.value is not None else ""
    if kv is not None and kv.value is not None and name in VLLM_KV_DTYPE_ADDED:
        through, first = VLLM_KV_DTYPE_ADDED[name]
        command.refusals.append(
            Refusal(
                f"--kv-cache-dtype {name} is a KV cache dtype vLLM added in {first}",
                kv.value.span,
                f"Use an image of vLLM {first} or later, or --kv-cache-dtype auto",
                through=through,
            )
        )
    quant = last.get("--quantization")
    method = quant.value.text.strip() if quant is not None and quant.value is not None else ""
    if quant is not None and quant.value is not None and method in VLLM_QUANTIZATION_DROPPED:
        kept, dropped = VLLM_QUANTIZATION_DROPPED[method]
        command.refusals.append(
            Refusal(
                f"--quantization {method} is a method vLLM dropped ('Unknown quantization method')",
                quant.value.span,
                f"Serve a checkpoint in a format current vLLM loads (AWQ, GPTQ, FP8, "
                f"compressed-tensors), or pin an image of vLLM {kept} or earlier",
                since=dropped,
                unless=_DROPPED_UNLESS.get(method),
            )
        )
    # --allow-deprecated-quantization is looked for only where a method is given
    if quant is not None and quant.value is not None and not _deprecated_allowed(command):
        _deprecated_method(command, method, quant.value.span, f"--quantization {method}")
    load = last.get("--load-format")
    form = load.value.text.strip().lower() if load is not None and load.value is not None else ""
    if load is not None and load.value is not None and form in VLLM_LOAD_FORMAT_DROPPED:
        kept, dropped = VLLM_LOAD_FORMAT_DROPPED[form]
        command.refusals.append(
            Refusal(
                f"--load-format {form} is a load format vLLM dropped with its loader (the model "
                f"does not load: 'Load format `{form}` is not supported')",
                load.value.span,
                f"Serve the model in safetensors (an AWQ, GPTQ, FP8 or compressed-tensors "
                f"checkpoint for a quantized one), or pin an image of vLLM {kept} or earlier",
                since=dropped,
            )
        )
    mode = last.get("--mamba-cache-mode")
    if mode is not None and mode.value is not None and mode.value.text.strip() == "all":
        command.refusals.append(
            Refusal(
                "--mamba-cache-mode all is no longer a choice (argparse: invalid choice: "
                "'all'; align and none remain)",
                mode.value.span,
                "Use --mamba-cache-mode align, which caches the state at block boundaries for "
                "prefix caching, or pin an image of vLLM 0.31 or earlier",
                since="0.32",
            )
        )


def _deprecated_allowed(command: EngineCommand) -> bool:
    """Whether --allow-deprecated-quantization is on (the last of it and its --no- form wins)."""
    allowed = False
    for item in command.items:
        if item.name in _ALLOW_DEPRECATED_NAMES:
            on = item.name == _ALLOW_DEPRECATED
            if item.value is not None and item.value.text.strip().lower() in ("true", "false"):
                on = on == (item.value.text.strip().lower() == "true")
            allowed = on
    return allowed


def _deprecated_method(command: EngineCommand, method: str, span: Span, what: str) -> None:
    """A deprecated quantization method without --allow-deprecated-quantization: refused from
    0.14 until the release that lifts or drops it (the drop has its own refusal)."""
    if method not in VLLM_QUANTIZATION_DEPRECATED:
        return
    command.refusals.append(
        Refusal(
            f"{what} is a quantization method vLLM deprecated, and it refuses to start without "
            f"{_ALLOW_DEPRECATED} ('The quantization method {method} is deprecated')",
            span,
            f"Add {_ALLOW_DEPRECATED} to keep it, or serve a checkpoint in a current format "
            "(FP8 as fp8 or compressed-tensors)",
            since=_DEPRECATED_SINCE,
            until=VLLM_QUANTIZATION_DEPRECATED[method],
        )
    )


def _deprecated_checkpoint(command: EngineCommand) -> None:
    """A checkpoint stored in a deprecated method (Meta's Llama 3.1 405B FP8 export is
    fbgemm_fp8) with no --quantization: vLLM takes the method from its config.json and applies
    the same check. Read from the catalog only (a checkpoint read from the Hub later is not
    judged here)."""
    model = command.values.get("model.name")
    if not isinstance(model, str) or "model.quantization" in command.values:
        return
    entry = find_model(model) or {}
    config = entry.get("config") or {}
    quant = config.get("quantization_config") if isinstance(config, dict) else None
    method = quant.get("quant_method") if isinstance(quant, dict) else None
    # the flag is looked for only where it matters: a scan of every word of the command line
    # costs more than the catalog's lookup, and almost no checkpoint is in a deprecated method
    if (
        isinstance(method, str)
        and method in VLLM_QUANTIZATION_DEPRECATED
        and not _deprecated_allowed(command)
    ):
        _deprecated_method(
            command,
            method,
            command.locations.get("model.name", command.span),
            f"{model}'s quant_method {method} (its config.json)",
        )
    if isinstance(method, str) and method in VLLM_QUANTIZATION_DROPPED:
        # a bitsandbytes checkpoint (unsloth's *-bnb-4bit) with no --quantization: vLLM takes
        # the method from its config.json, and the releases that dropped it refuse it alike
        kept, dropped = VLLM_QUANTIZATION_DROPPED[method]
        command.refusals.append(
            Refusal(
                f"{model} is a {method} checkpoint (its config.json's quant_method), a method "
                "vLLM dropped ('Unknown quantization method')",
                command.locations.get("model.name", command.span),
                f"Serve a checkpoint in a format current vLLM loads (AWQ, GPTQ, FP8, "
                f"compressed-tensors), or pin an image of vLLM {kept} or earlier",
                since=dropped,
                unless=_DROPPED_UNLESS.get(method),
            )
        )


def _tensor_by_decode_context(command: EngineCommand) -> None:
    """--decode-context-parallel-size N splits each TP group into groups of N ranks: vLLM
    refuses a TP size N does not divide ("tp_size=4 must be divisible by dcp_size=8",
    ParallelConfig in vllm/config/parallel.py of every release read, 0.10.2 to 0.33.0). With
    prefill context parallelism on, 0.26 and later take other sizes: not judged then."""
    dcp = command.values.get("parallel.decode_context")
    where = command.locations.get("parallel.decode_context")
    if not isinstance(dcp, int) or dcp <= 1 or where is None:
        return
    names = {i.name for i in command.items}
    if "parallel.tensor" in command.unread or names & {"--prefill-context-parallel-size", "-pcp"}:
        return
    if "parallel.tensor" not in command.values and "--config" in names:
        return  # the TP size may be in the config file
    tp = command.values.get("parallel.tensor", 1)
    if isinstance(tp, int) and tp % dcp:
        command.note(
            "HBM004",
            f"--decode-context-parallel-size {dcp} does not divide the tensor parallel size "
            f"{tp}: vLLM refuses to start ('tp_size={tp} must be divisible by dcp_size={dcp}'); "
            "decode context parallelism reuses the TP group's GPUs",
            where,
            f"Set --tensor-parallel-size to a multiple of {dcp}, or a "
            "--decode-context-parallel-size that divides it",
        )


# the CUDA graph mode each optimization level sets where the manifest sets none itself
# (docs/design/optimization_levels.md: -O0 NONE, -O1 PIECEWISE, -O2 and -O3 FULL_AND_PIECEWISE)
_LEVEL_GRAPHS = {
    "0": "NONE",
    "1": "PIECEWISE",
    "2": "FULL_AND_PIECEWISE",
    "3": "FULL_AND_PIECEWISE",
}
_COMPILATION = ("--compilation-config", "-cc", "-O")
_LEVEL = ("-O", "--optimization-level")
# every name _cudagraph_mode reads undotted
_GRAPH_NAMES = frozenset(("-O0", "-O1", "-O2", "-O3", *_COMPILATION, *_LEVEL))


def _cudagraph_mode(command: EngineCommand) -> None:
    """vLLM's CUDA graph mode where the command sets it: cudagraph_mode in --compilation-config
    (-cc) JSON or as -cc.cudagraph_mode=MODE, else the optimization level's (-O0 captures no
    graphs, -O1 only piecewise ones). A user-set mode wins over the level's default, as in
    vLLM. Unreadable or unknown values leave the default."""
    mode: tuple[str, Span] | None = None
    level: tuple[str, Span] | None = None
    for item in command.items:
        name, value = item.name, item.value
        if name in ("-O0", "-O1", "-O2", "-O3"):
            level = (name[2], item.word.span)
            continue
        if value is None or not value.readable:
            continue
        text = value.text.strip()
        if name in _LEVEL and text in _LEVEL_GRAPHS:
            level = (text, item.word.span)
        elif name in _COMPILATION and text.startswith("{"):
            try:
                loaded = json_loads(text)
            except ValueError:
                continue  # not ours to judge: vLLM reports its own JSON errors
            found = loaded.get("cudagraph_mode") if isinstance(loaded, dict) else None
            if isinstance(found, str):
                mode = (found.strip().upper(), item.word.span)
            if isinstance(loaded, dict):
                _capture_sizes(command, loaded, item.word.span)
        elif name.partition(".")[0] in _COMPILATION and name.partition(".")[2] in (
            "cudagraph_mode",
            "cudagraph-mode",
        ):
            mode = (text.upper(), item.word.span)
    if mode is None and level is not None:
        mode = (_LEVEL_GRAPHS[level[0]], level[1])
    if mode is not None:
        command.set("serving.cudagraph_mode", mode[0], mode[1])


def _capture_sizes(command: EngineCommand, config: dict, span: Span) -> None:
    """max_cudagraph_capture_size and cudagraph_capture_sizes in --compilation-config JSON
    (vllm/config/compilation.py): what the CUDA graph estimate counts (hbmlint/cudagraphs.py).
    Values vLLM would refuse are left alone: its own validation reports them."""
    largest = config.get("max_cudagraph_capture_size")
    if isinstance(largest, int) and not isinstance(largest, bool) and largest > 0:
        command.set("serving.cudagraph_max_capture_size", largest, span)
    sizes = config.get("cudagraph_capture_sizes")
    if (
        isinstance(sizes, list)
        and sizes
        and all(isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in sizes)
    ):
        command.set("serving.cudagraph_capture_sizes", tuple(sizes), span)


def _omni(command: EngineCommand) -> None:
    """``vllm serve MODEL --omni``: the vllm-omni plugin takes the command (its CLI serves only
    when --omni is on the line, vllm_omni/entrypoints/cli/main.py) and runs the model as
    stages, each an engine of its own with its own memory fraction, on the devices a stage
    config names (--stage-configs-path, or the one vllm-omni bundles for the model:
    Qwen2.5-Omni's thinker on GPU 0, its talker on GPU 1). None of that is on the command
    line: neither the memory of one GPU nor which GPUs are used can be told from here."""
    omni = next((i for i in command.items if i.flag is None and i.name == "--omni"), None)
    if omni is None or command.model_unreadable:
        return
    command.model_unreadable = True
    command.note(
        "HBM011",
        "--omni runs the model with vllm-omni as separate stage engines (thinker, talker, "
        "audio or image generation), each with its own memory fraction and devices set by a "
        "stage config that hbmlint does not read; this deployment is not budgeted",
        omni.word.span,
    )


# "ec_role": "ec_producer" in --ec-transfer-config, read from the text: the JSON often holds a
# shell variable (a storage path) that leaves it unparseable as written
_EC_PRODUCER = LazyPattern(r"""["']?ec_role["']?\s*:\s*["']?ec_producer\b""")


def _encoder_producer(command: EngineCommand) -> None:
    """``--ec-transfer-config '{"ec_role": "ec_producer", ...}'``: an encoder instance of vLLM's
    encoder disaggregation (E of E/PD), which runs the multimodal encoder and hands its
    outputs to the prefill/decode instances through the EC connector; vLLM's own examples
    start it with --gpu-memory-utilization 0.01 (examples/online_serving/
    disaggregated_encoder). hbmlint budgets a whole model and its KV cache, which this
    instance does not hold: it is not budgeted (the consumer instances are)."""
    found = None if command.model_unreadable else flag_value(command, "--ec-transfer-config")
    if found is None:
        return
    item, value = found
    if value is not None and _EC_PRODUCER.search(value.text):
        command.model_unreadable = True
        command.note(
            "HBM011",
            "--ec-transfer-config makes this an encoder-only instance (ec_role "
            "ec_producer): it runs the multimodal encoder for the prefill/decode "
            "instances and holds no language model weights or KV cache of the kind "
            "hbmlint budgets; this deployment is not budgeted",
            item.word.span,
        )


def _dynamo_encode_worker(command: EngineCommand) -> None:
    """``python -m dynamo.vllm --disaggregation-mode encode``: Dynamo's multimodal encode
    worker, which loads only the model's vision encoder (vLLM with mm_encoder_only, a 64 MiB
    KV cache and max_model_len 1; ai-dynamo/dynamo components/src/dynamo/vllm/
    multimodal_utils/model.py load_vision_model) and hands the embeddings to the
    prefill/decode workers. hbmlint budgets a whole model and its KV cache, which this worker
    does not hold: it is not budgeted (the decode workers are)."""
    found = None if command.model_unreadable else flag_value(command, "--disaggregation-mode")
    if found is None:
        return
    item, value = found
    if value is not None and value.readable and value.text.strip() == "encode":
        command.model_unreadable = True
        command.note(
            "HBM011",
            "--disaggregation-mode encode makes this Dynamo's multimodal encode worker: it "
            "loads only the model's vision encoder and holds no language model weights or "
            "KV cache of the kind hbmlint budgets; this deployment is not budgeted",
            item.word.span,
        )


def _eplb_config(command: EngineCommand, item: Item) -> None:
    """``--eplb-config '{"num_redundant_experts": 32, ...}'``: the redundant experts (vLLM's
    EPLBConfig takes the number as a string too)."""

    try:
        loaded = json_loads(item.value.text)  # type: ignore[union-attr]
        count = int(loaded["num_redundant_experts"])
    except (ValueError, TypeError, KeyError):
        return
    if count >= 0:
        command.set("parallel.redundant_experts", count, item.value.span)  # type: ignore[union-attr]


def _mm_limits(command: EngineCommand, item: Item) -> None:
    """``--limit-mm-per-prompt '{"image": 0, "video": 0}'`` (JSON; a count or an object with
    one) or, in older releases, ``image=0,video=0``: the modalities set to 0. vLLM builds no
    encoder whose modalities are all 0 (the last of a repeated flag wins)."""
    import json

    text = item.value.text.strip()  # type: ignore[union-attr]
    limits: dict[str, Any] = {}
    try:
        loaded = json_loads(text)
        limits = loaded if isinstance(loaded, dict) else {}
    except json.JSONDecodeError:
        for part in text.split(","):
            key, sep, value = part.partition("=")
            if sep:
                limits[key.strip().lower()] = value.strip()
    zero = []
    for modality, limit in limits.items():
        count = limit.get("count") if isinstance(limit, dict) else limit
        with contextlib.suppress(TypeError, ValueError):
            if int(count) == 0:
                zero.append(str(modality).lower())
    command.set("serving.mm_zero_limits", tuple(sorted(zero)), item.word.span)


# what a `--config FILE` beside a model on the command line may set that the budget rests on
_CONFIG_FILE_SETTINGS = {
    "parallel.tensor": "tensor-parallel-size",
    "parallel.pipeline": "pipeline-parallel-size",
    "serving.max_model_len": "max-model-len",
    "serving.gpu_memory_utilization": "gpu-memory-utilization",
}


def _settings_in_config_file(command: EngineCommand, config: Item) -> None:
    """``vllm serve MODEL --config FILE``: vLLM takes every setting the command line leaves out
    from the file (a mounted YAML hbmlint does not follow from here). The budget's settings not
    on the command line are unknown, not the engine defaults: unread, at the file's name, so
    no refusal is claimed from a default the file may change (TP 1 for a file that says 2)."""
    settings_left_to_config_file(
        command, config.value or config.word, "vLLM", _CONFIG_FILE_SETTINGS
    )


def _external_data_parallel(command: EngineCommand) -> None:
    """``--data-parallel-rank N``: vLLM's external load balancing, one data-parallel rank a
    process (its own pod, often on its own node); vLLM then runs one rank here, whatever the
    data-parallel size (vllm/engine/arg_utils.py sets data_parallel_size_local to 1 and accepts
    no other). The rank may be a variable (a worker's index): only its presence matters."""
    for item in command.items:
        if item.flag is not None and item.flag.names[0] == "--data-parallel-rank":
            command.unread.pop("parallel.data_local", None)
            command.set("parallel.data_local", 1, item.word.span)


# integers vLLM reads with human_readable_int (32k) in newer releases and int() before
_HUMAN_READABLE = ("serving.max_model_len", "serving.max_num_batched_tokens")


def _suffix_as_written(command: EngineCommand, item: Item) -> None:
    """Note an integer written with a suffix (32k, 1M): releases before vLLM's human-readable
    integers refuse it in argparse (rules HBM316, HBM317)."""
    value = item.value
    if value is None or not value.readable:
        return
    text = value.text.strip()
    field = item.flag.field.rpartition(".")[2]  # type: ignore[union-attr]
    # the last of a repeated flag wins, as in argparse
    written = tuple(f for f in command.values.get("serving.human_readable", ()) if f != field)
    if text and text[-1] in "kKmMgG" and text[:-1].replace(".", "", 1).isdigit():
        written = (*written, field)
    command.set("serving.human_readable", written, item.word.span)


def _quantization_as_written(command: EngineCommand, item: Item) -> None:
    """--quantization exactly as written (lower-case): the budget keeps only the weight format
    (awq_marlin and awq are both AWQ), but vLLM compares the name itself with the checkpoint's
    quant_method (rule HBM309)."""
    value = item.value
    if value is None or not value.readable or placeholder(value.text):
        return
    command.set("model.quantization_method", value.text.strip().lower(), item.word.span)


def _allow_long(command: EngineCommand, env: Mapping[str, Token] | None) -> None:
    """VLLM_ALLOW_LONG_MAX_MODEL_LEN in the container's env (vllm/envs.py reads "1" or "true"):
    a max_model_len above the model's is then a warning in vLLM, not a refusal. A value hbmlint
    cannot read counts as set, so no refusal is claimed that might not happen."""
    token = (env or {}).get("VLLM_ALLOW_LONG_MAX_MODEL_LEN")
    if token is None:
        return
    on = not token.readable or token.text.strip().lower() in ("1", "true")
    command.set("serving.allow_long_max_model_len", on, token.span)


def _served_names_took_the_model(command: EngineCommand, served: Item) -> None:
    """``vllm serve --served-model-name NAME MODEL``: argparse gives every word after the flag
    to it (nargs="+"), so no model is left; vLLM refuses to start without one."""
    if len(served.values) < 2:
        return
    last = served.values[-1]
    command.model_unreadable = True  # this note says why there is no model
    command.note(
        "HBM003",
        f"--served-model-name takes every word up to the next flag, so '{last.text}' is read "
        "as one more served name and the vllm command names no model (vLLM refuses to start: "
        "'model should be provided as the first positional argument')",
        last.span,
        f"Put the model first: `vllm serve {last.text} --served-model-name "
        f"{' '.join(v.text for v in served.values[:-1])}`",
    )


def _unreadable_or_missing(command: EngineCommand, item: Item) -> None:
    if item.value is None:
        command.note("HBM004", f"{item.name} needs a value", item.word.span)
    else:
        command.note("HBM011", unreadable_message(item.name, item.value), item.value.span)


# NAME=value, as an environment variable is written (CUDA_VISIBLE_DEVICES=0,1)
# (with an underscore in the name: an adapter named SQL=/path is not one)
_ENV_ASSIGNMENT = LazyPattern(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]*=\S*$")
# (a script's own argument too: `"num_speculative_tokens":'"$1"'`)
_SHELL_REFERENCE = LazyPattern(r"\$(?:\{[^}]*\}|[A-Za-z_]\w*|[1-9])")


def _spec_json_partly(command: EngineCommand, item: Item) -> dict | None:
    """The keys of a --speculative-config JSON hbmlint can read where a value in it is a script's
    variable (`"num_speculative_tokens":'"$NST"'`): the drafter is then budgeted from its method
    and model, with one speculative token where their count is the unreadable value (the least,
    so no budget error rests on it), and the others said to be unread (HBM011). None where the
    method or the model is unreadable too, or the rest is not JSON."""
    import json

    value = item.value
    if value is None or not value.unresolved:
        return None
    text = value.text
    out: list[str] = []
    at = 0
    for match in _SHELL_REFERENCE.finditer(text):
        inside = text.count('"', 0, match.start()) % 2 == 1  # in a JSON string: left there
        out.append(text[at : match.start()])
        out.append(match.group(0) if inside else "null")
        at = match.end()
    out.append(text[at:])
    try:
        loaded = json_loads("".join(out))
    except json.JSONDecodeError:
        return None
    if not isinstance(loaded, dict):
        return None
    unread = [
        key
        for key, v in loaded.items()
        if v is None or (isinstance(v, str) and _SHELL_REFERENCE.search(v))
    ]
    if not unread or "method" in unread or "model" in unread:
        return None
    known = {key: v for key, v in loaded.items() if key not in unread}
    if not known.get("method") and not known.get("model"):
        return None
    assumed = ""
    if "num_speculative_tokens" in unread:
        known["num_speculative_tokens"] = 1
        assumed = "; num_speculative_tokens is taken as 1"
    command.unread[item.name] = value.span  # budget errors then say a value is unread
    command.note(
        "HBM011",
        f"{item.name}: {', '.join(unread)} {'is' if len(unread) == 1 else 'are'} set from a "
        f"variable hbmlint cannot read ({value.text[:80]}); the drafter is budgeted from the "
        f"keys it can read{assumed}",
        value.span,
    )
    return known


def _spec_json(command: EngineCommand, item: Item) -> dict | None:
    import json

    value = item.value
    assert value is not None
    try:
        loaded = json_loads(value.text)
    except json.JSONDecodeError as exc:
        reference = _SHELL_REFERENCE.search(value.text)
        if reference is not None:
            # a script's `bash -c "... '$SPEC' ..."`: the outer shell's double quotes expand it
            # before the inner one sees the single quotes, so the engine may get valid JSON
            command.unread[item.name] = value.span  # budget errors then say so
            command.note(
                "HBM011",
                f"{item.name} holds {reference.group(0)}, a shell variable that a shell around "
                "this command may expand first; hbmlint cannot read the JSON it becomes, and "
                "the engine default is assumed",
                value.span,
            )
            return None
        if placeholder(value.text):
            # a template's or a document's placeholder in the JSON ({"model": <draft_model>}):
            # filled in before the engine sees it
            command.unread[item.name] = value.span
            command.note("HBM011", placeholder_message(item.name, value), value.span)
            return None
        command.note(
            "HBM004",
            f"{item.name}: not valid JSON ({exc.msg} at character {exc.pos}): {value.text[:80]}",
            value.span,
        )
        return None
    if not isinstance(loaded, dict):
        command.note("HBM004", f"{item.name}: expected a JSON object, got {value.text}", value.span)
        return None
    return loaded


_INTEGER_KEYS = (
    "num_speculative_tokens",
    "draft_tensor_parallel_size",
    "max_model_len",
    "prompt_lookup_max",
    "prompt_lookup_min",
)


def legacy_replacement(legacy: list[Item]) -> tuple[dict[str, Any], bool]:
    """The --speculative-config object that replaces the removed flags in ``legacy`` (the last
    of a repeated flag wins, as in argparse), and whether it keeps what they did: False when
    one of them has no key in today's SpeculativeConfig, so that dropping it changes the
    engine's behaviour (all but --use-v2-block-manager, a no-op since v0.6.2)."""
    replacement: dict[str, Any] = {}
    keeps = True
    for item in legacy:
        key = _LEGACY.get(item.flag.names[0]) if item.flag else None
        if key is None:
            keeps = keeps and item.name == "--use-v2-block-manager"
            continue
        if key not in CURRENT_SPEC_KEYS:
            keeps = False
            continue
        if item.value is None or not item.value.readable:
            keeps = False
            continue
        value: Any = item.value.text
        if key in _INTEGER_KEYS:
            with contextlib.suppress(TypeError, ValueError):
                value = int(value)
        replacement[key] = value
    if str(replacement.get("model", "")).strip("[]") == "ngram":
        replacement.pop("model")
        replacement = {"method": "ngram", **replacement}
    return replacement, keeps


def _report_legacy(command: EngineCommand, legacy: list[Item], spec: dict) -> None:
    if not legacy:
        return
    import json

    replacement, _ = legacy_replacement(legacy)
    current = {k: v for k, (v, _) in spec.items() if k in CURRENT_SPEC_KEYS}
    if "--speculative-config" not in {i.flag.names[0] for i in command.items if i.flag}:
        replacement = {**replacement, **{k: v for k, v in current.items() if k not in replacement}}
    fix = (
        f"Use --speculative-config '{json.dumps(replacement)}' instead"
        if replacement
        else "Remove it: current vLLM releases do not take it"
    )
    for item in legacy:
        block_manager = item.name == "--use-v2-block-manager"
        why = (
            "a no-op since v0.6.2, when the v2 block manager became the only one"
            if block_manager
            else "speculative decoding is configured with --speculative-config since v0.8.0"
        )
        command.note(
            "HBM010",
            f"{item.name} was removed from vLLM in v0.8.3 ({why}); from v0.8.3 on, vLLM "
            "refuses to start with it",
            item.word.span,
            fix,
            # a release pinned before then takes it, and before 0.8.0 takes no
            # --speculative-config to move to
            since="0.6.2" if block_manager else "0.8.0",
            refused_from="0.8.3",
        )


def _heterogeneous_vocab(
    command: EngineCommand, value: Any, spec: dict[str, tuple[Any, Span]], method: str
) -> None:
    """``use_heterogeneous_vocab``: a draft model of another tokenizer, its tokens mapped onto
    the target's (vLLM PR #38174, merged 2026-07-02: in the 0.25.0-0.33.0 wheels'
    SpeculativeConfig, not in 0.24.0 nor 0.34.0, whose pydantic config forbids a key it does not
    have). Only ``draft_model`` takes it (SpeculativeConfig refuses it with another method)."""
    where = spec["use_heterogeneous_vocab"][1]
    if str(value).strip().lower() not in ("true", "1"):
        return
    if method == "draft_model":
        command.set("speculative.heterogeneous_vocab", True, where)
    fix = "Pin a vLLM release from 0.25 to 0.33, or use a draft of the target's own tokenizer"
    what = "speculative-config key use_heterogeneous_vocab is not one vLLM's SpeculativeConfig has"
    command.refusals.append(Refusal(f"{what} before 0.25", where, fix, through="0.24.0"))
    command.refusals.append(Refusal(f"{what} in 0.34", where, fix, since="0.34"))


def _speculative(command: EngineCommand, spec: dict[str, tuple[Any, Span]], span: Span) -> None:
    """Map --speculative-config's keys onto the Deployment's speculative fields."""
    values: dict[str, Any] = {}
    for key, read in _SPEC_KEYS.items():
        if key not in spec:
            continue
        raw, where = spec[key]
        if read is None or raw is None:
            values[key] = raw
            continue
        try:
            values[key] = read(str(raw))
        except BadValue as exc:
            command.note("HBM004", f"speculative-config {key}: {exc}", where)
        except Unsupported as exc:
            command.note("HBM011", f"speculative-config {key}: {exc}", where)
    model = values.get("model")
    method = values.get("method")
    if isinstance(model, str) and model.strip("[]") == "ngram":  # legacy "[ngram]" drafter
        model, method = None, method or "ngram"
    if method is None and model:
        # vLLM infers the method from the drafter's name when none is given
        lowered = str(model).lower()
        method = next((m for m in ("eagle3", "eagle", "medusa") if m in lowered), "draft_model")
    if method is None and any(spec.get(key, (0,))[0] is None for key in ("model", "method")):
        return  # a method or model given as a value hbmlint cannot read (HBM011 says so)
    if method is None:
        command.note(
            "HBM004",
            "speculative-config sets neither a method nor a model; vLLM refuses it",
            span,
        )
        return
    text = str(method).strip().lower()
    mapped = METHODS.get(text) or ("mtp" if text.endswith("_mtp") else None)
    where = spec.get("method", (None, span))[1]
    if mapped is None:
        command.note(
            "HBM011",
            f"speculative method '{method}' is not one hbmlint sizes yet "
            f"({', '.join(sorted(METHODS))}, *_mtp); the drafter is left out of the budget",
            where,
        )
        return
    if text in _METHODS_DROPPED:
        # SpeculativeMethod in vllm/config/speculative.py lists medusa and mlp_speculator up to
        # 0.32.0 and neither in 0.33.0 (its pydantic check refuses the config)
        command.refusals.append(
            Refusal(
                f"speculative method '{method}' is not one vLLM's SpeculativeConfig takes any "
                "more (Medusa and MLP-speculator heads were dropped)",
                where,
                "Pin an image of vLLM 0.32 or earlier, or use another method (eagle3, "
                "draft_model, ngram, suffix)",
                since="0.33",
            )
        )
    command.locations["speculative"] = span
    command.set("speculative.method", mapped, where)
    if "use_heterogeneous_vocab" in spec:
        _heterogeneous_vocab(command, values["use_heterogeneous_vocab"], spec, mapped)
    # MTP's model is kept too: vLLM drafts with the target's own MTP layers unless it names a
    # Gemma 4 assistant checkpoint (a drafter of its own), which resolve tells apart
    if model and mapped not in ("ngram", "suffix", "prompt_lookup"):
        command.set("speculative.model", model_name(str(model)), spec["model"][1])
    for key, path in (
        ("num_speculative_tokens", "speculative.num_speculative_tokens"),
        ("draft_tensor_parallel_size", "speculative.tensor_parallel"),
        ("quantization", "speculative.quantization"),
        ("max_model_len", "speculative.max_model_len"),
        ("kv_cache_dtype", "speculative.kv_cache_dtype"),
    ):
        if key in values and values[key] is not None:
            command.set(path, values[key], spec[key][1])
