//! The quantile plot of `batch --plot` (decision 90): as in SV-COMP reports, the *n*-th point of
//! a line is the CPU time of the *n*-th fastest result of its kind, on a logarithmic time axis.
//! plotters' SVG back end without its font features: text is written as SVG `<text>`, no font
//! files or system libraries are read.

use std::path::Path;

use plotters::prelude::*;

/// Smallest time drawn (log axis): 1 ms.
const FLOOR_S: f64 = 0.001;

/// One result as the plot sees it.
pub struct Point {
    pub cpu_s: f64,
    /// Confirmed or rejected (not unknown or error).
    pub verdict: bool,
    /// The expected result is known and was reached.
    pub correct: bool,
}

pub fn quantile_plot(path: &Path, points: &[Point]) -> Result<(), String> {
    let sorted = |keep: &dyn Fn(&Point) -> bool| {
        let mut v: Vec<f64> = points.iter().filter(|p| keep(p)).map(|p| p.cpu_s.max(FLOOR_S)).collect();
        v.sort_by(f64::total_cmp);
        v
    };
    let all = sorted(&|_| true);
    let verdicts = sorted(&|p| p.verdict);
    let correct = sorted(&|p| p.correct);
    let max_t = all.last().copied().unwrap_or(1.0).max(FLOOR_S * 10.0) * 1.5;
    let n = all.len().max(1);

    let root = SVGBackend::new(path, (800, 500)).into_drawing_area();
    let e = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|x| e(&x))?;
    let mut chart = ChartBuilder::on(&root)
        .caption("witness-check batch: quantile plot", ("sans-serif", 20))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(0usize..n, (FLOOR_S..max_t).log_scale())
        .map_err(|x| e(&x))?;
    chart.configure_mesh().x_desc("n-th fastest result").y_desc("CPU time (s)").draw().map_err(|x| e(&x))?;
    let series: [(&str, &Vec<f64>, RGBColor); 3] =
        [("all tasks", &all, BLACK), ("confirmed or rejected", &verdicts, BLUE), ("correct", &correct, RED)];
    for (label, values, color) in series {
        if values.is_empty() {
            continue;
        }
        chart
            .draw_series(LineSeries::new(values.iter().enumerate().map(|(i, &t)| (i + 1, t)), color.stroke_width(2)))
            .map_err(|x| e(&x))?
            .label(format!("{label} ({})", values.len()))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(|x| e(&x))?;
    root.present().map_err(|x| e(&x))?;
    Ok(())
}
