"""Which pairs of an input's outputs a pairwise study shows, and on which side.

Pure: no Django. Per input, the outputs are put in a seeded random order
p_0 .. p_(k-1) around a circle, and pairs are taken by distance along it:
distance d joins every p_i to p_(i+d mod k), with p_i on the left. Each
distance below k / 2 gives every output two pairs, one on each side; for
even k, distance k / 2 (the diameters) gives every output one pair. All
distances together are all k (k - 1) / 2 pairs. Taking only the first ones
is a design in which every output appears in at least ``min_pairs`` pairs
with as few pairs as possible, k * min_pairs / 2 rounded up:

- ``min_pairs`` even: distances 1 .. min_pairs / 2;
- odd, k even: distances 1 .. (min_pairs - 1) / 2, then the diameters;
- odd, k odd: distances 1 .. (min_pairs - 1) / 2, then every other pair of
  the cycle at distance (k - 1) / 2, which visits every output since it is
  coprime with k; one output gets two of those pairs, one on each side.

In every case each output is on the left as often as on the right, or
once more on one side when its number of pairs is odd. The pairs of an
input are then shuffled. The random order comes from ``random.Random``
seeded with the seed and the input's id, so an input's design depends only
on the seed, its id and its set of outputs, not on the other inputs or the
order outputs are listed in (output ids must be sortable, e.g. strings).
"""

import random


def all_pairs(outputs_by_input, seed):
    """Every unordered pair of every input's outputs once, as ``{input_id: [(left, right), ...]}``."""
    return _design(outputs_by_input, None, seed)


def covering_pairs(outputs_by_input, min_pairs, seed):
    """Pairs in which every output of every input appears at least ``min_pairs`` times (module docstring).

    When ``min_pairs`` is at least k - 1 for an input with k outputs, that
    input gets all of its pairs.
    """
    if isinstance(min_pairs, bool) or not isinstance(min_pairs, int) or min_pairs < 1:
        raise ValueError(f"min_pairs must be a whole number of at least 1, not {min_pairs!r}")
    return _design(outputs_by_input, min_pairs, seed)


def _design(outputs_by_input, min_pairs, seed):
    design = {}
    for input_id, outputs in outputs_by_input.items():
        outputs = list(outputs)
        if len(outputs) < 2:
            raise ValueError(f"input {input_id!r} has {len(outputs)} output(s): a pair needs two")
        if len(set(outputs)) < len(outputs):
            raise ValueError(f"input {input_id!r} lists the same output twice")
        rng = random.Random(f"{seed}:{input_id}")
        order = sorted(outputs)
        rng.shuffle(order)
        count = len(order) - 1 if min_pairs is None else min(min_pairs, len(order) - 1)
        pairs = circle_pairs(order, count)
        rng.shuffle(pairs)
        design[input_id] = pairs
    return design


def circle_pairs(order, min_pairs):
    """The pairs of ``order`` (a circle) by distance, each output in at least ``min_pairs`` of them.

    ``min_pairs`` must be between 1 and len(order) - 1; with len(order) - 1
    these are all pairs. Pairs come as (left, right), by distance.
    """
    size = len(order)
    if not 1 <= min_pairs <= size - 1:
        raise ValueError(f"min_pairs must be between 1 and {size - 1}, not {min_pairs}")
    pairs = [(order[i], order[(i + d) % size]) for d in range(1, min_pairs // 2 + 1) for i in range(size)]
    if min_pairs % 2 == 0:
        return pairs
    if size % 2 == 0:
        return pairs + [(order[i], order[i + size // 2]) for i in range(size // 2)]
    step = (size - 1) // 2
    cycle = [order[(j * step) % size] for j in range(size)]
    return pairs + [(cycle[j], cycle[(j + 1) % size]) for j in range(0, size, 2)]
