"""SGLang's data-parallel attention (--tp T --dp D --enable-dp-attention): each GPU holds the
attention of a T / D attention-TP group, the input embedding by release, the MLPs and experts
over the whole TP group, and keeps KV heads by the attention's split (catalog/engines.yaml
sglang.dp_attention, read from SGLang's model files at v0.4.6.post5, v0.5.2, v0.5.7, v0.5.8,
v0.5.9 and v0.5.23)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from format_helpers import budgets, findings, write

from hbmlint import catalog
from hbmlint.catalog.architecture import Sharding
from hbmlint.catalog.checkpoint import summarize

GIB = 2**30


def sglang(tmp_path: Path, model: str, args: str, gpus: int, image: str = "v0.5.8") -> Path:
    """An 8-GPU H200 Deployment running SGLang's server on ``model`` with ``args``."""
    flags = ", ".join(f"'{a}'" for a in args.split())
    return write(
        tmp_path,
        f"{abs(hash((model, args, image)))}.yaml",
        f"""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: t}}
        spec:
          template:
            spec:
              nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-h200-141gb}}
              containers:
              - name: sglang
                image: lmsysorg/sglang:{image}
                command: [python3, -m, sglang.launch_server, --model-path, {model}, {flags}]
                resources: {{limits: {{nvidia.com/gpu: "{gpus}"}}}}
        """,
    )


def weights_gib(path: Path) -> float:
    [budget] = budgets(path)
    return budget["weights_bytes"] / GIB


def test_deepseek_r1_dp_attention_holds_the_attention_whole_on_each_gpu(tmp_path):
    r1 = "deepseek-ai/DeepSeek-R1"
    plain = sglang(tmp_path, r1, "--tp 8 --trust-remote-code", 8)
    dp = sglang(tmp_path, r1, "--tp 8 --dp 8 --enable-dp-attention --trust-remote-code", 8)
    [before] = budgets(plain)
    [after] = budgets(dp)
    # plain TP 8: unchanged by DP attention's model (80.19 GiB of FP8 weights a GPU)
    assert round(before["weights_bytes"] / GIB, 2) == 80.19
    assert "sharding" not in before["assumed"]
    # attention TP 1: 61 layers of MLA projections (q_b, kv_b, o: 10.5 B parameters in FP8)
    # whole instead of an eighth, and the 1.73 GiB embedding whole (replicated before 0.5.8,
    # an attention-TP group of one since): 10 GiB more a GPU
    assert 9.9 < (after["weights_bytes"] - before["weights_bytes"]) / GIB < 10.2
    assert "whole on each GPU (SGLang DP attention: TP 8 / DP 8)" in after["assumed"]["sharding"]
    # MLA's latent is one per token on every GPU either way; the KV pool shrinks by the weights
    assert after["kv_bytes_per_token"] == before["kv_bytes_per_token"] == 61 * 576 * 2
    assert after["kv_cache_tokens"] < before["kv_cache_tokens"]


def test_the_embedding_is_whole_before_058_and_split_over_attention_tp_from_it(tmp_path):
    # sgl-project/sglang PR #17403 (in 0.5.8): "dsv3 tp=8 dp=2: 82.82GB -> 81.53GB per GPU"
    args = "--tp 8 --dp 2 --enable-dp-attention"
    v31 = "deepseek-ai/DeepSeek-V3.1"
    whole = weights_gib(sglang(tmp_path, v31, args, 8, image="v0.5.7"))
    split = weights_gib(sglang(tmp_path, v31, args, 8, image="v0.5.8"))
    assert abs(whole - 82.82) / 82.82 < 0.005 and abs(split - 81.53) / 81.53 < 0.005
    assert abs((whole - split) - (82.82 - 81.53)) < 0.03


def test_gqa_kv_heads_follow_the_attention_split(tmp_path):
    # Qwen3-30B-A3B: 4 KV heads. TP 4 keeps one a GPU; DP attention over 4 keeps all four
    model = "Qwen/Qwen3-30B-A3B"
    [plain] = budgets(sglang(tmp_path, model, "--tp 4", 4))
    [dp] = budgets(sglang(tmp_path, model, "--tp 4 --dp 4 --enable-dp-attention", 4))
    assert plain["kv_bytes_per_token"] == 48 * 2 * 1 * 128 * 2
    assert dp["kv_bytes_per_token"] == 4 * plain["kv_bytes_per_token"]
    assert dp["weights_bytes"] > plain["weights_bytes"]


def test_a_model_whose_sglang_file_keeps_attention_over_tp_is_unchanged(tmp_path):
    # llama.py (v0.5.23) builds QKV over the whole TP group whatever --enable-dp-attention says:
    # no weights are added that SGLang would not load (no false HBM101)
    model = "meta-llama/Llama-3.3-70B-Instruct"
    [plain] = budgets(sglang(tmp_path, model, "--tp 8", 8))
    dp_path = sglang(tmp_path, model, "--tp 8 --dp 8 --enable-dp-attention", 8)
    [dp] = budgets(dp_path)
    assert dp["weights_bytes"] == plain["weights_bytes"]
    assert dp["kv_bytes_per_token"] == plain["kv_bytes_per_token"]
    assert not [f for f in findings(dp_path) if f["severity"] == "error"]


def test_glm45_before_its_attention_tp_release_is_unchanged(tmp_path):
    # glm4_moe.py builds attention over the attention-TP group at v0.5.2 (not read earlier)
    model = "zai-org/GLM-4.5-Air"
    args = "--tp 4 --dp 4 --enable-dp-attention"
    old = weights_gib(sglang(tmp_path, model, args, 4, image="v0.4.9"))
    plain = weights_gib(sglang(tmp_path, model, "--tp 4", 4, image="v0.4.9"))
    new = weights_gib(sglang(tmp_path, model, args, 4, image="v0.5.2"))
    assert old == plain < new


def deepseek_like_checkpoint(arch) -> object:
    """Tensors named and shaped as a DeepSeek-V3 checkpoint of ``arch``'s shape, in bfloat16."""
    h, heads = arch.hidden_size, arch.num_attention_heads
    qk = arch.qk_nope_head_dim + arch.qk_rope_head_dim
    tensors = {}

    def add(name, *shape):
        size = 2
        for n in shape:
            size *= n
        tensors[name] = ("BF16", list(shape), size)

    add("model.embed_tokens.weight", arch.vocab_size, h)
    add("lm_head.weight", arch.vocab_size, h)
    add("model.norm.weight", h)
    for i in range(arch.num_layers):
        p = f"model.layers.{i}."
        if arch.q_lora_rank:
            add(p + "self_attn.q_a_proj.weight", arch.q_lora_rank, h)
            add(p + "self_attn.q_a_layernorm.weight", arch.q_lora_rank)
            add(p + "self_attn.q_b_proj.weight", heads * qk, arch.q_lora_rank)
        else:
            add(p + "self_attn.q_proj.weight", heads * qk, h)
        add(p + "self_attn.kv_a_proj_with_mqa.weight", arch.kv_lora_rank + arch.qk_rope_head_dim, h)
        add(p + "self_attn.kv_a_layernorm.weight", arch.kv_lora_rank)
        add(
            p + "self_attn.kv_b_proj.weight",
            heads * (arch.qk_nope_head_dim + arch.v_head_dim),
            arch.kv_lora_rank,
        )
        add(p + "self_attn.o_proj.weight", h, heads * arch.v_head_dim)
        add(p + "input_layernorm.weight", h)
        add(p + "post_attention_layernorm.weight", h)
        if arch.ffn(i) == "moe":
            add(p + "mlp.gate.weight", arch.num_experts, h)
            for e in range(arch.num_experts):
                for w in ("gate_proj", "up_proj"):
                    add(p + f"mlp.experts.{e}.{w}.weight", arch.moe_intermediate_size, h)
                add(p + f"mlp.experts.{e}.down_proj.weight", h, arch.moe_intermediate_size)
            for w in ("gate_proj", "up_proj"):
                add(p + f"mlp.shared_experts.{w}.weight", arch.shared_intermediate_size, h)
            add(p + "mlp.shared_experts.down_proj.weight", h, arch.shared_intermediate_size)
        else:
            for w in ("gate_proj", "up_proj"):
                add(p + f"mlp.{w}.weight", arch.intermediate_size, h)
            add(p + "mlp.down_proj.weight", h, arch.intermediate_size)
    return summarize(tensors, "test")


def test_stored_tensors_are_split_as_the_arithmetic_splits_them():
    entry = catalog.find_model("deepseek-ai/DeepSeek-V2-Lite-Chat")
    arch = catalog.architecture_from_config(entry["config"], entry["id"], entry["source"])
    stored = replace(arch, checkpoint=deepseek_like_checkpoint(arch))
    for split in (None, Sharding(attention=1, embed=1, lm_head=8), Sharding(attention=2)):
        counted = arch.weight_bytes_per_rank(8, 1, None, "bfloat16", split=split).magnitude
        read = stored.weight_bytes_per_rank(8, 1, None, "bfloat16", split=split).magnitude
        assert abs(read - counted) / counted < 0.002, (split, read, counted)
    plain = stored.weight_bytes_per_rank(8, 1, None, "bfloat16").magnitude
    dp = stored.weight_bytes_per_rank(8, 1, None, "bfloat16", split=Sharding(1, 1, 8)).magnitude
    assert dp > plain


def test_flags_that_keep_more_parts_whole_on_each_gpu(tmp_path):
    r1 = "deepseek-ai/DeepSeek-R1"
    base = "--tp 8 --dp 8 --enable-dp-attention"
    dp = weights_gib(sglang(tmp_path, r1, base, 8))
    # --enable-dp-lm-head: lm_head over the attention-TP group of one GPU, 7/8 of 1.73 GiB more
    head = weights_gib(sglang(tmp_path, r1, base + " --enable-dp-lm-head", 8))
    assert 1.45 < head - dp < 1.56
    # --moe-dense-tp-size 1: the 3 dense layers' MLP (1.19 B FP8 parameters) whole
    dense = weights_gib(
        sglang(tmp_path, r1, base + " --enable-dp-lm-head --moe-dense-tp-size 1", 8)
    )
    assert 0.9 < dense - head < 1.05
    # DeepEP: the 58 MoE layers' shared expert (2.55 B FP8 parameters) whole
    deepep = base + " --enable-dp-lm-head --moe-dense-tp-size 1 --moe-a2a-backend deepep --ep 8"
    [budget] = budgets(sglang(tmp_path, r1, deepep, 8))
    assert 2.0 < budget["weights_bytes"] / GIB - dense < 2.2
    said = budget["assumed"]["sharding"]
    assert "lm_head whole on each GPU" in said and "shared experts whole on each GPU" in said
    # 0.4's spelling of the DeepEP switch
    old = base + " --enable-dp-lm-head --moe-dense-tp-size 1 --enable-deepep-moe"
    assert (
        weights_gib(sglang(tmp_path, r1, old, 8, image="v0.4.6")) == budget["weights_bytes"] / GIB
    )


def test_attn_dp_size_is_dp_attention(tmp_path):
    # v0.5.23: --attn-dp-size N is the new spelling of --dp-size N --enable-dp-attention
    r1 = "deepseek-ai/DeepSeek-R1"
    new = sglang(tmp_path, r1, "--tp 8 --attn-dp-size 8", 8, image="v0.5.23")
    old = sglang(tmp_path, r1, "--tp 8 --dp 8 --enable-dp-attention", 8, image="v0.5.23")
    assert budgets(new) == budgets(old)
    assert not findings(new)
    # beside --dp-size (replicas again in v0.5.23), the attention split is not modelled: said
    both = sglang(tmp_path, r1, "--tp 8 --dp 2 --attn-dp-size 4", 16, image="v0.5.23")
    [note] = [f for f in findings(both) if f["code"] == "HBM011"]
    assert note["severity"] == "info" and "--attn-dp-size beside --dp-size" in note["message"]


def test_default_memory_fraction_reserves_for_dp_attention(tmp_path):
    # SGLang's default mem_fraction_static keeps more back with DP attention: 4 GiB from 0.4.8
    # to 0.5.2; from 0.5.3 cuda_graph_max_bs x DP x 3 MiB, x 1.5 more above 300 graph batches
    # (server_args.py). 8 H200 (143,165 MiB), DeepSeek-R1, TP 8: 512 graph batches
    r1 = "deepseek-ai/DeepSeek-R1"
    dp_args = "--tp 8 --dp 8 --enable-dp-attention"

    def fraction(args: str, image: str) -> str:
        [budget] = budgets(sglang(tmp_path, r1, args, 8, image=image))
        return budget["assumed"]["gpu_memory_utilization"]

    assert fraction("--tp 8", "v0.5.2").startswith("0.886 ")
    assert fraction(dp_args, "v0.5.2").startswith("0.857 ")  # 4,096 MiB more held back
    assert "4 GiB of it for DP attention" in fraction(dp_args, "v0.5.2")
    assert fraction("--tp 8", "v0.5.9").startswith("0.896 ")
    # 512 x 8 x (3 + 1.5) = 18,432 MiB more: (143165 - 14848 - 18432) / 143165
    assert fraction(dp_args, "v0.5.9").startswith("0.768 ")
    # before 0.4.8 the share went by TP alone
    assert (
        fraction(dp_args, "v0.4.6").startswith("0.81 ")
        and fraction("--tp 8", "v0.4.6")[:5] == "0.81 "
    )


def test_a_prefill_worker_keeps_no_decode_graph_reserve(tmp_path):
    """A disaggregated prefill worker (--disaggregation-mode prefill) captures no decode CUDA
    graphs: SGLang 0.5.23 leaves DP attention's graph reserve out of its default fraction, so
    its pool is not cut by 18,432 MiB as the decode worker's is."""
    r1 = "deepseek-ai/DeepSeek-R1"
    dp_args = "--tp 8 --dp 8 --enable-dp-attention --disaggregation-mode"

    def fraction(mode: str) -> str:
        [budget] = budgets(sglang(tmp_path, r1, f"{dp_args} {mode}", 8, image="v0.5.23"))
        return budget["assumed"]["gpu_memory_utilization"]

    prefill, decode = fraction("prefill"), fraction("decode")
    assert "graph batches x DP 8" in decode and "DP" not in prefill
    assert float(prefill.split()[0]) > float(decode.split()[0]) + 0.1


def test_the_mtp_draft_is_split_as_the_target(tmp_path):
    # deepseek_nextn.py builds its layer, embed_tokens and lm_head as the target's: under DP
    # attention over one GPU its attention (0.14 GiB) and its own embedding (1.73 GiB, taken
    # from the target only after the KV pool is sized) are whole on each GPU
    r1 = "deepseek-ai/DeepSeek-R1"
    mtp = " --speculative-algorithm EAGLE --speculative-num-steps 3"
    [plain] = budgets(sglang(tmp_path, r1, "--tp 8" + mtp, 8))
    [dp] = budgets(sglang(tmp_path, r1, "--tp 8 --dp 8 --enable-dp-attention" + mtp, 8))
    more = (dp["draft_weights_bytes"] - plain["draft_weights_bytes"]) / GIB
    assert 1.6 < more < 1.7
    assert "(1.94 GiB per GPU)" in dp["assumed"]["draft_weights"]


def test_deepseek_v32_runs_dp_attention_where_sglang_turns_it_on(tmp_path):
    # server_args.py at v0.5.3 and v0.5.5: DeepSeek V3.2 (DSA) on GPUs gets DP attention with
    # dp_size = tp_size whatever the command says; v0.5.6 no longer sets the DP size
    v32 = "deepseek-ai/DeepSeek-V3.2"
    [forced] = budgets(sglang(tmp_path, v32, "--tp 8", 8, image="v0.5.5"))
    [later] = budgets(sglang(tmp_path, v32, "--tp 8", 8, image="v0.5.6"))
    assert 9.9 < (forced["weights_bytes"] - later["weights_bytes"]) / GIB < 10.2
    assert forced["assumed"]["dp_attention"].startswith("DP 8 (sglang 0.5.5 turns DP attention")
    assert "dp_attention" not in later["assumed"]
    # its default fraction was set before that switch: no DP attention reserve in it
    fraction = forced["assumed"]["gpu_memory_utilization"]
    assert fraction == later["assumed"]["gpu_memory_utilization"].replace("0.5.6", "0.5.5")


def test_before_045_dp_attention_takes_the_tp_size_as_its_dp_size(tmp_path):
    # server_args.py at v0.4.3 and v0.4.4: --enable-dp-attention sets dp_size = tp_size (the
    # common "--tp 8 --enable-dp-attention" of early 2025 runs 8 attention-DP ranks); v0.4.5
    # keeps --dp-size (and refuses 1)
    r1 = "deepseek-ai/DeepSeek-R1"
    [old] = budgets(sglang(tmp_path, r1, "--tp 8 --enable-dp-attention", 8, image="v0.4.3"))
    [plain] = budgets(sglang(tmp_path, r1, "--tp 8", 8, image="v0.4.3"))
    assert 9.9 < (old["weights_bytes"] - plain["weights_bytes"]) / GIB < 10.2
    assert old["assumed"]["dp_attention"].startswith("DP 8 (sglang 0.4.3 sets the DP size")
    [asked] = budgets(sglang(tmp_path, r1, "--tp 8 --dp 2 --enable-dp-attention", 8, "v0.4.3"))
    assert asked["weights_bytes"] == old["weights_bytes"]


def test_sglang_experts_spread_over_one_tp_group_whatever_the_dp_size(tmp_path):
    # Without DP attention each --dp-size replica is a TP group of its own
    # (data_parallel_controller.py launch_dp_schedulers), and SGLang cuts its expert-parallel
    # groups from each TP group (parallel_state.py initialize_model_parallel): --tp 4 --dp 2
    # --ep 4 holds a quarter of the experts a GPU, as --tp 4 --ep 4 does (it read an eighth,
    # 28.80 GiB of FP8 weights a GPU for 55.25)
    qwen = "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8"
    alone = weights_gib(sglang(tmp_path, qwen, "--tp 4 --ep 4", 4))
    replicas = weights_gib(sglang(tmp_path, qwen, "--tp 4 --dp 2 --ep 4", 8))
    assert replicas == alone
    assert 55 < replicas < 55.5
    # with DP attention the DP ranks are the TP group's GPUs: the experts still over 4
    attention = weights_gib(sglang(tmp_path, qwen, "--tp 4 --dp 2 --ep 4 --enable-dp-attention", 4))
    assert attention > alone  # the attention split over 2 instead of 4, the experts as before
    # vLLM's expert-parallel group is TP x DP: an eighth of the experts a GPU
    script = write(
        tmp_path,
        "vllm.sh",
        f"vllm serve {qwen} --tensor-parallel-size 4 --data-parallel-size 2 "
        "--enable-expert-parallel\n",
    )
    [vllm] = budgets(script, "--gpu", "H200")
    assert vllm["weights_bytes"] / GIB < 0.6 * alone
