"""What benchmarks/fuzz.py found: each test is one cause, on a small file of the pattern a real
manifest breaks in. Before the fix each was an HBM000 (hbmlint's internal error, exit 2), a lint
that never finished, a finding outside its file, or a file passed in silence."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from helpers import manifest

from hbmlint.lint import lint_file
from hbmlint.rules import load_rules

HUGE = "1" + "0" * 400  # past a float's range, and an int64's


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def findings(path: Path, rules) -> list[tuple[str, int, int, str]]:
    result = lint_file(path, path.name, rules)
    return [(f.code, f.span.line, f.span.column, f.message) for f in result.diagnostics]


def codes(path: Path, rules) -> list[str]:
    return [code for code, *_ in findings(path, rules)]


def column_of(path: Path, needle: str) -> tuple[int, int]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if needle in line:
            return number, line.index(needle) + 1
    raise AssertionError(needle)


# --- YAML values their tag cannot hold ----------------------------------------------------


@pytest.mark.parametrize("value", ["!!int 8k", "!!bool maybe", "!!float auto", "!!timestamp x"])
def test_an_explicit_tag_its_value_cannot_hold_is_a_yaml_error_at_the_value(tmp_path, rules, value):
    path = tmp_path / "tagged.yaml"
    path.write_text(
        manifest(f"""
        gpu: {{type: H100}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        serving:
          max_model_len: {value}
    """)
    )
    [(code, line, column, message)] = findings(path, rules)
    assert (code, (line, column)) == ("HBM002", column_of(path, value))
    assert "is not a valid !!" in message


def test_a_plain_value_that_only_looks_like_a_date_is_the_string_it_is(tmp_path, rules):
    # Kubernetes' YAML parser reads an impossible date as a string; PyYAML's timestamp
    # constructor raised ValueError ("day is out of range for month")
    path = tmp_path / "deploy.yaml"
    path.write_text(
        """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: llama
  labels: {rollout: 2026-02-30}
spec:
  template:
    spec:
      containers:
        - name: vllm
          image: vllm/vllm-openai:v0.11.0
          args: ["--model", "meta-llama/Llama-3.1-8B-Instruct"]
          resources: {limits: {nvidia.com/gpu: 1}}
"""
    )
    result = lint_file(path, path.name, rules)
    assert [d.deployment.model.name for d in result.deployments] == [
        "meta-llama/Llama-3.1-8B-Instruct"
    ]
    assert "HBM000" not in [f.code for f in result.diagnostics]
    assert "HBM002" not in [f.code for f in result.diagnostics]


def test_an_integer_of_thousands_of_digits_is_a_schema_finding_not_a_crash(tmp_path, rules):
    # over Python's 4,300-digit limit for int(): PyYAML's int constructor raised ValueError
    path = tmp_path / "digits.yaml"
    path.write_text(
        manifest(f"""
        gpu: {{type: H100}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        serving: {{max_model_len: {"9" * 5000}}}
    """)
    )
    [(code, line, column, message)] = findings(path, rules)
    assert (code, (line, column)) == ("HBM003", column_of(path, "9999"))
    assert len(message) < 300  # the value is not echoed in full


# --- numbers beyond what an engine holds --------------------------------------------------


@pytest.mark.parametrize("value", [HUGE, "0x" + "f" * 300, "1.0e+300"])
def test_a_native_count_beyond_int64_is_out_of_range_at_the_value(tmp_path, rules, value):
    # the budget's arithmetic raised OverflowError on these
    path = tmp_path / "huge.yaml"
    path.write_text(
        manifest(f"""
        gpu: {{type: H100}}
        model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
        serving: {{max_model_len: {value}}}
    """)
    )
    [(code, line, column, message)] = findings(path, rules)
    assert (code, (line, column)) == ("HBM003", column_of(path, value))
    assert "out of range" in message


@pytest.mark.parametrize(
    ("flag", "value"),
    [
        ("--max-model-len", HUGE),
        ("--max-num-batched-tokens", HUGE),
        ("--tensor-parallel-size", str(2**64)),
        ("--kv-cache-memory-bytes", HUGE),
        ("--max-model-len", "1" * 5000),  # past int()'s digit limit
    ],
)
def test_a_flag_value_beyond_int64_is_a_bad_value_at_the_flag(tmp_path, rules, flag, value):
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct {flag} {value}\n")
    found = findings(path, rules)
    assert "HBM000" not in [code for code, *_ in found]
    [(line, column, message)] = [(li, co, m) for code, li, co, m in found if code == "HBM004"]
    assert (line, column) == column_of(path, value)
    assert len(message) < 200


# --- a megabyte-long word in a script -----------------------------------------------------


def test_a_script_with_a_megabyte_long_word_is_read_in_linear_time(tmp_path, rules):
    # the splitter grew a word one character at a time (quadratic): 3 MB took minutes
    path = tmp_path / "serve.sh"
    path.write_text(
        "#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-Instruct --served-model-name "
        + "x" * 1_500_000
        + ' --max-model-len 8192 --override-generation-config "{'
        + "y" * 500_000
        + '}"\n'
    )
    start = time.perf_counter()
    result = lint_file(path, path.name, rules)
    assert time.perf_counter() - start < 15
    [deployment] = result.deployments
    assert deployment.deployment.serving.max_model_len == 8192


# --- where a broken file's finding is -----------------------------------------------------


def test_a_truncated_file_has_its_yaml_error_on_its_last_line(tmp_path, rules):
    # cut mid-line, without a final line break: PyYAML put the error one line past the end
    text = manifest("""
        gpu: {type: H100}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
        serving: {max_model_len: 8192}
    """)
    path = tmp_path / "cut.yaml"
    path.write_text(text[: text.index("8192") - 20])
    lines = path.read_text().split("\n")
    [(code, line, column, _)] = findings(path, rules)
    assert (code, line, column) == ("HBM002", len(lines), len(lines[-1]) + 1)


@pytest.mark.parametrize("newline", ["\n", "\r\n", "\r"])
def test_a_control_character_is_a_yaml_error_where_it_is(tmp_path, rules, newline):
    # a terminal colour code pasted into a value; the error was at 1:1, naming no place
    path = tmp_path / "escape.yaml"
    text = manifest("""
        gpu: {type: "H\u00e9100\x1b[0m"}
        model: {name: meta-llama/Llama-3.1-8B-Instruct}
    """)
    path.write_bytes(text.replace("\n", newline).encode())
    [(code, line, column, message)] = findings(path, rules)
    assert (code, (line, column)) == ("HBM002", column_of(path, "\x1b"))
    assert "#x001b" in message and "unicode string" not in message


# --- encodings ----------------------------------------------------------------------------

OVERSIZED = manifest("""
    gpu: {type: L4}
    model: {name: meta-llama/Llama-3.1-70B-Instruct}
    serving: {max_model_len: 8192}
""")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be-with-bom"])
def test_utf16_with_a_byte_order_mark_is_read_as_kubectl_reads_it(tmp_path, rules, encoding):
    # what Windows PowerShell's `>` writes; was HBM001 "not UTF-8 text"
    plain = tmp_path / "plain.yaml"
    plain.write_text(OVERSIZED)
    path = tmp_path / "windows.yaml"
    if encoding == "utf-16":
        path.write_bytes(OVERSIZED.encode("utf-16"))
    else:
        path.write_bytes(b"\xfe\xff" + OVERSIZED.encode("utf-16-be"))
    assert findings(path, rules) == findings(plain, rules)
    assert "HBM101" in codes(path, rules)


def test_utf16_without_a_byte_order_mark_is_not_passed_in_silence(tmp_path, rules):
    # it decodes as UTF-8 with a NUL after each letter, so it did not look like a manifest
    path = tmp_path / "windows.yaml"
    path.write_bytes(OVERSIZED.encode("utf-16-le"))
    [(code, line, column, message)] = findings(path, rules)
    assert (code, line, column) == ("HBM002", 1, 2)
    assert "#x0000" in message


def test_fix_leaves_a_utf16_file_as_it_was(cli, tmp_path):
    path = tmp_path / "windows.yaml"
    raw = OVERSIZED.replace("8192", "131072").encode("utf-16")
    path.write_bytes(raw)
    run = cli("--unsafe-fixes", "--fix", "--format", "json", path)
    assert path.read_bytes() == raw  # not rewritten as UTF-8 behind the user's back
    assert "HBM101" in {f["code"] for f in run.json()}


# --- a folder that cannot be listed -------------------------------------------------------


def test_a_folder_that_cannot_be_listed_is_reported_and_the_rest_linted(cli, tmp_path, monkeypatch):
    # os.walk skipped it in silence: "All clear" over manifests nobody read
    (tmp_path / "good.yaml").write_text(OVERSIZED)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "inside.yaml").write_text(OVERSIZED)
    listing = os.scandir

    def scandir(path="."):
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)  # as a user without read permission meets it
    run = cli("--format", "json", tmp_path)
    assert run.exit_code == 1
    found = {(Path(f["file"]).name, f["code"], f["line"]) for f in run.json()}
    assert ("locked", "HBM001", 1) in found
    assert ("good.yaml", "HBM101", 6) in found


# --- data that contains itself, or nests without end --------------------------------------


def test_an_anchor_that_contains_its_own_alias_is_a_yaml_error_and_the_run_goes_on(cli, tmp_path):
    # the data contained itself: the KServe/OME pre-pass (json.dumps) ended the whole run with
    # "internal error: Circular reference detected", and readers recursed without end
    (tmp_path / "a-runtime.yaml").write_text(
        """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: vllm-qwen3}
spec:
  engineConfig: &engine
    runner:
      image: docker.io/vllm/vllm-openai:v0.11.0
      args: ["--tensor-parallel-size", "1", *engine]
"""
    )
    (tmp_path / "b-good.yaml").write_text(OVERSIZED)
    run = cli("--format", "json", tmp_path)
    assert run.exit_code == 1
    found = {(Path(f["file"]).name, f["code"], f["line"]) for f in run.json()}
    assert found == {("a-runtime.yaml", "HBM002", 5), ("b-good.yaml", "HBM101", 6)}


def test_a_document_nested_past_two_hundred_levels_is_a_yaml_error_at_the_deep_node(
    tmp_path, rules
):
    # readers walk data recursively: 600 levels of a block mapping under a KubeRay
    # serveConfigV2 were a RecursionError (HBM000)
    levels = "\n".join("  " * (d + 2) + "k:" for d in range(600))
    path = tmp_path / "rayservice.yaml"
    path.write_text(
        "apiVersion: ray.io/v1\nkind: RayService\nmetadata: {name: llm}\n"
        "spec:\n  serveConfigV2:\n" + levels + " vllm serve Qwen/Qwen2.5-7B-Instruct\n"
    )
    [(code, line, _, message)] = findings(path, rules)
    assert code == "HBM002" and "nested more than 200 levels" in message
    assert 200 < line < 210


def test_a_kind_that_is_a_list_is_no_format_of_ours(tmp_path, rules):
    # KAITO's detection looked the kind up in a dict: TypeError (unhashable list)
    path = tmp_path / "workspace.yaml"
    path.write_text(
        "apiVersion: kaito.sh/v1beta1\nkind: [Workspace]\n"
        "inference: {preset: {name: qwen2.5-7b-instruct}}\n"
    )
    assert "HBM000" not in codes(path, rules)


def test_a_date_in_a_serving_runtime_does_not_end_the_run(cli, tmp_path):
    # an unquoted date is a datetime.date to YAML: the KServe/OME pre-pass's json.dumps ended
    # the whole run ("Object of type date is not JSON serializable")
    (tmp_path / "a-runtime.yaml").write_text(
        """\
apiVersion: serving.kserve.io/v1alpha1
kind: ClusterServingRuntime
metadata:
  name: vllm-runtime
  annotations: {released: 2026-11-02}
spec:
  supportedModelFormats:
    - {name: huggingface, version: 2026-11-02}
  containers:
    - name: kserve-container
      image: vllm/vllm-openai:v0.11.0
      args: ["--port", "8080"]
"""
    )
    (tmp_path / "b-good.yaml").write_text(OVERSIZED)
    run = cli("--format", "json", tmp_path)
    assert run.exit_code == 1
    assert ("b-good.yaml", "HBM101") in {(Path(f["file"]).name, f["code"]) for f in run.json()}


def test_an_alias_bomb_in_a_config_a_configmap_embeds_is_refused_at_once(tmp_path, rules):
    # KAITO's inference_config.yaml, read from the ConfigMap's string, was built and printed
    # whole: ten levels of ten aliases never finished
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"] + [
        f"{n}: &{n} [" + ", ".join([f"*{p}"] * 10) + "]"
        for p, n in zip("abcdefghi", "bcdefghij", strict=True)
    ]
    body = "\n".join("        " + line for line in bomb)
    path = tmp_path / "kaito.yaml"
    path.write_text(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: params}\ndata:\n"
        "  inference_config.yaml: |\n    vllm:\n      max-model-len:\n" + body + "\n"
        "---\napiVersion: kaito.sh/v1beta1\nkind: Workspace\nmetadata: {name: llama}\n"
        "resource: {instanceType: Standard_NC24ads_A100_v4}\n"
        "inference: {preset: {name: llama-3.1-8b-instruct}, config: params}\n"
    )
    start = time.perf_counter()
    found = findings(path, rules)
    assert time.perf_counter() - start < 15
    assert any(code == "HBM004" and "inference_config.yaml" in m for code, _, _, m in found)


def test_a_model_name_longer_than_a_file_name_is_no_crash(tmp_path, rules):
    # the Hugging Face cache lookup globbed models--<name>: OSError "File name too long"
    path = tmp_path / "serve.sh"
    path.write_text(f"#!/bin/bash\nvllm serve meta-llama/Llama-3.1-8B-{'x' * 5000}\n")
    assert "HBM000" not in codes(path, rules)


def test_a_trtllm_worker_that_names_no_model_is_a_located_finding(tmp_path, rules):
    # the "names no model" message had no TensorRT-LLM wording: KeyError (HBM000)
    path = tmp_path / "dynamo.yaml"
    path.write_text(
        """\
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: trtllm-agg}
spec:
  services:
    TRTLLMWorker:
      resources: {limits: {gpu: "1"}}
      extraPodSpec:
        mainContainer:
          image: nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.4.0
          command: ["python3", "-m", "dynamo.trtllm"]
          args: ["--tensor-parallel-size", "1"]
"""
    )
    found = findings(path, rules)
    assert "HBM000" not in [code for code, *_ in found]
    [(line, message)] = [(li, m) for code, li, _, m in found if code == "HBM003"]
    assert line == 11 and "--model-path" in message


def test_an_unread_engine_is_located_on_the_line_editors_show(tmp_path, rules):
    # fuzz.py seed 14: a script whose lines are joined by U+2028 (LINE SEPARATOR) is one line to
    # an editor and to bash (a comment, here); str.splitlines() counted three and put the
    # finding on line 3 of a one-line file
    script = tmp_path / "serve.sh"
    script.write_text(
        "echo start\u2028# a note\u2028python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B",
        encoding="utf-8",
    )
    for code, line, _, _ in findings(script, rules):
        assert line == 1, code
