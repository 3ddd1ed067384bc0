"""catalog/encoders.py: encoder-only embedders and rerankers, and Whisper, are named with what
vLLM holds for them instead of a KV-cache budget hbmlint would invent."""

from __future__ import annotations

from pathlib import Path

import pytest
from catalog_entry import vllm_deployment

from hbmlint import catalog
from hbmlint.catalog.encoders import encoder_parameters, whisper_parameters


def _serve(tmp_path: Path, model: str, gpu: str = "NVIDIA-L4") -> Path:
    return vllm_deployment(tmp_path, model, gpu, "--gpu-memory-utilization", "0.3", name="embedder")


@pytest.mark.parametrize("model", ["BAAI/bge-m3", "BAAI/bge-reranker-v2-m3"])
def test_bge_m3_served_on_vllm_is_a_note_with_its_weights_not_hbm015(tmp_path, model):
    """Offline, bge-m3 was HBM015 ('run models pull') and, with the Hub reachable, would be
    budgeted as a decoder with a KV cache vLLM never allocates for an encoder-only model. Now one
    info that says so and gives the weights vLLM loads: 0.57B parameters in float16."""
    from format_helpers import findings

    found = findings(_serve(tmp_path, model))
    assert [f["code"] for f in found] == ["HBM006"]
    note = found[0]
    assert note["severity"] == "info"
    assert "no KV cache" in note["message"]
    assert "1.06 GiB" in note["message"]


def test_xlm_roberta_arithmetic_matches_bge_m3s_published_size():
    # bge-m3's model card gives 568M parameters; the reranker fine-tuned from it adds a one-label
    # head (a 1024 x 1024 dense layer and a 1024 x 1 output, with biases)
    m3 = encoder_parameters(catalog.find_model("BAAI/bge-m3")["config"])
    reranker = encoder_parameters(catalog.find_model("BAAI/bge-reranker-v2-m3")["config"])
    assert m3 == pytest.approx(568e6, rel=0.005)
    assert reranker - m3 == 1024 * 1024 + 1024 + 1024 + 1
    # bge-large-en-v1.5 (BERT-large): its published 335M counts the pooler vLLM skips
    large = encoder_parameters(catalog.find_model("BAAI/bge-large-en-v1.5")["config"])
    assert large + 1024 * 1024 + 1024 == pytest.approx(335e6, rel=0.001)


def test_an_encoder_config_from_any_source_is_not_budgeted_as_a_decoder():
    """A BERT config.json (from the Hub or a model.config file) has every field a decoder
    budget reads; read as one it would get a KV cache. It is refused as a note instead."""
    bert_base = {
        "architectures": ["BertModel"],
        "model_type": "bert",
        "hidden_size": 768,
        "num_hidden_layers": 12,
        "num_attention_heads": 12,
        "intermediate_size": 3072,
        "vocab_size": 30522,
        "max_position_embeddings": 512,
        "type_vocab_size": 2,
    }
    with pytest.raises(catalog.NoKvCacheModel, match="no KV cache"):
        catalog.architecture_from_config(bert_base, "bert-base-uncased", "test")
    # BERT-base is the 110M model of its paper; vLLM skips its pooler, 768 x 768 + 768
    assert encoder_parameters(bert_base) + 768 * 768 + 768 == pytest.approx(110e6, rel=0.005)


def test_whisper_is_a_warning_that_its_budget_is_not_checked_with_its_weights(tmp_path):
    """Offline, openai/whisper-large-v3 was HBM015; from the Hub its config.json (no hidden_size)
    was an HBM006 saying to point model.config at a readable file. Now a warning that says its
    decoder and cross-attention caches are not modelled, and what its weights are."""
    from format_helpers import findings

    entry = catalog.find_model("openai/whisper-large-v3")
    with pytest.raises(catalog.UnmodelledArchitecture, match="cross-attention") as raised:
        catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    assert not isinstance(raised.value, catalog.NoKvCacheModel)
    # the Hub's safetensors totals (public tables of them: code search file ids 71142266638,
    # 70862004100): large-v3 1,543,490,560; large-v3-turbo (4 decoder layers) 808,878,080;
    # large-v2 (80 mel bins, one token fewer) 1,543,304,960
    assert whisper_parameters(entry["config"]) == 1_543_490_560
    assert whisper_parameters({**entry["config"], "decoder_layers": 4}) == 808_878_080
    v2 = {**entry["config"], "num_mel_bins": 80, "vocab_size": 51865}
    assert whisper_parameters(v2) == 1_543_304_960
    found = findings(_serve(tmp_path, "openai/whisper-large-v3"))
    assert [(f["code"], f["severity"]) for f in found] == [("HBM006", "warning")]
    assert "2.87 GiB" in found[0]["message"]


def test_a_decoder_embedder_keeps_its_kv_budget():
    # Qwen3-Embedding runs causal attention: vLLM's pooling runner keeps a KV cache for it
    entry = catalog.find_model("Qwen/Qwen3-Embedding-0.6B")
    arch = catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    assert arch.kv_layout(1, 1, 2).full_per_token > 0
