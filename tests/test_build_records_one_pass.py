"""formats.build.build gives the model, parallel and serving records the command's values in one
pass over them: the records the explicit field-by-field calls made, over random commands that
set some of every record's fields and some paths no record has."""

from __future__ import annotations

import random

from hbmlint.engines.args import EngineCommand
from hbmlint.formats.build import GpuFacts, build
from hbmlint.spec import ModelRef, ParallelSpec, ServingSpec
from hbmlint.yamlsrc import Span

# every path build reads into a record, and some it does not (their values are left out)
_PATHS = [
    *(f"model.{key}" for key in ("dtype", "quantization", "quantization_method", "config")),
    *(f"parallel.{key}" for key in ParallelSpec.__dataclass_fields__),
    *(f"serving.{key}" for key in ServingSpec.__dataclass_fields__),
    *("parallel.eplb", "parallel.tgi_sharded", "serving.no_such_field", "model", "serving"),
]


def _as_before(command: EngineCommand) -> tuple[ModelRef, ParallelSpec, ServingSpec]:
    """The three records as build() made them field by field before."""
    v = command.values
    serving = {path[8:]: value for path, value in v.items() if path.startswith("serving.")}
    return (
        ModelRef(
            name=v["model.name"],
            dtype=v.get("model.dtype"),
            quantization=v.get("model.quantization"),
            quantization_method=v.get("model.quantization_method"),
            served_name=None,
        ),
        ParallelSpec(
            tensor=v.get("parallel.tensor"),
            pipeline=v.get("parallel.pipeline"),
            data=v.get("parallel.data"),
            data_local=v.get("parallel.data_local"),
            expert=v.get("parallel.expert"),
            redundant_experts=v.get("parallel.redundant_experts"),
            dp_attention=v.get("parallel.dp_attention"),
            whole_parts=v.get("parallel.whole_parts"),
            decode_context=v.get("parallel.decode_context"),
        ),
        ServingSpec(
            **{
                key: value
                for key, value in serving.items()
                if key in ServingSpec.__dataclass_fields__
            }
        ),
    )


def test_build_gives_the_records_of_the_field_by_field_calls():
    pick = random.Random("build-records")
    at = Span(1, 1)
    for n in range(500):
        command = EngineCommand(engine="vllm", span=at)
        command.set("model.name", f"org/model-{n}", at)
        for path in pick.sample(_PATHS, pick.randint(0, 12)):
            command.set(path, pick.choice([1, 2, None, True, "x", 0.5, ("vision_whole",)]), at)
        deployment, findings = build(
            command, name="n", display="f", document=0, gpu=GpuFacts(count=1), where=at
        )
        assert deployment is not None, findings
        model, parallel, serving = _as_before(command)
        assert deployment.model == model
        assert deployment.parallel == parallel
        assert deployment.serving == serving
