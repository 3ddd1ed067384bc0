"""TensorRT-LLM starts when its KV cache cannot hold one max_seq_len sequence: it lowers
max_seq_len to what the cache holds and refuses longer requests (the PyTorch backend's
tensorrt_llm/_torch/pyexecutor/resource_manager.py logs "Adjusted max_seq_len to N", as
trtllm-serve 1.1.0rc3 did for gpt-oss-120b on a DGX Spark and then served; the C++ runtime's
trtGptModelInflightBatching.cpp "maxAttentionWindow and maxSequenceLen are too large ...
they are reduced to N"). So the shortfall is HBM108, a warning, where vLLM's is HBM102, an
error; HBM102 stays an error for TensorRT-LLM only where not one KV block is left. Llama 3.1 8B
on one L4 at max_batch_size 64 keeps about 41k tokens of 16-bit KV cache."""

from __future__ import annotations

from pathlib import Path

from format_helpers import budgets, findings, line_of, run, write

MODEL = "meta-llama/Llama-3.1-8B-Instruct"


def serve(tmp_path: Path, command: str, args: list[str], image: str, name: str) -> Path:
    listed = "\n".join(f'                - "{arg}"' for arg in args)
    return write(
        tmp_path,
        name,
        f"""
        apiVersion: apps/v1
        kind: Deployment
        metadata: {{name: llm}}
        spec:
          template:
            spec:
              nodeSelector: {{cloud.google.com/gke-accelerator: nvidia-l4}}
              containers:
              - name: server
                image: {image}
                command: {command}
                args:
{listed}
                resources: {{limits: {{nvidia.com/gpu: 1}}}}
        """,
    )


def trtllm(tmp_path: Path, *args: str, name: str = "trt.yaml") -> Path:
    return serve(
        tmp_path,
        '["trtllm-serve", "serve"]',
        [MODEL, *args],
        "nvcr.io/nvidia/tensorrt-llm/release:1.1.0",
        name,
    )


def test_a_max_seq_len_the_kv_cache_cannot_hold_is_a_warning_that_the_engine_lowers_it(
    tmp_path,
):
    path = trtllm(tmp_path, "--max_seq_len=131072", "--max_batch_size=64")
    result = run(path)
    assert result.exit_code == 0  # a warning alone does not fail the run
    [finding] = findings(path)
    assert (finding["code"], finding["severity"], finding["line"]) == (
        "HBM108",
        "warning",
        line_of(path, "--max_seq_len"),
    )
    message = finding["message"]
    assert "max_seq_len is 131,072 tokens: the engine starts and lowers max_seq_len" in message
    assert "refusing longer requests" in message
    assert "refuse to start" not in message
    # the length that fits is offered, and it is below what the KV cache holds
    [kv] = budgets(path)
    [fix, *_] = finding["fixes"]
    assert fix["message"].startswith("Lower max_seq_len to ")
    offered = int(fix["message"].split()[3].replace(",", ""))
    assert 0 < offered <= kv["kv_cache_tokens"] < 131072


def test_the_same_shortfall_under_vllm_is_still_an_error(tmp_path):
    """vLLM does refuse to start ("To serve at least one request with the model's max seq
    len"): the engine, not the numbers, makes the difference."""
    path = serve(
        tmp_path,
        '["vllm", "serve"]',
        [f"--model={MODEL}", "--max-model-len=131072", "--max-num-seqs=64"],
        "vllm/vllm-openai:v0.11.0",
        "vllm.yaml",
    )
    errors = [f for f in findings(path) if f["severity"] == "error"]
    assert [(f["code"], f["line"]) for f in errors] == [
        ("HBM102", line_of(path, "--max-model-len"))
    ]
    assert run(path).exit_code == 1


def test_inside_the_estimates_uncertainty_the_warning_says_the_length_may_be_lowered(tmp_path):
    [kv] = budgets(trtllm(tmp_path, "--max_seq_len=8192", "--max_batch_size=64"))
    # one block more than the estimate holds: inside the band, not beyond it
    length = kv["kv_cache_tokens"] + kv["block_size"]
    path = trtllm(tmp_path, f"--max_seq_len={length}", "--max_batch_size=64", name="near.yaml")
    [finding] = findings(path)
    assert (finding["code"], finding["severity"]) == ("HBM108", "warning")
    assert "the engine starts and may lower max_seq_len" in finding["message"]


def test_a_max_seq_len_the_kv_cache_holds_is_clean(tmp_path):
    path = trtllm(tmp_path, "--max_seq_len=32768", "--max_batch_size=64")
    assert findings(path) == []


def trtllm_model(tmp_path: Path, model: str, *args: str, name: str) -> Path:
    return serve(
        tmp_path,
        '["trtllm-serve", "serve"]',
        [model, *args],
        "nvcr.io/nvidia/tensorrt-llm/release:1.1.0",
        name,
    )


def test_weights_past_the_card_are_the_weights_error_not_an_empty_kv_cache(tmp_path):
    """Llama 3.1 70B in 16 bits on one L4: the weights alone exceed the card, and then
    TensorRT-LLM does fail. The error says so (HBM101, with the card as the limit: the
    fraction is of the memory free after loading), not "the KV cache holds 0 tokens"."""
    path = trtllm_model(
        tmp_path, "meta-llama/Llama-3.1-70B-Instruct", "--max_seq_len=8192", name="big.yaml"
    )
    [finding] = findings(path)
    assert (finding["code"], finding["severity"]) == ("HBM101", "error")
    assert "weights need 131.45 GiB per GPU" in finding["message"]
    assert "may use 22.16 GiB (100.0% of 22.16 GiB on L4-24GB)" in finding["message"]
    assert run(path).exit_code == 1


def test_the_batch_size_does_not_eat_the_kv_cache(tmp_path):
    """TensorRT-LLM's PyTorch backend profiles with dummy context requests that fill
    max_num_tokens, one sampled token each: max_batch_size adds no logits to the profile
    (tensorrt_llm/_torch/pyexecutor/_util.py, _create_dummy_context_requests). Llama 3.1 8B
    on one L4 keeps the same KV cache at 64 or 4,096 sequences, and neither is flagged."""
    small = trtllm(tmp_path, "--max_seq_len=8192", "--max_batch_size=64", name="small.yaml")
    large = trtllm(tmp_path, "--max_seq_len=8192", "--max_batch_size=4096", name="large.yaml")
    [kv_small], [kv_large] = budgets(small), budgets(large)
    assert kv_small["kv_cache_tokens"] == kv_large["kv_cache_tokens"] > 8192
    assert findings(small) == findings(large) == []


def test_as_max_num_tokens_grows_the_finding_goes_from_lowered_to_may_fail_to_an_error(tmp_path):
    """The profile's forward pass over max_num_tokens tokens is what eats the KV cache: the
    finding at 8,192 tokens goes from none, to the length lowered, to not one KV block at the
    estimate's low edge (it may fail: still a warning), to none at its high edge (HBM102)."""
    order = {"clean": 0, "lowers": 1, "may fail": 2, "error": 3}
    seen = []
    for tokens in range(8192, 131073, 2048):
        path = trtllm(tmp_path, "--max_seq_len=8192", f"--max_num_tokens={tokens}", name="t.yaml")
        found = [f for f in findings(path) if f["code"] in ("HBM102", "HBM108")]
        if not found:
            seen.append("clean")
            continue
        [finding] = found
        if finding["code"] == "HBM102":
            assert finding["severity"] == "error"
            seen.append("error")
        elif "may fail to start" in finding["message"]:
            assert finding["severity"] == "warning"
            assert "no shorter max_seq_len is safe" in finding["fixes"][0]["message"]
            seen.append("may fail")
        else:
            assert finding["severity"] == "warning"
            assert "the engine starts and" in finding["message"]
            seen.append("lowers")
    ranks = [order[s] for s in seen]
    assert ranks == sorted(ranks), seen
    assert set(order) <= set(seen), seen


def test_the_fail_fast_switch_takes_no_value(tmp_path):
    """--fail_fast_on_attention_window_too_large is a switch: the length after it is still
    read as the length."""
    path = trtllm(
        tmp_path,
        "--fail_fast_on_attention_window_too_large",
        "--max_seq_len=131072",
        "--max_batch_size=64",
    )
    [finding] = findings(path)
    assert finding["code"] == "HBM108"
    assert finding["line"] == line_of(path, "--max_seq_len")
    assert "131,072 tokens" in finding["message"]


def test_an_unpinned_nim_profile_that_cannot_hold_its_length_is_a_warning_not_an_error(
    tmp_path,
):
    """An unpinned NIM profile is budgeted under TensorRT-LLM's memory rule: a TensorRT-LLM
    profile would start with a shorter length, so no refusal holds for every profile NIM
    could pick. Llama 3.1 70B at 4 bits over two L4s leaves room for some KV blocks, far
    fewer than 131,072 tokens."""
    path = write(
        tmp_path,
        "nim.yaml",
        """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: llama}
        spec:
          template:
            spec:
              nodeSelector: {nvidia.com/gpu.product: NVIDIA-L4}
              containers:
              - name: nim
                image: nvcr.io/nim/meta/llama-3.1-70b-instruct:1.3.3
                env:
                - {name: NIM_MAX_MODEL_LEN, value: "131072"}
                resources: {limits: {nvidia.com/gpu: 2}}
        """,
    )
    found = [f for f in findings(path) if f["code"].startswith("HBM1")]
    assert [(f["code"], f["severity"]) for f in found] == [("HBM108", "warning")]
    assert found[0]["line"] == line_of(path, '"131072"')


def test_the_budget_view_says_how_tensorrt_llm_arrives_at_its_usable_memory(tmp_path):
    """Its fraction is of the memory free after the weights and the overhead, not of the card;
    and where those already take the card, usable is the card, not more than it."""
    fits = trtllm_model(
        tmp_path, "meta-llama/Llama-3.1-8B-Instruct", "--max_batch_size=64", name="fits.yaml"
    )
    view = run("budget", fits).output
    assert "weights + overhead + 90% of the memory free after them" in view
    assert "90% of 22.16 GiB" not in view
    big = trtllm_model(
        tmp_path, "meta-llama/Llama-3.1-70B-Instruct", "--max_seq_len=8192", name="big.yaml"
    )
    [budget] = budgets(big)
    assert budget["usable_bytes"] == budget["total_bytes"]
    assert "(none: they take all of the 22.16 GiB)" in run("budget", big).output
