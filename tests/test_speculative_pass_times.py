"""The speculative table times its passes with roofline.model_pass_time (no Pass made) and makes
its pass times and rows without the frozen records' __init__: the same times, errors and
records as ``pass_time(model_pass(...))`` and the records' own constructors."""

from __future__ import annotations

import random
from dataclasses import fields, replace
from pathlib import Path

import pytest

from hbmlint import roofline
from hbmlint.lint import lint_file
from hbmlint.roofline import CannotEstimate, Hardware, PassTime, Shape
from hbmlint.rules import load_rules
from hbmlint.speculative import Alternative, compare

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def _shape(rng: random.Random) -> Shape:
    experts = rng.choice([0, 1, 8, 64])
    return Shape(
        linear_params=rng.uniform(1e8, 1e11),
        expert_share=rng.choice([0.0, rng.random()]),
        experts=experts,
        experts_per_token=rng.randint(1, max(experts, 1)),
        attention_flops=rng.uniform(0, 1e6),
        window_flops=tuple((rng.choice([512, 4096]), rng.uniform(0, 1e5)) for _ in range(2)),
        embedding_bytes=rng.choice([0.0, rng.uniform(0, 1e9)]),
        allreduces=rng.randint(0, 160),
        hidden=rng.choice([2048, 8192]),
    )


def _hardware(rng: random.Random) -> Hardware:
    return Hardware(
        name="gpu",
        bandwidth=rng.uniform(1e11, 5e12),
        peak={"bf16": rng.uniform(1e14, 1e15), "fp8": rng.choice([0.0, 2e15])},
        link=rng.choice([0.0, rng.uniform(1e10, 5e11)]),
        host_link=rng.choice([0.0, rng.uniform(1e9, 5e10)]),
        allreduce_latency=rng.uniform(0, 2e-5),
        pass_overhead=rng.choice([0.0, 3e-4]),
    )


def _composed(args: tuple, hw: Hardware, host: float) -> PassTime:
    """The pass made, with its host bytes as an offloaded draft's, then timed."""
    one = roofline.model_pass(*args)
    if host:
        one = replace(one, host_bytes=host)
    return roofline.pass_time(one, hw)


def _timed(function, *args):
    try:
        return function(*args)
    except CannotEstimate as exc:
        return CannotEstimate, str(exc)


def test_fused_pass_times_equal_the_pass_and_its_time():
    rng = random.Random(3)
    for _ in range(3000):
        shape, hw = _shape(rng), _hardware(rng)
        weights = rng.choice([0.0, rng.uniform(1e8, 1e11)])
        kv = rng.choice([0.0, rng.uniform(1e3, 1e9)])
        batch, tokens = rng.randint(0, 512), rng.randint(1, 9)
        context = rng.choice([0, 1, 1024, 131072])
        dtype = rng.choice(["bf16", "fp8", "fp4"])
        ranks = rng.choice([1, 2, 8])
        host = rng.choice([0.0, rng.uniform(1e8, 1e10)])
        args = (shape, weights, kv, batch, tokens, context, dtype, ranks)

        fused = _timed(roofline.model_pass_time, *args, hw, host)
        composed = _timed(_composed, args, hw, host)
        assert fused == composed
        assert repr(fused) == repr(composed)


def test_a_pass_time_is_the_record_its_constructor_makes():
    hw = Hardware("gpu", 2e12, {"bf16": 1e15}, 4e11, 3e10, 1e-5, 3e-4)
    made = roofline.pass_time(roofline.Pass(1e9, 2e8, 3e12, "bf16", 4, 1e6, 2, 1e7), hw)
    again = PassTime(*(getattr(made, f.name) for f in fields(PassTime)))
    assert made == again and hash(made) == hash(again) and repr(made) == repr(again)
    assert list(vars(made)) == [f.name for f in fields(PassTime)]
    with pytest.raises(AttributeError):
        made.total = 0.0  # frozen as ever


def _tradeoff_params() -> dict:
    rules, _ = load_rules()
    return next(r for r in rules if r.name == "speculative-tradeoff").params


@pytest.mark.parametrize(
    "name",
    [
        "llama70b-fp8-h100-8b-draft.yaml",
        "qwen3-32b-h200-small-draft.yaml",
        "k8s-llama70b-l4-draft.yaml",
        "llama8b-l4-ngram.yaml",
    ],
)
def test_the_tables_rows_are_the_records_their_constructor_makes(name):
    result = lint_file(EXAMPLES / name, name, [])
    [budget] = [item.budget for item in result.deployments if item.budget is not None]
    table = compare(budget, _tradeoff_params())
    assert len(table.rows) > 1
    for row in table.rows:
        again = Alternative(**{f.name: getattr(row, f.name) for f in fields(Alternative)})
        assert row == again and hash(row) == hash(again) and repr(row) == repr(again)
        assert set(vars(row)) == {f.name for f in fields(Alternative)}
        if row.step is not None:
            assert list(vars(row.step.verify)) == [f.name for f in fields(PassTime)]
