"""The start-up refusal rules HBM301-HBM308: each written as a Kubernetes Deployment running
vLLM is an error at the offending flag's line, a valid twin passes, and none fires on the
shipped examples or on the real manifests under tests/fixtures/real."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import EXAMPLES, REPO

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

# every start-up rule, HBM301 on: each new one is held to the same promises
STARTUP = tuple(sorted(p.name[:6] for p in (REPO / "rules").glob("HBM3*.yaml")))


def deployment(
    args: list[str],
    *,
    model: str = "Qwen/Qwen2.5-7B-Instruct",
    accelerator: str = "nvidia-l4",
    gpus: int = 1,
    image: str = "vllm/vllm-openai:v0.11.0",
    env: dict[str, str] | None = None,
) -> str:
    lines = [f"        - {json.dumps(arg)}" for arg in [f"--model={model}", *args]]
    env_lines = [f"        - {{name: {k}, value: '{v}'}}" for k, v in (env or {}).items()]
    return "\n".join(
        [
            "apiVersion: apps/v1",
            "kind: Deployment",
            "metadata: {name: llm}",
            "spec:",
            "  selector: {matchLabels: {app: llm}}",
            "  template:",
            "    metadata: {labels: {app: llm}}",
            "    spec:",
            f"      nodeSelector: {{cloud.google.com/gke-accelerator: {accelerator}}}",
            "      containers:",
            "      - name: vllm",
            f"        image: {image}",
            '        command: ["vllm", "serve"]',
            "        args:",
            *lines,
            *(["        env:", *env_lines] if env_lines else []),
            "        resources:",
            f"          limits: {{nvidia.com/gpu: {gpus}}}",
            "",
        ]
    )


@pytest.fixture(scope="module")
def rules():
    loaded, problems = load_rules()
    assert not problems
    return loaded


def lint(tmp_path: Path, rules, text: str):
    path = tmp_path / "deploy.yaml"
    path.write_text(text)
    return lint_file(path, path.name, rules)


def findings(result, code: str):
    return [d for d in result.diagnostics if d.code == code]


def line_of(text: str, needle: str) -> int:
    [number] = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    return number


# (rule, failing args and options, the flag the finding points at, words the message says)
FAILING = [
    (
        "HBM301",
        {"args": ["--tensor-parallel-size=3"], "gpus": 3},
        "--tensor-parallel-size",
        ["28 attention heads", "must be divisible by tensor parallel size (3)"],
    ),
    (
        "HBM302",
        {"args": ["--tensor-parallel-size=7"], "gpus": 7},
        "--tensor-parallel-size",
        ["4 key/value heads", "tensor parallelism 7"],
    ),
    (
        "HBM303",
        {"args": ["--max-model-len=65536"]},
        "--max-model-len",
        ["65,536 tokens", "at most 32,768 tokens", "VLLM_ALLOW_LONG_MAX_MODEL_LEN"],
    ),
    (
        "HBM304",
        {"args": ["--max-num-seqs=512", "--max-num-batched-tokens=256"]},
        "--max-num-batched-tokens",
        ["must be greater than or equal to max_num_seqs"],
    ),
    (
        "HBM305",
        {
            "args": [
                "--max-model-len=65536",
                "--max-num-batched-tokens=4096",
                "--no-enable-chunked-prefill",
            ],
            "model": "meta-llama/Llama-3.1-8B-Instruct",
            "image": "vllm/vllm-openai:v0.7.3",  # the V0 engine
        },
        "--max-num-batched-tokens",
        ["is smaller than max_model_len", "chunked prefill is off"],
    ),
    (
        "HBM305",
        {
            "args": ["--max-model-len=8192", "--max-num-batched-tokens=4096"],
            "image": "vllm/vllm-openai:v0.6.3",
        },
        "--max-num-batched-tokens",
        ["is smaller than max_model_len"],
    ),
    (
        "HBM306",
        {
            "args": ["--dtype=bfloat16"],
            "accelerator": "nvidia-tesla-t4",
            "model": "Qwen/Qwen2.5-1.5B-Instruct",
        },
        "--dtype",
        ["compute capability 7.5", "Bfloat16 is only supported"],
    ),
    (
        "HBM307",
        {
            "args": ["--quantization=fp8"],
            "accelerator": "nvidia-tesla-v100",
            "model": "Qwen/Qwen2.5-1.5B-Instruct",
        },
        "--quantization",
        ["compute capability 7.0", "Minimum capability: 80"],
    ),
    (
        "HBM309",
        {
            "args": ["--quantization=fp8"],
            "model": "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8",
            "accelerator": "nvidia-h100-80gb",
            "gpus": 2,
        },
        "--quantization",
        [
            "model config (compressed-tensors) does not match",
            "`quantization` argument (fp8)",
            "Remove --quantization",
        ],
    ),
    (
        "HBM314",
        {"args": ["--tensor-parallel-size=2", "--enable-expert-parallel"], "gpus": 2},
        "--enable-expert-parallel",
        ["Number of experts in the model must be greater than 0", "Remove --enable-expert"],
    ),
    (
        "HBM315",
        {
            "args": ["--quantization=mxfp4"],
            "model": "openai/gpt-oss-20b",
            "accelerator": "nvidia-tesla-t4",
        },
        "--quantization",
        ["compute capability 7.5", "Minimum capability: 80", "Schedule the pod"],
    ),
    (
        "HBM316",
        {"args": ["--max-model-len=16k"], "image": "vllm/vllm-openai:v0.6.3"},
        "--max-model-len",
        ["invalid int value", "(--max-model-len 16000)"],
    ),
    (
        "HBM317",
        {"args": ["--max-num-batched-tokens=8K"], "image": "vllm/vllm-openai:v0.8.5"},
        "--max-num-batched-tokens",
        ["invalid int value", "(--max-num-batched-tokens 8192)"],
    ),
    (
        "HBM318",
        {"args": ["--block-size=24"], "image": "vllm/vllm-openai:v0.9.2"},
        "--block-size",
        ["invalid choice", "Set --block-size"],
    ),
]


@pytest.mark.parametrize(
    ("code", "options", "flag", "words"),
    FAILING,
    ids=[f"{c}-{i}" for i, (c, *_) in enumerate(FAILING)],
)
def test_refusal_is_an_error_at_the_flag(tmp_path, rules, code, options, flag, words):
    text = deployment(**options)
    result = lint(tmp_path, rules, text)
    [finding] = findings(result, code)
    assert finding.severity.name == "ERROR"
    assert finding.span.line == line_of(text, flag)
    said = " ".join([finding.message, *finding.fixes])
    for word in words:
        assert word in said
    assert finding.fixes, "a refusal names its fix"


# valid twins of each failing case: nothing from the start-up rules
PASSING = [
    {"args": ["--tensor-parallel-size=4"], "gpus": 4},  # 28 heads / 4, 4 KV heads / 4
    {"args": ["--tensor-parallel-size=2"], "gpus": 2},
    {"args": ["--max-model-len=32768"]},
    {"args": ["--max-model-len=65536"], "env": {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}},
    {
        "args": [
            "--max-model-len=65536",
            '--hf-overrides={"rope_scaling": {"rope_type": "yarn", "factor": 4.0}}',
        ]
    },
    {"args": ["--max-num-seqs=256", "--max-num-batched-tokens=256"]},
    {"args": ["--max-num-batched-tokens=128"]},  # max_num_seqs left to the engine
    # the V1 engine turns chunked prefill on whatever the flag says (0.8 to 0.11 at least)
    {"args": ["--max-model-len=8192", "--max-num-batched-tokens=4096"]},
    {
        "args": [
            "--max-model-len=8192",
            "--max-num-batched-tokens=4096",
            "--no-enable-chunked-prefill",
        ],
        "image": "vllm/vllm-openai:v0.9.2",
    },
    {
        "args": [
            "--max-model-len=8192",
            "--max-num-batched-tokens=4096",
            "--no-enable-chunked-prefill",
        ],
    },
    # V0 turned chunked prefill on by itself above 32,768 tokens
    {
        "args": ["--max-model-len=65536", "--max-num-batched-tokens=4096"],
        "model": "meta-llama/Llama-3.1-8B-Instruct",
        "image": "vllm/vllm-openai:v0.7.3",
    },
    {
        "args": [
            "--max-model-len=8192",
            "--max-num-batched-tokens=8192",
            "--no-enable-chunked-prefill",
        ]
    },
    {
        "args": ["--dtype=half"],
        "accelerator": "nvidia-tesla-t4",
        "model": "Qwen/Qwen2.5-1.5B-Instruct",
    },
    {"args": [], "accelerator": "nvidia-tesla-t4", "model": "Qwen/Qwen2.5-1.5B-Instruct"},
    {"args": ["--dtype=bfloat16"], "accelerator": "nvidia-l4"},
    {"args": ["--quantization=fp8"], "accelerator": "nvidia-l4"},
    # the checkpoint's own method; fp8 on an unquantized checkpoint quantizes it while loading
    {
        "args": ["--quantization=compressed-tensors"],
        "model": "neuralmagic/Meta-Llama-3.1-70B-Instruct-quantized.w8a8",
        "accelerator": "nvidia-h100-80gb",
        "gpus": 2,
    },
    {"args": ["-q", "fp8"], "model": "Qwen/Qwen3-30B-A3B-FP8", "accelerator": "nvidia-h100-80gb"},
    # expert parallelism on a mixture of experts; the suffixes and block sizes each release takes
    {
        "args": ["--tensor-parallel-size=2", "--enable-expert-parallel"],
        "gpus": 2,
        "model": "Qwen/Qwen3-30B-A3B",
        "accelerator": "nvidia-h100-80gb",
    },
    {"args": ["--max-model-len=16k", "--max-num-batched-tokens=8k", "--block-size=48"]},
    {"args": ["--max-num-batched-tokens=8k"], "image": "vllm/vllm-openai:v0.9.2"},
    {"args": ["--block-size=128"], "image": "vllm/vllm-openai:v0.6.3"},
    {"args": [], "model": "openai/gpt-oss-20b", "accelerator": "nvidia-l4"},
]


@pytest.mark.parametrize("options", PASSING, ids=range(len(PASSING)))
def test_valid_twin_passes(tmp_path, rules, options):
    result = lint(tmp_path, rules, deployment(**options))
    assert not [d for d in result.diagnostics if d.code in STARTUP]
    assert not [d.message for d in result.diagnostics if "rule HBM3" in d.message]


def test_fp8_on_ampere_is_a_note_not_an_error(tmp_path, rules):
    text = deployment(["--quantization=fp8"], accelerator="nvidia-tesla-a100")
    result = lint(tmp_path, rules, text)
    [note] = findings(result, "HBM308")
    assert note.severity.name == "INFO" and "Marlin" in note.message
    assert note.span.line == line_of(text, "--quantization")
    assert not findings(result, "HBM307")


def test_sglang_is_not_judged_by_vllm_rules(tmp_path, rules):
    text = (
        deployment([], gpus=3)
        .replace('["vllm", "serve"]', '["python3", "-m", "sglang.launch_server"]')
        .replace("--model=", "--model-path=")
        + ""
    )
    text = text.replace(
        "- --model-path=Qwen/Qwen2.5-7B-Instruct",
        "- --model-path=Qwen/Qwen2.5-7B-Instruct\n        - --tp=3",
    )
    result = lint(tmp_path, rules, text)
    assert not [d for d in result.diagnostics if d.code in STARTUP]


def _shipped() -> list[Path]:
    paths = [p for p in EXAMPLES.rglob("*") if p.suffix in (".yaml", ".yml")]
    paths += sorted((REPO / "tests" / "fixtures" / "real").glob("*.yaml"))
    return sorted(paths)


@pytest.mark.parametrize("path", _shipped(), ids=lambda p: p.name)
def test_no_startup_error_on_shipped_and_real_manifests(rules, path):
    result = lint_file(path, path.name, rules)
    wrong = [d for d in result.diagnostics if d.code in STARTUP and d.severity.name == "ERROR"]
    assert not wrong, [(d.code, d.message) for d in wrong]
    assert not [d.message for d in result.diagnostics if "rule HBM3" in d.message]


# --- what the rules read from the catalog ------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"max_position_embeddings": 32768}, 32768),
        # YaRN scales the original length (Qwen3 with the model card's rope_scaling)
        (
            {
                "max_position_embeddings": 40960,
                "rope_scaling": {
                    "rope_type": "yarn",
                    "factor": 4.0,
                    "original_max_position_embeddings": 32768,
                },
            },
            131072,
        ),
        # linear scaling multiplies max_position_embeddings
        ({"max_position_embeddings": 4096, "rope_scaling": {"type": "linear", "factor": 2}}, 8192),
        # llama3 and longrope scaling are already inside max_position_embeddings
        (
            {
                "max_position_embeddings": 131072,
                "rope_scaling": {"rope_type": "llama3", "factor": 8},
            },
            131072,
        ),
        ({"max_position_embeddings": 131072, "rope_scaling": {"type": "longrope"}}, 131072),
        # model_max_length lets a longer max_model_len through (vLLM allows up to it)
        ({"max_position_embeddings": 2048, "model_max_length": 4096}, 4096),
        ({}, None),
    ],
)
def test_model_max_length_is_derived_as_vllm_does(fields, expected):
    from hbmlint.catalog.architecture import derived_max_length

    assert derived_max_length(fields, fields) == expected


def test_every_nvidia_gpu_has_a_compute_capability():
    from hbmlint.catalog import find_gpu, gpu_names

    for name in gpu_names():
        gpu = find_gpu(name)
        assert gpu is not None
        if gpu.vendor == "nvidia":
            # Kepler (K80, 3.7) is the oldest the catalog holds
            assert gpu.compute_capability and 3.7 <= gpu.compute_capability < 13, name
    assert find_gpu("T4").compute_capability == 7.5
    assert find_gpu("A100").compute_capability == 8.0
    assert find_gpu("L4").compute_capability == 8.9
    assert find_gpu("H100").compute_capability == 9.0
    assert find_gpu("Tesla-P100-PCIE-16GB").compute_capability == 6.0
    assert find_gpu("NVIDIA-GB10").compute_capability == 12.1


def test_quantization_is_kept_as_written_beside_its_format():
    """The budget needs the weight format (awq_marlin is AWQ); vLLM compares the name."""
    from hbmlint.engines import vllm
    from hbmlint.engines.args import Token
    from hbmlint.yamlsrc import Span

    words = ["Qwen/Qwen2.5-7B-Instruct-AWQ", "--quantization", "AWQ_Marlin"]
    command = vllm.parse([Token(w, Span(1, i + 1)) for i, w in enumerate(words)], Span(1, 1))
    assert command.values["model.quantization"] == "awq"
    assert command.values["model.quantization_method"] == "awq_marlin"


def test_checkpoint_quant_method_is_read_as_vllm_reads_it():
    from hbmlint.catalog.architecture import checkpoint_quant_method

    assert checkpoint_quant_method({"quantization_config": {"quant_method": "GPTQ"}}) == "gptq"
    compressed = {"compression_config": {"quant_method": "compressed_tensors"}}
    assert checkpoint_quant_method(compressed) == "compressed-tensors"
    nested = {"text_config": {"quantization_config": {"quant_method": "awq"}}}
    assert checkpoint_quant_method(nested) == "awq"
    modelopt = {
        "quantization_config": {
            "producer": {"name": "modelopt"},
            "quantization": {"quant_algo": "NVFP4"},
        }
    }
    assert checkpoint_quant_method(modelopt) == "modelopt_fp4"
    assert checkpoint_quant_method({}) is None


def test_rules_command_and_docs_list_each_rules_engine_releases(cli):
    run = cli("rules")
    assert run.exit_code == 0
    lines = {line[:6]: line for line in run.output.splitlines()}
    for code in STARTUP:
        assert any(f"{engine} (" in lines[code] for engine in ("[vllm", "sglang", "tgi", "trtllm"))
    assert lines["HBM308"].endswith("[vllm (>=0.5.1)]")
    assert lines["HBM101"].endswith("[every engine]")
    docs = (REPO / "docs" / "rules.md").read_text()
    assert "- Engines: vllm (>=0.5.1)" in docs.split("### HBM308")[1].split("###")[0]


# SGLang and TGI refusals: the engine's own words and the fix, at the flag's line
OTHER_ENGINES = [
    (
        "HBM310",
        '["python3", "-m", "sglang.launch_server"]',
        ["--model-path=Qwen/Qwen2.5-7B-Instruct", "--tp=3"],
        "--tp=3",
        ["28 attention heads", "is not divisible by 3", "Set --tp-size"],
    ),
    (
        "HBM311",
        '["python3", "-m", "sglang.launch_server"]',
        ["--model-path=Qwen/Qwen2.5-7B-Instruct", "--context-length=65536"],
        "--context-length",
        ["greater than the derived context_length", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"],
    ),
    (
        "HBM312",
        '["text-generation-launcher"]',
        [
            "--model-id=Qwen/Qwen2.5-7B-Instruct",
            "--max-input-tokens=8192",
            "--max-total-tokens=8192",
        ],
        "--max-input-tokens",
        ["must be < `max_total_tokens`", "Lower --max-input-tokens"],
    ),
    (
        "HBM313",
        '["text-generation-launcher"]',
        [
            "--model-id=Qwen/Qwen2.5-7B-Instruct",
            "--max-total-tokens=16384",
            "--max-batch-total-tokens=8192",
        ],
        "--max-batch-total-tokens",
        ["must be <= `max_batch_total_tokens`", "Raise --max-batch-total-tokens"],
    ),
]


@pytest.mark.parametrize(("code", "command", "args", "flag", "words"), OTHER_ENGINES)
def test_sglang_and_tgi_refusals(tmp_path, rules, code, command, args, flag, words):
    text = (
        deployment([], gpus=3)
        .replace('["vllm", "serve"]', command)
        .replace(
            "vllm/vllm-openai:v0.11.0",
            "lmsysorg/sglang:v0.5.2"
            if "sglang" in command
            else "ghcr.io/huggingface/text-generation-inference:3.3.4",
        )
        .replace(
            '        - "--model=Qwen/Qwen2.5-7B-Instruct"',
            "\n".join(f"        - {a}" for a in args),
        )
    )
    result = lint(tmp_path, rules, text)
    [finding] = findings(result, code)
    assert finding.severity.name == "ERROR"
    assert finding.span.line == line_of(text, flag)
    said = " ".join([finding.message, *finding.fixes])
    for word in words:
        assert word in said
    # and no vLLM rule judges another engine's deployment
    assert not [d for d in result.diagnostics if d.code in ("HBM301", "HBM302", "HBM303")]


def test_a_repeated_flag_is_judged_by_its_last_value():
    """argparse keeps the last of a repeated flag: a suffix replaced by a plain number is fine."""
    from hbmlint.engines import vllm
    from hbmlint.engines.args import Token
    from hbmlint.yamlsrc import Span

    words = ["Qwen/Qwen2.5-7B-Instruct", "--max-model-len", "16k", "--max-model-len=16000"]
    command = vllm.parse([Token(w, Span(1, i + 1)) for i, w in enumerate(words)], Span(1, 1))
    assert command.values["serving.human_readable"] == ()
    words[-1] = "--max-num-batched-tokens=4K"
    command = vllm.parse([Token(w, Span(1, i + 1)) for i, w in enumerate(words)], Span(1, 1))
    assert command.values["serving.human_readable"] == ("max_model_len", "max_num_batched_tokens")


# Refusals that depend on the release: a warning that says so, at the speculative config
@pytest.mark.parametrize(
    ("code", "model", "spec", "words"),
    [
        (
            "HBM319",
            "Qwen/Qwen2.5-7B-Instruct",
            '{"method": "mtp", "num_speculative_tokens": 1}',
            ["ships no multi-token-prediction layers", "qwen2"],
        ),
        (
            "HBM320",
            "mistralai/Mistral-7B-Instruct-v0.3",
            '{"method": "eagle3", "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", '
            '"num_speculative_tokens": 3}',
            ["Eagle3 is only supported for", "mistral"],
        ),
    ],
)
def test_release_dependent_speculative_refusals_are_warnings(
    tmp_path, rules, code, model, spec, words
):
    text = deployment([f"--speculative-config={spec}"], model=model)
    result = lint(tmp_path, rules, text)
    [finding] = findings(result, code)
    assert finding.severity.name == "WARNING"
    assert finding.span.line == line_of(text, "--speculative-config")
    for word in words:
        assert word in finding.message
