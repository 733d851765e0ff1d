//! Minimal SVG charts for the results pages (hand-written SVG, no dependencies).

/// One named series of values, one value per category.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Series {
    /// Name shown in the legend.
    pub name: String,
    /// One value per category (or per x point); missing or non-finite values are not drawn.
    pub values: Vec<f64>,
}

const WIDTH: f64 = 1000.0;
const HEIGHT: f64 = 480.0;
/// Plot area: left, right, top, bottom (the legend sits right of the plot area).
const PLOT_L: f64 = 80.0;
const PLOT_R: f64 = WIDTH - 240.0;
const PLOT_T: f64 = 50.0;
const PLOT_B: f64 = HEIGHT - 70.0;
/// Okabe–Ito colour-blind-friendly palette.
const PALETTE: [&str; 8] =
    ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000"];

fn colour(i: usize) -> &'static str {
    PALETTE[i % PALETTE.len()]
}

/// Escapes `&`, `<`, `>`, `"` and `'` for XML text and attribute values.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            _ => out.push(c),
        }
    }
    out
}

/// Drops trailing zeros (and a trailing point) of a decimal number.
fn trim_zeros(s: &str) -> String {
    if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.').to_string() } else { s.to_string() }
}

/// Formats `v` with 3 significant digits: `0.0123`, `1.23`, `123`, `1.23e4`.
fn fmt3(v: f64) -> String {
    if !v.is_finite() {
        return format!("{v}");
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".to_string();
    }
    if !(1e-3..1e4).contains(&a) {
        let s = format!("{v:.2e}");
        return match s.split_once('e') {
            Some((m, e)) => format!("{}e{e}", trim_zeros(m)),
            None => s,
        };
    }
    let mut e = a.log10().floor() as i32;
    let scale = 10f64.powi(2 - e);
    let r = (v * scale).round() / scale;
    if r.abs() >= 10f64.powi(e + 1) {
        e += 1;
    }
    let decimals = (2 - e).max(0) as usize;
    trim_zeros(&format!("{r:.decimals$}"))
}

/// Smallest value of the form 1, 2, 2.5 or 5 × 10^k that is ≥ `v` (1 for non-positive or non-finite `v`).
fn nice_max(v: f64) -> f64 {
    if !v.is_finite() || v <= 0.0 {
        return 1.0;
    }
    let base = 10f64.powi(v.log10().floor() as i32);
    if base == 0.0 || !base.is_finite() {
        return v;
    }
    for m in [1.0, 2.0, 2.5, 5.0, 10.0] {
        let c = m * base;
        if c >= v {
            return if c.is_finite() { c } else { f64::MAX };
        }
    }
    v
}

/// SVG header, white background, title and (rotated) y-axis label.
fn open_svg(title: &str, y_label: &str) -> String {
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{WIDTH}\" height=\"{HEIGHT}\" \
         viewBox=\"0 0 {WIDTH} {HEIGHT}\" font-family=\"sans-serif\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"28\" text-anchor=\"middle\" font-size=\"18\" font-weight=\"bold\">{}</text>\n",
        WIDTH / 2.0,
        escape(title)
    ));
    let cy = (PLOT_T + PLOT_B) / 2.0;
    s.push_str(&format!(
        "<text x=\"20\" y=\"{cy:.1}\" text-anchor=\"middle\" font-size=\"13\" \
         transform=\"rotate(-90 20 {cy:.1})\">{}</text>\n",
        escape(y_label)
    ));
    s
}

/// Horizontal grid line at `y` with a tick label on the left.
fn grid_line(s: &mut String, y: f64, label: &str) {
    s.push_str(&format!(
        "<line x1=\"{PLOT_L}\" y1=\"{y:.1}\" x2=\"{PLOT_R}\" y2=\"{y:.1}\" stroke=\"#ddd\"/>\n\
         <text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"11\">{}</text>\n",
        PLOT_L - 6.0,
        y + 4.0,
        escape(label)
    ));
}

/// Axes lines, legend, and closing tag.
fn close_svg(mut s: String, series: &[Series], line_legend: bool) -> String {
    s.push_str(&format!(
        "<line x1=\"{PLOT_L}\" y1=\"{PLOT_B}\" x2=\"{PLOT_R}\" y2=\"{PLOT_B}\" stroke=\"black\"/>\n\
         <line x1=\"{PLOT_L}\" y1=\"{PLOT_T}\" x2=\"{PLOT_L}\" y2=\"{PLOT_B}\" stroke=\"black\"/>\n"
    ));
    let lx = PLOT_R + 20.0;
    for (i, se) in series.iter().enumerate() {
        let y = PLOT_T + 10.0 + 20.0 * i as f64;
        let c = colour(i);
        if line_legend {
            s.push_str(&format!(
                "<line x1=\"{lx:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"{c}\" stroke-width=\"2\"/>\n",
                lx + 16.0
            ));
        } else {
            s.push_str(&format!(
                "<rect class=\"swatch\" x=\"{lx:.1}\" y=\"{:.1}\" width=\"16\" height=\"12\" fill=\"{c}\"/>\n",
                y - 6.0
            ));
        }
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\">{}</text>\n",
            lx + 22.0,
            y + 4.0,
            escape(&se.name)
        ));
    }
    s.push_str("</svg>\n");
    s
}

/// Grouped bar chart: categories along x, one bar per series in each group, y axis from 0 to a
/// "nice" maximum (1, 2, 2.5 or 5 × 10^k) with 5 labelled grid steps, the value printed above each bar
/// and a legend. Missing values (a series shorter than `categories`) and non-finite values draw no bar;
/// negative values draw an empty bar at the baseline. Returns a complete standalone SVG document.
pub fn grouped_bar_chart(title: &str, y_label: &str, categories: &[String], series: &[Series]) -> String {
    let n_cat = categories.len();
    let data_max = series
        .iter()
        .flat_map(|se| se.values.iter().take(n_cat))
        .copied()
        .filter(|v| v.is_finite())
        .fold(0.0f64, f64::max);
    let y_max = nice_max(data_max);
    let y_of = |v: f64| PLOT_B - (v / y_max).clamp(0.0, 1.0) * (PLOT_B - PLOT_T);
    let mut s = open_svg(title, y_label);
    for i in 0..=5 {
        let v = y_max / 5.0 * f64::from(i);
        grid_line(&mut s, y_of(v), &fmt3(v));
    }
    if n_cat > 0 {
        let group_w = (PLOT_R - PLOT_L) / n_cat as f64;
        let bar_w = group_w * 0.8 / series.len().max(1) as f64;
        for (ci, cat) in categories.iter().enumerate() {
            let gx = PLOT_L + group_w * ci as f64;
            s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\">{}</text>\n",
                gx + group_w / 2.0,
                PLOT_B + 20.0,
                escape(cat)
            ));
            for (si, se) in series.iter().enumerate() {
                let Some(&v) = se.values.get(ci) else { continue };
                if !v.is_finite() {
                    continue;
                }
                let x = gx + group_w * 0.1 + bar_w * si as f64;
                let top = y_of(v);
                let (lx, ly) = (x + bar_w / 2.0, top - 3.0);
                // Narrow bars get their value written upwards so labels never overlap.
                let label_attrs = if bar_w < 34.0 {
                    format!("text-anchor=\"start\" transform=\"rotate(-90 {:.1} {:.1})\"", lx + 3.5, ly)
                } else {
                    "text-anchor=\"middle\"".to_string()
                };
                s.push_str(&format!(
                    "<rect class=\"bar\" x=\"{x:.1}\" y=\"{top:.1}\" width=\"{bar_w:.1}\" height=\"{:.1}\" \
                     fill=\"{}\"><title>{}: {}</title></rect>\n\
                     <text x=\"{:.1}\" y=\"{:.1}\" {label_attrs} font-size=\"10\">{}</text>\n",
                    PLOT_B - top,
                    colour(si),
                    escape(&se.name),
                    fmt3(v),
                    lx + 3.5,
                    ly,
                    fmt3(v)
                ));
            }
        }
    }
    close_svg(s, series, false)
}

/// Line chart with a log2 x axis given as exponents (`x_exponents[i]` = 10 means N = 2^10, labelled
/// "2^10") and a log10 y axis with decade grid lines; one polyline with point markers per series,
/// a legend, title and axis labels. Non-positive or non-finite y values (and values beyond
/// `x_exponents`) are skipped. Returns a complete standalone SVG document.
pub fn log_line_chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    x_exponents: &[u32],
    series: &[Series],
) -> String {
    let valid = |v: f64| v.is_finite() && v > 0.0;
    let (mut x_lo, mut x_hi) = x_exponents.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &e| {
        (lo.min(f64::from(e)), hi.max(f64::from(e)))
    });
    if x_lo > x_hi {
        (x_lo, x_hi) = (0.0, 1.0);
    } else if x_lo == x_hi {
        (x_lo, x_hi) = (x_lo - 1.0, x_hi + 1.0);
    }
    let logs = series
        .iter()
        .flat_map(|se| se.values.iter().take(x_exponents.len()))
        .copied()
        .filter(|&v| valid(v))
        .map(f64::log10);
    let (lmin, lmax) = logs.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), l| (lo.min(l), hi.max(l)));
    let (mut d_lo, mut d_hi) = if lmin > lmax { (0, 1) } else { (lmin.floor() as i32, lmax.ceil() as i32) };
    if d_lo == d_hi {
        d_hi += 1;
    }
    if d_lo > d_hi {
        (d_lo, d_hi) = (0, 1);
    }
    let px = |e: f64| PLOT_L + 10.0 + (e - x_lo) / (x_hi - x_lo) * (PLOT_R - PLOT_L - 20.0);
    let py = |l: f64| PLOT_B - (l - f64::from(d_lo)) / f64::from(d_hi - d_lo) * (PLOT_B - PLOT_T);
    let mut s = open_svg(title, y_label);
    for d in d_lo..=d_hi {
        let label = if (-3..4).contains(&d) { fmt3(10f64.powi(d)) } else { format!("1e{d}") };
        grid_line(&mut s, py(f64::from(d)), &label);
    }
    for &e in x_exponents {
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"12\">2^{e}</text>\n",
            px(f64::from(e)),
            PLOT_B + 20.0
        ));
    }
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
        (PLOT_L + PLOT_R) / 2.0,
        HEIGHT - 20.0,
        escape(x_label)
    ));
    for (si, se) in series.iter().enumerate() {
        let c = colour(si);
        let pts: Vec<(f64, f64)> = x_exponents
            .iter()
            .zip(&se.values)
            .filter(|&(_, &v)| valid(v))
            .map(|(&e, &v)| (px(f64::from(e)), py(v.log10())))
            .collect();
        if pts.len() >= 2 {
            let list: Vec<String> = pts.iter().map(|(x, y)| format!("{x:.1},{y:.1}")).collect();
            s.push_str(&format!(
                "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>\n",
                list.join(" ")
            ));
        }
        for (x, y) in pts {
            s.push_str(&format!(
                "<circle class=\"pt\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"3.5\" fill=\"{c}\"/>\n"
            ));
        }
    }
    close_svg(s, series, true)
}

/// Scatter plot with linear axes from 0: every point of `all` as a small
/// grey dot, the points of `front` joined by a coloured line (a Pareto
/// front), each front point labelled. Returns a standalone SVG document.
pub fn scatter_front(
    title: &str,
    x_label: &str,
    y_label: &str,
    all: &[(f64, f64)],
    front: &[(f64, f64, String)],
) -> String {
    let finite = |v: &f64| v.is_finite();
    let x_max = nice_max(all.iter().map(|p| p.0).filter(finite).fold(0.0, f64::max));
    let y_max = nice_max(all.iter().map(|p| p.1).filter(finite).fold(0.0, f64::max));
    let xs = |x: f64| PLOT_L + (x / x_max).clamp(0.0, 1.0) * (PLOT_R - PLOT_L);
    let ys = |y: f64| PLOT_B - (y / y_max).clamp(0.0, 1.0) * (PLOT_B - PLOT_T);
    let mut s = open_svg(title, y_label);
    for i in 0..=5 {
        let v = y_max / 5.0 * f64::from(i);
        grid_line(&mut s, ys(v), &fmt3(v));
        let xv = x_max / 5.0 * f64::from(i);
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"11\">{}</text>\n",
            xs(xv),
            PLOT_B + 16.0,
            fmt3(xv)
        ));
    }
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" font-size=\"13\">{}</text>\n",
        (PLOT_L + PLOT_R) / 2.0,
        PLOT_B + 40.0,
        escape(x_label)
    ));
    for &(x, y) in all.iter().filter(|p| p.0.is_finite() && p.1.is_finite()) {
        s.push_str(&format!("<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#999\"/>\n", xs(x), ys(y)));
    }
    let pts: Vec<String> = front.iter().map(|(x, y, _)| format!("{:.1},{:.1}", xs(*x), ys(*y))).collect();
    s.push_str(&format!(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n",
        pts.join(" "),
        colour(4)
    ));
    for (x, y, label) in front {
        s.push_str(&format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"4.5\" fill=\"{}\"/>\n<text x=\"{:.1}\" y=\"{:.1}\" \
             font-size=\"10\">{}</text>\n",
            xs(*x),
            ys(*y),
            colour(4),
            xs(*x) + 6.0,
            ys(*y) - 6.0,
            escape(label)
        ));
    }
    let legend = [Series { name: "Pareto front".into(), values: vec![] }];
    close_svg(s, &legend, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ser(name: &str, values: &[f64]) -> Series {
        Series { name: name.to_string(), values: values.to_vec() }
    }
    fn cats(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("c{i}")).collect()
    }
    fn is_svg(s: &str) -> bool {
        let t = s.trim();
        t.starts_with("<svg") && t.ends_with("</svg>")
    }

    #[test]
    fn bar_chart_is_svg_and_counts_bars() {
        let s = grouped_bar_chart("t", "ms", &cats(3), &[ser("a", &[1.0, 2.0, 3.0]), ser("b", &[0.5, 7.0])]);
        assert!(is_svg(&s));
        assert_eq!(s.matches("class=\"bar\"").count(), 5);
        assert!(s.contains(">a</text>") && s.contains(">b</text>"));
    }

    #[test]
    fn escaping() {
        let s = grouped_bar_chart("<&>", "\"y'", &["<c>".to_string()], &[ser("s&", &[1.0])]);
        assert!(s.contains("&lt;&amp;&gt;") && !s.contains("<&>"));
        assert!(s.contains("&quot;y&apos;") && s.contains("&lt;c&gt;") && s.contains("s&amp;"));
        let l = log_line_chart("<&>", "x<", "y>", &[10], &[ser("a'b", &[1.0])]);
        assert!(l.contains("&lt;&amp;&gt;") && !l.contains("<&>") && l.contains("a&apos;b"));
    }

    #[test]
    fn nan_inf_negative_and_zero_values() {
        let v = [f64::NAN, 1.0, f64::INFINITY, -2.0, 0.0, f64::NEG_INFINITY];
        let s = grouped_bar_chart("t", "y", &cats(6), &[ser("a", &v)]);
        assert!(is_svg(&s));
        assert_eq!(s.matches("class=\"bar\"").count(), 3);
        assert!(!s.contains("NaN") && !s.contains("inf"));
        let all_bad = grouped_bar_chart("t", "y", &cats(2), &[ser("a", &[f64::NAN, -1.0])]);
        assert!(is_svg(&all_bad) && !all_bad.contains("NaN"));
    }

    #[test]
    fn extreme_values() {
        let extreme = [f64::MAX, f64::MIN_POSITIVE, 5e-324, -f64::MAX];
        let big = grouped_bar_chart("t", "y", &cats(4), &[ser("a", &extreme)]);
        assert!(is_svg(&big) && !big.contains("NaN") && !big.contains("inf"));
        let big = log_line_chart("t", "x", "y", &[0, 1, 2, u32::MAX], &[ser("a", &extreme)]);
        assert!(is_svg(&big) && !big.contains("NaN") && !big.contains("inf"));
        assert!(big.contains(">1e309</text>") && big.contains(">1e-324</text>"));
    }

    #[test]
    fn empty_inputs() {
        for s in [
            grouped_bar_chart("", "", &[], &[]),
            grouped_bar_chart("t", "y", &cats(3), &[]),
            grouped_bar_chart("t", "y", &[], &[ser("a", &[1.0])]),
            log_line_chart("", "", "", &[], &[]),
            log_line_chart("t", "x", "y", &[], &[ser("a", &[1.0])]),
            log_line_chart("t", "x", "y", &[10, 11], &[ser("a", &[])]),
        ] {
            assert!(is_svg(&s));
            assert_eq!(s.matches("class=\"bar\"").count() + s.matches("class=\"pt\"").count(), 0);
        }
    }

    #[test]
    fn nice_max_is_nice_and_large_enough() {
        let allowed = [1.0, 2.0, 2.5, 5.0];
        for v in [1e-7, 0.003, 0.09, 0.99, 1.0, 1.01, 2.2, 2.5, 2.6, 7.3, 10.0, 42.0, 999.0, 123456.0, 3e15] {
            let m = nice_max(v);
            assert!(m >= v, "{m} < {v}");
            let k = m.log10().floor();
            let mant = m / 10f64.powf(k);
            assert!(allowed.iter().any(|a| (mant - a).abs() < 1e-9), "{v} -> {m}");
            assert!(m <= v * 2.5 + 1e-12, "{v} -> {m} is not the smallest");
        }
        assert_eq!(nice_max(0.0), 1.0);
        assert_eq!(nice_max(-5.0), 1.0);
        assert_eq!(nice_max(f64::NAN), 1.0);
        assert!(nice_max(f64::MAX).is_finite());
    }

    #[test]
    fn three_significant_digits() {
        assert_eq!(fmt3(0.0123), "0.0123");
        assert_eq!(fmt3(1.23), "1.23");
        assert_eq!(fmt3(123.0), "123");
        assert_eq!(fmt3(12345.0), "1.23e4");
        assert_eq!(fmt3(1234.5), "1230");
        assert_eq!(fmt3(9.996), "10");
        assert_eq!(fmt3(0.0), "0");
        assert_eq!(fmt3(-2.5), "-2.5");
        assert_eq!(fmt3(0.00012), "1.2e-4");
    }

    #[test]
    fn log_chart_skips_bad_points() {
        let xs: Vec<u32> = (10..=17).collect();
        let a = ser("a", &[0.1, 1.0, 10.0, 0.0, -3.0, f64::NAN, 100.0, f64::INFINITY]);
        let b = ser("b", &[5.0, 6.0]);
        let s = log_line_chart("t", "N", "ms", &xs, &[a, b]);
        assert!(is_svg(&s));
        assert_eq!(s.matches("class=\"pt\"").count(), 6);
        assert_eq!(s.matches("<polyline").count(), 2);
        assert!(s.contains(">2^10</text>") && s.contains(">2^17</text>"));
        for label in [">0.1</text>", ">1</text>", ">10</text>", ">100</text>"] {
            assert!(s.contains(label), "missing {label}");
        }
        assert!(!s.contains("NaN") && !s.contains("inf"));
        let one = log_line_chart("t", "N", "ms", &[12], &[ser("a", &[1.0, 2.0])]);
        assert!(is_svg(&one) && one.matches("class=\"pt\"").count() == 1 && !one.contains("NaN"));
    }
}
