"""SGLang's command line: ``python -m sglang.launch_server --model-path ...`` and
``sglang serve --model-path ...``.

``--mem-fraction-static`` is SGLang's share of the whole card for weights and the KV pool; it is
carried as the deployment's memory fraction with engine "sglang", and the budget applies the
engine's own meaning (catalog/engines.yaml).
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping

from ..lazyre import LazyPattern
from ..yamlsrc import Span
from .args import (
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
    flags_removed,
    flags_unread,
    fraction,
    kv_cache_dtype_of,
    model_name,
    nonnegative_int,
    positive_float,
    positive_int,
    quantization,
    readable_int,
    scan,
    settings_left_to_config_file,
    switch_given_a_value,
)

NAME = "sglang"

# --speculative-algorithm values by what they cost (spec.py). EAGLE without a draft path uses
# the model's own NextN (MTP) layers.
ALGORITHMS = {
    "eagle": "eagle",
    "eagle3": "eagle3",
    "nextn": "mtp",
    "standalone": "draft_model",
    "dflash": "dflash",
    "ngram": "ngram",
}


# --kv-cache-dtype: argparse choices, read in the sglang 0.4.3, 0.4.6.post5, 0.4.10.post2, 0.5.4,
# 0.5.10, 0.5.15, 0.5.19-0.5.23 wheels (srt/server_args.py; arg_groups/fields/model.py from
# 0.5.20). No release takes vLLM's fp8 or any 16-bit name but bf16 and bfloat16. Each added
# name: (the last release read without it, the first with it); fp4_e2m1 is in 0.5.20, not 0.5.21.
SGLANG_KV_DTYPE_ADDED = {
    "bf16": ("0.4.10", "0.5.4"),
    "bfloat16": ("0.4.10", "0.5.4"),
    "fp4_e2m1": ("0.5.4", "0.5.10"),
    "mxfp8": ("0.5.15", "0.5.19"),
    "nvfp4": ("0.5.15", "0.5.19"),
    "fp4_mx_block16": ("0.5.15", "0.5.19"),
}
SGLANG_KV_DTYPES = frozenset(("auto", "fp8_e5m2", "fp8_e4m3", *SGLANG_KV_DTYPE_ADDED))
_kv_cache_dtype = kv_cache_dtype_of(
    "SGLang",
    SGLANG_KV_DTYPES,
    {
        "fp8": "fp8_e4m3 (the FP8 SGLang takes; fp8_e5m2 keeps more range, less precision)",
        "fp16": "auto (the model's dtype)",
        "float16": "auto (the model's dtype)",
        "half": "auto (the model's dtype)",
        "fp8_e4m3fn": "fp8_e4m3",
    },
)


def _kv_refusals(command: EngineCommand) -> None:
    """A KV cache dtype SGLang's release does not take yet (or, fp4_e2m1, no longer): judged
    against the manifest's release (args.refused_at). The last of a repeated flag wins."""
    kv = [i for i in command.items if i.flag is not None and i.flag.names[0] == "--kv-cache-dtype"]
    value = kv[-1].value if kv else None
    name = value.text.strip() if value is not None and value.readable else ""
    if value is None or name not in SGLANG_KV_DTYPES:
        return
    if name == "fp4_e2m1":
        command.refusals.append(
            Refusal(
                "--kv-cache-dtype fp4_e2m1 is no longer a choice (argparse: invalid choice)",
                value.span,
                "Use --kv-cache-dtype nvfp4 or fp4_mx_block16, or pin an image of SGLang 0.5.20 "
                "or earlier",
                since="0.5.21",
            )
        )
    if name in SGLANG_KV_DTYPE_ADDED:
        through, first = SGLANG_KV_DTYPE_ADDED[name]
        command.refusals.append(
            Refusal(
                f"--kv-cache-dtype {name} is a KV cache dtype SGLang added by {first}",
                value.span,
                f"Use an image of SGLang {first} or later, or --kv-cache-dtype auto",
                through=through,
            )
        )


def _algorithm(text: str) -> str:
    key = text.strip().lower()
    if key in ALGORITHMS:
        return ALGORITHMS[key]
    raise Unsupported(
        f"speculative algorithm '{text}' is not one hbmlint sizes yet "
        f"({', '.join(a.upper() for a in ALGORITHMS)}); the drafter is left out of the budget"
    )


def _quantization(text: str) -> str | None:
    """SGLang's --quantization: vLLM's names, and auto-round (Intel AutoRound's W4A16
    checkpoints, sized as INT4 in groups of 128 as their quantization_config is:
    catalog/quantization.yaml config_quant_methods)."""
    if text.strip().lower().replace("_", "-") == "auto-round":
        return "int4"
    return quantization(text)


_SGLANG_HUMAN = LazyPattern(r"(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?")
_SGLANG_UNITS = {
    "": 1,
    **{"k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12},
    **{"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40},
}


def _human_int(text: str) -> int:
    """SGLang's human-readable integers for --context-length and --max-total-tokens (0.5.10 and
    later: sglang/srt/utils/common.py human_readable_int): 32k = 32,000 and 1M = 1,000,000, but
    32Ki = 32,768; case matters, and only the decimal suffixes take a fraction. Unlike vLLM,
    whose 1M is 2**20."""
    return readable_int(
        text, _SGLANG_HUMAN, _SGLANG_UNITS, ("k", "M", "G", "T"), "32768, 32k or 32Ki"
    )


_ssm_dtype = choice(
    {name: name for name in ("float32", "bfloat16", "float16")}, "Mamba SSM state dtype"
)


def _chunked_prefill_size(text: str) -> int | Instead:
    """A chunk of so many tokens, or no chunked prefill for -1 (any size of 0 or less): "Setting
    this to -1 means disabling chunked prefill" (server_args.py --chunked-prefill-size); the
    scheduler turns a size <= 0 into None (managers/scheduler.py init_chunked_prefill)."""
    try:
        value = int(text.strip())
    except ValueError:
        raise BadValue(f"'{text}' is not a whole number") from None
    return Instead("serving.chunked_prefill", False) if value <= 0 else value


def _disaggregation(text: str) -> str | None:
    """prefill or decode; another mode a release may add is read as neither (not a refusal)."""
    key = text.strip().lower()
    return key if key in ("prefill", "decode") else None


FLAGS = FlagTable(
    [
        Flag(("--model-path", "--model"), "model.name", model_name),
        Flag(("--dtype",), "model.dtype", dtype),
        Flag(("--quantization",), "model.quantization", _quantization),
        Flag(("--tp-size", "--tp", "--tensor-parallel-size"), "parallel.tensor", positive_int),
        Flag(("--pp-size", "--pipeline-parallel-size"), "parallel.pipeline", positive_int),
        Flag(("--dp-size", "--dp", "--data-parallel-size"), "parallel.data", positive_int),
        # data-parallel attention: the DP ranks share the TP group's GPUs (no more GPUs)
        Flag(("--enable-dp-attention",), "parallel.dp_attention"),
        # HiSparse keeps part of the pool in host memory (mem_cache/allocator/hisparse.py)
        Flag(("--enable-hisparse",), "serving.kv_pool_host_ratio"),
        # a prefill worker of a disaggregated deployment: SGLang 0.5.23's default fraction
        # leaves out DP attention's graph reserve for it (no decode graphs to capture)
        Flag(("--disaggregation-mode",), "serving.disaggregation_mode", _disaggregation),
        # v0.5.23's spelling of --dp-size N --enable-dp-attention (arg_groups/parallel_hook.py)
        Flag(("--attn-dp-size",), "parallel.attn_dp_size", positive_int),
        # decode context parallelism (0.5.23, the Kimi-K3 recipes): each sequence's KV is spread
        # over the ranks, whose pool holds max_total_num_tokens x dcp tokens
        # (mem_cache/kv_cache_configurator.py); the budget counts one rank's (lint.py)
        Flag(
            ("--dcp-size", "--decode-context-parallel-size"),
            "parallel.decode_context",
            positive_int,
        ),
        # lm_head over the attention-TP group (ParallelLMHead use_attn_tp_group)
        Flag(("--enable-dp-lm-head",), "parallel.dp_lm_head"),
        # 1: DeepSeek's dense-layer MLP whole on each GPU (DeepseekV2MLP tp_size 1)
        Flag(("--moe-dense-tp-size",), "parallel.moe_dense_tp", positive_int),
        # DeepEP all-to-all: DeepSeek's shared experts whole on each GPU
        Flag(("--moe-a2a-backend",), "parallel.moe_a2a_backend", str),
        Flag(("--enable-deepep-moe",), "parallel.deepep"),
        Flag(("--ep-size", "--ep", "--expert-parallel-size"), "parallel.ep_size", positive_int),
        # redundant expert copies: each EP rank holds (experts + N) / ep_size experts
        # (eplb/expert_location.py _init_common: num_physical_experts // ep_size; default 0)
        Flag(("--ep-num-redundant-experts",), "parallel.redundant_experts", nonnegative_int),
        Flag(("--nnodes",), "nodes", positive_int),
        Flag(("--context-length",), "serving.max_model_len", _human_int),
        # changes config.json (a rope_scaling entry raises the derived context length)
        Flag(("--json-model-override-args",), "serving.model_overrides", str),
        Flag(("--max-running-requests",), "serving.max_num_seqs", positive_int),
        Flag(("--chunked-prefill-size",), "serving.max_num_batched_tokens", _chunked_prefill_size),
        Flag(("--mem-fraction-static",), "serving.gpu_memory_utilization", fraction),
        Flag(("--kv-cache-dtype",), "serving.kv_cache_dtype", _kv_cache_dtype),
        Flag(("--page-size",), "serving.block_size", positive_int),
        Flag(("--disable-cuda-graph",), "serving.enforce_eager"),
        # the largest decode CUDA graph: --cuda-graph-max-bs until 0.5.19 (then an alias of
        # --cuda-graph-max-bs-decode), --cuda-graph-max-bs-decode after (REMOVED below)
        Flag(
            ("--cuda-graph-max-bs", "--cuda-graph-max-bs-decode"),
            "serving.cuda_graph_max_bs",
            positive_int,
        ),
        Flag(("--max-total-tokens",), "serving.kv_cache_max_tokens", _human_int),
        # hybrid models' state pool (sglang_mamba.py)
        Flag(("--mamba-ssm-dtype",), "serving.mamba_ssm_dtype", _ssm_dtype),
        Flag(("--max-mamba-cache-size",), "serving.max_mamba_cache_size", positive_int),
        Flag(("--mamba-full-memory-ratio",), "serving.mamba_full_memory_ratio", positive_float),
        # the hybrid SWA pool of window models: the window layers' tokens per full-layer token,
        # or no hybrid pool at all (every window layer keeps the whole context)
        Flag(("--swa-full-tokens-ratio",), "serving.swa_full_tokens_ratio", positive_float),
        Flag(("--disable-hybrid-swa-memory",), "serving.disable_hybrid_kv_cache_manager"),
        Flag(("--speculative-algorithm",), "speculative.method", _algorithm),
        Flag(("--speculative-draft-model-path",), "speculative.model", model_name),
        Flag(("--speculative-num-steps",), "speculative.num_speculative_tokens", positive_int),
        Flag(("--speculative-num-draft-tokens",), "speculative.num_draft_tokens", positive_int),
        Flag(("--speculative-draft-model-quantization",), "speculative.quantization", quantization),
        # FR-Spec's hot-token file: an EAGLE-1 head's lm_head is built over these tokens only
        Flag(("--speculative-token-map",), "speculative.token_map", str),
        # encoder disaggregation (EPD): --language-only builds the language model without its
        # vision tower (the encoder servers run it); --encoder-only runs the tower alone.
        # --language-model-only is SGLang's text-only switch for one architecture.
        # sgl-project/sglang@001067ff python/sglang/srt/server_args.py
        # (_handle_encoder_disaggregation, _handle_language_model_only)
        Flag(("--language-only",), "serving.language_model_only"),
        Flag(("--language-model-only",), None),
        Flag(("--encoder-only",), None),
    ],
    switches=[
        "--trust-remote-code",
        # the radix (prefix) cache off: parse() sets serving.prefix_caching false (a hybrid
        # model's state pool is then one slot a running request, sglang_mamba.py)
        "--disable-radix-cache",
        "--enable-torch-compile",
        "--enable-metrics",
        "--skip-server-warmup",
        "--enable-mixed-chunk",
        "--disable-overlap-schedule",
    ],
)


_DEPRECATED = "the flag's action raises a deprecation error"
# Flags SGLang has removed: the first release that refuses them, what replaces them, and what
# argparse says. Read in each release's server_args.py and arg_groups/fields/*.py: the
# deprecated aliases of 0.5.19's server_args.py ("Deprecated alias for
# --cuda-graph-max-bs-decode", --nsa-*-backend for --dsa-*-backend, ...) are gone from 0.5.20
# (sgl-project/sglang#23906 split the CUDA graph flags by phase), so argparse's prefix matching
# finds two --cuda-graph-max-bs-* flags and exits; --enable-ep-moe and --enable-deepep-moe are
# store_true in 0.5.2 and a DeprecatedAction that raises in 0.5.3 (gone from 0.5.5). None of
# them in 0.5.23.
REMOVED = {
    # store_true in 0.4.5, a DeprecatedAction that raises ("Please use '--attention-backend
    # flashinfer' instead") in 0.4.6 and 0.4.7, gone from 0.4.8
    "--enable-flashinfer-mla": ("0.4.6", "Use --attention-backend flashinfer", _DEPRECATED),
    "--enable-flashmla": ("0.4.6", "Use --attention-backend flashmla", _DEPRECATED),
    # a DeprecatedAction that raises ("Please use '--attention-backend triton' instead") in
    # 0.3.6 and 0.4.0 (seen in both wheels; earlier 0.3 releases not checked), gone by
    # 0.4.10; from 0.5.20 an ambiguous prefix of --disable-flashinfer-autotune and others
    "--disable-flashinfer": (
        "0.3.6",
        "Use --attention-backend triton",
        "a deprecation error, then unrecognized or an ambiguous prefix of newer "
        "--disable-flashinfer-* flags",
    ),
    "--enable-ep-moe": ("0.5.3", "Set --ep-size to the --tp-size value instead", _DEPRECATED),
    "--enable-deepep-moe": ("0.5.3", "Use --moe-a2a-backend deepep instead", _DEPRECATED),
    "--cuda-graph-max-bs": (
        "0.5.20",
        "Use --cuda-graph-max-bs-decode",
        "ambiguous option: --cuda-graph-max-bs-decode or --cuda-graph-max-bs-prefill",
    ),
    "--cuda-graph-bs": (
        "0.5.20",
        "Use --cuda-graph-bs-decode",
        "ambiguous option: --cuda-graph-bs-decode or --cuda-graph-bs-prefill",
    ),
    "--nsa-prefill-backend": ("0.5.20", "Use --dsa-prefill-backend"),
    "--nsa-decode-backend": ("0.5.20", "Use --dsa-decode-backend"),
    "--mamba-scheduler-strategy": ("0.5.20", "Use --mamba-radix-cache-strategy"),
    "--stream-output": ("0.5.20", "Use --incremental-streaming-output"),
    "--disable-piecewise-cuda-graph": ("0.5.20", "Use --cuda-graph-backend-prefill disabled"),
    "--enable-breakable-cuda-graph": ("0.5.20", "Use --cuda-graph-backend-prefill breakable"),
    "--piecewise-cuda-graph-tokens": ("0.5.20", "Use --cuda-graph-bs-prefill"),
}


def removed_flags(
    command: EngineCommand, engine_version: str | None, image: str | None = None
) -> list[tuple[str, Span, str, bool]]:
    """(message, where, fix, certain) for each flag of ``command`` that the release has removed (a
    manifest that names no release runs the newest)."""
    return flags_removed(command, engine_version, REMOVED, "SGLang", image)


# FR-Spec publishes its maps as freq_<tokens>.pt (thunlp/LLaMA3-Instruct-8B-FR-Spec holds
# freq_8192.pt to freq_65536.pt; SGLang's docs pass freq_32768.pt)
_MAP_SIZE = LazyPattern(r"(?:^|[_.-])([0-9]+)$")


def token_map_vocab(path: str) -> int | None:
    """The hot vocabulary of a --speculative-token-map file, as far as its name says it: the
    number that ends the file's stem (``freq_32768.pt``: 32768), else None. SGLang reads the
    size from the file itself (len of its token ids), which hbmlint does not open."""
    stem = path.strip().rstrip("/").rsplit("/", 1)[-1].rsplit(".", 1)[0]
    match = _MAP_SIZE.search(stem)
    size = int(match.group(1)) if match else 0
    return size if size > 0 else None


def token_map_assumption(path: str) -> str:
    """The `assumed` line for a hot vocabulary read from a token map's name."""
    return (
        f"{token_map_vocab(path):,} tokens (the number in the name of the token map {path}: "
        "FR-Spec names its maps by their size; SGLang counts the ids in the file)"
    )


def find(argv: list[Token]) -> int | None:
    """The index of the first engine argument when ``argv`` runs SGLang's server, else None."""
    for i, token in enumerate(argv):
        # NVIDIA Dynamo's SGLang worker takes SGLang's own flags (ai-dynamo/dynamo
        # components/src/dynamo/sglang), in a Dynamo graph or any pod spec
        # sglang_router.launch_server starts --dp-size servers of --tp GPUs each behind the
        # router, each with dp_size 1 (sgl-model-gateway bindings/python/src/sglang_router/
        # launch_server.py, launch_server_process): SGLang's own data parallelism, GPU for GPU
        launchers = ("sglang.launch_server", "dynamo.sglang", "sglang_router.launch_server")
        if token.text in launchers and i > 0 and argv[i - 1].text == "-m":
            return i + 1
        is_sglang = token.text.rsplit("/", 1)[-1] == "sglang"
        if is_sglang and i + 1 < len(argv) and argv[i + 1].text == "serve":
            return i + 2
    return None


def parse(
    tokens: list[Token], launcher: Span, env: Mapping[str, Token] | None = None
) -> EngineCommand:
    command = EngineCommand(engine=NAME, span=launcher)
    text_only: list[Item] = []
    command.items = scan(tokens, FLAGS)
    unread = False  # a word hbmlint cannot read where flags go: it may hold --model-path
    config: Item | None = None
    for item in command.items:
        if item.flag is None and not item.name and item.word.text.startswith("$"):
            command.note("HBM011", flags_unread(item.word), item.word.span)
            unread = True
            continue
        if item.flag is None and item.name == "--config":
            config = item
            continue
        switch_given_a_value(command, item, "SGLang", {})  # store_true, in every release
        apply(command, item)
        if item.name in _TEXT_ONLY:
            text_only.append(item)
    if unread and "model.name" not in command.values:
        command.model_unreadable = True  # the note says why; no "names no model" error
    if config is not None:
        _settings_in_config_file(command, config)
    _allow_longer(command, env)
    _kv_refusals(command)
    _encoder_disaggregation(command, text_only)
    dynamo_multimodal_role(command)
    values = command.values
    # Keys the Deployment does not have: --ep-size says expert
    # parallelism is on, and draft tokens stand in for steps when only they are given.
    _dp_attention_parts(command)
    for item in command.items:
        if item.flag is None and item.name == "--disable-radix-cache":
            command.set("serving.prefix_caching", False, item.word.span)
    if values.get("serving.kv_pool_host_ratio") is True:
        # the allocator's default host_to_device_ratio (a --hisparse-config may set another)
        values["serving.kv_pool_host_ratio"] = 2
    ep = values.pop("parallel.ep_size", None)
    ep_span = command.locations.pop("parallel.ep_size", None)
    a2a = values.pop("parallel.ep_is_tp", None)
    a2a_span = command.locations.pop("parallel.ep_is_tp", None)
    tp = values.get("parallel.tensor", 1)
    if a2a and a2a_span is not None and isinstance(tp, int):
        # server_args.py _handle_a2a_moe (--enable-deepep-moe before it): a DeepEP or Mooncake
        # all-to-all sets ep_size to tp_size, whatever --ep-size says
        command.set("parallel.expert", tp > 1, a2a_span)
    elif ep is not None and ep_span is not None:
        command.set("parallel.expert", ep > 1, ep_span)
    draft_tokens = values.pop("speculative.num_draft_tokens", None)
    draft_span = command.locations.pop("speculative.num_draft_tokens", None)
    if "speculative.num_speculative_tokens" not in values and draft_tokens and draft_span:
        command.set("speculative.num_speculative_tokens", max(draft_tokens - 1, 1), draft_span)
    method = values.get("speculative.method")
    draft, target = values.get("speculative.model"), values.get("model.name")
    if (
        method in ("eagle", "mtp")
        and isinstance(draft, str)
        and isinstance(target, str)
        and posixpath.normpath(draft) == posixpath.normpath(target)
    ):
        # the target's own checkpoint as the drafter: SGLang loads it as its NextN (MTP)
        # layers (model_config.py _config_draft_model renames the architecture to its NextN
        # class), sharing the target's embedding and head, as with no draft path at all
        values.pop("speculative.model")
        values["speculative.method"] = method = "mtp"
    # EAGLE with no draft path is the model's own NextN layers; one in a variable is a draft
    drafted = "speculative.model" in values or "speculative.model" in command.unread
    if method == "eagle" and not drafted:
        values["speculative.method"] = "mtp"
    if method is None:
        _drafter_without_algorithm(command)
        for key in [k for k in values if k.startswith("speculative.")]:
            values.pop(key)  # draft settings without an algorithm do nothing in SGLang
    else:
        command.locations.setdefault("speculative", command.locations["speculative.method"])
    return command


def _drafter_without_algorithm(command: EngineCommand) -> None:
    """A draft model with no --speculative-algorithm: SGLang sets speculative decoding up only
    for an algorithm it is given (server_args.py _handle_speculative_decoding; the algorithm
    defaults to None and nothing infers it from the draft path), so the server starts and never
    drafts. An algorithm in a variable hbmlint cannot read may be set; nothing is said then."""
    span = command.locations.get("speculative.model")
    if span is None or "speculative.method" in command.unread:
        return
    if any(item.name.startswith("--speculative-algo") for item in command.items):
        return  # an algorithm hbmlint does not size (DSPARK, a plugin's): set, and said so
    draft = command.values["speculative.model"]
    command.note(
        "HBM016",
        f"--speculative-draft-model-path {draft} does nothing without --speculative-algorithm: "
        "SGLang starts without speculative decoding, and the drafter's --speculative-* "
        "settings are ignored",
        span,
        "Add --speculative-algorithm STANDALONE for a small draft model (EAGLE or EAGLE3 for "
        "an EAGLE head), or remove the drafter's flags",
    )


# what a `--config FILE` may set that the budget rests on, by SGLang's flag names
_CONFIG_FILE_SETTINGS = {
    "parallel.tensor": "tp-size",
    "parallel.pipeline": "pp-size",
    "serving.max_model_len": "context-length",
    "serving.gpu_memory_utilization": "mem-fraction-static",
}


def _settings_in_config_file(command: EngineCommand, config: Item) -> None:
    """``--config FILE``: SGLang takes every setting the command line leaves out from the YAML
    file (sgl-project/sglang python/sglang/srt/server_args_config_parser.py
    ConfigArgumentMerger, the command line winning), and Dynamo's SGLang worker does the same.
    hbmlint does not follow a mounted file from here, so a model not on the command line is
    unknown, not missing, and the budget's settings it leaves out are unread, not defaults."""
    where = config.value or config.word
    if "model.name" not in command.values and not command.model_unreadable:
        command.model_unreadable = True  # the note says why; no "names no model" error
        command.note(
            "HBM011",
            f"the model is not on the command line; SGLang reads it and the settings the "
            f"command line leaves out from --config {where.text}, which hbmlint does not "
            "follow from here; this deployment is not checked",
            where.span,
            "Put --model-path and the parallelism on the command line to have it checked",
        )
        return
    settings_left_to_config_file(command, where, "SGLang", _CONFIG_FILE_SETTINGS)


_TEXT_ONLY = ("--language-only", "--language-model-only", "--encoder-only")
# the one architecture SGLang serves with --language-model-only (server_args.py
# LANGUAGE_MODEL_ONLY_ARCHITECTURES); any other model, and releases without the flag, refuse it
_LANGUAGE_MODEL_ONLY_FAMILY = "glimmer"


def _encoder_disaggregation(command: EngineCommand, switches: list[Item]) -> None:
    """SGLang's refusals among --encoder-only, --language-only and --language-model-only (a
    ValueError at start-up), and what each leaves to budget: --encoder-only runs the vision
    tower for other servers and holds no language model or KV cache, so it is not budgeted
    (like vLLM's ec_producer); --language-only and --language-model-only build no tower."""
    given = {item.name: item for item in switches}
    encoder = given.get("--encoder-only")
    language = given.get("--language-only")
    text_only = given.get("--language-model-only")
    mode = command.values.get("serving.disaggregation_mode")
    refusals: list[tuple[Item, str]] = []
    if encoder and language:
        refusals.append((language, "--encoder-only and --language-only together"))
    for other in (encoder, language):
        if text_only and other:
            refusals.append((text_only, f"--language-model-only with {other.name}"))
    if text_only and mode:
        refusals.append((text_only, f"--language-model-only with --disaggregation-mode {mode}"))
    if encoder and mode:
        refusals.append((encoder, f"--encoder-only with --disaggregation-mode {mode}"))
    model = str(command.values.get("model.name") or "")
    # a Hub id names the model's family; a local path does not
    hub_id = "/" in model and not model.startswith(("/", ".", "~"))
    for item, what in refusals:
        command.note("HBM004", f"SGLang refuses {what}", item.word.span)
    if text_only and hub_id and _LANGUAGE_MODEL_ONLY_FAMILY not in model.lower():
        # A warning: the list grows by release, and a fine-tune's name need not say its
        # architecture (hbmlint reads no config.json architectures)
        command.note(
            "HBM004",
            f"SGLang may refuse --language-model-only for {model}: sgl-project/sglang@001067ff "
            "takes it only for the architectures in ServerArgs.LANGUAGE_MODEL_ONLY_ARCHITECTURES "
            "(MuseGlimmerForConditionalGeneration there) and raises ValueError for any other; "
            "check your release's list (its text-only server for other vision models is "
            "--language-only, with encoder servers)",
            text_only.word.span,
            severity="warning",
        )
    if text_only:
        command.set("serving.language_model_only", True, text_only.word.span)
    if encoder and not command.model_unreadable:
        command.model_unreadable = True  # the note says why nothing is budgeted
        command.note(
            "HBM011",
            "--encoder-only makes this an encoder server of SGLang's encoder disaggregation: "
            "it runs the vision tower for the language-only servers and holds no language "
            "model weights or KV cache of the kind hbmlint budgets; this deployment is not "
            "budgeted",
            encoder.word.span,
        )


def _dp_attention_parts(command: EngineCommand) -> None:
    """The flags that change which GPUs hold which parts of the model, as the Deployment's keys:
    --attn-dp-size N is --dp-size N --enable-dp-attention (v0.5.23; with a --dp-size of its own
    the replicas are not modelled: an HBM011 note); --moe-dense-tp-size 1 and a DeepEP all-to-all
    backend (--moe-a2a-backend deepep, --enable-deepep-moe before it) keep DeepSeek's dense MLP and
    shared experts whole on each GPU (deepseek_v2.py at v0.4.6.post5, v0.5.2 and v0.5.23)."""
    values, spans = command.values, command.locations
    attn = values.pop("parallel.attn_dp_size", None)
    attn_span = spans.pop("parallel.attn_dp_size", None)
    if attn is not None and attn_span is not None:
        if (values.get("parallel.data") or 1) > 1:
            command.note(
                "HBM011",
                "--attn-dp-size beside --dp-size: replicas of attention-DP groups are not "
                "modelled; the budget splits attention over the whole TP group, which holds less "
                "than SGLang does on each GPU",
                attn_span,
            )
        elif attn > 1:
            command.set("parallel.data", attn, attn_span)
            command.set("parallel.dp_attention", True, attn_span)
    parts = []
    if values.get("parallel.dp_lm_head"):
        parts.append(("dp_lm_head", spans.get("parallel.dp_lm_head")))
    values.pop("parallel.dp_lm_head", None)
    dense = values.pop("parallel.moe_dense_tp", None)
    dense_span = spans.pop("parallel.moe_dense_tp", None)
    if dense == 1:
        parts.append(("dense_mlp_whole", dense_span))
    backend = values.pop("parallel.moe_a2a_backend", None)
    backend_span = spans.pop("parallel.moe_a2a_backend", None)
    deepep = values.pop("parallel.deepep", None)
    deepep_span = spans.pop("parallel.deepep", None)
    if str(backend or "").strip().lower() == "deepep":
        parts.append(("shared_experts_whole", backend_span))
    elif deepep:
        parts.append(("shared_experts_whole", deepep_span))
    if str(backend or "").strip().lower() in ("deepep", "mooncake") and backend_span:
        command.set("parallel.ep_is_tp", True, backend_span)
    elif deepep and deepep_span:
        command.set("parallel.ep_is_tp", True, deepep_span)
    spans.pop("parallel.dp_lm_head", None)
    found = [(name, span) for name, span in parts if span is not None]
    if found:
        command.set("parallel.whole_parts", tuple(n for n, _ in found), found[0][1])


# SGLang's switch for a --context-length above the model's: the current name, and the one the
# check first shipped with (sgl-project/sglang#1778)
_ALLOW_LONGER = ("SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN", "SGLANG_ALLOW_LONG_MAX_MODEL_LEN")


def _allow_longer(command: EngineCommand, env: Mapping[str, Token] | None) -> None:
    """The env switch that turns SGLang's refusal of a longer --context-length into a warning
    (get_bool_env_var: "1" or "true"). A value hbmlint cannot read counts as set, so that no
    refusal is claimed that might not happen."""
    for name in _ALLOW_LONGER:
        token = (env or {}).get(name)
        if token is None:
            continue
        on = not token.readable or token.text.strip().lower() in ("1", "true")
        if on or "serving.allow_long_max_model_len" not in command.values:
            command.set("serving.allow_long_max_model_len", on, token.span)
