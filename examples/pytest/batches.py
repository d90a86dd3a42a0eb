"""Splits work among the workers that are free: the code under test of the pytest example.

The bug is real and deterministic: the pool hands out 1, 2, 3, then 0 free workers, one call after
the other, and `split` divides by that number. Every fourth run of the suite fails with
ZeroDivisionError; the other three pass. Nothing is random: the pool's position is a counter file.
"""
import os
from pathlib import Path

POOL_SIZE = 4


def free_workers() -> int:
    """Workers free now: the pool rotates one step per call, and remembers where it was between runs."""
    state = Path(os.environ.get("EXAMPLE_STATE_DIR", Path(__file__).parent / ".state"))
    state.mkdir(parents=True, exist_ok=True)
    counter = state / "pool-position"
    position = int(counter.read_text()) + 1 if counter.exists() else 1
    counter.write_text(str(position))
    return position % POOL_SIZE


def split(items: int, workers: int) -> list[int]:
    """Chunk sizes that add up to `items`, as even as they can be. The bug: no guard for workers == 0."""
    size, extra = divmod(items, workers)
    return [size + (1 if i < extra else 0) for i in range(workers)]
