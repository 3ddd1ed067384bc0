"""Property-based tests of the format readers: arbitrary engine command lines, shell scripts and
format documents give findings or a clean result, never an uncaught exception (HBM000), and the
same input always gives the same output."""

from __future__ import annotations

from pathlib import Path

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from hbmlint.catalog import hub
from hbmlint.lint import lint_one
from hbmlint.rules import load_rules

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RULES, _ = load_rules()

FLAGS = [
    "--model",
    "--tensor-parallel-size",
    "-tp",
    "--pipeline-parallel-size",
    "-pp",
    "--max-model-len",
    "--max-num-seqs",
    "--max-num-batched-tokens",
    "--gpu-memory-utilization",
    "--kv-cache-dtype",
    "--quantization",
    "-q",
    "--dtype",
    "--block-size",
    "--enforce-eager",
    "--speculative-config",
    "-sc",
    "--speculative-config.method",
    "--speculative-model",
    "--num-speculative-tokens",
    "--ngram-prompt-lookup-max",
    "--data-parallel-size",
    "--tp-size",
    "--model-path",
    "--context-length",
    "--mem-fraction-static",
    "--speculative-algorithm",
    "--num-shard",
    "--max-total-tokens",
    "--quantize",
]
VALUES = st.one_of(
    st.sampled_from(
        [
            "1",
            "2",
            "8",
            "0",
            "-1",
            "32k",
            "1e9",
            "0.9",
            "1.5",
            "nan",
            "fp8",
            "auto",
            "meta-llama/Llama-3.1-8B-Instruct",
            "Qwen/Qwen3-8B",
            '{"method": "ngram"}',
            '{"method": "draft_model", "model": "Qwen/Qwen3-0.6B"}',
            "{",
            "$MODEL",
            "${TP:-2}",
            "$(TP)",
            "'quoted value'",
            "true",
            "",
        ]
    ),
    st.text(max_size=12),
)
WORDS = st.lists(st.one_of(st.sampled_from(FLAGS), VALUES), max_size=14)
LAUNCHERS = st.sampled_from(
    [
        ["vllm", "serve"],
        ["python", "-m", "vllm.entrypoints.openai.api_server"],
        ["python3", "-m", "sglang.launch_server"],
        ["text-generation-launcher"],
        ["sglang", "serve"],
    ]
)


def lint_document(tmp_path_factory, document: dict) -> list[tuple]:
    path = Path(tmp_path_factory.mktemp("f")) / "f.yaml"
    path.write_text(yaml.safe_dump(document))
    outputs = []
    for _ in range(2):
        hub.reset()  # each lint is a run of its own (Hub warnings come once per model a run)
        result, failed = lint_one(path, "f.yaml", RULES)
        assert not failed, result.diagnostics
        outputs.append([(d.code, d.message, d.span) for d in result.diagnostics])
    assert outputs[0] == outputs[1]
    assert all(span.line >= 1 for _, _, span in outputs[0])
    return outputs[0]


def pod(container: dict, labels: dict | None = None) -> dict:
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "p"},
        "spec": {
            "template": {
                "spec": {
                    "nodeSelector": labels or {"nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
                    "containers": [
                        {"name": "c", "resources": {"limits": {"nvidia.com/gpu": 1}}, **container}
                    ],
                }
            }
        },
    }


@FAST
@given(LAUNCHERS, WORDS, st.dictionaries(st.sampled_from(["MODEL", "TP", "MODEL_ID"]), VALUES))
def test_engine_argv_in_kubernetes(tmp_path_factory, launcher, words, env):
    container = {
        "command": launcher,
        "args": words,
        "env": [{"name": k, "value": v} for k, v in env.items()],
    }
    lint_document(tmp_path_factory, pod(container))


@FAST
@given(LAUNCHERS, WORDS, st.text(max_size=30))
def test_engine_in_a_shell_script(tmp_path_factory, launcher, words, noise):
    script = f"{noise}; exec {' '.join(launcher + words)} \\\n  --max-num-seqs 8"
    lint_document(tmp_path_factory, pod({"command": ["sh", "-c", script]}))


@FAST
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "nvidia.com/gpu.product",
                "cloud.google.com/gke-accelerator",
                "node.kubernetes.io/instance-type",
                "nvidia.com/gpu.memory",
                "karpenter.k8s.aws/instance-gpu-name",
            ]
        ),
        VALUES,
        max_size=3,
    ),
    WORDS,
)
@example(labels={"nvidia.com/gpu.memory": "\u00b9"}, words=[])  # "¹".isdigit(), yet not int()
@example(labels={"nvidia.com/gpu.memory": "0\x1f"}, words=[])  # str.strip() takes \x1f, int() not
def test_gpu_labels(tmp_path_factory, labels, words):
    container = {"command": ["vllm", "serve", "meta-llama/Llama-3.1-8B-Instruct"], "args": words}
    lint_document(tmp_path_factory, pod(container, labels))


@FAST
@given(
    st.dictionaries(
        st.sampled_from(
            [
                "model",
                "max-model-len",
                "tensor-parallel-size",
                "speculative-config",
                "kv_cache_dtype",
                "gpu-memory-utilization",
                "max_num_seqs",
            ]
        ),
        st.one_of(
            VALUES,
            st.integers(),
            st.floats(),
            st.dictionaries(st.text(max_size=5), VALUES, max_size=3),
        ),
        min_size=1,
    )
)
def test_vllm_config_files(tmp_path_factory, document):
    lint_document(tmp_path_factory, document)


@FAST
@given(LAUNCHERS, WORDS, st.one_of(st.none(), st.integers(-2, 9), st.text(max_size=4)))
def test_compose_services(tmp_path_factory, launcher, words, count):
    service = {"image": "vllm/vllm-openai:v0.11.0", "command": words}
    if count is not None:
        service["deploy"] = {
            "resources": {
                "reservations": {
                    "devices": [{"driver": "nvidia", "count": count, "capabilities": ["gpu"]}]
                }
            }
        }
    lint_document(tmp_path_factory, {"services": {"vllm": service}})
    service["command"] = " ".join(launcher + words)
    lint_document(tmp_path_factory, {"services": {"vllm": service}})


@FAST
@given(
    st.lists(
        st.dictionaries(
            st.sampled_from(["name", "modelURL", "requestGPU", "vllmConfig", "repository", "tag"]),
            st.one_of(
                VALUES,
                st.integers(),
                st.dictionaries(
                    st.sampled_from(["maxModelLen", "tensorParallelSize", "extraArgs", "dtype"]),
                    st.one_of(VALUES, st.integers(), st.lists(VALUES, max_size=4)),
                    max_size=3,
                ),
            ),
            max_size=5,
        ),
        max_size=3,
    )
)
def test_production_stack_values(tmp_path_factory, model_specs):
    lint_document(tmp_path_factory, {"servingEngineSpec": {"modelSpec": model_specs}})
