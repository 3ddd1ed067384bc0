"""vLLM's checks that look for a few flags (--omni, --ec-transfer-config, --disaggregation-mode,
Dynamo's multimodal roles, the CUDA graph mode, the release refusals, LoRA, --data-parallel-rank)
run where one of their flags is written, in any spelling: an abbreviation, an alias, a dotted key;
and a removed flag is still found among the items."""

from __future__ import annotations

import pytest

from hbmlint.engines import vllm
from hbmlint.engines.args import Token
from hbmlint.yamlsrc import Span


def _words(*texts: str) -> list[Token]:
    return [Token(text, Span(1, 1 + 10 * i)) for i, text in enumerate(texts)]


def _vllm(*flags: str):
    return vllm.parse(_words("Qwen/Qwen3-8B", *flags), Span(1, 1), {})


@pytest.mark.parametrize(
    ("flags", "mode"),
    [
        (("-O0",), "NONE"),
        (("-O", "1"), "PIECEWISE"),
        (("--optimization-level", "2"), "FULL_AND_PIECEWISE"),
        (("-cc.cudagraph_mode=full",), "FULL"),
        (("--compilation-config.cudagraph-mode", "piecewise"), "PIECEWISE"),
        (("--compilation-config", '{"cudagraph_mode": "NONE"}'), "NONE"),
        (("-cc", '{"cudagraph_mode": "FULL"}'), "FULL"),
        (("--max-model-len", "4096"), None),
    ],
)
def test_cuda_graph_mode_in_each_spelling(flags, mode):
    assert _vllm(*flags).values.get("serving.cudagraph_mode") == mode


@pytest.mark.parametrize(
    "flags",
    [
        ("--quantization", "bitsandbytes"),
        ("-q", "bitsandbytes"),
        ("--quantiz", "bitsandbytes"),  # argparse's unique prefix
        ("--kv-cache-dtype", "fp8_ds_mla"),
        ("--load-format", "gguf"),
        ("--mamba-cache-mode", "all"),
        ("--quantization", "fbgemm_fp8"),  # deprecated: refused without the allow flag
    ],
)
def test_release_refusals_for_each_spelling(flags):
    command = _vllm(*flags)
    assert command.refusals, flags


def test_no_refusal_without_its_flags():
    assert _vllm("--max-model-len", "4096", "--tensor-parallel-size", "2").refusals == []


def test_checks_that_make_a_deployment_unbudgeted():
    assert _vllm("--omni").model_unreadable
    assert _vllm("--multimodal-processor").model_unreadable
    assert _vllm("--multimodal-encode-worker").model_unreadable
    assert _vllm("--disaggregation-mode", "encode").model_unreadable
    assert _vllm("--ec-transfer-config", '{"ec_role": "ec_producer"}').model_unreadable
    assert not _vllm("--disaggregation-mode", "decode").model_unreadable
    assert not _vllm("--ec-transfer-config", '{"ec_role": "ec_consumer"}').model_unreadable


def test_data_parallel_rank_and_lora():
    assert _vllm("--data-parallel-rank", "3").values["parallel.data_local"] == 1
    assert _vllm("--data-parallel-r", "3").values["parallel.data_local"] == 1
    lora = _vllm("--enable-lora", "--max-cpu-loras", "1", "--max-loras", "2")
    assert lora.values["serving.lora_slots"] == 2
    assert any("--max-cpu-loras 1" in note.message for note in lora.notes)
    # without --enable-lora the LoRA flags do nothing
    assert "serving.lora_slots" not in _vllm("--max-loras", "4").values
    assert "serving.lora_slots" not in _vllm().values


def test_a_removed_flag_is_found_in_any_form():
    for flags in (("--num-scheduler-steps", "8"), ("--num-scheduler-steps=8",)):
        found = vllm.removed_flags(_vllm(*flags), "0.11.0")
        assert [where for _, where, _, _ in found] == [Span(1, 11)], flags
    assert vllm.removed_flags(_vllm("--max-model-len", "8"), None) == []
