"""Issue 11, done-when: hypothesis over the CLI entry point, with generated manifests (and the
config.json files they point at), configurations and rules, finds no uncaught exception: every
run ends with exit 0, 1 or 2, never an internal error (HBM000 or hbmlint's one-line crash
report). Example counts are moderate so that CI stays fast."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hbmlint import catalog
from hbmlint.cli import main

CLI = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))

# values a hostile or careless author writes: quantities (some malformed or absurd), numbers at
# the edges, names, nothing
quantities = st.sampled_from(
    [
        "80 GiB",
        "80GB",
        "0 GiB",
        "-1 GiB",
        "1e30 GiB",
        "1e400 GiB",
        "80 GiB^9^9^9",
        "80 GiB*GiB",
        "10 percent",
        "10%",
        "0.9",
        "nan",
        "inf GiB",
        "32k",
        "x" * 300,
        "",
    ]
)
numbers = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([0, 1, -1, 2**31, 10**30, 0.5, 1e308, float("inf"), float("nan")]),
)
names = st.sampled_from(
    ["H100", "L4", "A100-80GB", "MI300X", "meta-llama/Llama-3.1-8B-Instruct", "x/y", "", "?"]
)
scalars = st.one_of(st.none(), st.booleans(), quantities, numbers, names, st.text(max_size=12))
values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=8), children, max_size=3)
    ),
    max_leaves=8,
)


def section(fields: list[str]):
    return st.dictionaries(st.sampled_from(fields), scalars, max_size=len(fields))


spec = st.fixed_dictionaries(
    {},
    optional={
        "engine": st.sampled_from(["vllm", "sglang", "tgi", "trtllm", "x"]),
        "gpu": section(["type", "memory", "count"]),
        "model": section(["name", "config", "quantization", "dtype"]),
        "serving": section(
            [
                "max_model_len",
                "gpu_memory_utilization",
                "max_num_seqs",
                "max_num_batched_tokens",
                "kv_cache_dtype",
                "block_size",
                "engine_version",
            ]
        ),
        "speculative": section(["method", "model", "num_speculative_tokens", "quantization"]),
        "parallel": section(["tensor", "pipeline"]),
        "workload": section(["concurrency", "context_tokens"]),
        "extra": values,
    },
)

config_json = st.fixed_dictionaries(
    {
        "hidden_size": st.one_of(st.just(4096), numbers),
        "num_attention_heads": st.one_of(st.just(32), numbers),
        "num_hidden_layers": st.one_of(st.just(32), numbers),
        "vocab_size": st.one_of(st.just(128256), numbers),
    },
    optional={
        "num_key_value_heads": numbers,
        "head_dim": numbers,
        "intermediate_size": st.one_of(numbers, st.lists(numbers, max_size=3)),
        "sliding_window": numbers,
        "num_local_experts": numbers,
        "num_experts_per_tok": numbers,
        "max_position_embeddings": numbers,
        "model_type": st.one_of(names, st.sampled_from(["gemma2", "llama4", "jamba", "mamba"])),
        "layer_types": st.lists(st.sampled_from(["sliding_attention", "full_attention", "x"])),
        "rope_scaling": st.dictionaries(st.sampled_from(["rope_type", "factor"]), scalars),
        "quantization_config": st.dictionaries(
            st.sampled_from(["quant_method", "bits", "group_size", "weight_block_size"]),
            st.one_of(scalars, st.lists(numbers, max_size=3)),
        ),
        "vision_config": st.dictionaries(
            st.sampled_from(["hidden_size", "depth", "mlp_ratio", "patch_size"]), scalars
        ),
        "text_config": st.dictionaries(st.sampled_from(["hidden_size", "head_dim"]), scalars),
    },
)

selectors = st.sampled_from(["HBM1", "HBM101", "ALL", "weights-exceed-hbm", "nope", "", "H" * 80])
globs = st.sampled_from(["*.yaml", "**/gen/**", "[z-a]", "*a" * 12 + "*b", "", "deploy/", "?"])
configuration = st.fixed_dictionaries(
    {},
    optional={
        "select": st.lists(selectors, max_size=3),
        "ignore": st.lists(selectors, max_size=3),
        "exclude": st.lists(globs, max_size=3),
        "per-file-ignores": st.dictionaries(globs, st.lists(selectors, max_size=2), max_size=2),
        "severity": st.dictionaries(selectors, st.sampled_from(["error", "info", "loud"])),
        "params": st.dictionaries(
            st.sampled_from(["HBM201", "draft-weights-share", "HBM999"]),
            st.dictionaries(st.sampled_from(["max_share", "other"]), scalars, max_size=2),
            max_size=2,
        ),
        "formats": st.dictionaries(globs, st.sampled_from(["kubernetes", "native", "x"])),
        "fail-on": st.sampled_from(["error", "warning", "x"]),
        "default-gpu": names,
        "rules-dirs": st.lists(st.sampled_from(["rules", "../outside", "/etc"]), max_size=1),
        "catalogs": st.lists(st.sampled_from(["cat.yaml", "/dev/zero"]), max_size=1),
        "unknown": values,
    },
)

atoms = st.sampled_from(
    [
        "gpu.usable",
        "gpu.total",
        "draft.weights",
        "kv.tokens",
        "max_share",
        "1",
        "0.5",
        "'s'",
        "10**9",
        '"%9999d" % 1',
        "max(1, 2, key=abs)",
        "whatif(tensor_parallel=2).kv.tokens",
        "nosuch",
        "(",
    ]
)
operators = st.sampled_from([" + ", " * ", " / ", " <= ", " and ", " ** ", " % ", " << "])
expressions = st.builds(
    lambda items, ops: "".join(a + o for a, o in zip(items, ops, strict=False)) + items[-1],
    st.lists(atoms, min_size=1, max_size=4),
    st.lists(operators, min_size=3, max_size=3),
)
rule = st.fixed_dictionaries(
    {
        "id": st.sampled_from(["HBM901", "HBM101", "X1"]),
        "name": st.sampled_from(["generated", "weights-exceed-hbm"]),
        "summary": st.just("s"),
        "severity": st.sampled_from(["warning", "error", "loud"]),
        "check": expressions,
        "at": st.sampled_from(["gpu", "model", "nowhere"]),
        "message": st.builds(
            lambda e, spec: f"{{{e}{spec}}}",
            expressions,
            st.sampled_from(["", ":%", ":,.2f", ":999999999"]),
        ),
    },
    optional={"params": st.dictionaries(st.sampled_from(["max_share", "n"]), scalars, max_size=2)},
)


def dump(data) -> str:
    return yaml.safe_dump(data, allow_unicode=True, sort_keys=False)


def check_run(args: list[str]) -> None:
    try:
        result = CliRunner().invoke(main, args, catch_exceptions=True)
    finally:
        # a command sets the process's team catalogs from its configuration; the generated
        # ones live in a temporary folder that is gone once the example ends, and the tests
        # after this one read the catalog in this same process
        catalog.use_extra_files([])
    crashed = result.exception is not None and not isinstance(result.exception, SystemExit)
    assert not crashed, repr(result.exception)
    assert result.exit_code in (0, 1, 2), result.output
    assert "internal error" not in result.stderr, result.stderr
    assert "HBM000" not in result.stdout, result.stdout


@CLI
@given(spec=spec, config=st.one_of(st.none(), config_json), as_json=st.booleans())
def test_cli_with_generated_manifests_never_crashes(spec, config, as_json):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        if config is not None:
            (root / "config.json").write_text(json.dumps(config))
            spec = {**spec, "model": {**(spec.get("model") or {}), "config": "config.json"}}
        document = {"apiVersion": "hbmlint/v1", "kind": "ServingManifest"}
        document |= {"metadata": {"name": "generated"}, "spec": spec}
        (root / "m.yaml").write_text(dump(document))
        fmt = ["--format", "json"] if as_json else []
        check_run([*fmt, "--jobs", "1", str(root / "m.yaml")])
        check_run(["budget", *fmt, str(root / "m.yaml")])


@CLI
@given(configuration=configuration, rule=st.one_of(st.none(), rule))
def test_cli_with_generated_configuration_and_rules_never_crashes(configuration, rule):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".git").mkdir()
        (root / "rules").mkdir()
        (root / "cat.yaml").write_text("gpus:\n  - {name: X1, memory: 10 GiB}\n")
        (root / ".hbmlint.yaml").write_text(dump(configuration))
        if rule is not None:
            (root / "rules" / "HBM901.yaml").write_text(dump(rule))
        (root / "m.yaml").write_text(
            dump(
                {
                    "apiVersion": "hbmlint/v1",
                    "kind": "ServingManifest",
                    "metadata": {"name": "generated"},
                    "spec": {
                        "gpu": {"type": "H100"},
                        "model": {"name": "meta-llama/Llama-3.1-8B-Instruct"},
                        "speculative": {"method": "ngram"},
                    },
                }
            )
        )
        config = ["--config", str(root / ".hbmlint.yaml")]
        check_run([*config, "--rules-dir", str(root / "rules"), "--jobs", "1", str(root)])
        check_run(["budget", *config, "--compare-speculative", str(root / "m.yaml")])
