"""The CSV bytes of rows of coded values (for ``content_revision``), gathered by numpy in one pass."""

from __future__ import annotations

import numpy as np


def row_bytes(block: np.ndarray, blob: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The CSV bytes of a block of rows (each a row of codes into ``blob``): fields, commas, line ends.

    Every output byte is gathered from the blob at once (each field's bytes, then a separator slot that is
    overwritten), so the cost is a few passes over the block's bytes and no compiled code is loaded: an
    unchanged run hashes its tables without starting numba."""
    flat = block.ravel()
    if flat.size == 0:
        return np.empty(0, np.uint8)
    size = lengths[flat] + 1  # each field and the separator after it
    ends = np.cumsum(size)
    source = np.repeat(starts[flat] - (ends - size), size) + np.arange(int(ends[-1]))
    padded = np.concatenate([blob, np.zeros(1, np.uint8)])  # a separator slot may point one past the blob
    out = padded[np.minimum(source, blob.size)]
    separators = np.full(flat.size, 44, np.uint8)  # ','
    separators[block.shape[1] - 1 :: block.shape[1]] = 10  # '\n' after a row's last field
    out[ends - 1] = separators
    return out
