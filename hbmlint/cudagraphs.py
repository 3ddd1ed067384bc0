"""vLLM's CUDA graph memory estimate: how many graphs a deployment captures, and what the
engine's start-up profile charges the KV cache for them.

From 0.20 vLLM captures graphs in a throw-away pool before it sizes the KV cache
(v1/worker/gpu_model_runner.py profile_cudagraph_memory) and takes the estimate out of the
budget ("Estimated CUDA graph memory: X GiB total"). For each graph mode it captures the two
largest sizes only: the estimate is the larger first capture of the two modes plus, for each
mode, (graphs - 1) x the second capture's cost. What drives it is therefore the number of
graphs: the capture sizes (vllm/config/vllm.py _set_cudagraph_sizes) and, for each size, one
PIECEWISE graph (mixed prefill-decode) and, up to max_num_seqs x (1 + k) tokens, one FULL
graph (uniform decode), as the cudagraph mode asks.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

from .records import dataclass

# vllm/config/vllm.py _set_cudagraph_sizes: without --max-cudagraph-capture-size the largest
# size is max_num_seqs x (1 + speculative tokens) x 2, at most this
DEFAULT_MAX_CAPTURE = 512


@dataclass(frozen=True)
class GraphCounts:
    """The graphs one rank captures: mixed prefill-decode (PIECEWISE, or FULL in mode FULL)
    and uniform decode (FULL), and the largest size of each."""

    mixed: int
    decode: int
    largest: int


def capture_sizes(
    max_num_seqs: int,
    max_num_batched_tokens: int,
    speculative_tokens: int = 0,
    max_size: int | None = None,
    sizes: tuple[int, ...] | None = None,
) -> list[int]:
    """The token counts vLLM captures a graph for (vllm/config/vllm.py _set_cudagraph_sizes,
    read at vllm-project/vllm main of 2026-08): a user's list (cudagraph_capture_sizes) or
    [1, 2, 4] + every 8 below 256 + every 16 from 256, up to --max-cudagraph-capture-size
    (default max_num_seqs x (1 + k) x 2, at most 512), never above max_num_batched_tokens.
    With speculative decoding each size is rounded up to a multiple of 1 + k (the sizes a
    uniform decode batch of k draft tokens a request can take)."""
    query = 1 + max(0, speculative_tokens)
    limit = max_size if max_size is not None else min(max_num_seqs * query * 2, DEFAULT_MAX_CAPTURE)
    limit = min(limit, max_num_batched_tokens)
    if limit < 1:
        return []
    if sizes:
        chosen = sorted({s for s in sizes if 0 < s <= max_num_batched_tokens})
    else:
        chosen = [s for s in (1, 2, 4) if s <= limit]
        chosen += list(range(8, min(limit + 1, 256), 8))
        chosen += list(range(256, limit + 1, 16))
    if query > 1:
        chosen = sorted({-(-s // query) * query for s in chosen})
    return chosen


def graph_counts(
    sizes: list[int], mode: str | None, max_num_seqs: int, speculative_tokens: int = 0
) -> GraphCounts:
    """The graphs each mode captures (v1/cudagraph_dispatcher.py): FULL_AND_PIECEWISE (the
    default) a PIECEWISE graph for every size and a FULL decode graph for the sizes a uniform
    decode batch reaches (max_num_seqs x (1 + k) tokens); PIECEWISE the first only;
    FULL_DECODE_ONLY the second only; FULL one FULL graph a size; NONE none."""
    mode = (mode or "FULL_AND_PIECEWISE").upper()
    query = 1 + max(0, speculative_tokens)
    # the sizes from query to max_num_seqs x query tokens, counted by bisection: capture_sizes
    # gives them in ascending order (largest is the last), and a comprehension over every size
    # cost more than the rest of the estimate
    decode = max(0, bisect_right(sizes, max_num_seqs * query) - bisect_left(sizes, query))
    largest = sizes[-1] if sizes else 0
    if mode == "NONE" or not sizes:
        return GraphCounts(0, 0, 0)
    if mode == "PIECEWISE":
        return GraphCounts(len(sizes), 0, largest)
    if mode == "FULL":
        return GraphCounts(len(sizes), 0, largest)
    if mode == "FULL_DECODE_ONLY":
        return GraphCounts(0, decode, largest)
    return GraphCounts(len(sizes), decode, largest)


def profile_estimate(counts: GraphCounts, first_capture: float, per_graph: float) -> float:
    """Bytes vLLM's profile charges for the graphs: one first capture (the modes share one
    pool, so the larger of their first captures; one constant here) plus, per mode, the
    graphs after the first at the second capture's cost."""
    if counts.mixed + counts.decode == 0:
        return 0.0
    extra = max(0, counts.mixed - 1) + max(0, counts.decode - 1)
    return first_capture + extra * per_graph
