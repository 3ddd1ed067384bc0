"""End to end through the command line: what a user types and what they read back."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import EXAMPLES, manifest

GOOD = manifest(
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-8B-Instruct}
    serving: {max_model_len: 8192}
""",
    name="good",
)

LINE = re.compile(
    r"^(?P<file>[^:\s]+):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info) "
    r"(?P<code>HBM\d{3}) \[(?P<name>[a-z0-9-]+)\] (?P<message>.+)$"
)


def test_clean_manifest_exits_zero(cli, write):
    run = cli(write(GOOD))
    assert run.exit_code == 0
    assert "All clear: no findings in 1 file, 1 deployment." in run.output


def test_text_output_shape_fixes_and_summary(cli, write):
    path = write(
        manifest("""
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
    """)
    )
    run = cli(path)
    assert run.exit_code == 1
    lines = run.output.splitlines()
    match = LINE.match(lines[0])
    assert match, lines[0]
    assert match["code"] == "HBM101" and match["line"] == "6" and match["col"] == "3"
    assert lines[1].startswith("    fix: ")
    assert lines[-1] == "Found 1 finding (1 error) in 1 file, 1 deployment."


def test_json_findings_have_the_documented_keys(cli, write):
    path = write(
        manifest("""
        gpu: {type: A10G}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 131072}
    """)
    )
    run = cli("--format", "json", path)
    assert run.exit_code == 1
    [finding] = run.json()
    assert {
        "code",
        "name",
        "severity",
        "message",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "fixes",
    } <= set(finding)
    assert finding["code"] == "HBM102" and finding["severity"] == "error"
    assert (finding["line"], finding["column"]) == (7, 28)  # the value 131072
    assert finding["end_line"] == 7 and finding["end_column"] == 34
    # each fix is a record: its message, setting, effect, applicability and edits
    assert finding["fixes"] and all(
        set(f) == {"message", "setting", "effect", "applicability", "edits"}
        and isinstance(f["message"], str)
        and f["applicability"] in ("safe", "unsafe")
        for f in finding["fixes"]
    )


def test_fail_on_warning(cli, write):
    path = write(
        manifest("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 32768}
        workload: {concurrency: 64, context_tokens: 32768}
    """)
    )
    assert cli(path).exit_code == 0  # a warning alone does not fail by default
    assert cli("--fail-on", "warning", path).exit_code == 1


def test_broken_files_are_located_findings_and_others_still_linted(cli, tmp_path):
    (tmp_path / "a-broken.yaml").write_text("apiVersion: hbmlint/v1\nspec: [unclosed\n")
    (tmp_path / "b-seconds.yaml").write_text(
        manifest("""
        gpu: {type: H100, memory: 80 seconds}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    )
    (tmp_path / "c-unknown.yaml").write_text(
        manifest("""
        gpu: {type: H900}
        model: {name: acme/Nonexistent-13B}
    """)
    )
    (tmp_path / "d-schema.yaml").write_text(
        manifest("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_num_seq: 8}
    """)
    )
    (tmp_path / "e-binary.yaml").write_bytes(b"\xff\xfe\x00garbage\x81")
    (tmp_path / "f-good.yaml").write_text(GOOD)
    (tmp_path / "g-not-a-manifest.yaml").write_text("name: some other config\nreplicas: 3\n")
    run = cli("--format", "json", tmp_path)
    assert run.exit_code == 1
    found = {(Path(f["file"]).name, f["code"], f["line"]) for f in run.json()}
    assert found == {
        ("a-broken.yaml", "HBM002", 3),
        ("b-seconds.yaml", "HBM004", 5),
        ("c-unknown.yaml", "HBM005", 5),
        ("c-unknown.yaml", "HBM015", 6),  # not in the catalog, and the Hub is offline
        ("d-schema.yaml", "HBM003", 7),
        ("e-binary.yaml", "HBM001", 1),
    }
    messages = {f["code"]: f["message"] for f in run.json()}
    assert "seconds" in messages["HBM004"] and "memory" in messages["HBM004"]
    assert "max_num_seq" in messages["HBM003"]
    assert "HF_HUB_OFFLINE" in messages["HBM015"] and "models pull" in messages["HBM015"]
    text = cli(tmp_path).output
    assert "Traceback" not in text
    # the good file was linted too, and every file examined is counted, manifest or not
    assert "in 7 files, 2 deployments" in text


def test_multi_document_file_lints_each_document(cli, write):
    bad = manifest(
        """
        gpu: {type: L4}
        model: {name: meta-llama/Llama-3.1-70B-Instruct}
    """,
        name="second",
    )
    path = write(GOOD + "---\n" + bad)
    run = cli("--format", "json", path)
    [finding] = run.json()
    assert finding["deployment"] == "second"
    assert finding["line"] == 14  # the second document's `model:` line


def test_model_from_config_json_relative_to_manifest(cli, write, tmp_path):
    config = json.loads((EXAMPLES / "mistral-small" / "config.json").read_text())
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "config.json").write_text(json.dumps(config))
    path = write(
        manifest("""
        gpu: {type: H100}
        model: {config: ./models/config.json}
        serving: {max_model_len: 32768}
    """)
    )
    run = cli("budget", "--format", "json", path)
    [entry] = run.json()
    # Mistral-Small-24B: 40 layers x 2 x 8 KV heads x 128 x 2 bytes
    assert entry["kv_bytes_per_token"] == 163_840
    missing = write(
        manifest("""
        gpu: {type: H100}
        model: {config: ./nowhere/config.json}
    """),
        name="missing.yaml",
    )
    [finding] = cli("--format", "json", missing).json()
    assert finding["code"] == "HBM006" and "does not exist" in finding["message"]


def test_budget_json_keys_and_units(cli):
    run = cli("budget", "--format", "json", EXAMPLES / "llama8b-l4-ngram.yaml")
    assert run.exit_code == 0
    [entry] = run.json()
    keys = {
        "file",
        "name",
        "gpu",
        "gpu_count",
        "tensor_parallel",
        "pipeline_parallel",
        "usable_bytes",
        "weights_bytes",
        "draft_weights_bytes",
        "overhead_bytes",
        "kv_cache_bytes",
        "kv_bytes_per_token",
        "kv_cache_tokens",
        "max_concurrency",
        "assumed",
    }
    assert keys <= set(entry)
    assert entry["gpu"] == "L4-24GB" and entry["kv_bytes_per_token"] == 131_072
    for key in ("usable_bytes", "weights_bytes", "kv_cache_bytes", "kv_cache_tokens"):
        assert isinstance(entry[key], int)
    parts = ("weights_bytes", "draft_weights_bytes", "overhead_bytes", "kv_cache_bytes")
    assert abs(entry["usable_bytes"] - sum(entry[p] for p in parts)) <= 2  # rounding only
    assert entry["kv_cache_tokens"] * 131_072 <= entry["kv_cache_bytes"]
    assert "gpu_memory_utilization" in entry["assumed"]


def test_budget_json_reports_errors_instead_of_numbers(cli, write):
    path = write(
        manifest("""
        gpu: {type: H900}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    )
    run = cli("budget", "--format", "json", path)
    [entry] = run.json()
    assert "unknown GPU type 'H900'" in entry["error"]
    assert "usable_bytes" not in entry


def test_budget_text_shows_every_line_in_gib(cli):
    run = cli("budget", EXAMPLES / "llama70b-fp8-h100-8b-draft.yaml")
    out = run.output
    for label in (
        "usable",
        "target weights",
        "draft weights",
        "overhead",
        "KV cache",
        "KV per token",
        "KV capacity",
        "max concurrency",
    ):
        assert label in out
    assert re.search(r"target weights\s+67\.70 GiB", out)
    assert re.search(r"draft weights\s+14\.99 GiB", out)
    assert "non-torch" in out and "activations" in out and "CUDA graphs" in out
    assert re.search(r"\[W+D+o+\] needs [\d.]+ GiB more than the GPU has", out)


def test_rules_and_explain(cli):
    listing = cli("rules").output
    for code in ("HBM001", "HBM003", "HBM101", "HBM102", "HBM103", "HBM201"):
        assert code in listing
    explained = cli("explain", "HBM201")
    assert explained.exit_code == 0
    assert "draft-weights-share" in explained.output
    assert "max_share = 10.0%" in explained.output
    assert cli("explain", "draft-weights-share").output == explained.output
    assert cli("explain", "HBM999").exit_code == 2


def test_usage_error_exits_two(cli):
    assert cli("--format", "yaml", ".").exit_code == 2


def test_user_rules_dir(cli, write, tmp_path):
    rules = tmp_path / "team-rules"
    rules.mkdir()
    (rules / "min-concurrency.yaml").write_text(
        "id: HBM900\nname: min-concurrency\nsummary: Fewer than 4 full-length sequences fit.\n"
        "severity: warning\ncheck: kv.max_concurrency >= 4\nat: serving.max_model_len\n"
        "message: only {kv.max_concurrency} full-length sequences fit\n"
    )
    path = write(GOOD)
    run = cli("--rules-dir", rules, "--fail-on", "warning", path)
    assert run.exit_code == 0  # 8B on an H100 at 8k context holds far more than 4
    path = write(GOOD.replace("8192", "131072"), name="long.yaml")
    run = cli("--rules-dir", rules, "--fail-on", "warning", path)
    assert run.exit_code == 1 and "HBM900 [min-concurrency] only" in run.output


def test_console_script_on_examples():
    """The README's first command, `hbmlint examples/`, through the installed script."""
    exe = shutil.which("hbmlint", path=str(Path(sys.executable).parent)) or "hbmlint"
    done = subprocess.run([exe, str(EXAMPLES)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "HBM101 [weights-exceed-hbm]" in done.stdout
    assert "Traceback" not in done.stdout + done.stderr


def test_yaml_that_is_not_ours_is_skipped_even_when_broken(cli, tmp_path):
    """pre-commit passes every YAML file; Helm templates are not valid YAML and not ours."""
    template = tmp_path / "templates" / "deployment.yaml"
    template.parent.mkdir()
    template.write_text("spec:\n  replicas: {{ .Values.replicas }}\n  {{- if .Values.x }}\n")
    (tmp_path / "compose.yaml").write_text("services:\n  web:\n    image: nginx\n")
    run = cli(template, tmp_path / "compose.yaml")
    assert run.exit_code == 0
    assert "no findings in 2 files, 0 deployments" in run.output  # never "0 files" for two


def test_internal_error_in_one_file_is_reported_and_exits_two(cli, tmp_path, monkeypatch):
    import hbmlint.lint

    real = hbmlint.lint.lint_file

    def flaky(path, display, rules, options=None):
        if path.name == "a.yaml":
            raise ZeroDivisionError("simulated bug")
        return real(path, display, rules, options)

    monkeypatch.setattr(hbmlint.lint, "lint_file", flaky)
    (tmp_path / "a.yaml").write_text(GOOD)
    (tmp_path / "b.yaml").write_text(GOOD.replace("H100", "H900"))
    run = cli("--format", "json", tmp_path)
    assert run.exit_code == 2
    found = {(Path(f["file"]).name, f["code"]) for f in run.json()}
    assert found == {("a.yaml", "HBM000"), ("b.yaml", "HBM005")}


def test_budget_of_a_broken_file_says_why_and_fails(cli, tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("apiVersion: hbmlint/v1\nkind: ServingManifest\nspec: {gpu: [\n")
    run = cli("budget", "--format", "json", broken)
    assert run.exit_code == 1
    [entry] = run.json()
    assert entry["error"].startswith("HBM002 at line 4")
    text = cli("budget", broken)
    assert "cannot compute a budget: HBM002" in text.output and text.exit_code == 1


def test_parallelism_must_match_gpu_count(cli, write):
    path = write(
        manifest("""
        gpu: {type: H100, count: 4}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        parallel: {tensor: 2}
    """)
    )
    [finding] = cli("--format", "json", path).json()
    assert finding["code"] == "HBM007" and finding["line"] == 5
    assert "2 x 1 = 2" in finding["message"]
    assert [f["message"] for f in finding["fixes"]] == [
        "Set gpu.count to 2, or parallel.tensor to 4"
    ]


def test_manifest_without_gpu_needs_gpu_flag(cli, write):
    path = write(
        manifest("""
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
    """)
    )
    [finding] = cli("--format", "json", path).json()
    assert finding["code"] == "HBM005" and "--gpu" in finding["message"]
    assert cli("--gpu", "L4", path).exit_code == 0
    [entry] = cli("budget", "--format", "json", "--gpu", "L4", path).json()
    assert entry["gpu"] == "L4-24GB" and "gpu" in entry["assumed"]


def test_budget_shows_verify_tokens_and_host_held_draft(cli, write):
    path = write(
        manifest("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
        serving: {max_model_len: 8192, max_num_seqs: 16, gpu_memory_utilization: 0.95}
        speculative: {method: draft_model, model: meta-llama/Llama-3.1-8B-Instruct,
                      num_speculative_tokens: 4, offload: true}
    """)
    )
    [entry] = cli("budget", "--format", "json", path).json()
    assert entry["verify_tokens"] == 16 * (1 + 4)
    assert entry["draft_weights_bytes"] == 0
    assert entry["draft_host_bytes"] / 2**30 == pytest.approx(14.99, abs=0.01)
    text = cli("budget", path).output
    assert "decode step      80 tokens (16 sequences x (1 + 4) verified)" in text
    assert "14.99 GiB held in host memory" in text
