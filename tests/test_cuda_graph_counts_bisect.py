"""cudagraphs.graph_counts counts the uniform-decode sizes (query to max_num_seqs x query
tokens) by bisecting the ascending sizes capture_sizes gives: the same counts as filtering
every size, for the default sizes, a user's list and speculative decoding, in every mode."""

from __future__ import annotations

from hbmlint import cudagraphs

MODES = [None, "FULL_AND_PIECEWISE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY", "NONE"]
USER_SIZES = [None, (1, 2, 4, 8, 16), (512, 3, 64, 7, 1024, 0, 33), (5,)]


def filtered(sizes: list[int], max_num_seqs: int, k: int) -> int:
    query = 1 + max(0, k)
    return len([s for s in sizes if query <= s <= max_num_seqs * query])


def test_decode_graphs_are_the_sizes_a_uniform_decode_batch_reaches():
    checked = 0
    for seqs in (0, 1, 3, 16, 100, 256, 1024):
        for batched in (1, 64, 2048, 8192):
            for k in (0, 1, 3, 7):
                for max_size in (None, 1, 100, 512, 4096):
                    for user in USER_SIZES:
                        sizes = cudagraphs.capture_sizes(seqs, batched, k, max_size, user)
                        assert sizes == sorted(sizes)
                        expected = filtered(sizes, seqs, k)
                        for mode in MODES:
                            counts = cudagraphs.graph_counts(sizes, mode, seqs, k)
                            if mode in (None, "FULL_AND_PIECEWISE", "FULL_DECODE_ONLY"):
                                assert counts.decode == (expected if sizes else 0)
                            checked += 1
    assert checked > 10000
