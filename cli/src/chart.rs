//! The SVG chart (plotters, SVG backend only): offered load and successful
//! operations over time, one line per variant, trouble phases shaded.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::report::{BucketReport, VariantReport};
use crate::scenario::{Phase, Scenario};

const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];
const OUTAGE: RGBColor = RGBColor(220, 50, 47);
const BROWNOUT: RGBColor = RGBColor(230, 160, 30);

/// Renders the chart as SVG text.
///
/// # Errors
/// A message when plotters cannot draw (it should not happen with SVG).
pub fn svg(scenario: &Scenario, seed: u64, reports: &[VariantReport]) -> Result<String, String> {
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (1100, 780)).into_drawing_area();
        root.fill(&WHITE).map_err(|error| error.to_string())?;
        let title = format!(
            "retryplan simulate: {} operations/s, {} clients, seed {seed}",
            scenario.config.arrivals_per_second, scenario.config.clients
        );
        let root = root.titled(&title, ("sans-serif", 22)).map_err(|error| error.to_string())?;
        let (upper, lower) = root.split_vertically(370);
        panel(
            &upper,
            scenario,
            reports,
            "offered load at the dependency (attempts/s)",
            |bucket| bucket.attempts_per_second,
            Some(("dependency capacity", scenario.capacity_per_second())),
            SeriesLabelPosition::UpperLeft,
        )?;
        panel(
            &lower,
            scenario,
            reports,
            "successful logical operations/s",
            |bucket| bucket.succeeded_per_second,
            Some(("arrivals", scenario.config.arrivals_per_second)),
            SeriesLabelPosition::MiddleRight,
        )?;
        root.present().map_err(|error| error.to_string())?;
    }
    Ok(text)
}

fn panel(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    scenario: &Scenario,
    reports: &[VariantReport],
    caption: &str,
    value: fn(&BucketReport) -> f64,
    reference: Option<(&str, f64)>,
    legend: SeriesLabelPosition,
) -> Result<(), String> {
    let error = |error: DrawingAreaErrorKind<_>| error.to_string();
    let bucket_s = scenario.config.bucket_ms as f64 / 1000.0;
    let x_max = scenario.config.duration_ms as f64 / 1000.0;
    let highest = reports.iter().flat_map(|report| report.buckets.iter().map(value)).fold(0.0, f64::max);
    // Head room above the highest line for the legend.
    let y_max = (highest.max(reference.map_or(0.0, |(_, level)| level)) * 1.25).max(1.0);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 17))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..x_max, 0.0..y_max)
        .map_err(error)?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_label_formatter(&|y| format!("{y:.0}"))
        .light_line_style(WHITE.mix(0.0))
        .draw()
        .map_err(error)?;

    let mut labelled = [false, false];
    for phase in &scenario.config.phases {
        let (from, to) = phase.window();
        let (color, name, index) = match phase {
            Phase::Outage { .. } => (OUTAGE, "outage", 0),
            Phase::Brownout { .. } => (BROWNOUT, "brownout", 1),
        };
        let rectangle =
            Rectangle::new([(from as f64 / 1000.0, 0.0), (to as f64 / 1000.0, y_max)], color.mix(0.15).filled());
        let series = chart.draw_series(std::iter::once(rectangle)).map_err(error)?;
        if !labelled[index] {
            labelled[index] = true;
            series
                .label(name)
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 16, y + 6)], color.mix(0.3).filled()));
        }
    }
    if let Some((name, level)) = reference {
        let gray = RGBColor(120, 120, 120);
        chart
            .draw_series(LineSeries::new([(0.0, level), (x_max, level)], gray.stroke_width(1)))
            .map_err(error)?
            .label(format!("{name} ({level:.0}/s)"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], gray.stroke_width(1)));
    }
    for (index, report) in reports.iter().enumerate() {
        let color = PALETTE[index % PALETTE.len()];
        let points =
            report.buckets.iter().map(|bucket| (bucket.start_ms as f64 / 1000.0 + bucket_s / 2.0, value(bucket)));
        chart
            .draw_series(LineSeries::new(points, color.stroke_width(2)))
            .map_err(error)?
            .label(report.name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .position(legend)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .label_font(("sans-serif", 13))
        .draw()
        .map_err(error)?;
    Ok(())
}
