//! `rdmaverbs-trace --latency FILE --svg OUT`: the latencies as a
//! histogram per opcode, one panel each, on a logarithmic time axis shared
//! by all panels, with the p50 and p99 marked.

use crate::latency::{Report, percentile};

/// Bins per panel.
const BINS: usize = 48;
const WIDTH: f64 = 760.0;
const PANEL: f64 = 150.0;
const LEFT: f64 = 60.0;
const PLOT: f64 = WIDTH - LEFT - 20.0;

/// Text with `<`, `>`, `&` and quotes escaped.
fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG document for `r` (a note instead of panels when it has no
/// latency).
pub fn histogram(r: &Report, title: &str) -> String {
    let all: Vec<f64> = r.by_opcode.values().flatten().copied().collect();
    let lo = all.iter().copied().fold(f64::INFINITY, f64::min).max(0.01);
    let hi = all.iter().copied().fold(0.0, f64::max).max(lo * 1.01);
    let (llo, lhi) = (lo.log10(), hi.log10());
    let x = |us: f64| LEFT + (us.max(lo).log10() - llo) / (lhi - llo) * PLOT;
    let height = 50.0 + PANEL * r.by_opcode.len().max(1) as f64 + 30.0;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{LEFT}\" y=\"22\" font-size=\"14\">{}</text>\n",
        esc(title)
    );
    if all.is_empty() {
        s += "<text x=\"60\" y=\"80\">no post was matched with its completion</text>\n</svg>\n";
        return s;
    }
    for (k, (op, v)) in r.by_opcode.iter().enumerate() {
        let top = 40.0 + PANEL * k as f64;
        let base = top + PANEL - 30.0;
        let mut bins = [0usize; BINS];
        for &us in v {
            let b = ((x(us) - LEFT) / PLOT * BINS as f64) as usize;
            bins[b.min(BINS - 1)] += 1;
        }
        let most = *bins.iter().max().unwrap_or(&1) as f64;
        let w = PLOT / BINS as f64;
        s += &format!(
            "<text x=\"{LEFT}\" y=\"{:.1}\">{} ({} completions): p50 {:.1} us, p99 {:.1} us, \
             max {:.1} us</text>\n",
            top + 14.0,
            esc(op),
            v.len(),
            percentile(v, 50.0),
            percentile(v, 99.0),
            v.last().copied().unwrap_or(0.0)
        );
        for (b, &n) in bins.iter().enumerate().filter(|(_, n)| **n > 0) {
            let h = (PANEL - 50.0) * n as f64 / most;
            s += &format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#4c72b0\">\
                 <title>{n}</title></rect>\n",
                LEFT + b as f64 * w,
                base - h,
                w - 1.0,
                h
            );
        }
        for (p, color) in [(50.0, "#dd8452"), (99.0, "#c44e52")] {
            let px = x(percentile(v, p));
            s += &format!(
                "<line x1=\"{px:.1}\" x2=\"{px:.1}\" y1=\"{:.1}\" y2=\"{base:.1}\" stroke=\"{color}\" \
                 stroke-dasharray=\"4 3\"/>\n",
                top + 20.0
            );
        }
        s += &format!(
            "<line x1=\"{LEFT}\" x2=\"{:.1}\" y1=\"{base:.1}\" y2=\"{base:.1}\" stroke=\"black\"/>\n",
            LEFT + PLOT
        );
    }
    // The shared axis: a tick at each power of ten in range.
    let axis = 40.0 + PANEL * r.by_opcode.len() as f64 - 10.0;
    let mut decade = 10f64.powf(llo.floor());
    while decade <= hi * 1.0001 {
        if decade >= lo * 0.9999 {
            s += &format!(
                "<text x=\"{:.1}\" y=\"{axis:.1}\" text-anchor=\"middle\">{}</text>\n",
                x(decade),
                decade
            );
        }
        decade *= 10.0;
    }
    s += &format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">microseconds from post to \
         completion (log scale); dashed: p50, p99</text>\n</svg>\n",
        LEFT + PLOT / 2.0,
        axis + 18.0
    );
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panel_per_opcode() {
        let mut r = Report::default();
        r.by_opcode
            .insert("SEND<&>".into(), vec![1.0, 2.0, 2.0, 100.0]);
        r.by_opcode.insert("RECV".into(), vec![5.0]);
        let s = histogram(&r, "t\"x");
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains("SEND&lt;&amp;&gt; (4 completions)") && s.contains("t&quot;x"));
        assert_eq!(s.matches("<rect x=").count(), 3 + 1, "{s}");
        let empty = histogram(&Report::default(), "none");
        assert!(empty.contains("no post was matched"));
    }
}
