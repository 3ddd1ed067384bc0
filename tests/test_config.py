"""Configuration: discovery, precedence, selection, per-file-ignores, params with units, severity,
exclude, extra catalogs, and broken files reported at their line (exit 2, no traceback)."""

from __future__ import annotations

import json
import subprocess
import textwrap
from pathlib import Path

import pytest
from helpers import manifest

from hbmlint.config import Config, ConfigError, Filter, find_config, glob_matches, load

# 70B FP8 with a BF16 8B draft on one H100: HBM101 (weights do not fit) and HBM201 (the draft
# is 19.9% of usable memory, over the 10% default). A 32k context, so that no alternative to
# the drafter holds a whole sequence either (no HBM208: these tests are about configuration).
DRAFT = manifest(
    """
    gpu: {type: H100}
    model: {name: meta-llama/Llama-3.1-70B-Instruct, quantization: fp8}
    serving: {max_model_len: 32768, gpu_memory_utilization: 0.95}
    speculative:
      method: draft_model
      model: meta-llama/Llama-3.1-8B-Instruct
""",
    name="draft",
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch) -> Path:
    """A repository (a .git folder marks its root) with the working directory at its root."""
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "deploy").mkdir()
    (root / "deploy" / "draft.yaml").write_text(DRAFT)
    monkeypatch.chdir(root)
    return root


def codes(run) -> list[str]:
    return [f["code"] for f in run.json()]


def put(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


# ------------------------------------------------------------------------------ discovery


def test_no_config_means_every_default(cli, repo):
    assert find_config() is None
    assert codes(cli("--format", "json", "deploy")) == ["HBM101", "HBM201"]


def test_hbmlint_yaml_is_found_from_a_subdirectory(cli, repo, monkeypatch):
    put(repo / ".hbmlint.yaml", "ignore: [HBM101]\n")
    monkeypatch.chdir(repo / "deploy")
    assert find_config() == repo / ".hbmlint.yaml"
    assert codes(cli("--format", "json", ".")) == ["HBM201"]


def test_pyproject_tool_table_is_found(cli, repo):
    put(repo / "pyproject.toml", '[project]\nname = "x"\n\n[tool.hbmlint]\nignore = ["HBM201"]\n')
    assert find_config() == repo / "pyproject.toml"
    assert codes(cli("--format", "json", "deploy")) == ["HBM101"]


def test_pyproject_without_the_table_is_passed_over(cli, repo, monkeypatch):
    put(repo / ".hbmlint.yaml", "ignore: [HBM201]\n")
    put(repo / "deploy" / "pyproject.toml", '[project]\nname = "x"\n')
    monkeypatch.chdir(repo / "deploy")
    assert find_config() == repo / ".hbmlint.yaml"


def test_nearest_wins_and_hbmlint_yaml_before_pyproject(repo, monkeypatch):
    put(repo / ".hbmlint.yaml", "ignore: [HBM101]\n")
    put(repo / "pyproject.toml", '[tool.hbmlint]\nignore = ["HBM201"]\n')
    assert find_config() == repo / ".hbmlint.yaml"
    put(repo / "deploy" / "pyproject.toml", '[tool.hbmlint]\nselect = ["HBM1"]\n')
    monkeypatch.chdir(repo / "deploy")
    assert find_config() == repo / "deploy" / "pyproject.toml"


def test_search_stops_at_the_repository_root(tmp_path, monkeypatch):
    put(tmp_path / ".hbmlint.yaml", "ignore: [HBM101]\n")  # above the repository: not ours
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    monkeypatch.chdir(tmp_path / "repo")
    assert find_config() is None


def test_explicit_config_wins_over_discovery(cli, repo, tmp_path):
    put(repo / ".hbmlint.yaml", "ignore: [HBM101]\n")
    other = put(tmp_path / "other.yaml", "ignore: [HBM201]\n")
    assert codes(cli("--format", "json", "--config", other, "deploy")) == ["HBM101"]
    missing = cli("--config", tmp_path / "nope.yaml", "deploy")
    assert missing.exit_code == 2 and "no such configuration file" in missing.stderr


# ------------------------------------------------------------------- selection, precedence


@pytest.mark.parametrize(
    ("config", "flags", "expected"),
    [
        ("select: [HBM2]\n", [], ["HBM201"]),  # a code prefix
        ("select: [weights-exceed-hbm]\n", [], ["HBM101"]),  # a rule name
        ("select: [HBM1]\nextend-select: [HBM201]\n", [], ["HBM101", "HBM201"]),
        ("ignore: [ALL]\n", [], []),
        ("ignore: [HBM101]\n", ["--select", "HBM101"], ["HBM101"]),  # the CLI wins
        ("select: [HBM101]\n", ["--extend-select", "draft-weights-share"], ["HBM101", "HBM201"]),
        ("", ["--ignore", "HBM101,HBM201"], []),
    ],
)
def test_selection_and_cli_precedence(cli, repo, config, flags, expected):
    put(repo / ".hbmlint.yaml", config)
    assert codes(cli("--format", "json", *flags, "deploy")) == expected


def test_fail_on_from_config_and_the_flag_wins(cli, repo):
    put(repo / ".hbmlint.yaml", "ignore: [HBM101]\nfail-on: warning\n")
    assert cli("deploy").exit_code == 1  # a warning fails, as configured
    assert cli("--fail-on", "error", "deploy").exit_code == 0


def test_severity_override(cli, repo):
    put(repo / ".hbmlint.yaml", "severity: {draft-weights-share: error, HBM101: info}\n")
    found = {f["code"]: f["severity"] for f in cli("--format", "json", "deploy").json()}
    assert found == {"HBM101": "info", "HBM201": "error"}


def test_per_file_ignores(cli, repo):
    (repo / "deploy" / "legacy").mkdir()
    (repo / "deploy" / "legacy" / "old.yaml").write_text(DRAFT)
    put(repo / ".hbmlint.yaml", "per-file-ignores:\n  'deploy/legacy/**': [HBM2]\n")
    found = [(f["file"], f["code"]) for f in cli("--format", "json", "deploy").json()]
    assert found == [
        ("deploy/draft.yaml", "HBM101"),
        ("deploy/draft.yaml", "HBM201"),
        ("deploy/legacy/old.yaml", "HBM101"),
    ]


def test_exclude(cli, repo):
    (repo / "charts").mkdir()
    (repo / "charts" / "x.yaml").write_text(DRAFT)
    put(repo / ".hbmlint.yaml", "exclude: [charts]\n")
    files = {f["file"] for f in cli("--format", "json", ".").json()}
    assert files == {"deploy/draft.yaml"}


def test_globs():
    assert glob_matches("*.yaml", "a/b/c.yaml")  # no slash: a name anywhere
    assert glob_matches("deploy/*.yaml", "deploy/c.yaml")
    assert not glob_matches("deploy/*.yaml", "deploy/x/c.yaml")
    assert glob_matches("deploy/**/*.yaml", "deploy/x/y/c.yaml")
    assert glob_matches("deploy/**/*.yaml", "deploy/c.yaml")
    assert glob_matches("legacy", "deploy/legacy/c.yaml")  # a folder covers its contents
    assert not glob_matches("deploy/legacy", "other/deploy/legacy/c.yaml")


# ----------------------------------------------------------------------------- params


def test_param_override_changes_the_verdict(cli, repo):
    """The draft is 19.9% of usable HBM: over the default 10%, under a configured 25%."""
    assert "HBM201" in codes(cli("--format", "json", "deploy"))
    put(repo / ".hbmlint.yaml", "params:\n  HBM201: {max_share: 25 percent}\n")
    assert codes(cli("--format", "json", "deploy")) == ["HBM101"]
    put(repo / ".hbmlint.yaml", "params:\n  draft-weights-share: {max_share: 0.15}\n")
    [finding] = [f for f in cli("--format", "json", "deploy").json() if f["code"] == "HBM201"]
    assert "limit 15.0%" in finding["message"]


def test_params_in_pyproject_subtable(cli, repo):
    put(repo / "pyproject.toml", '[tool.hbmlint.params.HBM201]\nmax_share = "25 percent"\n')
    assert codes(cli("--format", "json", "deploy")) == ["HBM101"]


# ------------------------------------------------------------------- broken configuration


@pytest.mark.parametrize(
    ("name", "text", "where", "words"),
    [
        (".hbmlint.yaml", "select: [HBM1]\nignroe: [HBM2]\n", "2:1", "unknown field 'ignroe'"),
        (".hbmlint.yaml", "select: [HBM1\n", "2:1", "YAML syntax error"),
        (".hbmlint.yaml", "fail-on: sometimes\n", "1:10", "is not one of"),
        (".hbmlint.yaml", "select: [HBM9]\n", "1:10", "unknown rule selector 'HBM9'"),
        (
            ".hbmlint.yaml",
            "params:\n  HBM201:\n    max_share: 15 seconds\n",
            "3:5",
            "params.HBM201.max_share",
        ),
        (".hbmlint.yaml", "params:\n  HBM201: {limit: 3}\n", "2:12", "no parameter 'limit'"),
        (".hbmlint.yaml", "params:\n  HBM999: {x: 1}\n", "2:3", "no rule called 'HBM999'"),
        (".hbmlint.yaml", "rules-dirs: [nowhere]\n", "1:14", "no such directory"),
        ("pyproject.toml", '[tool.hbmlint]\nselect = "HBM1"\n', "2:1", "is not of type array"),
        ("pyproject.toml", "[tool.hbmlint]\nselect = [\n", "3:1", "TOML syntax error"),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n\n[tool.hbmlint.severity]\nHBM201 = "fatal"\n',
            "5:1",
            "is not one of",
        ),
    ],
)
def test_broken_config_is_reported_at_its_line(cli, repo, name, text, where, words):
    put(repo / name, text)
    run = cli("deploy")
    assert run.exit_code == 2
    assert "Found" not in run.output  # nothing linted with a configuration not meant
    assert run.stderr.startswith(f"{name}:{where}: config error: "), run.stderr
    assert words in run.stderr
    assert "Traceback" not in run.stderr


def test_broken_config_through_the_real_command(repo):
    put(repo / ".hbmlint.yaml", "select: 3\n")
    exe = Path(__import__("sys").executable).parent / "hbmlint"
    run = subprocess.run([str(exe), "deploy"], capture_output=True, text=True, cwd=repo)
    assert run.returncode == 2
    assert run.stderr.strip() == ".hbmlint.yaml:1:9: config error: select: 3 is not of type array"


def test_budget_command_reads_default_gpu_from_config(cli, repo):
    put(repo / "deploy" / "nogpu.yaml", manifest("model: {name: meta-llama/Llama-3.1-8B-Instruct}"))
    put(repo / ".hbmlint.yaml", "default-gpu: L4\n")
    [item] = json.loads(cli("budget", "--format", "json", "deploy/nogpu.yaml").output)
    assert item["gpu"] == "L4-24GB"
    assert json.loads(
        cli("budget", "--format", "json", "--gpu", "H100", "deploy/nogpu.yaml").output
    )[0]["gpu"].startswith("H100")


def test_team_catalog_adds_a_gpu_and_a_model(cli, repo):
    put(
        repo / "team-catalog.yaml",
        """
        gpus:
          - name: ACME-X1-64GB
            memory: 60 GiB
            fp8: true
            aliases: [x1]
        models:
          - id: acme/tiny-1b
            config:
              architectures: [LlamaForCausalLM]
              model_type: llama
              hidden_size: 2048
              intermediate_size: 8192
              num_hidden_layers: 16
              num_attention_heads: 32
              num_key_value_heads: 8
              vocab_size: 128256
              max_position_embeddings: 131072
              tie_word_embeddings: true
              torch_dtype: bfloat16
        """,
    )
    put(repo / ".hbmlint.yaml", "catalogs: [team-catalog.yaml]\n")
    put(repo / "deploy" / "acme.yaml", manifest("gpu: {type: x1}\nmodel: {name: acme/tiny-1b}"))
    [item] = json.loads(cli("budget", "--format", "json", "deploy/acme.yaml").output)
    assert item["gpu"] == "ACME-X1-64GB" and item["total_bytes"] == 60 * 2**30
    # without the configuration the same names are unknown
    (repo / ".hbmlint.yaml").unlink()
    assert {"HBM005", "HBM006"} & set(codes(cli("--format", "json", "deploy/acme.yaml")))


def test_broken_team_catalog_is_located(cli, repo):
    put(repo / "team.yaml", "gpus:\n  - name: X\n    memory: lots\n")
    put(repo / ".hbmlint.yaml", "catalogs: [team.yaml]\n")
    run = cli("deploy")
    assert run.exit_code == 2 and run.stderr.startswith("team.yaml:3:13: config error: ")


# ------------------------------------------------------------------------- Filter alone


def test_filter_keeps_internal_errors_whatever_the_selection():
    known = {"HBM000": "internal-error", "HBM101": "weights-exceed-hbm"}
    selection = Filter(Config(ignore=["ALL"]), known)
    assert selection.enabled == {"HBM000"}


def test_load_without_file_is_the_default(tmp_path, monkeypatch):
    (tmp_path / ".git").mkdir()
    monkeypatch.chdir(tmp_path)
    assert load().file is None
    with pytest.raises(ConfigError):
        load(str(tmp_path / "missing.yaml"))
