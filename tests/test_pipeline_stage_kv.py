"""With pipeline parallelism each stage sizes a KV cache for its own layers and vLLM keeps the
fewest blocks of any stage (v1/core/kv_cache_utils.py get_kv_cache_configs). Where layer kinds
alternate, the binding stage is the one whose tokens cost the most, not the first: Kimi-K3's 24
MLA layers among 93 fall 11 / 13 over PP 2 and 7 / 8 / 9 over PP 3."""

from __future__ import annotations

import pytest
from real_lint import REAL

from hbmlint.catalog import architecture_from_config, find_model
from hbmlint.catalog.architecture import FULL, pipeline_stages
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules

PP2 = REAL / "lws-kimi-k3-tp8pp2-p5en.yaml"
COVERED = {PP2.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _budget(path, rules, **options):
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True, **options))
    [item] = result.deployments
    return item.budget


@pytest.mark.parametrize(
    ("layers", "pp", "sizes"),
    [
        # vllm/distributed/utils.py get_pp_indices' docstring and tests: the remainder goes one
        # layer each to the stages before the last, from the second-to-last back
        (61, 2, [31, 30]),
        (61, 4, [15, 15, 16, 15]),
        (22, 4, [5, 6, 6, 5]),
        (5, 3, [2, 2, 1]),
        (93, 3, [31, 31, 31]),
        (32, 4, [8, 8, 8, 8]),
    ],
)
def test_stages_split_the_layers_as_vllm_does(layers, pp, sizes):
    stages = pipeline_stages(layers, pp)
    assert [len(s) for s in stages] == sizes
    assert stages[0].start == 0 and stages[-1].stop == layers


def test_kimi_k3_full_attention_layers_per_stage():
    entry = find_model("moonshotai/Kimi-K3")
    arch = architecture_from_config(entry["config"], "moonshotai/Kimi-K3", "catalog")
    per_stage = [
        [arch.layer_mixers[i] for i in stage].count(FULL) for stage in pipeline_stages(93, 3)
    ]
    # the manifest's own count: "Per-stage full-attn/KDA balance is 7/24, 8/23, 9/22"
    assert per_stage == [7, 8, 9]


def test_the_stage_with_the_most_attention_layers_binds_the_kv_cache(rules):
    budget = _budget(PP2, rules)
    # logged: "Maximum concurrency for 1,048,576 tokens per request: 2.13x" (2,230,426 tokens);
    # the first stage's 11 MLA layers gave 2.55x and 2,675,952 tokens
    assert budget.max_concurrency == pytest.approx(2.13, rel=0.05)
    assert budget.kv_tokens.magnitude == pytest.approx(2_230_426, rel=0.05)


def test_three_stages_bind_on_the_last(rules, tmp_path):
    text = PP2.read_text().replace("--pipeline-parallel-size=2", "--pipeline-parallel-size=3")
    text = text.replace("--nnodes=2", "--nnodes=3").replace("size: 2", "size: 3")
    path = tmp_path / "pp3.yaml"
    path.write_text(text)
    budget = _budget(path, rules)
    # the PP 3 manifest of the same repository (k8s-manifest/lws/lws-kimi-k3-tp8pp3-p5en.yaml)
    # quotes "Maximum concurrency for 1,048,576 tokens per request: 6.07x"; its first stage's 7
    # MLA layers gave 8.18x. (Its stage weights are still about 4 GiB under the logged 68.89.)
    assert 6.07 <= budget.max_concurrency < 6.07 * 1.1
