"""Hugging Face TGI: ``text-generation-launcher`` flags and the environment variables it reads
(each flag has an env twin, MODEL_ID for --model-id; the flag wins over the variable).

TGI's ``--max-total-tokens`` is the longest sequence (prompt + output), which is what hbmlint
calls max_model_len; ``--cuda-memory-fraction`` is a share of the whole card, as vLLM's.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..yamlsrc import Span
from .args import (
    BadValue,
    EngineCommand,
    Flag,
    FlagTable,
    Item,
    Token,
    Unsupported,
    apply,
    boolean,
    dtype,
    fraction,
    kv_cache_dtype_of,
    model_name,
    placeholder,
    positive_int,
    scan,
)

NAME = "tgi"
LAUNCHER = "text-generation-launcher"
IMAGES = ("text-generation-inference",)

# --kv-cache-dtype (or KV_CACHE_DTYPE): clap's KVCacheDtype values, the same from v2.4.0 to
# v3.3.7 (huggingface/text-generation-inference launcher/src/main.rs); no "auto" or "fp8"
_kv_cache_dtype = kv_cache_dtype_of(
    "TGI",
    frozenset(("fp8_e4m3fn", "fp8_e5m2")),
    {
        "fp8": "fp8_e4m3fn",
        "fp8_e4m3": "fp8_e4m3fn",
        "auto": "nothing: without the flag the cache takes the model's dtype",
    },
)

# TGI's --quantize values onto hbmlint's formats: "bitsandbytes" is 8-bit LLM.int8 there.
_QUANTIZE = {
    "awq": "awq",
    "gptq": "gptq",
    "marlin": "gptq",
    "eetq": "int8",
    "bitsandbytes": "int8",
    "bitsandbytes-nf4": "bitsandbytes-nf4",  # double-quantized on load (quantization.yaml)
    "bitsandbytes-fp4": "bitsandbytes-fp4",
    "fp8": "fp8",
    "compressed-tensors": None,
}


def _quantize(text: str) -> str | None:
    key = text.strip().lower()
    if key in _QUANTIZE:
        return _QUANTIZE[key]
    if key == "exl2":
        raise Unsupported("quantize exl2 is not a format hbmlint sizes; bfloat16 is assumed")
    raise BadValue(f"'{text}' is not a TGI quantization ({', '.join(sorted(_QUANTIZE))} or exl2)")


def _quantize_as_written(command: EngineCommand, item: Item) -> None:
    """--quantize exactly as written (lower-case): the budget keeps only the weight format
    (marlin is sized as GPTQ, exl2 not at all), but awq, gptq, exl2 and marlin load tensors only
    a checkpoint quantized that way holds (rule HBM330)."""
    value = item.value
    if value is None or not value.readable or placeholder(value.text):
        return
    command.set("model.quantization_method", value.text.strip().lower(), item.word.span)


def _cuda_graphs(text: str) -> bool:
    # --cuda-graphs 0 turns graphs off; a list of batch sizes keeps them on
    sizes = [s for s in text.replace(",", " ").split() if s]
    try:
        return [int(s) for s in sizes] == [0]
    except ValueError:
        raise BadValue(f"'{text}' is not a list of batch sizes") from None


FLAGS = FlagTable(
    [
        Flag(("--model-id",), "model.name", model_name),
        Flag(("--dtype",), "model.dtype", dtype),
        Flag(("--quantize",), "model.quantization", _quantize),
        Flag(("--num-shard",), "parallel.tensor", positive_int),
        # --sharded false: one shard whatever the GPUs it sees (true: every GPU it sees)
        Flag(("--sharded",), "parallel.tgi_sharded", boolean),
        Flag(("--max-total-tokens",), "serving.max_model_len", positive_int),
        # the longest prompt; --max-input-length is its older name
        Flag(
            ("--max-input-tokens", "--max-input-length"), "serving.max_input_tokens", positive_int
        ),
        Flag(("--max-concurrent-requests",), "serving.concurrent", positive_int),
        Flag(("--max-batch-size",), "serving.max_num_seqs", positive_int),
        Flag(("--max-batch-prefill-tokens",), "serving.max_num_batched_tokens", positive_int),
        Flag(("--max-batch-total-tokens",), "serving.kv_cache_max_tokens", positive_int),
        Flag(("--cuda-memory-fraction",), "serving.gpu_memory_utilization", fraction),
        Flag(("--kv-cache-dtype",), "serving.kv_cache_dtype", _kv_cache_dtype),
        Flag(("--cuda-graphs",), "serving.enforce_eager", _cuda_graphs),
        Flag(("--speculate",), "speculative.num_speculative_tokens", positive_int),
    ],
    switches=["--trust-remote-code", "--disable-custom-kernels", "--json-output"],
)

ENV = {
    "MODEL_ID": "--model-id",
    "DTYPE": "--dtype",
    "QUANTIZE": "--quantize",
    "NUM_SHARD": "--num-shard",
    "SHARDED": "--sharded",
    "MAX_TOTAL_TOKENS": "--max-total-tokens",
    "MAX_INPUT_TOKENS": "--max-input-tokens",
    "MAX_INPUT_LENGTH": "--max-input-length",
    "MAX_CONCURRENT_REQUESTS": "--max-concurrent-requests",
    "MAX_BATCH_SIZE": "--max-batch-size",
    "MAX_BATCH_PREFILL_TOKENS": "--max-batch-prefill-tokens",
    "MAX_BATCH_TOTAL_TOKENS": "--max-batch-total-tokens",
    "CUDA_MEMORY_FRACTION": "--cuda-memory-fraction",
    "KV_CACHE_DTYPE": "--kv-cache-dtype",
    "CUDA_GRAPHS": "--cuda-graphs",
    "SPECULATE": "--speculate",
}


def find(argv: list[Token]) -> int | None:
    for i, token in enumerate(argv):
        if token.text.rsplit("/", 1)[-1] == LAUNCHER:
            return i + 1
    return None


def parse(
    tokens: list[Token], launcher: Span, env: Mapping[str, Token] | None = None
) -> EngineCommand:
    command = EngineCommand(engine=NAME, span=launcher)
    # The env twins come first so that a flag on the command line wins, as in TGI.
    argv: list[Token] = []
    for name, flag in ENV.items():
        if env and name in env:
            argv += [Token(flag, env[name].span), env[name]]
    for item in scan(argv + list(tokens), FLAGS):
        written = item.word.text.partition("=")[0]
        if item.flag is not None and written.startswith("--") and written not in item.flag.names:
            # clap, TGI's argument parser, matches long names exactly: not by a unique prefix,
            # not with "_" for "-" (as argparse and hbmlint's table do)
            command.note(
                "HBM004",
                f"{written} is not a flag of TGI's launcher, whose argument parser (clap) takes "
                f"each flag only as written ({item.flag.names[0]}), not abbreviated or with "
                "'_' for '-'; it exits ('unexpected argument')",
                item.word.span,
                f"Write {item.flag.names[0]}",
            )
        apply(command, item)
        if item.flag is not None and item.flag.field == "model.quantization":
            _quantize_as_written(command, item)
    # ATTENTION (an env var with no flag, from 2.3.0): the backend the launcher passes to the
    # server, and the KV block that backend takes (engines.yaml attention_block_size)
    attention = env.get("ATTENTION") if env else None
    if attention is not None:
        from ..catalog import engine_defaults

        blocks = engine_defaults("tgi")["attention_block_size"]
        backend = attention.text.strip().lower()
        if backend in blocks:
            command.set("serving.block_size", int(blocks[backend]), attention.span)
        else:
            choices = ", ".join(blocks)
            message = f"ATTENTION: '{attention.text}' is not a TGI attention ({choices})"
            command.note("HBM004", message, attention.span)
    values = command.values
    # --max-batch-size caps the batch outright; else the concurrency limit bounds it
    concurrent = values.pop("serving.concurrent", None)
    where = command.locations.pop("serving.concurrent", None)
    if "serving.max_num_seqs" not in values and concurrent and where:
        command.set("serving.max_num_seqs", concurrent, where)
    if "speculative.num_speculative_tokens" in values:
        # n-gram speculation, or Medusa heads that ship inside the checkpoint
        where = command.locations["speculative.num_speculative_tokens"]
        command.set("speculative.method", "ngram", where)
        command.locations["speculative"] = where
    return command
