"""catalog: GPU and model data, and reading Hugging Face config.json files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from catalog_entry import architecture, vllm_deployment

from hbmlint import catalog
from hbmlint.catalog.encoders import is_encoder_config, model_parameters
from hbmlint.units import parse_quantity

CATALOG = Path(catalog.__file__).parent
GPUS = yaml.safe_load((CATALOG / "gpus.yaml").read_text(encoding="utf-8"))["gpus"]
MODELS = yaml.safe_load((CATALOG / "models.yaml").read_text(encoding="utf-8"))["models"]

LLAMA_8B = "meta-llama/Llama-3.1-8B-Instruct"
LLAMA_70B = "meta-llama/Llama-3.1-70B-Instruct"


def gib(quantity) -> float:
    return float(quantity.to("GiB").magnitude)


# --------------------------------------------------------------------------------------- GPUs


@pytest.mark.parametrize("entry", GPUS, ids=lambda e: e["name"])
def test_gpu_reports_less_than_its_marketing_figure_and_names_a_source(entry):
    memory = parse_quantity(entry["memory"], "[information]")
    marketing = parse_quantity(entry["marketing_memory"], "[information]")
    # Vendors print the nominal size ("80 GB"); the device reports a little less than that
    # number of GiB once the driver and ECC take their share.
    nominal = float(marketing.to("GB").magnitude)
    assert 0.9 * nominal < gib(memory) < nominal
    assert str(entry.get("source", "")).strip()


@pytest.mark.parametrize(
    "name, expected",
    [
        ("H100", "H100-SXM-80GB"),
        ("NVIDIA-H100-80GB-HBM3", "H100-SXM-80GB"),
        ("nvidia h100 80gb hbm3", "H100-SXM-80GB"),
        ("A100-80GB", "A100-SXM4-80GB"),
        ("NVIDIA-A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("L4", "L4-24GB"),
        ("NVIDIA-L4", "L4-24GB"),
        ("nvidia-l4", "L4-24GB"),
        ("MI300X", "MI300X-192GB"),
    ],
)
def test_find_gpu_by_name_or_alias(name, expected):
    gpu = catalog.find_gpu(name)
    assert gpu is not None
    assert gpu.name == expected


def test_unknown_gpu_is_none():
    assert catalog.find_gpu("H900") is None


def test_h100_has_the_memory_the_device_reports_not_80():
    memory = gib(catalog.find_gpu("H100").memory)
    assert 79.0 < memory < 79.5


def test_a100_80gb_is_not_confused_with_the_40gb_part():
    assert gib(catalog.find_gpu("A100-80GB").memory) > 79
    assert gib(catalog.find_gpu("A100").memory) < 40


# ------------------------------------------------------------------------------------- models


@pytest.mark.parametrize("entry", MODELS, ids=lambda e: e["id"])
def test_model_parameter_count_matches_the_published_figure(entry):
    assert str(entry.get("source", "")).strip()
    merged = catalog.find_model(entry["id"])  # with its base's config where it names one
    if merged["config"].get("model_type") == "deepseek_v4":  # listed to say it is not modelled
        with pytest.raises(catalog.UnmodelledArchitecture):
            catalog.architecture_from_config(merged["config"], entry["id"], entry["source"])
        return
    if is_encoder_config(merged["config"]):  # listed to say what vLLM holds for it, not budgeted
        with pytest.raises(catalog.UnmodelledArchitecture):
            catalog.architecture_from_config(merged["config"], entry["id"], entry["source"])
        counted = model_parameters(merged["config"])
        assert counted is None or counted == pytest.approx(entry["parameters"], rel=0.025)
        return
    arch = catalog.architecture_from_config(merged["config"], entry["id"], entry["source"])
    if entry.get("parameters") is None:  # speculator heads: no published count
        # EAGLE heads are one decoder layer; DFlash drafters a few, reading target layers
        assert arch.num_layers == 1 or (arch.dflash_target_layers and arch.num_layers <= 8)
        return
    assert arch.parameters == pytest.approx(entry["parameters"], rel=0.025)


def test_llama_31_8b_architecture():
    arch = architecture(LLAMA_8B)
    assert arch.num_layers == 32
    assert arch.num_kv_heads == 8
    assert arch.head_dim == 128  # derived: Llama 3.1's config has no head_dim
    assert arch.approximations == ()


def test_model_aliases_resolve_case_insensitively():
    assert catalog.find_model("meta-llama/llama-3.1-8b")["id"] == LLAMA_8B
    assert catalog.find_model("meta-llama/Llama-9-1T") is None


def test_qwen3_head_dim_comes_from_config():
    assert architecture("Qwen/Qwen3-8B").head_dim == 128
    # Qwen3-4B: hidden_size / heads would give 80; its config says 128
    config = catalog.find_model("Qwen/Qwen3-4B")["config"]
    assert config["hidden_size"] // config["num_attention_heads"] != 128
    assert architecture("Qwen/Qwen3-4B").head_dim == 128


# --------------------------------------------------------------------------------- config.json

SMALL_CONFIG = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": 1024,
    "intermediate_size": 4096,
    "num_hidden_layers": 4,
    "num_attention_heads": 16,
    "num_key_value_heads": 4,
    "vocab_size": 32000,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
}


def test_architecture_from_a_config_file(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(SMALL_CONFIG), encoding="utf-8")
    arch = catalog.architecture_from_config(catalog.read_config_file(path), "tiny", str(path))
    assert (arch.num_layers, arch.num_kv_heads, arch.head_dim) == (4, 4, 64)
    assert arch.dtype == "float16"
    assert arch.source == str(path)
    # 4 layers x (attention 2*1024*1024 + 2*1024*256, MLP 3*1024*4096, 2 norms)
    # + untied embeddings and lm_head + final norm
    layer = 2 * 1024 * 1024 + 2 * 1024 * 256 + 3 * 1024 * 4096 + 2 * 1024
    assert arch.parameters == 4 * layer + 2 * 32000 * 1024 + 1024


@pytest.mark.parametrize(
    "content, reason",
    [
        (None, "does not exist"),
        ("{not json", "not valid JSON"),
        ("[1, 2, 3]", "JSON object"),
    ],
    ids=["missing", "invalid-json", "not-an-object"],
)
def test_read_config_file_errors_name_the_file(tmp_path, content, reason):
    path = tmp_path / "config.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(catalog.ConfigError) as caught:
        catalog.read_config_file(path)
    assert str(path) in str(caught.value)
    assert reason in str(caught.value)


def test_config_without_hidden_size_names_the_field():
    config = {k: v for k, v in SMALL_CONFIG.items() if k != "hidden_size"}
    with pytest.raises(catalog.ConfigError, match="hidden_size"):
        catalog.architecture_from_config(config, "broken", "test")


def test_mla_config_is_modelled_not_flagged():
    config = {**SMALL_CONFIG, "kv_lora_rank": 512, "qk_rope_head_dim": 64}
    arch = catalog.architecture_from_config(config, "mla", "test")
    assert arch.approximations == ()
    # 4 layers x (512 + 64) latent x 2 bytes, the same on every TP rank
    assert arch.kv_bytes_per_token_per_rank(4, 1, 2).magnitude == 4 * 576 * 2


def test_moe_config_counts_every_expert():
    config = {**SMALL_CONFIG, "num_local_experts": 8, "num_experts_per_tok": 2}
    arch = catalog.architecture_from_config(config, "moe", "test")
    assert arch.approximations == ()
    dense = catalog.architecture_from_config(SMALL_CONFIG, "dense", "test")
    # 8 experts of the dense MLP (3 x 1024 x 4096) and a router per layer
    assert arch.parameters - dense.parameters == 4 * (7 * 3 * 1024 * 4096 + 1024 * 8)


# ------------------------------------------------------------------------------ KV per token


def test_kv_bytes_per_token_llama_8b_bf16_tp1():
    per_token = architecture(LLAMA_8B).kv_bytes_per_token_per_rank(1, 1, 2)
    # 32 layers x K and V x 8 heads x 128 x 2 bytes
    assert per_token.to("byte/token").magnitude == 131072


def test_kv_bytes_per_token_llama_70b_split_over_tp8():
    per_token = architecture(LLAMA_70B).kv_bytes_per_token_per_rank(8, 1, 2)
    # 80 layers x K and V x 1 head x 128 x 2 bytes
    assert per_token.to("byte/token").magnitude == 40960


def test_kv_heads_are_replicated_when_tp_exceeds_them():
    arch = architecture(LLAMA_70B)
    tp8 = arch.kv_bytes_per_token_per_rank(8, 1, 2)
    tp16 = arch.kv_bytes_per_token_per_rank(16, 1, 2)
    assert tp16.to("byte/token").magnitude == tp8.to("byte/token").magnitude == 40960


def test_kv_bytes_per_token_split_over_pipeline_stages():
    per_token = architecture(LLAMA_8B).kv_bytes_per_token_per_rank(1, 2, 2)
    assert per_token.to("byte/token").magnitude == 131072 / 2


# ------------------------------------------------------------------- labels and instance shapes

LABELS = yaml.safe_load((CATALOG / "labels.yaml").read_text(encoding="utf-8"))
SHAPES = yaml.safe_load((CATALOG / "instance_types.yaml").read_text(encoding="utf-8"))


@pytest.mark.parametrize("shape, entry", sorted(SHAPES["instance_types"].items()))
def test_every_instance_shape_names_a_catalog_gpu(shape, entry):
    assert catalog.find_gpu(entry["gpu"]) is not None, shape
    assert catalog.find_gpu(entry["gpu"]).name == entry["gpu"]  # the canonical name, no alias
    # a Nebius platform (gpu-h100-sxm) comes in 1- and 8-GPU presets and gives no count
    count = entry.get("count", 1 if shape.startswith("gpu-") else None)
    assert isinstance(count, int) and count >= 1


@pytest.mark.parametrize(
    "kind, entry", [(kind, e) for kind, entries in LABELS.items() for e in entries]
)
def test_every_label_names_its_source(kind, entry):
    assert str(entry.get("source", "")).strip(), (kind, entry["key"])


@pytest.mark.parametrize(
    "label, value, expected",
    [
        ("aliyun.accelerator/nvidia_name", "Tesla-V100-SXM2-16GB", "V100-SXM2-16GB"),
        ("aliyun.accelerator/nvidia_name", "NVIDIA-A10", "A10-24GB"),
        ("machine.cluster.vke.volcengine.com/gpu-name", "NVIDIA-L20", "L20-48GB"),
        ("machine.cluster.vke.volcengine.com/gpu-name", "Tesla-V100", "V100-SXM2-16GB"),
        ("gpu.nvidia.com/class", "A100_NVLINK_80GB", "A100-SXM4-80GB"),
        ("gpu.nvidia.com/class", "A100_NVLINK", "A100-SXM4-40GB"),
        ("gpu.nvidia.com/class", "H100_NVLINK_80GB", "H100-SXM-80GB"),
        ("gpu.nvidia.com/class", "RTX_A6000", "RTX-A6000-48GB"),
        ("gpu.nvidia.com/class", "A40", "A40-48GB"),
        ("karpenter.azure.com/sku-gpu-name", "A100", "A100-SXM4-40GB"),
        ("amd.com/gpu.product-name", "AMD_Instinct_MI300X_OAM", "MI300X-192GB"),
        ("nvidia.com/gpu.product", "NVIDIA-H800", "H800-SXM-80GB"),
        ("nvidia.com/gpu.product", "NVIDIA-H20", "H20-96GB"),
        ("nvidia.com/gpu.product", "NVIDIA-A800-SXM4-80GB", "A800-SXM4-80GB"),
        ("nvidia.com/gpu.product", "NVIDIA-RTX-6000-Ada-Generation", "RTX-6000-Ada-48GB"),
        (
            "nvidia.com/gpu.product",
            "NVIDIA-RTX-PRO-6000-Blackwell-Server-Edition",
            "RTX-PRO-6000-Blackwell-96GB",
        ),
        ("nvidia.com/gpu.product", "NVIDIA-GB300", "GB300-288GB"),
        ("nvidia.com/gpu.product", "AMD-Instinct-MI210", "MI210-64GB"),
        ("node.kubernetes.io/instance-type", "BM.GPU.H100.8", "H100-SXM-80GB"),
        ("node.kubernetes.io/instance-type", "Standard_NC6s_v3", "V100-SXM2-16GB"),
        ("node.kubernetes.io/instance-type", "Standard_ND40rs_v2", "V100-SXM2-32GB"),
        ("node.kubernetes.io/instance-type", "a2-ultragpu-1g", "A100-SXM4-80GB"),
        ("karpenter.azure.com/sku-name", "Standard_ND96isr_MI300X_v5", "MI300X-192GB"),
    ],
)
def test_cloud_node_labels_name_their_gpu(label, value, expected):
    from hbmlint.spec import Label
    from hbmlint.yamlsrc import Span

    choice = catalog.gpu_from_labels([Label(label, value, Span(3, 5))])
    assert (choice.type, choice.known, choice.type_span) == (expected, True, Span(3, 5))


def test_a_generic_gpu_label_names_no_gpu_but_says_how_to():
    from hbmlint.spec import Label
    from hbmlint.yamlsrc import Span

    choice = catalog.gpu_from_labels(
        [Label("kubernetes.azure.com/accelerator", "nvidia", Span(1, 1))]
    )
    assert choice.type is None
    [(label, advice)] = choice.generic
    assert label.value == "nvidia" and "instance-type" in advice


def test_gb300_is_no_longer_read_as_a_b300():
    assert catalog.find_gpu("GB300").name == "GB300-288GB"
    assert catalog.find_gpu("GB300").memory > catalog.find_gpu("B300").memory


# --------------------------------------------------------------- models deployed in 2025-26


def _without(config: dict, section: str, field: str) -> dict:
    return {**config, section: {k: v for k, v in config[section].items() if k != field}}


def test_qwen3_vl_counts_a_deepstack_merger_for_each_layer_it_taps():
    config = catalog.find_model("Qwen/Qwen3-VL-8B-Instruct")["config"]
    taps = config["vision_config"]["deepstack_visual_indexes"]
    with_taps = catalog.architecture_from_config(config, "taps", "test").parameters
    plain = _without(config, "vision_config", "deepstack_visual_indexes")
    without = catalog.architecture_from_config(plain, "plain", "test").parameters
    # each merger: 4 patches of 1152 merged (4608 -> 4608) and projected to the text width 4096
    assert with_taps - without == len(taps) * (4608 * 4608 + 4608 * 4096)
    # the Hub's 8.77B: the count without the taps was 1.4% short of it
    assert with_taps == pytest.approx(8.77e9, rel=0.002)


def test_nemotron_3_nano_shared_expert_has_its_own_width():
    entry = catalog.find_model("nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16")
    arch = catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    # moe_shared_expert_intermediate_size (3712), not n_shared_experts x moe_intermediate_size
    assert arch.shared_intermediate_size == 3712
    assert arch.parameters == pytest.approx(31.6e9, rel=0.002)


def _vllm_deployment(tmp_path: Path, model: str, gpu: str, max_len: int) -> Path:
    return vllm_deployment(tmp_path, model, gpu, "--max-model-len", str(max_len))


def _codes(path: Path) -> dict[str, str]:
    from format_helpers import findings

    return {f["code"]: f["message"] for f in findings(path)}


def test_qwen3_coder_30b_on_one_l4_is_checked_offline_not_left_unread(tmp_path):
    """Offline (the tests' Hub is), a model outside the catalog is an HBM015 warning and nothing
    is checked; Qwen3-Coder-30B-A3B's 30.5B BF16 weights (56.9 GiB) on a 24 GB L4 are a refusal."""
    path = _vllm_deployment(tmp_path, "Qwen/Qwen3-Coder-30B-A3B-Instruct", "NVIDIA-L4", 8192)
    codes = _codes(path)
    assert "HBM015" not in codes
    assert "weights need 56.9" in codes["HBM101"]


def test_qwen3_2507_reads_its_262144_positions_not_the_april_release_40960(tmp_path):
    april = _codes(_vllm_deployment(tmp_path, "Qwen/Qwen3-4B", "NVIDIA-H100-80GB-HBM3", 131072))
    assert "supports at most 40,960 tokens" in april["HBM303"]
    for model in ("Qwen/Qwen3-4B-Instruct-2507", "Qwen/Qwen3-4B-Thinking-2507"):
        codes = _codes(_vllm_deployment(tmp_path, model, "NVIDIA-H100-80GB-HBM3", 131072))
        assert "HBM303" not in codes and "HBM015" not in codes, model


@pytest.mark.parametrize(
    "model, longest",
    [
        # Kimi K2 0905: YaRN factor 64 over 4096 positions; the July release reads 32 (131,072)
        ("moonshotai/Kimi-K2-Instruct-0905", 262144),
        ("moonshotai/Kimi-K2-Instruct", 131072),
        ("zai-org/GLM-4.6", 202752),
        ("zai-org/GLM-4.5", 131072),
        # the Llama 4 base models: 262,144 positions (the Instruct ones 10M and 1M)
        ("meta-llama/Llama-4-Scout-17B-16E", 262144),
        ("meta-llama/Llama-4-Maverick-17B-128E", 262144),
    ],
)
def test_a_release_is_held_to_its_own_context_length(tmp_path, model, longest):
    fits = _codes(_vllm_deployment(tmp_path, model, "NVIDIA-H200", longest))
    assert "HBM303" not in fits and "HBM015" not in fits
    over = _codes(_vllm_deployment(tmp_path, model, "NVIDIA-H200", longest + 1024))
    assert f"supports at most {longest:,} tokens" in over["HBM303"]


def test_mistral_large_2407_on_one_h100_is_a_weights_refusal_offline(tmp_path):
    """Mistral-Large-Instruct-2407 was an HBM015 warning offline; its 122.6B BF16 weights
    (228 GiB) on one 80 GB H100 are now a refusal."""
    path = _vllm_deployment(
        tmp_path, "mistralai/Mistral-Large-Instruct-2407", "NVIDIA-H100-80GB-HBM3", 8192
    )
    codes = _codes(path)
    assert "HBM015" not in codes
    assert "weights need 228" in codes["HBM101"]


def test_qwen25_1m_reads_its_1010000_positions_not_the_instruct_32768(tmp_path):
    short = _codes(_vllm_deployment(tmp_path, "Qwen/Qwen2.5-7B-Instruct", "NVIDIA-H200", 1010000))
    assert "supports at most 32,768 tokens" in short["HBM303"]
    for model in ("Qwen/Qwen2.5-7B-Instruct-1M", "Qwen/Qwen2.5-14B-Instruct-1M"):
        codes = _codes(_vllm_deployment(tmp_path, model, "NVIDIA-H200", 1010000))
        assert "HBM303" not in codes and "HBM015" not in codes, model
