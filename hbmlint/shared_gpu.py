"""A check of one file's deployments together, after their budgets: two engine services of a
compose file that run on the same GPU and together take more than the card.

Each engine sizes its memory as if it had the GPU alone (vLLM checks that the fraction it asks
for is free when it starts; TGI, SGLang and TensorRT-LLM size the KV cache from the memory they
find), so the one that starts second refuses to start or gets far less KV cache than its budget
says. What each takes is its budget's: the fraction as the file sets it, else the engine's
default for its release, GPU and parallelism (SGLang's depends on all three), and what the
engine keeps outside its fraction (SGLang's activations and CUDA graphs; TensorRT-LLM's fraction
is of what is free after its weights and activations).
"""

from __future__ import annotations

from typing import Any

from .diagnostics import Diagnostic, input_diagnostic
from .spec import Deployment, Placement
from .units import in_bytes

# Past this share of the card the second engine cannot have what it asks for: its own CUDA
# context and what the driver keeps (a few hundred MiB, 1-3% of a card) come out of what the
# first engine leaves before the second one measures it.
MOST_SHARED = 0.97


def settle(placement: Placement, deployment: Deployment, budget: Any) -> None:
    """Record on the placement what the deployment's budget (None: no budget was made, the
    fraction alone) takes of the card."""
    from .budget import default_fraction, fraction_meaning

    written = deployment.serving.gpu_memory_utilization
    placement.said = "" if written is not None else ", the engine's default"
    placement.meaning = fraction_meaning(deployment.engine)
    if budget is None:
        fraction = written
        if fraction is None:
            fraction = default_fraction(deployment.engine, deployment.engine_version)[0]
        placement.fraction = placement.share = float(fraction)
        return
    placement.fraction = float(budget.settings.memory_fraction)
    total = in_bytes(budget.total)
    if placement.meaning == "of_total":
        # vLLM asks for its whole fraction free at start and fills it, TGI takes it at warm-up
        # (an engine that does not fit in it refuses by the budget's own rules)
        placement.share = placement.fraction
    elif placement.meaning == "weights_and_kv_of_total":
        # SGLang: weights and KV pool in the fraction, activations and CUDA graphs beside it
        placement.share = placement.fraction + in_bytes(budget.overhead_total) / total
    else:
        # TensorRT-LLM: weights and activations first, then its fraction of what is left
        taken = (
            in_bytes(budget.weights)
            + in_bytes(budget.draft_weights)
            + in_bytes(budget.overhead_total)
            + max(in_bytes(budget.kv_cache), 0.0)
        )
        placement.share = min(taken / total, 1.0)


def _part(deployment: Deployment) -> str:
    placed = deployment.placement
    fraction = f"{placed.fraction:g}{placed.said}"
    if placed.meaning == "of_free":
        how = f"its weights and activations, then {fraction} of what is left"
    elif placed.meaning == "weights_and_kv_of_total" and placed.share > placed.fraction:
        outside = placed.share - placed.fraction
        how = f"memory fraction {fraction}, and {outside:.0%} outside it for activations"
    else:
        how = f"memory fraction {fraction}"
    return f"{deployment.name} {placed.share:.0%}: {how}"


def findings(deployments: list[Deployment], display: str) -> list[Diagnostic]:
    """HBM019 for each pair of placed deployments on one GPU that together take more than
    MOST_SHARED of it, at the second one's device request; services of disjoint Compose
    profiles are never started together (`--profile` picks one) and say nothing."""
    placed = [d for d in deployments if d.placement is not None and d.placement.share]
    found = []
    for i, first in enumerate(placed):
        mine = first.placement
        for second in placed[i + 1 :]:
            theirs = second.placement
            shared = sorted(mine.devices & theirs.devices)
            apart = mine.profiles and theirs.profiles and not mine.profiles & theirs.profiles
            if not shared or apart:
                continue
            total = mine.share + theirs.share
            if total <= MOST_SHARED:
                continue
            found.append(
                input_diagnostic(
                    "HBM019",
                    f"{first.name} and {second.name} both run on GPU {', '.join(shared)} and "
                    f"would take {total:.0%} of it together ({_part(first)}; {_part(second)}): "
                    "each engine sizes its memory as if it had the GPU alone, so the one that "
                    "starts second refuses to start or runs with far less KV cache than budgeted",
                    display,
                    theirs.where,
                    second.name,
                    [
                        "Give each service a GPU of its own (device_ids), or lower the fractions "
                        "(--gpu-memory-utilization, --mem-fraction-static, "
                        "--cuda-memory-fraction) until the two fit on the card together"
                    ],
                )
            )
    return found
