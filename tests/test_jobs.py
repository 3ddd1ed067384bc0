"""--jobs: linting in several processes gives exactly the output of one."""

from __future__ import annotations

from helpers import manifest

from hbmlint.lint import PARALLEL_MIN_FILES

MODELS = ["meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct", "Qwen/Qwen3-8B"]
GPUS = ["L4", "H100", "A10G", "H900"]  # H900 is unknown: an input finding in the mix


def many_manifests(tmp_path, count):
    for i in range(count):
        spec = f"""
            gpu: {{type: {GPUS[i % len(GPUS)]}}}
            model: {{name: {MODELS[i % len(MODELS)]}}}
            serving: {{max_model_len: {4096 * (1 + i % 40)}}}
        """
        (tmp_path / f"m{i:03d}.yaml").write_text(manifest(spec, name=f"d{i}"))
    (tmp_path / "broken.yaml").write_text("apiVersion: hbmlint/v1\nspec: [\n")
    return tmp_path


def test_parallel_output_is_identical_to_serial(cli, tmp_path):
    directory = many_manifests(tmp_path, PARALLEL_MIN_FILES + 16)
    for output_format in ("text", "json"):
        serial = cli("--jobs", "1", "--format", output_format, directory)
        parallel = cli("--jobs", "2", "--format", output_format, directory)
        assert serial.exit_code == parallel.exit_code == 1
        assert parallel.output == serial.output
    assert "HBM005" in serial.output and "HBM002" in serial.output and "HBM102" in serial.output


def test_jobs_must_be_positive(cli, tmp_path):
    assert cli("--jobs", "0", tmp_path).exit_code == 2
