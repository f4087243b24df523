"""What the Soft-RoCE guest's sections share: the median, each round's ratio
of one way to another of the same round, and how a table cell shows them."""


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def ratios(runs, v, base):
    """runs[v][round] over runs[base][round], for each round both have."""
    return [runs[v][r] / runs[base][r] for r in sorted(runs.get(v, {})) if r in runs.get(base, {})]


def spread(rs):
    """A cell: the median of the ratios (min–max); "–" when there are none."""
    return f"{median(rs):.2f} ({min(rs):.2f}–{max(rs):.2f})" if rs else "–"


def verdict(rs, most):
    """Whether the median ratio is at most `most`, as a table says it."""
    return "yes" if median(rs) <= most else "**no**"
