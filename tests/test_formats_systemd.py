"""systemd service units whose ExecStart= runs an engine: read as the command they start, with
the unit's Environment=, findings at the unit's own lines; a unit is never parsed as YAML (it
was an HBM002 "YAML syntax error" when named on the command line)."""

from __future__ import annotations

import pytest
from real_lint import REAL, codes, lint

from hbmlint.rules import load_rules

UNIT = REAL / "systemd-vllm.service"
COVERED = {UNIT.name}


@pytest.fixture(scope="module")
def rules():
    loaded, _ = load_rules()
    return loaded


def test_exec_start_is_read_with_the_unit_s_environment(rules):
    result = lint(UNIT, rules, "H100")
    [deployment] = (d.deployment for d in result.deployments)
    assert deployment.model.name == "Qwen/Qwen2.5-32B-Instruct"  # ${MODEL} from Environment=
    assert deployment.parallel.tensor == 2
    assert deployment.serving.gpu_memory_utilization == 0.92
    # Environment="CUDA_VISIBLE_DEVICES=0": one GPU for TP 2, which vLLM refuses
    [short] = codes(result, "HBM007")
    assert short.severity.name == "ERROR"
    assert "HBM002" not in [d.code for d in result.diagnostics]


def test_a_unit_that_starts_no_engine_is_left_alone(rules, tmp_path):
    path = tmp_path / "nginx.service"
    path.write_text("[Service]\nExecStart=/usr/sbin/nginx -g 'daemon off;'\n")
    result = lint(path, rules, "H100")
    assert result.deployments == [] and result.diagnostics == []


def test_a_directory_walk_reads_units(cli, tmp_path, monkeypatch):
    (tmp_path / "vllm.service").write_text(UNIT.read_text())
    monkeypatch.chdir(tmp_path)
    run = cli("--gpu", "H100", ".")
    assert "vllm.service:11:" in run.output and "HBM007" in run.output  # at Environment=
