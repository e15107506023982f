"""The CSV bytes of rows of coded values, assembled by a compiled loop (for ``content_revision``)."""

from __future__ import annotations

from numba import njit


@njit(cache=True, nogil=True)
def row_bytes(block, blob, starts, lengths, out):  # pragma: no cover (compiled)
    """The CSV bytes of a block of rows (each a row of codes into the blob): fields, commas, line ends."""
    at = 0
    for r in range(block.shape[0]):
        for c in range(block.shape[1]):
            v = block[r, c]
            for b in range(lengths[v]):
                out[at] = blob[starts[v] + b]
                at += 1
            out[at] = 44 if c < block.shape[1] - 1 else 10  # ',' between fields, '\n' after the last
            at += 1
    return out[:at]
