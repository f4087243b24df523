"""BENCHMARKS.svg: the time per call of a, b and c of each function, as
grouped bars relative to b."""
from .fake import VARIANTS_FAKE


def svg(t, funcs, path):
    """Grouped horizontal bars: the time per call of a, b, c for each
    function, relative to b (the -DNDEBUG shim) of the same function."""
    colors = {"a": "#9e9e9e", "b": "#4c72b0", "c": "#dd8452"}
    names = {v: VARIANTS_FAKE[v] for v in "abc"}
    FUNCS = funcs
    rel = {(f, v): t[f, v][0] / t[f, "b"][0] for f in FUNCS for v in "abc"}
    top = max(rel.values())
    row, bar, left, width = 42, 11, 170, 460
    h = 40 + row * len(FUNCS) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" '
           f'height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="18" font-weight="bold">time per call relative to '
           'the C shim (b = 1), fake provider</text>']
    for i, v in enumerate("abc"):
        x = left + i * 170
        out.append(f'<rect x="{x}" y="{h - 22}" width="12" height="12" fill="{colors[v]}"/>'
                   f'<text x="{x + 16}" y="{h - 12}">{v}: {names[v]}</text>')
    for i, f in enumerate(FUNCS):
        y = 32 + i * row
        out.append(f'<text x="{left - 6}" y="{y + 20}" text-anchor="end">{f}</text>')
        for j, v in enumerate("abc"):
            ns = rel[f, v]
            w = width * ns / top
            out.append(f'<rect x="{left}" y="{y + j * bar}" width="{w:.1f}" '
                       f'height="{bar - 1}" fill="{colors[v]}"/>'
                       f'<text x="{left + w + 4:.1f}" y="{y + j * bar + 9}" '
                       f'font-size="9">{ns:.2f}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
