"""What real quantized exports leave out of their format, and the weights that makes, against
engine start-up logs: a mixed-precision config.json read as it is, and uploads hbmlint only
knows by their repository names (catalog/variants.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from catalog_entry import architecture

from hbmlint import catalog
from hbmlint.budget import mtp_cost
from hbmlint.catalog.variants import variant

GIB = 2**30
FIXTURES = Path(__file__).parent / "fixtures" / "quantization"


def base_config(model: str) -> dict:
    return catalog.find_model(model)["config"]


def weights_gib(arch, tp: int, with_mtp: bool = False) -> float:
    total = arch.weight_bytes_per_rank(tp, 1, arch.quantization).to("byte").magnitude
    if with_mtp:
        total += mtp_cost(arch, tp, arch.quantization, None, 1)[0].to("byte").magnitude
    return total / GIB


def nvidia_qwen36_27b():
    # Qwen3.6-27B has Qwen3.5-27B's shape (the catalog's alias); NVIDIA's export adds this
    # quantization_config (tests/fixtures/quantization/README.md)
    qconfig = json.loads((FIXTURES / "nvidia--Qwen3.6-27B-NVFP4.json").read_text())
    config = {**base_config("Qwen/Qwen3.5-27B"), "quantization_config": qconfig}
    return catalog.architecture_from_config(config, "nvidia/Qwen3.6-27B-NVFP4", "fixture")


def test_a_mixed_precision_export_weighs_attention_in_fp8_and_lm_head_in_nvfp4():
    arch = nvidia_qwen36_27b()
    assert arch.quantization == "nvfp4"
    parts = {part: fmt.name for part, fmt in arch.part_formats}
    assert parts == {"attention": "fp8", "lm_head": "nvfp4"}
    assert "mtp" in arch.unquantized
    # benchmarks/calibration/speculative.yaml vllm-0231-qwen36-27b-nvfp4-mtp-gb10 (vLLM 0.23.1,
    # one GB10): "Model loading took 19.78 GiB" without MTP, "20.57 GiB" with its MTP layer
    assert weights_gib(arch, 1) == pytest.approx(19.78, rel=0.02)
    assert weights_gib(arch, 1, with_mtp=True) == pytest.approx(20.57, rel=0.02)
    # read as plain NVFP4 everywhere (what hbmlint did before) it was 6.6% light
    plain = {**base_config("Qwen/Qwen3.5-27B"), "quantization_config": {"quant_method": "modelopt"}}
    light = catalog.architecture_from_config(plain, "plain", "fixture")
    assert weights_gib(light, 1) < 19.78 * 0.95


def test_a_compressed_tensors_export_takes_its_format_from_the_group_of_the_mlps():
    # two config groups, the FP8 one (attention) listed first: the bulk is the NVFP4 group
    qconfig = {
        "quant_method": "compressed-tensors",
        "config_groups": {
            "group_0": {
                "weights": {"num_bits": 8, "type": "float"},
                "targets": ["re:.*self_attn.*", "re:.*linear_attn.*"],
            },
            "group_1": {
                "weights": {"num_bits": 4, "type": "float", "group_size": 16},
                "targets": ["Linear"],
            },
        },
        "ignore": ["lm_head", "re:.*mtp.*"],
    }
    fmt, unquantized, _ = catalog.checkpoint_format(qconfig)
    assert fmt.name == "nvfp4" and fmt.bytes_per_param == 0.5625
    parts = dict(catalog.checkpoint_part_formats(qconfig, fmt))
    assert parts["attention"].name == "fp8"
    assert "lm_head" not in parts  # ignored: it stays in the model dtype


def test_nvidias_qwen36_upload_read_from_its_name_weighs_as_the_export_does():
    found = variant("nvidia/Qwen3.6-27B-NVFP4")
    assert found is not None and found.base == "Qwen/Qwen3.5-27B"
    assert "attention in FP8" in found.described and "a guess" in found.described
    arch = catalog.architecture_from_config(found.config, found.name, found.source)
    # the same log as above: 19.78 GiB without MTP
    assert weights_gib(arch, 1) == pytest.approx(19.78, rel=0.02)


def test_qwen38_nvfp4_uploads_read_from_their_names_are_no_longer_a_fifth_light():
    # github.com/vllm-project/recipes models/Qwen/Qwen3.8-27B.yaml @ 8959cf6, vLLM
    # 0.26.1rc1 on 2x RTX 5090 at TP 2 with the MTP head: weights per GPU 12.02 GiB (Inferact)
    # and 10.64 GiB (unsloth). Every linear layer in NVFP4 gave 9.49 GiB for both (-21%, -11%).
    for name, logged in (
        ("Inferact/Qwen3.8-27B-NVFP4", 12.02),
        ("unsloth/Qwen3.8-27B-NVFP4", 10.64),
    ):
        found = variant(name)
        arch = catalog.architecture_from_config(found.config, found.name, found.source)
        assert weights_gib(arch, 2, with_mtp=True) == pytest.approx(logged, rel=0.07), name


def test_a_publisher_without_a_known_layout_keeps_the_plain_format():
    # Qwen3-32B is not a linear-attention hybrid: no layout is guessed for its NVFP4 uploads
    found = variant("RedHatAI/Qwen3-32B-NVFP4")
    assert found is not None and found.layout == ""
    assert "a guess" not in found.described
    arch = catalog.architecture_from_config(found.config, found.name, found.source)
    assert arch.part_formats == () and arch.unquantized == frozenset()


@pytest.mark.parametrize(
    "name, kept",
    [
        # aiconfigurator model_configs/nvidia--Qwen3.5-397B-A17B-NVFP4_config.json: ignore lists
        # self_attn*, linear_attn*, mlp.shared_expert*, mtp.layers.0*
        ("nvidia/Qwen3.5-397B-A17B-NVFP4", {"attention", "shared_experts", "mtp"}),
        # nvidia--GLM-5-NVFP4_hf_quant_config.json: every self_attn projection, layer 78 (MTP)
        ("nvidia/GLM-5-NVFP4", {"attention", "mtp"}),
    ],
)
def test_nvidias_moe_exports_read_from_their_names_keep_what_nvidia_keeps(name, kept):
    found = variant(name)
    arch = catalog.architecture_from_config(found.config, found.name, found.source)
    assert kept <= arch.unquantized
    assert "a guess" in found.described
    # heavier than every linear layer in NVFP4, as the real exports are
    plain = catalog.architecture_from_config(
        {**base_config(found.base), "quantization_config": {"quant_method": "modelopt"}}, "p", "p"
    )
    assert weights_gib(arch, 8) > weights_gib(plain, 8)


def test_a_skip_list_of_layer_norms_leaves_the_attention_in_fp8():
    # Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 and Qwen/Qwen3-30B-A3B-FP8 config.json
    # (huggingface.co, quantization_config.modules_to_not_convert, summarised in the catalog):
    # lm_head and every layer's input_layernorm, mlp.gate and post_attention_layernorm. vLLM
    # applies the list to linear layers only (Fp8Config.get_quant_method -> is_layer_skipped),
    # so the norms change nothing and q/k/v/o load in FP8.
    big = architecture("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8")
    qconfig = base_config("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8")["quantization_config"]
    skipped = qconfig["modules_to_not_convert"]
    assert "model.layers.0.post_attention_layernorm" in skipped
    assert "attention" not in big.unquantized
    # benchmarks/calibration/vllm.yaml vllm-0271-qwen3-235b-2507-fp8-4xpro6000-tp4 (vLLM 0.27.1):
    # "Model loading took 55.19 GiB" per GPU at TP 4; the attention read as bf16 gave 56.74
    assert weights_gib(big, 4) == pytest.approx(55.19, rel=0.005)
    # benchmarks/calibration/sglang.yaml kr-ide023-tsk043-sglang-qwen3-30b-a3b-fp8-h100: SGLang
    # "Load weight end ... mem usage=29.15 GB" on one H100 (was 29.90)
    small = architecture("Qwen/Qwen3-30B-A3B-FP8")
    assert weights_gib(small, 1) == pytest.approx(29.15, rel=0.01)


def test_a_skip_list_naming_the_attention_still_keeps_it_in_16_bits():
    # meta-llama/Llama-3.1-405B-Instruct-FP8 config.json: modules_to_not_convert names every
    # layer's self_attn; calibration vllm-6746 logs 57.75 GiB per rank at TP 8
    arch = architecture("meta-llama/Llama-3.1-405B-Instruct-FP8")
    assert "attention" in arch.unquantized
    # the same list with the norms a Qwen export adds beside it: still attention in bf16
    config = base_config("meta-llama/Llama-3.1-405B-Instruct-FP8")
    qconfig = dict(config["quantization_config"])
    qconfig["modules_to_not_convert"] = [
        *qconfig["modules_to_not_convert"],
        "model.layers.0.input_layernorm",
        "model.layers.0.post_attention_layernorm",
    ]
    config = {**config, "quantization_config": qconfig}
    again = catalog.architecture_from_config(config, "with-norms", "fixture")
    assert weights_gib(again, 8) == pytest.approx(weights_gib(arch, 8), rel=1e-9)
    assert weights_gib(again, 8) == pytest.approx(57.75, rel=0.03)
