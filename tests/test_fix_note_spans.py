"""_field_notes finds the same notes as the _FIELD_NOTE regex it replaced on the hot path."""

import random

from hbmlint import fixes

_PIECES = [
    " ",
    "  ",
    "\t",
    "\n",
    "\u00a0",
    "\u2003",
    "(",
    ")",
    "(serving.max_model_len)",
    "(speculative.quantization: fp8)",
    "(model.name: a(b)",
    "(gpu.memory_gb",
    "(workload.replicas)",
    "(other.thing)",
    "--max-model-len",
    "Lower",
    "to 4096.",
    ".",
    ":",
    "x",
]


def _texts() -> list[str]:
    rng = random.Random(22)
    texts = [
        "",
        "Lower --max-model-len (serving.max_model_len) to 8192.",
        "Set the draft's quantization (speculative.quantization: fp8).",
        "Use 2 GPUs (parallel.tensor_parallel_size)  (gpu.count) apart.",
        "(model.name)(model.name)",
        "  (model.name)  \t(gpu.count)x",
    ]
    for _ in range(3000):
        texts.append("".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 12))))
    return texts


def test_spans_match_the_regex() -> None:
    for text in _texts():
        _check(text)


def _check(text: str) -> None:
    spans = fixes._field_notes(text)
    assert spans == [m.span() for m in fixes._FIELD_NOTE.finditer(text)]
    assert fixes._without(text, spans) == fixes._FIELD_NOTE.sub("", text)
    if spans:
        start, end = spans[0]
        assert f"{text[:start]} (x.y){text[end:]}" == fixes._FIELD_NOTE.sub(" (x.y)", text, count=1)
