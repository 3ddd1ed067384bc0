"""TensorRT-LLM as NVIDIA Dynamo's ``python3 -m dynamo.trtllm`` worker runs it: its own flags
(ai-dynamo/dynamo components/src/dynamo/trtllm/backend_args.py: ``--model`` (formerly
``--model-path``), ``--tensor-parallel-size``, ``--pipeline-parallel-size``,
``--expert-parallel-size``, ``--enable-attention-dp``, ``--kv-block-size``,
``--max-batch-size``, ``--max-num-tokens``, ``--max-seq-len``, ``--free-gpu-memory-fraction``)
build TensorRT-LLM's argument map, then the YAML file ``--extra-engine-args`` names is laid over
it (tensorrt_llm.llmapi.llm_utils.update_llm_args_with_extra_options: the file wins), then the
JSON of ``--override-engine-args`` over that.

``free_gpu_memory_fraction`` is a share of the memory free after the weights and activations
(engines.yaml ``trtllm.memory_fraction.meaning: of_free``); the budget knows that meaning. The
file itself is found by the format reader (a ConfigMap mounted in the pod, or a file of the
repository), and given here as a mapping with where its values are written.

TensorRT-LLM's own server, ``trtllm-serve [serve] MODEL`` (tensorrt_llm/commands/serve.py:
``--tp_size``, ``--pp_size``, ``--ep_size``, ``--max_batch_size``, ``--max_num_tokens``,
``--max_seq_len``, ``--kv_cache_free_gpu_memory_fraction``), is read the same way wherever a
format finds it, with its ``--extra_llm_api_options`` (``--config``) file where the format
finds that (a mounted ConfigMap, a here-document the script writes), laid over the flags as
for the worker. A file found nowhere makes the command an info (its parallelism may be in
the file), never a guess.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping
from typing import Any

from ..yamlsrc import Span
from .args import (
    BadValue,
    EngineCommand,
    Flag,
    FlagTable,
    Item,
    Refusal,
    Token,
    apply,
    boolean,
    fraction,
    json_loads,
    kv_cache_dtype,
    model_name,
    placeholder,
    positive_int,
    scan,
)
from .config_file import ConfigFile, ConfigFiles

NAME = "trtllm"
EXTRA = "--extra-engine-args"
OVERRIDE = "--override-engine-args"

FLAGS = FlagTable(
    [
        Flag(("--model", "--model-path"), "model.name", model_name),
        Flag(("--tensor-parallel-size",), "parallel.tensor", positive_int),
        Flag(("--pipeline-parallel-size",), "parallel.pipeline", positive_int),
        Flag(("--expert-parallel-size",), "parallel.ep_size", positive_int),
        Flag(("--enable-attention-dp",), "parallel.dp_attention"),
        Flag(("--kv-block-size",), "serving.block_size", positive_int),
        Flag(("--max-batch-size",), "serving.max_num_seqs", positive_int),
        Flag(("--max-num-tokens",), "serving.max_num_batched_tokens", positive_int),
        Flag(("--max-seq-len",), "serving.max_model_len", positive_int),
        Flag(("--free-gpu-memory-fraction",), "serving.gpu_memory_utilization", fraction),
        Flag((EXTRA,), None, str),
        Flag((OVERRIDE,), None, str),
    ],
    switches=[
        "--publish-kv-events",
        "--enable-multimodal",
        "--publish-events-and-metrics",
        "--conversation-affinity",
    ],
)

# TensorRT-LLM's LLM arguments (the extra-engine-args YAML) -> Deployment fields
_KEYS: dict[tuple[str, ...], tuple[str, Callable[[str], Any]]] = {
    ("tensor_parallel_size",): ("parallel.tensor", positive_int),
    ("pipeline_parallel_size",): ("parallel.pipeline", positive_int),
    ("moe_expert_parallel_size",): ("parallel.ep_size", positive_int),
    ("enable_attention_dp",): ("parallel.dp_attention", boolean),
    ("max_batch_size",): ("serving.max_num_seqs", positive_int),
    ("max_num_tokens",): ("serving.max_num_batched_tokens", positive_int),
    ("max_seq_len",): ("serving.max_model_len", positive_int),
    ("kv_cache_config", "free_gpu_memory_fraction"): (
        "serving.gpu_memory_utilization",
        fraction,
    ),
    ("kv_cache_config", "dtype"): ("serving.kv_cache_dtype", kv_cache_dtype),
    ("kv_cache_config", "tokens_per_block"): ("serving.block_size", positive_int),
}


SERVE = "trtllm-serve"
# the module trtllm-serve is the console script of (setup.py entry_points): NVIDIA's own
# deployment guides (MiniMax-M3 on GB200: `trtllm-llmapi-launch python3 -m
# tensorrt_llm.commands.serve $MODEL ...`) and srt-slurm's launcher run it so
SERVE_MODULE = "tensorrt_llm.commands.serve"
# each option's long and short names (NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py, the
# click options of `serve`: --tensor_parallel_size / --tp_size, --free_gpu_memory_fraction /
# --kv_cache_free_gpu_memory_fraction, ...)
SERVE_FLAGS = FlagTable(
    [
        Flag(("--tp_size", "--tensor_parallel_size"), "parallel.tensor", positive_int),
        Flag(("--pp_size", "--pipeline_parallel_size"), "parallel.pipeline", positive_int),
        Flag(("--ep_size", "--moe_expert_parallel_size"), "parallel.ep_size", positive_int),
        Flag(("--max_batch_size",), "serving.max_num_seqs", positive_int),
        Flag(("--max_num_tokens",), "serving.max_num_batched_tokens", positive_int),
        Flag(("--max_seq_len",), "serving.max_model_len", positive_int),
        Flag(
            ("--kv_cache_free_gpu_memory_fraction", "--free_gpu_memory_fraction"),
            "serving.gpu_memory_utilization",
            fraction,
        ),
        Flag(("--extra_llm_api_options", "--config"), None, str),
        Flag(("--backend", "--host", "--port", "--tokenizer", "--log_level"), None, str),
    ],
    # --fail_fast_on_attention_window_too_large: exit, not lower max_seq_len, when the KV cache
    # cannot hold one sequence (TensorRT-LLM's C++ runtime; rule HBM108 says so)
    switches=["--trust_remote_code", "--fail_fast_on_attention_window_too_large"],
)


def find(argv: list[Token]) -> int | None:
    """The index of the first argument when ``argv`` runs ``trtllm-serve`` or ``python -m
    tensorrt_llm.commands.serve`` (its ``serve`` subcommand word skipped); Dynamo's worker is
    found by dynamo.py, which reads its file."""
    for i, token in enumerate(argv):
        module = token.text == SERVE_MODULE and i > 0 and argv[i - 1].text == "-m"
        if module or token.text.rsplit("/", 1)[-1] == SERVE:
            start = i + 1
            if start < len(argv) and argv[start].text in _NOT_A_SERVER:
                return None
            if start < len(argv) and argv[start].text == "serve":
                start += 1
            return start
    return None


# trtllm-serve's other subcommands (NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py, `main =
# DefaultGroup(commands={...})`): the disaggregated router holds no model, its MPI workers and
# the multimodal encoder server take theirs from a config file or serve no LLM
_NOT_A_SERVER = ("disaggregated", "disaggregated_mpi_worker", "mm_embedding_serve")


def config_path(tokens: list[Token]) -> Token | None:
    """The ``--extra-engine-args`` file a worker names (the last one wins), or None."""
    found = None
    for item in scan(tokens, FLAGS):
        if item.name == EXTRA:
            found = item.value
    return found


def parse(
    tokens: list[Token],
    launcher: Span,
    env: Mapping[str, Token] | None = None,
    files: ConfigFiles | None = None,
) -> EngineCommand:
    """``trtllm-serve [serve] MODEL --flag value ...`` (what follows the launcher), with the
    ``--extra_llm_api_options`` file where ``files`` finds it."""
    command = EngineCommand(engine=NAME, span=launcher)
    config: ConfigFile | None = None
    for item in scan(tokens, SERVE_FLAGS):
        if item.flag is not None and _not_as_declared(item):
            written = item.word.text.partition("=")[0]
            command.note(
                "HBM004",
                f"trtllm-serve has no option {written}: click matches its option names exactly "
                f"(written with underscores), so it refuses to start ('No such option: "
                f"{written}')",
                item.word.span,
                f"Write {_underscored(item)}",
            )  # and read as meant, so that the budget is the one the fix leads to
        if item.flag is None and not item.name:
            if "model.name" not in command.values and item.word.readable:
                command.set("model.name", model_name(item.word.text), item.word.span)
            elif (
                not item.word.readable
                and "model.name" not in command.values
                and not command.model_unreadable  # said once: what follows is more arguments
            ):
                command.model_unreadable = True
                command.note(
                    "HBM011",
                    f"the model is {item.word.text}, which hbmlint cannot read here; this server "
                    "is not checked",
                    item.word.span,
                )
            continue
        if item.name == "--config":
            command.refusals.append(
                Refusal(
                    what=(
                        "trtllm-serve --config, the alias of --extra_llm_api_options that "
                        "NVIDIA/TensorRT-LLM pull 9104 added on main (opened 2025-11-12, after "
                        "the 1.0 release): click stops with 'No such option: --config'"
                    ),
                    span=item.word.span,
                    fix="Write --extra_llm_api_options FILE, which every release takes",
                    through="1.0.0",
                )
            )
        if item.name in ("--extra-llm-api-options", "--config") and item.value is not None:
            found = files(item.value) if files is not None and item.value.readable else None
            if found is not None and not found.why:
                config = found  # the last one given is the one read
                continue
            command.model_unreadable = True  # its settings may change the parallelism
            where = (
                f"which hbmlint cannot know: {found.why}"
                if found is not None
                else "a file hbmlint does not read here"
            )
            command.note(
                "HBM011",
                "trtllm-serve takes settings (parallelism, memory fraction, lengths) from "
                f"{item.value.text}, {where}; this server is not checked",
                item.value.span,
            )
            continue
        apply(command, item)
    if config is not None:
        # the file is laid over the command line's settings: it wins
        # (tensorrt_llm/llmapi/llm_args.py update_llm_args_with_extra_options)
        _apply_mapping(command, config.settings, config.span_of, config.token)
    _expert(command)
    return command


def parse_llm_api(
    data: Mapping[str, Any], launcher: Span, span_of: Callable[[tuple], Span]
) -> EngineCommand:
    """A whole LLM API argument mapping that names its own ``model`` (Triton's llmapi
    ``model.yaml``): the model, then the settings as from an ``--extra_llm_api_options``
    file."""
    command = EngineCommand(engine=NAME, span=launcher)
    model = data.get("model")
    if isinstance(model, str) and model.strip():
        if placeholder(model):
            command.model_unreadable = True
            command.note(
                "HBM011",
                f"the model is {model}, which hbmlint cannot read here; this server is not checked",
                span_of(("model",)),
            )
        else:
            command.set("model.name", model_name(model), span_of(("model",)))
    _apply_mapping(command, data, span_of)
    _expert(command)
    return command


def _not_as_declared(item: Item) -> bool:
    """An option of trtllm-serve not written as declared: with dashes where its name has
    underscores (``--tp-size`` for ``--tp_size``) or cut short. click, unlike argparse, matches
    option names exactly (tensorrt_llm/commands/serve.py declares each with underscores)."""
    written = item.word.text.partition("=")[0]
    return written.startswith("--") and written not in item.flag.names  # type: ignore[union-attr]


def _underscored(item: Item) -> str:
    written = item.word.text.partition("=")[0]
    names = item.flag.names  # type: ignore[union-attr]
    return next((n for n in names if n.replace("_", "-") == written.replace("_", "-")), names[0])


def _expert(command: EngineCommand) -> None:
    ep = command.values.pop("parallel.ep_size", None)
    ep_span = command.locations.pop("parallel.ep_size", None)
    if ep is not None and ep_span is not None:
        command.set("parallel.expert", ep > 1, ep_span)


def parse_dynamo(
    tokens: list[Token],
    launcher: Span,
    env: Mapping[str, Token] | None = None,
    config: Mapping[str, Any] | None = None,
    config_span: Callable[[tuple[str, ...]], Span] | None = None,
    word: Callable[[Any, Span], Token] | None = None,
) -> EngineCommand:
    """The worker's settings: its flags, then ``config`` (the extra-engine-args YAML, each
    value located by ``config_span``, made a word by ``word`` where given: unreadable where the
    file is a template), then the ``--override-engine-args`` JSON."""
    command = EngineCommand(engine=NAME, span=launcher)
    override: Token | None = None
    for item in scan(tokens, FLAGS):
        if item.name == OVERRIDE:
            override = item.value
            continue
        apply(command, item)
    if config:
        _apply_mapping(
            command, config, lambda key: config_span(key) if config_span else launcher, word
        )
    # a template placeholder ({{ .Values.overrides }}) is filled in before the worker sees it
    if override is not None and override.readable and not placeholder(override.text):
        try:
            data = json_loads(override.text)
        except ValueError:
            command.note("HBM004", f"{OVERRIDE}: not a JSON object", override.span)
        else:
            if isinstance(data, dict):
                _apply_mapping(command, data, lambda key: override.span)
    _expert(command)
    return command


def _apply_mapping(
    command: EngineCommand,
    data: Mapping[str, Any],
    span_of: Callable[[tuple[str, ...]], Span],
    word: Callable[[Any, Span], Token] | None = None,
) -> None:
    """The settings of an LLM API mapping; ``word`` makes a value's token (unreadable where
    it holds a shell reference the script leaves unexpanded)."""
    for key, (field, parse_value) in _KEYS.items():
        value: Any = data
        for part in key:
            if isinstance(value, str):
                break  # a whole section hbmlint cannot read (a branch may set it)
            value = value.get(part) if isinstance(value, Mapping) else None
        if value is None:
            continue
        span = span_of(key)
        text = str(value).lower() if isinstance(value, bool) else str(value)
        token = word(value, span) if word is not None else Token(text, span)
        if not token.readable:
            # set to what hbmlint cannot read: not the flag's value, which the file overrides
            command.values.pop(field, None)
            command.locations.pop(field, None)
            command.unread[field] = span
            continue
        try:
            command.set(field, parse_value(text), span)
            command.unread.pop(field, None)
        except BadValue as exc:
            command.note("HBM004", f"{'.'.join(key)}: {exc}", span)
    speculative = data.get("speculative_config")
    if isinstance(speculative, Mapping):
        _speculative(command, speculative, span_of)


# speculative_config's decoding_type -> the drafter it is (NVIDIA/TensorRT-LLM
# tensorrt_llm/llmapi/llm_args.py: DecodingBaseConfig and its subclasses). On the PyTorch
# backend (trtllm-serve's default) an "Eagle" config runs EAGLE-3 (its spec_dec_mode is
# EAGLE3 or EAGLE3_ONE_MODEL), as "Eagle3" does.
_DECODING_TYPES = {
    "eagle": "eagle3",
    "eagle3": "eagle3",
    "mtp": "mtp",
    "ngram": "ngram",
    "drafttarget": "draft_model",
    "medusa": "medusa",
}


def _speculative(
    command: EngineCommand,
    config: Mapping[str, Any],
    span_of: Callable[[tuple[str, ...]], Span],
) -> None:
    """``speculative_config``: the drafter (``decoding_type``), its model
    (``speculative_model``, formerly ``speculative_model_dir``) and its tokens a step
    (``max_draft_len``; MTP's ``num_nextn_predict_layers``, default 1)."""
    kind = str(config.get("decoding_type", "")).strip().lower()
    method = _DECODING_TYPES.get(kind)
    if method is None:
        return  # another kind (SaveState, UserProvided, AUTO): no drafter hbmlint budgets
    base = ("speculative_config",)
    command.set("speculative.method", method, span_of((*base, "decoding_type")))
    target = command.values.get("model.name")
    for key in ("speculative_model", "speculative_model_dir"):
        model = config.get(key)
        if isinstance(model, str) and model.strip() and not placeholder(model):
            same = isinstance(target, str) and (
                posixpath.normpath(model_name(model)) == posixpath.normpath(target)
            )
            if method == "mtp" and same:
                break  # the target's own checkpoint: its MTP layers, as with no model named
            command.set("speculative.model", model_name(model), span_of((*base, key)))
            break
    tokens_key = "num_nextn_predict_layers" if method == "mtp" else "max_draft_len"
    tokens = config.get(tokens_key, config.get("max_draft_len"))
    if method == "mtp" and tokens is None:
        tokens, tokens_key = 1, "decoding_type"  # MTPDecodingConfig's default
    if tokens is not None:
        try:
            count = positive_int(str(tokens))
        except BadValue as exc:
            command.note("HBM004", f"speculative_config.{tokens_key}: {exc}", span_of(base))
            return
        where = span_of((*base, tokens_key)) if tokens_key in config else span_of(base)
        command.set("speculative.num_speculative_tokens", count, where)
