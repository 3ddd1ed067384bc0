"""TGI's start-up sizing by release, as a user's Deployment of the TGI image gets it: the KV
block of the attention backend the launcher picks, the warm-up batch, the wiggle room (of what
is free before 3.0, of the card from 3.0), 3.x's compute-optimal max_batch_prefill_tokens, and
the start/refuse verdicts that follow. Each expected figure is worked out here from TGI's code
at the tag (engines.yaml ``tgi`` names where), not read back from hbmlint."""

from __future__ import annotations

import math

import pytest

from hbmlint.diagnostics import Severity
from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

LLAMA = "meta-llama/Llama-3.1-8B-Instruct"
GIB = 2**30


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def deploy(tmp_path, rules, tag: str, model: str, node: str, env: dict | None = None, gpus=1):
    """lint a Deployment running the TGI image ``tag`` on ``node``: an instance type, a GKE
    accelerator name (nvidia-...) or an NVIDIA product label (NVIDIA-...)."""
    label = "node.kubernetes.io/instance-type"
    if node.startswith("nvidia-"):
        label = "cloud.google.com/gke-accelerator"
    elif node.startswith("NVIDIA-"):
        label = "nvidia.com/gpu.product"
    lines = "".join(f"        - {{name: {k}, value: '{v}'}}\n" for k, v in (env or {}).items())
    text = (
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: tgi}\nspec:\n  template:\n"
        "    spec:\n"
        f"      nodeSelector: {{{label}: {node}}}\n"
        "      containers:\n      - name: tgi\n"
        f"        image: ghcr.io/huggingface/text-generation-inference:{tag}\n"
        f"        args: [--model-id, {model}]\n"
        + ("        env:\n" + lines if lines else "")
        + f"        resources: {{limits: {{nvidia.com/gpu: '{gpus}'}}}}\n"
    )
    path = tmp_path / "tgi.yaml"
    path.write_text(text, encoding="utf-8")
    result = lint_file(path, "tgi.yaml", rules)
    [deployment] = result.deployments
    return deployment.budget, result.diagnostics


def tokens(budget) -> int:
    return int(budget.kv_tokens.magnitude)


def errors(findings) -> set[str]:
    return {f.code for f in findings if f.severity is Severity.ERROR}


# g5.xlarge: one A10G (compute capability 8.6); nvidia-tesla-t4: a T4 (7.5); g6.xlarge: one
# L4; p5.48xlarge: H100 80GB HBM3 cards; p5e.48xlarge: H200


@pytest.mark.parametrize(
    ("tag", "model", "node", "block"),
    [
        # before 2.3.0: paged attention, BLOCK_SIZE 16
        ("2.2.0", LLAMA, "g5.xlarge", 16),
        # from 2.3.0 flashinfer by default: one token a block
        ("2.3.1", LLAMA, "g5.xlarge", 1),
        ("3.3.4", LLAMA, "g5.xlarge", 1),
        # head size 96 is not one flashinfer takes: flashdecoding (256) on Ampere...
        ("2.4.0", "microsoft/Phi-3-mini-4k-instruct", "g5.xlarge", 256),
        # ...paged (16) on a card below compute capability 8.0 from 2.3.1, not in 2.3.0
        ("2.4.0", "microsoft/Phi-3-mini-4k-instruct", "nvidia-tesla-t4", 16),
        ("2.3.0", "microsoft/Phi-3-mini-4k-instruct", "nvidia-tesla-t4", 256),
        # gemma2 was forced off flashinfer in 2.3.x only
        ("2.3.1", "google/gemma-2-2b", "g6.xlarge", 256),
        ("2.4.0", "google/gemma-2-2b", "g6.xlarge", 1),
    ],
)
def test_block_is_the_attention_backends(tmp_path, rules, tag, model, node, block):
    budget, _ = deploy(tmp_path, rules, tag, model, node)
    assert budget.settings.block_size == block
    assert f"blocks of {block} tokens" in budget.assumed["block_size"]
    assert tokens(budget) % block == 0


def test_the_attention_env_picks_the_block(tmp_path, rules):
    budget, _ = deploy(tmp_path, rules, "3.3.4", LLAMA, "g5.xlarge", {"ATTENTION": "paged"})
    assert budget.settings.block_size == 16
    assert "block_size" not in budget.assumed  # the manifest's own choice
    assert tokens(budget) % 16 == 0
    _, findings = deploy(tmp_path, rules, "3.3.4", LLAMA, "g5.xlarge", {"ATTENTION": "flash"})
    [bad] = [f for f in findings if f.code == "HBM004"]
    assert "flashinfer, flashdecoding, paged" in bad.message


def test_the_attention_blocks_agree_with_engines_yaml(tmp_path, rules):
    from hbmlint import catalog

    blocks = catalog.engine_defaults("tgi")["attention_block_size"]
    assert blocks == {"flashinfer": 1, "flashdecoding": 256, "paged": 16}
    for backend, block in blocks.items():
        env = {"ATTENTION": backend}
        budget, _ = deploy(tmp_path, rules, "3.3.4", LLAMA, "g5.xlarge", env)
        assert budget.settings.block_size == block


def test_2x_warmup_holds_two_full_requests_and_keeps_a_share_of_what_is_free(tmp_path, rules):
    # 2.4.0 defaults for Llama 3.1 8B: max_total_tokens 4096, max_input_tokens 4095,
    # max_batch_prefill_tokens 4145; the router's warm-up sends 4095 + 50 prompt tokens, each
    # request allowed up to 4096 tokens: 2 x 4096 slots of KV held while the free memory is read.
    # 2.4.x keeps 90% (TGI_WIGGLE_ROOM 0.90) of what is free above them.
    budget, _ = deploy(tmp_path, rules, "2.4.0", LLAMA, "g5.xlarge")
    s = budget.settings
    assert (s.max_model_len, s.max_num_batched_tokens, s.block_size) == (4096, 4145, 1)
    per_token = budget.kv_bytes_per_token_target.to("byte / token").magnitude
    free = (budget.usable - budget.weights - budget.overhead_total).to("byte").magnitude
    batch = 2 * 4096
    assert tokens(budget) == math.floor(0.90 * (free - batch * per_token) / per_token) + batch


def test_3x_keeps_a_share_of_the_card_back(tmp_path, rules):
    # 3.0.x: get_free_memory(device, MEMORY_FRACTION x TGI_WIGGLE_ROOM 0.95): what is free
    # above 5% of the card; with CUDA_MEMORY_FRACTION 0.9, above 1 - 0.9 x 0.95 of it. The
    # warm-up batch (one request of max_batch_prefill_tokens, max_total_tokens not known yet)
    # is taken off and given back, so it cancels.
    env = {"CUDA_MEMORY_FRACTION": 0.9}
    budget, _ = deploy(tmp_path, rules, "3.0.1", LLAMA, "g5.xlarge", env)
    per_token = budget.kv_bytes_per_token_target.to("byte / token").magnitude
    total = budget.total.to("byte").magnitude
    held = (budget.weights + budget.overhead_total).to("byte").magnitude
    assert budget.usable.to("byte").magnitude == pytest.approx(0.9 * total)
    expected = math.floor((0.9 * 0.95 * total - held) / per_token)
    assert tokens(budget) == pytest.approx(expected, abs=1)
    # with less left than the wiggle room, TGI still holds the warm-up batch's blocks
    # (free memory clamped at 0, plus batch.num_blocks): no less than one prefill's tokens
    tight, _ = deploy(tmp_path, rules, "3.0.1", LLAMA, "g5.xlarge", {"CUDA_MEMORY_FRACTION": 0.8})
    assert tokens(tight) == tight.settings.max_num_batched_tokens


def llama_flops() -> int:
    # launcher Config::flop for Llama 3.1 8B: 32 layers x (attention 2 x 128 x 4096 x (4 x 32 +
    # 2 x 8) + MLP 6 x 4096 x 14336)
    return 32 * (2 * 128 * 4096 * (4 * 32 + 2 * 8) + 6 * 4096 * 14336)


@pytest.mark.parametrize(
    ("tag", "node", "gpus", "expected"),
    [
        # nvidia-h100-80gb-hbm3: 900 TFLOPS per shard
        ("3.3.4", "p5.48xlarge", 1, int(900e12 / llama_flops())),
        ("3.3.4", "p5.48xlarge", 2, int(2 * 900e12 / llama_flops())),
        # nvidia-a10g: 125 TFLOPS
        ("3.0.0", "g5.xlarge", 1, int(125e12 / llama_flops())),
        # 2.4.x: max_input_tokens + 50 whatever the card
        ("2.4.0", "p5.48xlarge", 1, 4145),
    ],
)
def test_3x_picks_a_compute_optimal_prefill(tmp_path, rules, tag, node, gpus, expected):
    env = {"NUM_SHARD": gpus}
    budget, _ = deploy(tmp_path, rules, tag, LLAMA, node, env, gpus=gpus)
    assert budget.settings.max_num_batched_tokens == expected
    if tag.startswith("3."):
        assert "TFLOPS" in budget.assumed["max_num_batched_tokens"]


def test_a_card_tgi_does_not_know_gets_the_4096_default(tmp_path, rules):
    # H200 joined the launcher's card table in 3.1.0: 3.0.2 falls back to 4096
    old, _ = deploy(tmp_path, rules, "3.0.2", LLAMA, "p5e.48xlarge")
    new, _ = deploy(tmp_path, rules, "3.1.0", LLAMA, "p5e.48xlarge")
    assert old.resolved.gpu.name.startswith("H200")
    assert old.settings.max_num_batched_tokens == 4096
    assert new.settings.max_num_batched_tokens == int(989e12 / llama_flops())


def test_the_bigger_3x_prefill_costs_kv_on_a_large_card(tmp_path, rules):
    # 55,879 prefill tokens of Llama 3.1 8B hold the MLP's activations (about 6 GiB) at the
    # warm-up peak, where 2.4's 4,145 tokens held logits over the vocabulary (about 4 GiB)
    three, _ = deploy(tmp_path, rules, "3.3.4", LLAMA, "p5.48xlarge")
    assert three.overhead["activation"].to("GiB").magnitude > 5
    assert three.settings.max_model_len == 131072  # the KV cache holds a whole context


def test_verdicts(tmp_path, rules):
    # 2.x refuses when the warm-up's prefill leaves no room: 32k prefill tokens of Llama 3.1
    # 8B on a 24 GB A10G need logits over 32k x 128k entries ("Not enough memory to handle
    # 32768 prefill tokens" / "`max_total_tokens` must be <= `max_batch_total_tokens`")
    env = {"MAX_INPUT_TOKENS": 32000, "MAX_TOTAL_TOKENS": 32768, "MAX_BATCH_PREFILL_TOKENS": 32768}
    refused, findings = deploy(tmp_path, rules, "2.2.0", LLAMA, "g5.xlarge", env)
    assert errors(findings)
    # 3.x at its defaults on the same card starts: it lowers max_total_tokens to what the
    # KV cache holds instead of refusing
    started, findings = deploy(tmp_path, rules, "3.3.4", LLAMA, "g5.xlarge")
    assert not errors(findings)
    assert started.settings.max_model_len == tokens(started) < 131072


# ------------------------------------------------------------ the calibration logs (tgi.yaml)


def test_llama31_8b_on_an_a10g_with_tgi_2_2(tmp_path, rules):
    # tgi-notes-llama31-8b-a10g-220: every setting at its 2.2.0 default, "Setting max batch
    # total tokens to 19056", started. Predicted +7.5% at this commit.
    budget, findings = deploy(tmp_path, rules, "2.2.0", LLAMA, "g5.xlarge")
    s = budget.settings
    assert (s.max_model_len, s.max_num_batched_tokens, s.block_size) == (4096, 4145, 16)
    assert 19056 <= tokens(budget) <= 1.10 * 19056
    assert not errors(findings)


def test_gemma3_27b_on_two_a6000s_with_tgi_3_3(tmp_path, rules):
    # tgi-notes-gemma3-27b-2xa6000-33: "Default `max_batch_prefill_tokens` to 8000" (gemma3),
    # "Using attention flashinfer", "Setting max batch total tokens to 52125", "Maximum total
    # tokens defaulted to 8000" (no prefill chunking for a VLM), started. Predicted +1.3% with
    # the head TGI loads apart from the tied embedding (+11.9% without it)
    env = {"NUM_SHARD": 2}
    budget, findings = deploy(
        tmp_path, rules, "3.3.4", "google/gemma-3-27b-it", "NVIDIA-RTX-A6000", env, gpus=2
    )
    s = budget.settings
    assert (s.max_num_batched_tokens, s.block_size, s.max_model_len) == (8000, 1, 8000)
    assert 52125 <= tokens(budget) <= 1.05 * 52125
    assert not errors(findings)


def test_3x_cuts_the_prefill_to_what_the_card_holds(tmp_path, rules):
    # launcher vram_maximum: (card x fraction x 0.95 - the model's bytes) / (KV + MLP bytes a
    # token). At CUDA_MEMORY_FRACTION 0.7 an A10G leaves Llama 3.1 8B room for fewer prefill
    # tokens than its compute-optimal 7,761
    full, _ = deploy(tmp_path, rules, "3.3.4", LLAMA, "g5.xlarge")
    env = {"CUDA_MEMORY_FRACTION": 0.7}
    cut, _ = deploy(tmp_path, rules, "3.3.4", LLAMA, "g5.xlarge", env)
    assert full.settings.max_num_batched_tokens == int(125e12 / llama_flops())
    assert 0 < cut.settings.max_num_batched_tokens < full.settings.max_num_batched_tokens
    assert "vram_maximum" in cut.assumed["max_num_batched_tokens"]


def test_a_warmup_batch_that_does_not_fit_refuses(tmp_path, rules):
    # Llama 2 7B keeps 512 KiB a token: TGI 2.0's warm-up batch (2 x 4096 slots) holds 4 GiB of
    # KV before its prefill runs. Under CUDA_MEMORY_FRACTION 0.8 (torch's per-process memory
    # fraction) on an A10G that and the weights leave no room: TGI fails its warm-up ("Not
    # enough memory to handle 4145 prefill tokens"); at 1.0 it starts
    model = "meta-llama/Llama-2-7b-chat-hf"
    tight, findings = deploy(
        tmp_path, rules, "2.0.4", model, "g5.xlarge", {"CUDA_MEMORY_FRACTION": 0.8}
    )
    assert tight.kv_cache.magnitude < 0
    assert errors(findings)
    roomy, findings = deploy(tmp_path, rules, "2.0.4", model, "g5.xlarge")
    assert tokens(roomy) > 2 * 4096
    assert not errors(findings)
