"""eugr/spark-vllm-docker recipes (formats/spark_recipe.py): the DGX Spark launcher's YAML, whose
``command`` run-recipe.py fills from ``defaults`` with str.format (``{{ }}`` are literal braces).
One GB10 a Spark node, so the engine's TP x PP is the number of nodes. The fixtures under
tests/fixtures/real/ name the recipe of each fork whose pattern they reproduce (before this
reader every one was an HBM014 info: "runs an inference engine, but hbmlint finds no engine
command line it can read")."""

from __future__ import annotations

from pathlib import Path

import pytest
from real_lint import codes, errors, line_of

from hbmlint.formats import detect_format
from hbmlint.lint import LintOptions, lint_file
from hbmlint.rules import load_rules
from hbmlint.yamlsrc import load_documents

REAL = Path(__file__).parent / "fixtures" / "real"
QWEN_MTP = REAL / "spark-recipe-qwen3.8-27b-mtp.yaml"  # urbanspr1nter
MINIMAX_TP8 = REAL / "spark-recipe-minimax-m3-tp8.yaml"  # urbanspr1nter
MIMO_PP3 = REAL / "spark-recipe-mimo-tp1-pp3.yaml"  # eugr
MIMO_DFLASH = REAL / "spark-recipe-mimo-tp4-dflash.yaml"  # jpfulton-fultonengineeringservices
GEMMA_SOLO = REAL / "spark-recipe-gemma4-26b-solo.yaml"  # eugr
GPT_OSS_SOLO = REAL / "spark-recipe-gpt-oss-120b-solo.yaml"  # wentbackward
QWEN_DFLASH = REAL / "spark-recipe-qwen3.6-27b-dflash.yaml"  # wentbackward
QWEN_LOCAL = REAL / "spark-recipe-qwen3.5-122b-local-gmu.yaml"  # RobTand
MODEL_UNSET = REAL / "spark-recipe-model-placeholder-unset.yaml"  # Entrpi
DSPARK = REAL / "spark-recipe-dspark-draft-from-defaults.yaml"  # mpfaffenberger

ALL = (
    QWEN_MTP,
    MINIMAX_TP8,
    MIMO_PP3,
    MIMO_DFLASH,
    GEMMA_SOLO,
    GPT_OSS_SOLO,
    QWEN_DFLASH,
    QWEN_LOCAL,
    MODEL_UNSET,
    DSPARK,
)
COVERED = {path.name for path in ALL}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def _line(path: Path, text: str) -> int:
    """The line that is ``text`` (line_of finds it in a comment too)."""
    return path.read_text().splitlines().index(text) + 1


def _lint(path: Path, rules):
    result = lint_file(path, path.name, rules, LintOptions(keep_budgets=True))
    return result, [item.deployment for item in result.deployments]


@pytest.mark.parametrize("path", ALL, ids=lambda p: p.name)
def test_every_recipe_is_read_as_one_with_no_false_error(path, rules):
    [document], _ = load_documents(path.read_text())
    assert detect_format(document.data).NAME == "spark-recipe"
    result, _ = _lint(path, rules)
    assert errors(result) == []
    assert codes(result, "HBM014") == []  # was: "finds no engine command line it can read"


def test_model_tp_gb10_and_the_mtp_drafter_are_read(rules):
    result, [deployment] = _lint(QWEN_MTP, rules)
    assert deployment.engine == "vllm"
    assert deployment.model.name == "Qwen/Qwen3.8-27B-FP8"
    assert deployment.parallel.tensor == 2
    assert deployment.gpu.type == "GB10-128GB"
    assert deployment.gpu.count == 2  # two Sparks, one GB10 each
    assert deployment.engine_version is None  # vllm-node: built from vLLM's main branch
    assert deployment.speculative.method == "mtp"
    assert deployment.speculative.num_speculative_tokens == 3
    assert deployment.serving.max_model_len == 262144
    assert deployment.serving.gpu_memory_utilization == 0.8
    # each filled value is placed at the defaults entry that sets it
    at = deployment.locations
    assert at["parallel.tensor"].line == line_of(QWEN_MTP, "  tensor_parallel: 2")
    assert at["gpu.count"].line == line_of(QWEN_MTP, "  tensor_parallel: 2")
    assert at["serving.max_model_len"].line == line_of(QWEN_MTP, "  max_model_len: 262144")
    assert at["model.name"].line == line_of(QWEN_MTP, "vllm serve Qwen/Qwen3.8-27B-FP8")
    assert at["speculative.method"].line == line_of(QWEN_MTP, "--speculative-config")
    assert "cluster mode" in deployment.assumed["gpu"]
    assert result.diagnostics == []


def test_a_finding_about_a_default_lands_on_the_defaults_line(rules):
    result, [deployment] = _lint(MINIMAX_TP8, rules)
    assert deployment.parallel.tensor == 8 and deployment.gpu.count == 8
    [finding] = codes(result, "HBM322")  # 0.88 of a GB10's shared memory is not free at start
    assert "GB10" in finding.message
    assert finding.span.line == line_of(MINIMAX_TP8, "  gpu_memory_utilization: 0.88")


def test_tensor_times_pipeline_parallelism_is_the_number_of_nodes(rules):
    _, [deployment] = _lint(MIMO_PP3, rules)
    assert (deployment.parallel.tensor, deployment.parallel.pipeline) == (1, 3)
    assert deployment.gpu.count == 3
    assert deployment.gpu.type == "GB10-128GB"


def test_a_placeholder_inside_the_escaped_json_is_filled(rules):
    result, [deployment] = _lint(MIMO_DFLASH, rules)
    assert deployment.gpu.count == 4
    assert deployment.speculative.method == "dflash"
    assert deployment.speculative.model.name == "/workspace/MiMo-V2.6-Flash-RL-dflash"
    assert deployment.speculative.num_speculative_tokens == 7  # {num_speculative_tokens}
    # --compilation-config '{{"cudagraph_mode":...}}' is JSON once unescaped: nothing refused
    assert codes(result, "HBM004") == []


def test_a_solo_only_recipe_runs_on_one_spark(rules):
    _, [gemma] = _lint(GEMMA_SOLO, rules)
    assert gemma.gpu.count == 1 and gemma.parallel.tensor is None  # vLLM's default, 1
    assert gemma.locations["gpu.count"].line == _line(GEMMA_SOLO, "solo_only: true")
    assert gemma.engine_version is None  # vllm/vllm-openai:gemma4-cu130 names no release
    assert "gpu" not in gemma.assumed
    result, [gpt_oss] = _lint(GPT_OSS_SOLO, rules)
    assert gpt_oss.model.name == "openai/gpt-oss-120b"
    assert gpt_oss.gpu.count == 1 and gpt_oss.gpu.type == "GB10-128GB"
    assert result.diagnostics == []


def test_one_spark_with_a_dflash_drafter(rules):
    _, [deployment] = _lint(QWEN_DFLASH, rules)
    assert deployment.model.name == "Qwen/Qwen3.6-27B-FP8"
    assert deployment.gpu.count == 1
    assert deployment.speculative.method == "dflash"
    assert deployment.speculative.model.name == "z-lab/Qwen3.6-27B-DFlash"
    assert deployment.speculative.num_speculative_tokens == 15


def test_a_local_checkpoint_with_mtp(rules):
    _, [deployment] = _lint(QWEN_LOCAL, rules)
    assert deployment.model.name.startswith("/root/.cache/huggingface/hub/models--local--")
    assert deployment.gpu.count == 1
    assert deployment.speculative.method == "mtp"
    assert deployment.speculative.num_speculative_tokens == 3


def test_a_placeholder_no_default_fills_is_unreadable(rules):
    result, deployments = _lint(MODEL_UNSET, rules)
    assert deployments == []
    [note] = codes(result, "HBM011")
    assert "{model}" in note.message and "`defaults` has no model" in note.message
    assert note.span.line == line_of(MODEL_UNSET, "  vllm serve {model} \\")
    # the spec config in the comment after the command is not read
    assert [f.code for f in result.diagnostics] == ["HBM011"]


def test_the_target_and_the_drafter_from_defaults(rules):
    result, [deployment] = _lint(DSPARK, rules)
    assert deployment.model.name == "nvidia/MiniMax-M3-NVFP4"
    assert deployment.locations["model.name"].line == line_of(DSPARK, "  target_model:")
    assert deployment.gpu.count == 4
    # the drafter's method is one hbmlint does not size yet: said, not guessed
    [dspark] = codes(result, "HBM011")
    assert "'dspark'" in dspark.message


def _write(tmp_path: Path, text: str, name: str = "recipe.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


RECIPE = """\
recipe_version: "1"
name: llama
container: {container}
{solo}defaults:
  port: 8000
  tensor_parallel: 2
  max_model_len: 8192
command: |
  vllm serve meta-llama/Llama-3.1-8B-Instruct --port {{port}} \\
    -tp {{tensor_parallel}} --max-model-len {{max_model_len}} \\
    --gpu-memory-utilization 0.8
"""


def test_the_release_is_read_only_from_an_image_tag_that_names_it(tmp_path, rules):
    tagged = _write(tmp_path, RECIPE.format(container="vllm/vllm-openai:v0.11.0", solo=""))
    _, [deployment] = _lint(tagged, rules)
    assert deployment.engine_version == "0.11.0"
    assert deployment.locations["engine_version"].line == 3
    built = _write(tmp_path, RECIPE.format(container="vllm-node-tf5", solo=""), "built.yaml")
    _, [deployment] = _lint(built, rules)
    assert deployment.engine_version is None


def test_solo_only_sets_tensor_parallel_1_as_run_recipe_does(tmp_path, rules):
    path = _write(tmp_path, RECIPE.format(container="vllm-node", solo="solo_only: true\n"))
    result, [deployment] = _lint(path, rules)
    assert deployment.parallel.tensor == 1 and deployment.gpu.count == 1
    assert deployment.locations["parallel.tensor"].line == 4
    assert errors(result) == []


def test_an_unset_tensor_parallel_is_not_budgeted(tmp_path, rules):
    text = RECIPE.format(container="vllm-node", solo="").replace("  tensor_parallel: 2\n", "")
    result, deployments = _lint(_write(tmp_path, text), rules)
    assert deployments == []
    assert any("not budgeted" in f.message for f in codes(result, "HBM011"))
    assert errors(result) == []


def test_another_recipe_version_or_a_plain_mapping_is_not_claimed():
    # sparkrun's version 2 fills {model} from the top-level model and leaves `{{` as written
    sparkrun = {
        "recipe_version": "2",
        "model": "Qwen/Qwen3-4B",
        "runtime": "vllm",
        "container": "vllm/vllm-openai:latest",
        "command": "vllm serve {model} --port {port}",
    }
    found = detect_format(sparkrun)
    assert found is None or found.NAME != "spark-recipe"
    assert detect_format({"recipe_version": "1", "command": "vllm serve m"}) is None


def test_an_unsafe_fix_rewrites_the_defaults_entry(cli, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = RECIPE.format(container="vllm-node", solo="").replace(
        "max_model_len: 8192", "max_model_len: 1048576"
    )
    path = _write(tmp_path, text)
    run = cli("--fix", "--unsafe-fixes", path.name)
    after = path.read_text()
    changed = [
        (old, new)
        for old, new in zip(text.splitlines(), after.splitlines(), strict=True)
        if old != new
    ]
    # the context the model supports, written where the recipe sets it; the template untouched
    assert changed == [("  max_model_len: 1048576", "  max_model_len: 131072")], run.output
