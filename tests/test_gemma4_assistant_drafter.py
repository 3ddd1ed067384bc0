"""Gemma 4's MTP assistants: vLLM serves Gemma 4 with ``--speculative-config
'{"method":"mtp","model":"google/gemma-4-31B-it-assistant",...}'``, where the model is a separate
drafter checkpoint (model_type gemma4_assistant, Gemma4AssistantForCausalLM), not the target's
own MTP layers (Gemma 4 ships none). vLLM maps it to its Gemma 4 MTP model and wires every
assistant layer to the target's KV cache (docs.vllm.ai/en/stable/features/speculative_decoding/mtp/;
vllm/model_executor/models/gemma4_mtp.py, vllm/v1/spec_decode/gemma4.py), so the budget counts
the assistant's weights and no draft KV cache. Before, hbmlint dropped the model and budgeted
one MTP layer of the target's shape: "draft weights 0.38 GiB mtp" and 2,048 bytes of draft KV a
token on the fixture's recipe.

The weights as vLLM builds them (gemma4_mtp.py), for the 31B's assistant (config: hidden 1024,
4 layers [sliding x3, full], 32 heads of 256 (512 on the full layer), MLP 8192, backbone 5376,
vocabulary 262,144, tied, use_ordered_embeddings false):

    q_proj + o_proj   2 x 1024 x 32 x 256 = 16,777,216 a sliding layer (x3), 33,554,432 the full
    MLP               3 x 1024 x 8192     = 25,165,824 a layer (x4)
    pre_projection    2 x 5376 x 1024     = 11,010,048  (ColumnParallelLinear)
    post_projection   1024 x 5376         =  5,505,024  (RowParallelLinear)
    lm_head           262,144 x 1024      = 268,435,456 (vocab-parallel, tied to its embed_tokens,
                                                         kept when the draft takes the target's
                                                         embedding)
    total             469.5M parameters (norms: some 20k more), 939 MB in bf16 (the card's
                      ~940 MB); all split over TP
"""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import errors

from hbmlint import catalog
from hbmlint.catalog.architecture import is_gemma4_assistant, read_architecture
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

REAL = Path(__file__).parent / "fixtures" / "real"
ASSISTANT_31B = REAL / "spark-recipe-gemma4-31b-assistant.yaml"  # urbanspr1nter
QWEN_MTP = REAL / "spark-recipe-qwen3.8-27b-mtp.yaml"  # the target's own MTP layer
COVERED = {ASSISTANT_31B.name}

H, LAYERS, HEADS, MLP, BACKBONE, VOCAB = 1024, 4, 32, 8192, 5376, 262144
ATTENTION = 3 * (2 * H * HEADS * 256) + 2 * H * HEADS * 512
PARAMETERS_31B = ATTENTION + LAYERS * 3 * H * MLP + 3 * BACKBONE * H + VOCAB * H
TOLERANCE = 0.005  # norms and layer scalars (~20k parameters) are left out above
GIB = 2**30


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _lint(path: Path, rules):
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True))
    return result, [item.budget for item in result.deployments]


def _assistant(model_id: str):
    entry = catalog.find_model(model_id)
    assert entry is not None, model_id
    return read_architecture(entry["config"], entry["id"], entry["source"])


def test_the_recipes_assistant_is_the_drafter_its_weights_by_arithmetic_and_no_draft_kv(rules):
    result, [budget] = _lint(ASSISTANT_31B, rules)
    assert errors(result) == []
    deployment = budget.resolved.deployment
    assert deployment.speculative.method == "mtp"
    assert deployment.speculative.model.name == "google/gemma-4-31B-it-assistant"
    assert budget.resolved.draft.name == "google/gemma-4-31B-it-assistant"
    assert budget.settings.draft_tensor_parallel == 2  # split over the target's TP
    draft = float(budget.draft_weights.to("byte").magnitude)
    assert draft == pytest.approx(PARAMETERS_31B / 2 * 2, rel=TOLERANCE)  # bf16, TP 2
    assert draft / GIB == pytest.approx(0.437, abs=0.001)  # was 0.38 GiB (one MTP layer)
    assert float(budget.kv_bytes_per_token_draft.to("byte / token").magnitude) == 0  # was 2,048
    said = budget.assumed["draft_weights"]
    assert "google/gemma-4-31B-it-assistant" in said and "Gemma 4 assistant" in said
    assert "KV-shared" in budget.assumed["draft_kv"] and "none" in budget.assumed["draft_kv"]


def test_every_assistant_counts_its_published_size_and_keeps_no_kv_cache():
    # (model id, target width, use_ordered_embeddings, the card's bf16 size in MB)
    for model_id, backbone, centroids, megabytes in (
        ("google/gemma-4-31B-it-assistant", 5376, 0, 940),
        ("google/gemma-4-26B-A4B-it-assistant", 2816, 0, 840),
        ("google/gemma-4-E4B-it-assistant", 2560, 2048, 158),
        ("google/gemma-4-E2B-it-assistant", 1536, 2048, 156),
    ):
        arch = _assistant(model_id)
        assert (arch.assistant_backbone, arch.assistant_centroids) == (backbone, centroids)
        assert arch.parameters * 2 / 1e6 == pytest.approx(megabytes, rel=0.01), model_id
        assert float(arch.kv_bytes_per_token_per_rank(1, 1, 2).magnitude) == 0, model_id
    assert _assistant("google/gemma-4-31B-it-assistant").parameters == pytest.approx(
        PARAMETERS_31B, rel=TOLERANCE
    )


def test_a_config_is_an_assistant_by_its_model_type_or_its_architecture():
    assert is_gemma4_assistant({"model_type": "gemma4_assistant"})
    assert is_gemma4_assistant({"architectures": ["Gemma4AssistantForCausalLM"]})
    assert not is_gemma4_assistant({"model_type": "gemma4", "architectures": ["Gemma4ForCausalLM"]})


def test_the_targets_own_mtp_layers_are_budgeted_as_before(rules):
    # no model in the config: the target's MTP layer, with its KV
    _, [budget] = _lint(QWEN_MTP, rules)
    assert budget.resolved.draft is None
    assert float(budget.kv_bytes_per_token_draft.to("byte / token").magnitude) > 0
    assert "draft_kv" not in budget.assumed


@pytest.mark.parametrize(
    "drafter",
    [
        "deepseek-ai/DeepSeek-V3",  # the target itself, as DeepSeek recipes write it
        "Qwen/Qwen3-8B",  # any other model: vLLM's MTP still drafts with the target's layers
        "some-org/not-a-model-hbmlint-knows",  # looked up and dropped without a word
    ],
)
def test_an_mtp_model_that_is_no_assistant_changes_nothing(tmp_path, rules, drafter):
    base = (
        "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --max-model-len 32768 "
        "--speculative-config '{json}'\n"
    )
    plain = tmp_path / "plain.sh"
    plain.write_text(base.format(json='{"method":"mtp","num_speculative_tokens":1}'))
    named = tmp_path / "named.sh"
    config = '{"method":"mtp","model":"' + drafter + '","num_speculative_tokens":1}'
    named.write_text(base.format(json=config))
    options = LintOptions(keep_budgets=True, default_gpu="H200")
    before = lint_file(plain, plain.name, rules, options)
    after = lint_file(named, named.name, rules, options)
    was, now = before.deployments[0].budget, after.deployments[0].budget
    assert now.resolved.draft is None and now.resolved.deployment.speculative.model is None
    assert now.draft_weights == was.draft_weights
    assert now.kv_bytes_per_token_draft == was.kv_bytes_per_token_draft
    assert now.kv_tokens == was.kv_tokens
    assert now.assumed == was.assumed
    assert [d.code for d in after.diagnostics] == [d.code for d in before.diagnostics]
