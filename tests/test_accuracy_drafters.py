"""benchmarks/accuracy.py on runs with a drafter: vLLM V1's one weights line holds target and
drafter, the drafter figure comes from a second printed figure, and a model outside the catalog
is compared on its drafter alone through a catalog model of the same shape."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from helpers import REPO

SPEC = importlib.util.spec_from_file_location("accuracy", REPO / "benchmarks" / "accuracy.py")
accuracy = importlib.util.module_from_spec(SPEC)
sys.modules["accuracy"] = accuracy  # dataclasses look their module up there
SPEC.loader.exec_module(accuracy)

GIB = 2**30
EAGLE3 = {
    "id": "test-eagle3",
    "split": "validation",
    "engine": "vllm",
    "engine_version": "0.10.1",
    "model_id": "meta-llama/Llama-3.1-8B-Instruct",
    "dtype": "bfloat16",
    "tensor_parallel_size": 1,
    "speculative": {
        "method": "eagle3",
        "draft_model_id": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B",
        "num_speculative_tokens": 3,
    },
    # target + drafter on one line, and the target alone from another log
    "memory": {"weights_gib": 15.7847, "target_alone_weights_gib": 14.9888},
}


def test_a_v1_weights_line_is_compared_with_target_plus_drafter():
    outcome = accuracy.evaluate(EAGLE3)
    assert outcome.measured["draft_weights"] == pytest.approx((15.7847 - 14.9888) * GIB)
    drafter = outcome.predicted["draft_weights"]
    assert abs(outcome.error("draft_weights")) < 0.02
    # the weights compared are the line's: both models
    assert outcome.predicted["weights"] - drafter == pytest.approx(14.99 * GIB, rel=0.001)
    assert abs(outcome.error("weights")) < 0.01


def test_a_v0_record_prints_the_drafter_apart_so_weights_are_the_target_alone():
    record = {**EAGLE3, "engine_version": "0.6.4 (V0 engine)"}
    record["memory"] = {"weights_gib": 14.9888, "draft_weights_gib": 0.7959}
    outcome = accuracy.evaluate(record)
    assert abs(outcome.error("weights")) < 0.01
    assert outcome.measured["draft_weights"] == pytest.approx(0.7959 * GIB)
    assert outcome.drafter_from == "logged"


@pytest.mark.parametrize(
    ("second", "label"),
    [
        ("weights_without_drafter_gib", "derived, paired runs"),
        ("target_alone_weights_gib", "derived, target elsewhere"),
    ],
)
def test_a_drafter_figure_had_by_subtraction_is_labelled_derived(second, label, capsys):
    record = {**EAGLE3, "memory": {"weights_gib": 15.7847, second: 14.9888}}
    outcome = accuracy.evaluate(record)
    assert outcome.drafter_from == label
    accuracy.print_drafters([outcome])
    [line] = [row for row in capsys.readouterr().out.splitlines() if "test-eagle3" in row]
    assert line.rstrip().endswith(label)


def test_a_model_outside_the_catalog_is_compared_on_its_drafter_through_its_shape():
    record = {
        **EAGLE3,
        "id": "test-mtp",
        "engine_version": "0.23.1",
        "model_id": "acme/not-in-the-catalog-27B-NVFP4",
        "quantization": "modelopt",
        "speculative": {
            "method": "mtp",
            "num_speculative_tokens": 2,
            "drafter_shape_model_id": "Qwen/Qwen3.5-27B",
        },
        "memory": {"weights_gib": 20.57, "weights_without_drafter_gib": 19.78},
    }
    outcome = accuracy.evaluate(record)
    assert set(outcome.measured) == {"draft_weights"}  # another target's weights: not compared
    assert abs(outcome.error("draft_weights")) < 0.02
    # without a shape the record is not evaluated, and says why
    plain = {**record, "speculative": {"method": "mtp", "num_speculative_tokens": 2}}
    assert "not in the catalog" in accuracy.evaluate(plain)


def test_the_speculative_records_load_with_their_splits():
    records = accuracy.load_records(None)
    ids = {r["id"] for r in records if r["_file"] == "speculative.yaml"}
    assert "vllm-ascend-091-llama31-8b-eagle3" in ids
    for record in (r for r in records if r["_file"] == "speculative.yaml"):
        assert record["split"] == accuracy.hashed_split(record["id"]), record["id"]
