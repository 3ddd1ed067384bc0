"""Accelerators that are not the GPUs hbmlint budgets: what each is called in a reader's
words, and how their names start where a manifest names the device (SkyPilot's ``tpu-v6e-8``,
``Trainium:16``, ``Gaudi3``; Ray Serve LLM's ``TPU-V6E``, ``AWS-NEURON-CORE``, ``Intel-GAUDI``;
KubeAI's ``gaudi-for-text-generation``). An engine on one of them is that device's build of
the engine, with that device's memory, which hbmlint does not model."""

from __future__ import annotations

import re

GAUDI = "an Intel Gaudi accelerator"
ASCEND = "a Huawei Ascend NPU"
NEURON = "AWS Neuron (Inferentia / Trainium)"
TPU = "a Google TPU"
INTEL_GPU = "an Intel GPU"
CPU = "the CPU (the engine's CPU backend)"
# Jetson modules (Orin, Thor): an integrated GPU on memory the CPU shares, which hbmlint's GPU
# catalog does not hold
JETSON = "an NVIDIA Jetson module (integrated GPU on memory the CPU shares)"

# how a word of the name starts
_NAMED = (
    ("gaudi", GAUDI),
    ("habana", GAUDI),
    ("hpu", GAUDI),
    ("tpu", TPU),
    ("neuron", NEURON),
    ("inferentia", "AWS Inferentia"),
    ("trainium", "AWS Trainium"),
)


def not_a_gpu(name: str) -> str | None:
    """The device a name such as ``tpu-v6e-8`` or ``Trainium:16`` stands for, where it is not
    a GPU."""
    words = re.split(r"[^a-z0-9]+", name.lower())
    return next((device for start, device in _NAMED for w in words if w.startswith(start)), None)
