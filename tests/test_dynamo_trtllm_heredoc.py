"""A Dynamo TensorRT-LLM worker whose container script writes its engine config with a
here-document (``cat > /tmp/engine_configs/agg.yaml << 'EOF' ... EOF``, then ``python3 -m
dynamo.trtllm --extra-engine-args /tmp/engine_configs/agg.yaml``) is budgeted with that file's
values, each at its line, as the shell-script format reads ``trtllm-serve
--extra_llm_api_options``; "not checked" stays for a path no command of the script writes.
AWS's ai-on-eks blueprints (Dynamo 0.5.0 runtime images) were "0 deployments" with an info
that the file was found nowhere."""

from __future__ import annotations

import pytest
from real_lint import REAL, codes, errors, line_of, lint

from hbmlint.engines import image_version
from hbmlint.rules import load_rules

AGG = REAL / "dgd-aioneks-trtllm-agg.yaml"
AGG_HP = REAL / "dgd-aioneks-trtllm-agg-hp.yaml"
DISAGG = REAL / "dgd-aioneks-trtllm-disagg.yaml"

COVERED = {AGG.name, AGG_HP.name, DISAGG.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _not_checked(result) -> list:
    return [f for f in codes(result, "HBM014") if "it is not checked" in f.message]


@pytest.mark.parametrize(
    ("path", "fraction", "batch", "tokens"),
    [(AGG, 0.85, 16, 8192), (AGG_HP, 0.90, 32, 16384)],
)
def test_the_heredoc_engine_config_budgets_the_worker_at_its_lines(
    rules, path, fraction, batch, tokens
):
    result = lint(path, rules, gpu="A10G")
    assert _not_checked(result) == []
    assert errors(result) == []
    [worker] = result.deployments
    deployment = worker.deployment
    assert deployment.name.endswith("/TRTLLMWorker")
    assert deployment.engine == "trtllm"
    assert deployment.model.name == "Qwen/Qwen3-0.6B"
    assert deployment.parallel.tensor == 1
    assert deployment.serving.gpu_memory_utilization == fraction
    assert deployment.serving.max_num_seqs == batch
    assert deployment.serving.max_num_batched_tokens == tokens
    # each value where the here-document writes it, not at the worker's command line
    assert deployment.location("parallel.tensor").line == line_of(path, "tensor_parallel_size:")
    assert deployment.location("serving.gpu_memory_utilization").line == line_of(
        path, "free_gpu_memory_fraction:"
    )
    assert deployment.location("serving.max_num_batched_tokens").line == line_of(
        path, "max_num_tokens:"
    )
    assert worker.budget.kv_tokens > 0


def test_a_disaggregated_graph_budgets_prefill_and_decode_each_with_its_own_file(rules):
    result = lint(DISAGG, rules, gpu="A10G")
    assert _not_checked(result) == []
    assert errors(result) == []
    names = sorted(d.deployment.name.rsplit("/", 1)[1] for d in result.deployments)
    assert names == ["TRTLLMDecodeWorker", "TRTLLMPrefillWorker"]
    lines = DISAGG.read_text().splitlines()
    for worker in result.deployments:
        at = worker.deployment.location("serving.gpu_memory_utilization").line
        assert "free_gpu_memory_fraction: 0.85" in lines[at - 1]
        # the prefill worker's value is in prefill.yaml's here-document, the decode's in decode's
        written = max(
            n for n, line in enumerate(lines[:at], 1) if "cat > /tmp/engine_configs/" in line
        )
        role = "prefill" if worker.deployment.name.endswith("PrefillWorker") else "decode"
        assert f"{role}.yaml" in lines[written - 1]


def test_the_release_is_read_from_the_dynamo_0_5_0_image(rules):
    # tensorrtllm-runtime:0.5.0 is in no support matrix: at most the newest TensorRT-LLM by
    # the day Dynamo 0.5.0 was published, not the newest release
    [worker] = lint(AGG, rules, gpu="A10G").deployments
    version = worker.budget.settings.engine_version
    assert version.startswith("1.1.0rc5 (at most the newest release by 2025-09-18")
    # said at the worker's own image, not the frontend's
    at = worker.deployment.location("engine_version").line
    assert "tensorrtllm-runtime:0.5.0" in AGG.read_text().splitlines()[at - 1]
    assert at > line_of(AGG, "TRTLLMWorker:")


def test_the_vllm_runtime_0_5_0_is_not_the_newest_vllm():
    # Dynamo's support matrices begin at 0.6.0 (vLLM 0.11.0): 0.5.0's vLLM is older
    assert image_version("nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0").startswith(
        "0.10.2 (at most the newest release by 2025-09-18"
    )


def test_a_path_no_command_of_the_script_writes_is_still_not_checked(rules, tmp_path):
    text = AGG.read_text().replace(
        "cat > /tmp/engine_configs/agg.yaml << 'EOF'",
        "cat > /tmp/engine_configs/other.yaml << 'EOF'",
    )
    path = tmp_path / AGG.name
    path.write_text(text)
    result = lint(path, rules, gpu="A10G")
    assert result.deployments == []
    [info] = _not_checked(result)
    assert "/tmp/engine_configs/agg.yaml" in info.message
    assert "neither written by its own script" in info.message


def test_a_file_written_after_the_worker_starts_is_not_its_config(rules, tmp_path):
    lines = AGG.read_text().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if "cat > /tmp/engine_configs/agg.yaml" in line)
    end = next(i for i in range(start, len(lines)) if lines[i].strip() == "EOF")
    run = next(i for i, line in enumerate(lines) if "python3 -m dynamo.trtllm" in line)
    moved = lines[:start] + lines[end + 1 : run + 1] + lines[start : end + 1] + lines[run + 1 :]
    path = tmp_path / AGG.name
    path.write_text("".join(moved))
    result = lint(path, rules, gpu="A10G")
    assert result.deployments == []
    assert len(_not_checked(result)) == 1
