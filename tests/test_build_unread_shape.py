"""formats.build.build: a tensor or pipeline parallelism hbmlint cannot read leaves the deployment
unbudgeted where it has several GPUs (or an unknown count), whichever of the two it is and
whatever else is unread; a command with nothing unread, or other fields unread, is budgeted; each
engine's removed flags are found (vLLM's and SGLang's tables)."""

from __future__ import annotations

import pytest

from hbmlint.engines.args import EngineCommand
from hbmlint.formats.build import GpuFacts, build
from hbmlint.yamlsrc import Span


def _command(engine: str = "vllm", **unread: Span) -> EngineCommand:
    command = EngineCommand(engine=engine, span=Span(1, 1))
    command.set("model.name", "Qwen/Qwen3-8B", Span(2, 1))
    command.unread.update({path.replace("_", "."): span for path, span in unread.items()})
    return command


def _build(command: EngineCommand, count: int | None = 2):
    return build(
        command, name="d", display="f.yaml", document=0, gpu=GpuFacts(count=count), where=Span(1, 1)
    )


@pytest.mark.parametrize("path", ["parallel_tensor", "parallel_pipeline"])
@pytest.mark.parametrize("count", [2, None])
def test_an_unread_parallel_size_is_not_budgeted(path, count):
    deployment, findings = _build(_command(**{path: Span(5, 3)}), count)
    assert deployment is None
    assert [(f.code, f.span.line) for f in findings] == [("HBM011", 5)]


def test_both_unread_point_at_the_pipeline_first():
    deployment, findings = _build(
        _command(parallel_tensor=Span(5, 3), parallel_pipeline=Span(6, 3))
    )
    assert deployment is None
    assert [f.span.line for f in findings] == [6]  # sorted: "parallel.pipeline" first


@pytest.mark.parametrize("unread", [{}, {"serving_max_model_len": Span(7, 1)}])
def test_nothing_or_other_fields_unread_is_budgeted(unread):
    deployment, findings = _build(_command(**unread))
    assert deployment is not None and findings == []


def test_one_gpu_is_budgeted_whatever_the_parallelism():
    deployment, _ = _build(_command(parallel_tensor=Span(5, 3)), 1)
    assert deployment is not None


@pytest.mark.parametrize(("engine", "flag"), [("vllm", "--num-scheduler-steps")])
def test_removed_flags_by_engine(engine, flag):
    from hbmlint.engines import vllm
    from hbmlint.engines.args import Token

    command = vllm.parse(
        [Token("Qwen/Qwen3-8B", Span(1, 1)), Token(flag, Span(1, 20)), Token("8", Span(1, 40))],
        Span(1, 1),
    )
    _, findings = _build(command)
    assert [(f.code, f.span) for f in findings] == [("HBM010", Span(1, 20))]
