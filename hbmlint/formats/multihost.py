"""GPU counting for formats where one engine may span several hosts (SkyPilot nodes, the pods of
a Ray cluster): which GPUs belong to one engine instance."""

from __future__ import annotations

from ..engines.args import EngineCommand


def needed_gpus(command: EngineCommand) -> int:
    """tensor x pipeline x data parallelism as the command sets them (engine defaults: 1)."""
    v = command.values
    return (
        (v.get("parallel.tensor") or 1)
        * (v.get("parallel.pipeline") or 1)
        * (v.get("parallel.data") or 1)
    )


def engine_gpus(command: EngineCommand, own: int | None, all_hosts: int | None) -> int | None:
    """The GPUs of one engine instance: its own host's when its parallelism fits there (other
    hosts run their own copies, or other work), else every host's (a multi-node engine over Ray
    or ``--nnodes``), so that too few GPUs in all is still an error at its line."""
    if own is not None and needed_gpus(command) <= own:
        return own
    return all_hosts if all_hosts else own
