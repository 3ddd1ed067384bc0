"""Accelerators that are not the GPUs hbmlint budgets, as a manifest or script says an engine
runs on one; and AMD GPUs where a script or compose file says so without naming a type.

An engine started on an Intel Gaudi, a Huawei Ascend NPU, AWS Neuron, a Google TPU or an Intel
GPU is the engine's build for that device (vllm-gaudi, vllm-ascend, vllm-neuron, vllm-tpu), with
that device's memory. hbmlint models NVIDIA and AMD GPUs only, so such a deployment is not
budgeted: budgeting it on ``--gpu`` (a default meant for manifests that name no device) would
make up the memory it has, and could report a refusal that the real device would not give.

How each says so (the variables are the device runtimes' own, read in their documentation):

- a Kubernetes device-plugin resource (``habana.ai/gaudi: 8``; Huawei's MindCluster plugin
  names ``huawei.com/Ascend910``, ``huawei.com/Ascend310``, ``huawei.com/Ascend310P``);
- a variable in the engine's environment that only that device's runtime reads:
  ``HABANA_VISIBLE_DEVICES`` / ``HABANA_VISIBLE_MODULES`` (Habana container runtime, Intel
  Gaudi docs "Docker Installation"), ``PT_HPU_*`` (the Gaudi PyTorch bridge, vllm-gaudi's
  docs), ``ASCEND_RT_VISIBLE_DEVICES`` / ``ASCEND_VISIBLE_DEVICES`` (CANN runtime and Ascend
  docker runtime, vllm-ascend's docs), ``PYTORCH_NPU_ALLOC_CONF`` (torch_npu),
  ``NEURON_RT_VISIBLE_CORES`` / ``NEURON_RT_NUM_CORES`` (AWS Neuron runtime configuration),
  ``TPU_VISIBLE_CHIPS`` (libtpu) and ``PJRT_DEVICE=TPU`` (PyTorch/XLA; ``PJRT_DEVICE=CUDA`` is
  a GPU), ``ZE_AFFINITY_MASK`` (oneAPI Level Zero);
- Docker's ``--runtime habana`` (compose ``runtime: habana``), or a device node it passes in
  (``--device /dev/davinci0``: an Ascend NPU, vllm-ascend's docker commands; ``/dev/neuron0``:
  a Neuron device, AWS's Neuron container docs);
- vLLM's image for TPUs or CPUs (``vllm/vllm-tpu``, ``vllm/vllm-openai-cpu``) after
  ``docker run`` or as a compose service's image;
- the engine's own ``--device`` (vLLM through 0.9.2: ``hpu``, ``neuron``, ``tpu``, ``xpu``,
  ``cpu``, ``openvino``; SGLang: ``hpu``, ``npu``, ``xpu``, ``cpu``).

AMD GPUs are budgeted, but only on an AMD GPU: a script that runs on ROCm (``HIP_VISIBLE_DEVICES``
or ``ROCR_VISIBLE_DEVICES``, ROCm's own device lists; ``docker run --device /dev/kfd``, the
device ROCm's docker instructions pass in; a ``rocm/...`` image or a ``-rocm`` tag) is not
budgeted on an NVIDIA ``--gpu``, as a pod that asks for ``amd.com/gpu`` is not.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..catalog.devices import ASCEND, CPU, GAUDI, INTEL_GPU, JETSON, NEURON, TPU
from ..diagnostics import Diagnostic, input_diagnostic
from ..engines import CONTAINER_CLIS, env_setting, option_value
from ..engines.args import EngineCommand, Token
from ..records import dataclass
from ..yamlsrc import Span

# Kubernetes device-plugin resources
RESOURCES = {
    "google.com/tpu": TPU,
    "habana.ai/gaudi": GAUDI,
    "aws.amazon.com/neuron": NEURON,
    "aws.amazon.com/neuroncore": NEURON,
    "aws.amazon.com/neurondevice": NEURON,
    "gpu.intel.com/i915": INTEL_GPU,
    "gpu.intel.com/xe": INTEL_GPU,
    "huawei.com/Ascend910": ASCEND,
    "huawei.com/Ascend310": ASCEND,
    "huawei.com/Ascend310P": ASCEND,
    # an Atlas 800I A2 card as Volcano's Ascend device plugin names it (volcano-sh/kthena
    # examples/model-booster/Qwen2.5-Coder-32B-Instruct.yaml, examples/model-serving/*.yaml)
    "huawei.com/ascend-1980": ASCEND,
}

# variables only that device's runtime reads; a prefix ends in "_"
_VARIABLES = {
    "HABANA_VISIBLE_DEVICES": GAUDI,
    "HABANA_VISIBLE_MODULES": GAUDI,
    "PT_HPU_": GAUDI,
    "ASCEND_RT_VISIBLE_DEVICES": ASCEND,
    "ASCEND_VISIBLE_DEVICES": ASCEND,
    "PYTORCH_NPU_ALLOC_CONF": ASCEND,
    "NEURON_RT_VISIBLE_CORES": NEURON,
    "NEURON_RT_NUM_CORES": NEURON,
    "TPU_VISIBLE_CHIPS": TPU,
    "ZE_AFFINITY_MASK": INTEL_GPU,
    # Level Zero's device hierarchy (Aurora's vLLM jobs: ZE_FLAT_DEVICE_HIERARCHY=FLAT), a
    # variable only Intel GPUs' runtime reads
    "ZE_FLAT_DEVICE_HIERARCHY": INTEL_GPU,
    # vLLM's CPU backend (vllm/envs.py: VLLM_CPU_KVCACHE_SPACE, VLLM_CPU_OMP_THREADS_BIND,
    # VLLM_CPU_NUM_OF_RESERVED_CPU, "CPU backend only"; vLLM's own CPU CI scripts set them)
    "VLLM_CPU_": CPU,
}
_RUNTIMES = {"habana": GAUDI}
_DEVICE_NODES = (("/dev/davinci", ASCEND), ("/dev/neuron", NEURON))
_DEVICE_VALUES = {
    "hpu": GAUDI,
    "npu": ASCEND,
    "neuron": NEURON,
    "tpu": TPU,
    "xpu": INTEL_GPU,
    "cpu": CPU,
    "openvino": CPU,
}
# variables that make the devices NVIDIA's or AMD's: with one of them set as well the script
# serves more than one platform, and which one runs is not in the file
_GPU_VARIABLES = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES")


@dataclass(frozen=True)
class OtherAccelerator:
    """What says the engine runs on a device hbmlint does not budget, and where."""

    device: str
    said: str  # "HABANA_VISIBLE_DEVICES=all", "runtime: habana", "--device hpu"
    span: Span


def _variable_device(name: str, value: str) -> str | None:
    if name == "PJRT_DEVICE":
        return TPU if value.strip().upper() == "TPU" else None
    for key, device in _VARIABLES.items():
        if name == key or (key.endswith("_") and name.startswith(key)):
            return device
    return None


def in_environment(env: Mapping[str, Token]) -> OtherAccelerator | None:
    """The first variable of ``env`` (the engine's environment) that only a device hbmlint
    does not budget reads; None also where a GPU's own variable is set beside it."""
    if any(env.get(name) is not None and env[name].text.strip() for name in _GPU_VARIABLES):
        return None
    for name, token in env.items():
        device = _variable_device(name, token.text)
        if device is not None and token.text.strip():
            return OtherAccelerator(device, f"{name}={token.text.strip()}", token.span)
    return None


def in_runtime(runtime: str | None, span: Span, said: str) -> OtherAccelerator | None:
    """A container runtime for such a device (``runtime: habana``)."""
    device = _RUNTIMES.get(str(runtime or "").strip().lower())
    return None if device is None else OtherAccelerator(device, said, span)


def container_options(
    words: list[Token],
) -> tuple[dict[str, Token], list[tuple[str, Token, Token]]] | None:
    """A ``docker run`` (podman, nerdctl) among ``words``: the variables ``-e``/``--env`` give
    it, and each ``--runtime``/``--device``/``--gpus``/``--volume`` (``-v``)/``--mount`` option
    as (option, its word, its value); None where the words run no container."""
    if not any(w.text.rsplit("/", 1)[-1] in CONTAINER_CLIS for w in words[:2]):
        return None
    env: dict[str, Token] = {}
    options: list[tuple[str, Token, Token]] = []
    for i, word in enumerate(words):
        setting = option_value(words, i, ("-e", "--env"))
        named = env_setting(setting) if setting is not None else None
        if named is not None:
            env[named[0]] = named[1]
        for option in ("--runtime", "--device", "--gpus", "--volume", "--mount"):
            value = option_value(words, i, (option, "-v") if option == "--volume" else (option,))
            if value is not None:
                options.append((option, word, value))
    return env, options


def in_container_run(words: Iterable[Token]) -> OtherAccelerator | None:
    """A ``docker run`` whose options say so: ``--runtime habana``, ``--device /dev/davinci0``,
    ``-e``/``--env NAME=value`` for such a device's variable, or an image built for one."""
    words = list(words)
    found = container_options(words)
    if found is None:
        return None
    env, options = found
    for option, word, value in options:
        said = f"{option} {value.text}"
        if option == "--runtime":
            other = in_runtime(value.text, word.span, said)
        elif option == "--device":
            other = _device_node(value.text, word.span, said)
        else:
            continue
        if other is not None:
            return other
    image = next((w for w in words if image_device(w.text) is not None), None)
    if image is not None:
        return in_image(image.text, image.span)
    return in_environment(env)


# vLLM's images for devices other than GPUs: the vLLM recipes' install lines ("docker pull
# vllm/vllm-tpu:gemma4 # For Cloud TPUs", "vllm/vllm-openai-cpu:latest-x86_64 # For Intel Xeon
# 6"); vLLM's CI builds vllm/vllm-tpu-bm from docker/Dockerfile.tpu
# dustynv/*: the jetson-containers builds for Jetson's L4T (dustynv/vllm:0.8.6-r36.4-cu128-24.04)
_IMAGES = {"vllm/vllm-tpu": TPU, "vllm/vllm-openai-cpu": CPU, "dustynv/": JETSON}


def image_device(image: str) -> str | None:
    """The device an engine image is built for, where it is not a GPU."""
    name = image.lower()
    return next((device for marker, device in _IMAGES.items() if marker in name), None)


def in_image(image: str, span: Span) -> OtherAccelerator | None:
    """An engine image built for such a device (``vllm/vllm-tpu:nightly``)."""
    device = image_device(image)
    return None if device is None else OtherAccelerator(device, f"the image {image}", span)


def _device_node(path: str, span: Span, said: str) -> OtherAccelerator | None:
    """A device node passed into a container (``/dev/davinci0``, ``/dev/neuron0:/dev/neuron0``)."""
    for prefix, device in _DEVICE_NODES:
        if path.startswith(prefix):
            return OtherAccelerator(device, said, span)
    return None


def in_command(command: EngineCommand) -> OtherAccelerator | None:
    """The engine's own ``--device`` naming such a device."""
    for item in command.items:
        if item.name == "--device" and item.value is not None and item.value.readable:
            device = _DEVICE_VALUES.get(item.value.text.strip().lower())
            if device is not None:
                return OtherAccelerator(device, f"--device {item.value.text}", item.word.span)
    return None


_AMD_VARIABLES = ("HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES")
# variables only a ROCm run reads: vLLM's and SGLang's ROCm knobs (VLLM_ROCM_USE_AITER,
# vllm/envs.py; SGLANG_USE_AITER) and the ROCm runtime's own (HSA_OVERRIDE_GFX_VERSION,
# HSA_NO_SCRATCH_RECLAIM)
_AMD_PREFIXES = ("VLLM_ROCM_", "HSA_", "SGLANG_ROCM_", "SGLANG_USE_AITER")
_NVIDIA_VARIABLES = ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES")


def amd_gpus(env: Mapping[str, Token], words: Iterable[Token] = ()) -> tuple[str, Span] | None:
    """What says the engine runs on AMD GPUs, and where: ROCm's device variable in ``env``
    (none of NVIDIA's beside it: a script for both sets both), or a ``docker run`` that passes
    in ``/dev/kfd`` or runs a ROCm image."""
    if not any(env.get(name) is not None and env[name].text.strip() for name in _NVIDIA_VARIABLES):
        for name in _AMD_VARIABLES:
            token = env.get(name)
            if token is not None and token.text.strip():
                return f"{name}={token.text.strip()} is set", token.span
        for name, token in env.items():
            if name.startswith(_AMD_PREFIXES) and token.readable and token.text.strip():
                return f"{name}={token.text.strip()} (a ROCm setting) is set", token.span
    words = list(words)
    found = container_options(words)
    if found is None:
        return None
    for option, word, value in found[1]:
        if option == "--device" and value.text.split(":")[0] == "/dev/kfd":
            return "the container is given /dev/kfd (ROCm's device)", word.span
    image = next((w for w in words if w.readable and is_rocm_image(w.text)), None)
    if image is not None:
        return f"the image {image.text} is a ROCm build", image.span
    return None


def is_rocm_image(image: str) -> bool:
    """``rocm/vllm:...``, ``rocm/sgl-dev:...``, ``lmsysorg/sglang:v0.4.6.post5-rocm630``, and
    a repository named for ROCm: vLLM's own AMD image ``vllm/vllm-openai-rocm`` (vLLM's recipes:
    "docker pull vllm/vllm-openai-rocm:latest # For AMD GPUs"), ``vllm/vllm-omni-rocm``."""
    repository, _, tag = (
        image.rpartition(":") if ":" in image.rpartition("/")[2] else (image, "", "")
    )
    name = repository.rpartition("/")[2].lower()
    return (
        repository.startswith(("rocm/", "docker.io/rocm/"))
        or "rocm" in tag.lower()
        or name.endswith("-rocm")
    )


_ONLY = "NVIDIA and AMD GPUs only"


def not_budgeted(found: OtherAccelerator, display: str, name: str | None) -> Diagnostic:
    """The info that says why the deployment is not budgeted."""
    return input_diagnostic(
        "HBM014",
        f"{found.said}: the engine runs on {found.device}, whose memory hbmlint does not "
        f"budget ({'its catalog holds no Jetson' if found.device == JETSON else _ONLY}); this "
        "deployment is not checked",
        display,
        found.span,
        name,
    )
