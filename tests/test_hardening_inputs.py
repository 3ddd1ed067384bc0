"""Issue 11, items 1 and 2: quantities parsed by a bounded grammar of our own, and every file
read bounded and regular (manifests, config.json, rule files, configuration, catalogs, stdin,
Hugging Face cache files), with config.json values checked before any arithmetic.

Each reproducer runs hbmlint as a child under 10 s and 1 GiB (see bounded.py) and expects a
located finding or a one-line usage error with the documented exit code.
"""

from __future__ import annotations

import json
import os
import time

import pytest
from bounded import findings, run, usage_error
from helpers import manifest

from hbmlint import files
from hbmlint.units import UnitError, parse_quantity

POWER_TOWER = "80 GiB^9^9^9"

GOOD_CONFIG = {
    "model_type": "llama",
    "hidden_size": 4096,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "num_hidden_layers": 32,
    "intermediate_size": 14336,
    "vocab_size": 128256,
    "max_position_embeddings": 131072,
    "torch_dtype": "bfloat16",
}


def model_manifest(config_path: str) -> str:
    return manifest(
        f"""
        gpu: {{type: H100}}
        model:
          name: acme/custom
          config: {config_path}
        serving: {{max_model_len: 8192}}
        """
    )


# ------------------------------------------------------------------------------ 1. units


@pytest.mark.parametrize(
    "text", [POWER_TOWER, "80 GiB**9**9", "80 GiB*GiB*GiB", "9e9999 GiB", "80 (GiB)", "1" * 5000]
)
def test_unit_grammar_rejects_expressions_at_once(text):
    start = time.process_time()  # CPU time: a loaded CI machine stretches wall time
    with pytest.raises(UnitError) as caught:
        parse_quantity(text, "[information]")
    assert time.process_time() - start < 5  # a power tower would run for hours
    assert len(str(caught.value)) < 200  # a long value is never echoed in full


@pytest.mark.parametrize(
    ("text", "dimension", "expected"),
    [
        ("80 GiB", "[information]", (80, "gibibyte")),
        ("80GB", "[information]", (80, "gigabyte")),
        ("0.15 GiB", "[information]", (0.15, "gibibyte")),
        ("10 percent", "[]", (10, "percent")),
        ("10%", "[]", (10, "percent")),
        ("0.9", "[]", (0.9, "dimensionless")),
        ("1_024 tokens", "[token]", (1024, "token")),
        ("131072 byte/token", "[information]/[token]", (131072, "byte / token")),
    ],
)
def test_unit_grammar_reads_what_manifests_write(text, dimension, expected):
    quantity = parse_quantity(text, dimension)
    assert (quantity.magnitude, str(quantity.units)) == expected


def test_power_tower_in_a_manifest_is_a_located_finding(tmp_path):
    path = tmp_path / "tower.yaml"
    path.write_text(
        manifest(
            f"""
            gpu: {{type: H100, memory: "{POWER_TOWER}"}}
            model: {{name: meta-llama/Llama-3.1-8B-Instruct}}
            """
        )
    )
    [finding] = findings(str(path))
    assert finding["code"] in ("HBM003", "HBM004") and finding["line"] == 5
    assert "not a number followed by a unit" in finding["message"]


def test_power_tower_in_configuration_params_is_a_usage_error(tmp_path):
    (tmp_path / ".hbmlint.yaml").write_text(f'params:\n  HBM201:\n    max_share: "{POWER_TOWER}"\n')
    (tmp_path / "m.yaml").write_text(manifest("gpu: {type: H100}\nmodel: {name: x/y}"))
    message = usage_error("m.yaml", cwd=tmp_path)
    assert message.startswith(".hbmlint.yaml:3:") and "max_share" in message


def test_power_tower_in_a_team_catalog_is_a_usage_error(tmp_path):
    (tmp_path / "gpus.yaml").write_text(f'gpus:\n  - {{name: X1, memory: "{POWER_TOWER}"}}\n')
    (tmp_path / ".hbmlint.yaml").write_text("catalogs: [gpus.yaml]\n")
    (tmp_path / "m.yaml").write_text("a: 1\n")
    message = usage_error("m.yaml", cwd=tmp_path)
    assert message.startswith("gpus.yaml:2:") and "memory" in message


def test_power_tower_in_rule_params_is_hbm009(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "X900.yaml").write_text(
        "id: HBM900\nname: tower\nsummary: s\nseverity: warning\ncheck: 'true'\nat: gpu\n"
        f'message: m\nparams:\n  limit: "{POWER_TOWER}"\n'
    )
    (tmp_path / "m.yaml").write_text("a: 1\n")
    [finding] = findings("--rules-dir", str(rules), str(tmp_path / "m.yaml"))
    assert finding["code"] == "HBM009" and finding["line"] == 9


# ---------------------------------------------------------------- 2. bounded, regular files


def test_read_helper_refuses_fifos_devices_directories_and_big_files(tmp_path):
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "big").write_bytes(b"x" * 101)
    (tmp_path / "ok").write_bytes(b"\xef\xbb\xbfhello")
    (tmp_path / "link").symlink_to(tmp_path / "ok")
    cases = {
        tmp_path / "fifo": "not a regular file",
        "/dev/zero": "not a regular file",
        tmp_path: "a directory",
        tmp_path / "missing": "no such file",
        tmp_path / "big": "over hbmlint's 100 bytes limit",
    }
    for path, reason in cases.items():
        with pytest.raises(files.FileReadError) as caught:
            files.read_text(path, limit=100)
        assert reason in caught.value.reason, (path, caught.value.reason)
    assert files.read_text(tmp_path / "ok") == "hello"
    assert files.read_text(tmp_path / "link") == "hello"
    with pytest.raises(files.FileReadError, match="symlink"):
        files.read_text(tmp_path / "link", follow_symlinks=False)


@pytest.mark.parametrize("kind", ["/dev/zero", "fifo", "huge", "directory"])
def test_model_config_that_is_no_regular_file_ends_at_once(tmp_path, kind):
    target = {"/dev/zero": "/dev/zero", "fifo": "pipe.json", "huge": "huge.json"}.get(kind, ".")
    if kind == "fifo":
        os.mkfifo(tmp_path / "pipe.json")
    if kind == "huge":
        (tmp_path / "huge.json").write_text(json.dumps({**GOOD_CONFIG, "pad": "x" * 5 * 2**20}))
    (tmp_path / "m.yaml").write_text(model_manifest(target))
    [finding] = findings(str(tmp_path / "m.yaml"))
    assert finding["code"] == "HBM006" and finding["line"] == 8  # model.config's line
    assert "model.config" in finding["message"]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"num_hidden_layers": 10**12}, "num_hidden_layers"),
        ({"num_hidden_layers": 10**400}, "num_hidden_layers"),
        ({"hidden_size": "4096"}, "hidden_size"),
        ({"hidden_size": 2**40}, "hidden_size"),
        ({"vocab_size": -1}, "vocab_size"),
        ({"num_key_value_heads": 1.5}, "num_key_value_heads"),
        ({"sliding_window": True}, "sliding_window"),
        ({"model_type": ["llama"]}, "model_type"),
        ({"mamba_ssm_dtype": {}}, "mamba_ssm_dtype"),
        ({"mlp_only_layers": [[1]]}, "mlp_only_layers"),
        ({"rope_scaling": {"rope_type": "yarn", "factor": 1e300}}, "rope_scaling.factor"),
        (
            {"quantization_config": {"quant_method": "fp8", "weight_block_size": [1, 2, 3]}},
            "weight_block_size",
        ),
        ({"quantization_config": {"quant_method": "gptq", "bits": 10**6}}, "bits"),
        ({"text_config": {**GOOD_CONFIG, "head_dim": 10**9}}, "text_config.head_dim"),
        ({"vision_config": {"hidden_size": 1024, "depth": 4, "mlp_ratio": "big"}}, "mlp_ratio"),
    ],
)
def test_config_json_values_are_checked_and_the_field_named(tmp_path, change, field):
    (tmp_path / "config.json").write_text(json.dumps({**GOOD_CONFIG, **change}))
    (tmp_path / "m.yaml").write_text(model_manifest("config.json"))
    [finding] = findings(str(tmp_path / "m.yaml"))
    assert finding["code"] == "HBM006" and finding["line"] == 8
    assert field in finding["message"]


@pytest.mark.parametrize(
    "text",
    [
        '{"hidden_size": NaN}',
        '{"x": Infinity}',
        "[" * 100_000 + "]" * 100_000,
        '{"a": 1' + "0" * 5000 + "}",
    ],
)
def test_config_json_that_is_no_sane_json_is_a_located_finding(tmp_path, text):
    (tmp_path / "config.json").write_text(text)
    (tmp_path / "m.yaml").write_text(model_manifest("config.json"))
    [finding] = findings(str(tmp_path / "m.yaml"))
    assert finding["code"] == "HBM006" and finding["line"] == 8


def test_the_largest_layer_count_allowed_is_still_quick(tmp_path):
    (tmp_path / "config.json").write_text(json.dumps({**GOOD_CONFIG, "num_hidden_layers": 10_000}))
    (tmp_path / "m.yaml").write_text(model_manifest("config.json"))
    assert [f["code"] for f in findings(str(tmp_path / "m.yaml"))] == ["HBM101"]
    assert run("budget", str(tmp_path / "m.yaml")).returncode == 0


def test_hf_cache_fifo_and_dangling_snapshot_are_not_read(tmp_path):
    snapshots = tmp_path / "hub" / "models--acme--cached" / "snapshots"
    (snapshots / "a").mkdir(parents=True)
    (snapshots / "b").mkdir()
    os.mkfifo(snapshots / "a" / "config.json")
    (snapshots / "b" / "config.json").symlink_to(tmp_path / "nowhere")
    (tmp_path / "m.yaml").write_text(
        manifest("gpu: {type: H100}\nmodel: {name: acme/cached}\nserving: {max_model_len: 8192}")
    )
    env = {**os.environ, "HF_HUB_CACHE": str(tmp_path / "hub")}
    [finding] = findings(str(tmp_path / "m.yaml"), env=env)
    # neither snapshot is read; the model then goes to the Hub, offline in the tests
    assert finding["code"] == "HBM015" and "'acme/cached'" in finding["message"]


def test_rule_file_that_is_a_fifo_is_hbm009(tmp_path):
    rules = tmp_path / "rules"
    rules.mkdir()
    os.mkfifo(rules / "X900.yaml")
    (tmp_path / "m.yaml").write_text("a: 1\n")
    [finding] = findings("--rules-dir", str(rules), str(tmp_path / "m.yaml"))
    assert finding["code"] == "HBM009" and "not a regular file" in finding["message"]


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "huge"])
def test_configuration_that_is_no_regular_file_is_a_usage_error(tmp_path, kind):
    path = {"fifo": str(tmp_path / "pipe.yaml"), "/dev/zero": "/dev/zero"}.get(
        kind, str(tmp_path / "huge.yaml")
    )
    if kind == "fifo":
        os.mkfifo(path)
    if kind == "huge":
        (tmp_path / "huge.yaml").write_bytes(b"# x\n" * (6 * 2**20))
    (tmp_path / "m.yaml").write_text("a: 1\n")
    message = usage_error("--config", path, str(tmp_path / "m.yaml"))
    assert "config error" in message and len(message.splitlines()) == 1


def test_team_catalog_that_is_a_fifo_is_a_usage_error(tmp_path):
    os.mkfifo(tmp_path / "gpus.yaml")
    (tmp_path / ".hbmlint.yaml").write_text("catalogs: [gpus.yaml]\n")
    (tmp_path / "m.yaml").write_text("a: 1\n")
    message = usage_error("m.yaml", cwd=tmp_path)
    assert "catalogs" in message and len(message.splitlines()) == 1


def test_stdin_is_bounded(tmp_path):
    [finding] = findings("-", stdin=b"# padding\n" * (3 * 2**21))
    assert finding["code"] == "HBM001" and "MiB limit" in finding["message"]


@pytest.mark.parametrize(
    "value", ["'" + "9" * 5000 + "'", "x" * 5000, "'80 GiB" + "^9" * 2000 + "'"]
)
def test_a_long_rejected_value_is_not_echoed_in_full(tmp_path, value):
    rules = tmp_path / "rules"
    rules.mkdir()
    (rules / "HBM900.yaml").write_text(
        "id: HBM900\nname: long\nsummary: s\nseverity: warning\ncheck: 'True'\nat: gpu\n"
        f"message: m\nparams:\n  limit: {value}\n"
    )
    (tmp_path / "m.yaml").write_text(model_manifest("config.json").replace("acme/custom", "x/y"))
    found = findings("--rules-dir", str(rules), str(tmp_path / "m.yaml"))
    [finding] = [f for f in found if f["code"] == "HBM009"]
    assert finding["line"] == 9 and len(finding["message"]) < 200


def test_a_fifo_named_like_a_safetensors_file_is_refused_without_waiting(tmp_path):
    from hbmlint.catalog.checkpoint import CheckpointError, read_local_header

    pipe = tmp_path / "model-00001-of-00002.safetensors"
    os.mkfifo(pipe)
    with pytest.raises(CheckpointError, match="not a regular file"):
        read_local_header(pipe)  # opening a FIFO for reading would block without O_NONBLOCK


def test_a_safetensors_header_is_read_from_the_file_on_disk(tmp_path):
    import struct

    from hbmlint.catalog.checkpoint import read_local_header

    header = json.dumps({"w": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]}})
    path = tmp_path / "model.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header.encode() + b"\0" * 12)
    assert read_local_header(path)["w"][:2] == ("BF16", [2, 3])


OME_BAD_WEIGHTS = """\
apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: rt}
spec:
  supportedModelFormats:
  - name: safetensors
    modelFormat: {name: safetensors, version: "1.0.0", weight: abc}
    modelArchitecture: LlamaForCausalLM
    autoSelect: true
    priority: xyz
  engineConfig:
    runner:
      name: ome-container
      image: docker.io/lmsysorg/sglang:v0.4.8
      command: [python3, -m, sglang.launch_server]
      args: [--model-path, /mnt/models, --tp-size, "1"]
      resources:
        limits: {nvidia.com/gpu: 1}
---
apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: svc}
spec:
  model: {name: llama-3-1-8b-instruct}
---
apiVersion: ome.io/v1beta1
kind: ClusterBaseModel
metadata: {name: llama-3-1-8b-instruct}
spec:
  vendor: meta
  modelFormat: {name: safetensors, version: "1.0.0"}
  modelArchitecture: LlamaForCausalLM
  storage: {storageUri: hf://meta-llama/Llama-3.1-8B-Instruct}
"""


def test_non_finite_and_non_numeric_counts_are_located_findings(tmp_path):
    """float() takes "INF" and "nan" (a production-stack requestGPU hypothesis found) and an
    OME runtime's priority or weight may be any string: never a traceback."""
    values = tmp_path / "values.yaml"
    values.write_text(
        'servingEngineSpec:\n  modelSpec:\n  - name: "m"\n    requestGPU: INF\n'
        '    modelURL: "meta-llama/Llama-3.1-8B-Instruct"\n'
    )
    runtime = tmp_path / "runtime.yaml"
    runtime.write_text(OME_BAD_WEIGHTS)
    found = findings(str(values), str(runtime))
    assert not [f for f in found if f["code"] == "HBM000"]
    [bad] = [f for f in found if f["code"] == "HBM004"]
    assert bad["line"] == 4 and "requestGPU: 'INF' is not a number" in bad["message"]
