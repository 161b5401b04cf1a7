//! The SVG chart (plotters, SVG backend only), drawn as small multiples: one
//! row per variant, so no line hides another. Each row shows the offered load
//! at the dependency against its capacity, the successful operations against
//! the arrivals, and (when the scenario has a restart) the attempts per 10 ms
//! just after it, where retries that wait the same time arrive together.
//! Every row names its triggers by kind, marks the ratio budget's window
//! refills and states its verdict (recovered after N s, or metastable) on
//! the chart itself.

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::report::{BucketReport, VariantReport, Verdict};
use crate::scenario::{Failure, Phase, Scenario};

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

const LOAD: RGBColor = RGBColor(31, 119, 180);
const SUCCESS: RGBColor = RGBColor(44, 140, 44);
const REFERENCE: RGBColor = RGBColor(110, 110, 110);
const RECOVERED: RGBColor = RGBColor(30, 120, 30);
const METASTABLE: RGBColor = RGBColor(200, 30, 30);
const TEXT: RGBColor = RGBColor(40, 40, 40);

const WIDTH_TWO_COLUMNS: u32 = 1240;
const ZOOM_WIDTH: u32 = 360;
const HEADER_HEIGHT: u32 = 96;
const ROW_HEIGHT: u32 = 216;
const ROW_TITLE_HEIGHT: u32 = 24;
const FONT: &str = "sans-serif";

/// One stretch of trouble: adjacent phases drawn and named together
/// (`stall + restart`).
struct Episode {
    from_ms: u64,
    to_ms: u64,
    name: String,
    phases: Vec<(u64, u64, RGBColor)>,
}

/// The name a reader knows a phase by, and its shade.
fn phase_look(phase: &Phase) -> (String, RGBColor) {
    match *phase {
        Phase::Outage { failure: Failure::Unavailable, .. } => ("outage (503)".to_owned(), RGBColor(214, 39, 40)),
        Phase::Outage { failure: Failure::Timeout, .. } => ("stall".to_owned(), RGBColor(230, 85, 13)),
        Phase::Outage { failure: Failure::Restart, .. } => ("restart".to_owned(), RGBColor(148, 103, 189)),
        Phase::Brownout { slowdown, .. } => (format!("brownout x{slowdown}"), RGBColor(230, 160, 30)),
    }
}

fn episodes(scenario: &Scenario) -> Vec<Episode> {
    let mut out: Vec<Episode> = Vec::new();
    for phase in &scenario.config.phases {
        let (from_ms, to_ms) = phase.window();
        let (name, color) = phase_look(phase);
        match out.last_mut() {
            Some(episode) if episode.to_ms == from_ms => {
                episode.to_ms = to_ms;
                episode.name = format!("{} + {name}", episode.name);
                episode.phases.push((from_ms, to_ms, color));
            }
            _ => out.push(Episode { from_ms, to_ms, name, phases: vec![(from_ms, to_ms, color)] }),
        }
    }
    out
}

/// When a ratio budget with this window lets retries through again during a
/// long episode: the retries granted as it began leave the window one
/// window later, and every client's allowance comes back at once. Only the
/// refills that end a second in which the budget refused retries are kept:
/// the others change nothing.
fn budget_refills(scenario: &Scenario, report: &VariantReport, window_ms: u64) -> Vec<u64> {
    let bucket_ms = scenario.config.bucket_ms.max(1);
    let refused_just_before = |at: u64| {
        let index = usize::try_from(at.saturating_sub(1) / bucket_ms).unwrap_or(usize::MAX);
        report.buckets.get(index).is_some_and(|bucket| bucket.budget_refusals > 0)
    };
    let mut out = Vec::new();
    for episode in episodes(scenario) {
        let mut at = episode.from_ms.saturating_add(window_ms);
        while window_ms > 0 && at <= episode.to_ms {
            if refused_just_before(at) {
                out.push(at);
            }
            at = at.saturating_add(window_ms);
        }
    }
    out
}

fn seconds(ms: u64) -> f64 {
    ms as f64 / 1000.0
}

/// `12k`, `3.2k`, `450`: short tick labels; nothing below zero.
fn short(value: f64) -> String {
    if value < 0.0 {
        String::new()
    } else if value >= 10_000.0 {
        format!("{:.0}k", value / 1000.0)
    } else if value >= 1000.0 {
        format!("{:.1}k", value / 1000.0)
    } else {
        format!("{value:.0}")
    }
}

fn text_style(size: f64, color: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle { font: (FONT, size).into_font(), color: color.to_backend_color(), pos: Pos::new(h, v) }
}

fn bold(size: f64, color: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: (FONT, size).into_font().style(FontStyle::Bold),
        color: color.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

fn fail<E: std::error::Error + Send + Sync>(error: DrawingAreaErrorKind<E>) -> String {
    error.to_string()
}

/// Renders the chart as SVG text; `source` names the file in the title.
///
/// # Errors
/// A message when plotters cannot draw (it should not happen with SVG).
pub fn svg(source: &str, scenario: &Scenario, seed: u64, reports: &[VariantReport]) -> Result<String, String> {
    let zoom = reports.iter().any(|report| report.zoom.is_some());
    let width = WIDTH_TWO_COLUMNS + if zoom { ZOOM_WIDTH } else { 0 };
    let rows = u32::try_from(reports.len()).unwrap_or(u32::MAX).max(1);
    let height = HEADER_HEIGHT + rows.saturating_mul(ROW_HEIGHT) + 8;
    let scales = Scales::of(scenario, reports);
    let mut text = String::new();
    {
        let root = SVGBackend::with_string(&mut text, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(fail)?;
        let (header, body) = root.split_vertically(HEADER_HEIGHT);
        draw_header(&header, source, scenario, seed, reports, zoom)?;
        let mut rest = body;
        for report in reports {
            let (row, below) = rest.split_vertically(ROW_HEIGHT);
            draw_row(&row, scenario, report, &scales, zoom)?;
            rest = below;
        }
        root.present().map_err(fail)?;
    }
    Ok(text)
}

/// Y ranges shared by every row, so rows compare at a glance.
struct Scales {
    load: f64,
    success: f64,
    zoom: f64,
}

impl Scales {
    fn of(scenario: &Scenario, reports: &[VariantReport]) -> Scales {
        let highest = |value: fn(&BucketReport) -> f64| {
            reports.iter().flat_map(|report| report.buckets.iter().map(value)).fold(0.0, f64::max)
        };
        let load = highest(|bucket| bucket.attempts_per_second).max(scenario.capacity_per_second());
        let success = highest(|bucket| bucket.succeeded_per_second).max(scenario.config.arrivals_per_second);
        let zoom = reports
            .iter()
            .filter_map(|report| report.zoom.as_ref())
            .flat_map(|zoom| zoom.attempts.iter().copied())
            .max()
            .unwrap_or(0);
        Scales {
            load: (load * 1.22).max(1.0),
            success: (success * 1.3).max(1.0),
            zoom: (f64::from(zoom) * 1.3).max(1.0),
        }
    }
}

fn draw_header(
    area: &Area<'_>,
    source: &str,
    scenario: &Scenario,
    seed: u64,
    reports: &[VariantReport],
    zoom: bool,
) -> Result<(), String> {
    let config = &scenario.config;
    let triggers: Vec<String> = episodes(scenario)
        .iter()
        .map(|episode| format!("{} at {:.1}-{:.1} s", episode.name, seconds(episode.from_ms), seconds(episode.to_ms)))
        .collect();
    let title = format!(
        "retryplan simulate {source}: {} operations/s from {} clients, dependency capacity {:.0}/s, seed {seed}",
        config.arrivals_per_second,
        config.clients,
        scenario.capacity_per_second()
    );
    area.draw(&Text::new(title, (16, 10), text_style(21.0, TEXT, HPos::Left, VPos::Top))).map_err(fail)?;
    let trouble = if triggers.is_empty() { "no trouble".to_owned() } else { triggers.join("; ") };
    area.draw(&Text::new(
        format!("Trouble: {trouble}. One row per variant; the rows share their scales."),
        (16, 38),
        text_style(15.0, TEXT, HPos::Left, VPos::Top),
    ))
    .map_err(fail)?;

    // The key, in one line.
    let y = 72;
    let mut x = 16;
    let item = |x: &mut i32, sample: &dyn Fn(i32) -> Result<(), String>, label: &str| -> Result<(), String> {
        sample(*x)?;
        area.draw(&Text::new(label.to_owned(), (*x + 26, y), text_style(14.0, TEXT, HPos::Left, VPos::Center)))
            .map_err(fail)?;
        *x += 34 + i32::try_from(label.len()).unwrap_or(0) * 7;
        Ok(())
    };
    let line = |color: RGBColor, dashed: bool| {
        move |x: i32| -> Result<(), String> {
            if dashed {
                area.draw(&DashedPathElement::new([(x, y), (x + 20, y)], 4, 3, color.stroke_width(2))).map_err(fail)
            } else {
                area.draw(&PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2))).map_err(fail)
            }
        }
    };
    item(&mut x, &line(LOAD, false), "attempts/s at the dependency")?;
    item(&mut x, &line(REFERENCE, true), if zoom { "its capacity (per 10 ms on the right)" } else { "its capacity" })?;
    item(&mut x, &line(SUCCESS, false), "successful operations/s")?;
    item(&mut x, &line(REFERENCE, true), "arrivals")?;
    let mut seen: Vec<String> = Vec::new();
    for phase in &scenario.config.phases {
        let (name, color) = phase_look(phase);
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        let shade = move |x: i32| -> Result<(), String> {
            area.draw(&Rectangle::new([(x + 4, y - 7), (x + 18, y + 7)], color.mix(0.3).filled())).map_err(fail)
        };
        item(&mut x, &shade, &name)?;
    }
    let refills = |report: &VariantReport| {
        report.budget_window_ms.is_some_and(|window_ms| !budget_refills(scenario, report, window_ms).is_empty())
    };
    if reports.iter().any(refills) {
        let refill = |x: i32| -> Result<(), String> {
            area.draw(&DashedPathElement::new([(x + 10, y - 8), (x + 10, y + 8)], 2, 2, TEXT.stroke_width(1)))
                .map_err(fail)
        };
        item(&mut x, &refill, "retry budget's window refills")?;
    }
    if zoom {
        let bar = |x: i32| -> Result<(), String> {
            area.draw(&Rectangle::new([(x + 6, y - 7), (x + 14, y + 7)], LOAD.mix(0.7).filled())).map_err(fail)
        };
        item(&mut x, &bar, "attempts per 10 ms")?;
    }
    Ok(())
}

fn verdict(report: &VariantReport) -> (String, RGBColor) {
    let recovery = &report.summary.recovery;
    match recovery.verdict {
        Verdict::Recovered => (recovery.description.clone(), RECOVERED),
        Verdict::Metastable => (recovery.description.replacen("metastable", "METASTABLE", 1), METASTABLE),
        Verdict::NeverHealthy => (recovery.description.replacen("never healthy", "NEVER HEALTHY", 1), METASTABLE),
        Verdict::NoTrigger | Verdict::Undetermined => (recovery.description.clone(), TEXT),
    }
}

fn draw_row(
    area: &Area<'_>,
    scenario: &Scenario,
    report: &VariantReport,
    scales: &Scales,
    zoom: bool,
) -> Result<(), String> {
    let (title, panels) = area.split_vertically(ROW_TITLE_HEIGHT);
    let (verdict_text, verdict_color) = verdict(report);
    title
        .draw(&Text::new(
            report.name.clone(),
            (16, ROW_TITLE_HEIGHT as i32 / 2 + 2),
            bold(17.0, TEXT, HPos::Left, VPos::Center),
        ))
        .map_err(fail)?;
    let name_width = 30 + i32::try_from(report.name.len()).unwrap_or(0) * 10;
    title
        .draw(&Text::new(
            format!(
                "{}: {:.2} attempts per operation, {:.1}% succeeded; {verdict_text}",
                report.description,
                report.summary.amplification,
                report.summary.success_rate * 100.0
            ),
            (16 + name_width, ROW_TITLE_HEIGHT as i32 / 2 + 2),
            text_style(14.0, verdict_color, HPos::Left, VPos::Center),
        ))
        .map_err(fail)?;
    let half = WIDTH_TWO_COLUMNS / 2;
    let (load, rest) = panels.split_horizontally(half);
    let (success, zoom_area) = rest.split_horizontally(half);
    draw_load(&load, scenario, report, scales.load)?;
    draw_success(&success, scenario, report, scales.success)?;
    if zoom {
        draw_zoom(&zoom_area, scenario, report, scales.zoom)?;
    }
    Ok(())
}

type Chart<'a, 'b> = ChartContext<
    'a,
    SVGBackend<'b>,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

/// An empty panel with its axes: y from a little below zero (so a line at
/// zero stays visible above the axis) to `y_max`.
fn panel<'a, 'b>(
    area: &'a Area<'b>,
    x: std::ops::Range<f64>,
    y_max: f64,
    x_desc: &str,
    y_desc: &str,
) -> Result<Chart<'a, 'b>, String> {
    let mut chart = ChartBuilder::on(area)
        .margin_left(8)
        .margin_right(16)
        .margin_top(6)
        .margin_bottom(4)
        .x_label_area_size(30)
        .y_label_area_size(52)
        .build_cartesian_2d(x, -y_max * 0.05..y_max)
        .map_err(fail)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_labels(7)
        .y_labels(5)
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| short(*y))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.08))
        .label_style((FONT, 13))
        .axis_desc_style((FONT, 13))
        .draw()
        .map_err(fail)?;
    Ok(chart)
}

/// A time-series panel over the whole scenario (x in seconds), trouble shaded.
fn time_panel<'a, 'b>(
    area: &'a Area<'b>,
    scenario: &Scenario,
    y_max: f64,
    y_desc: &str,
) -> Result<Chart<'a, 'b>, String> {
    let x_max = seconds(scenario.config.duration_ms);
    let mut chart = panel(area, 0.0..x_max, y_max, "time (s)", y_desc)?;
    for episode in episodes(scenario) {
        for (from_ms, to_ms, color) in &episode.phases {
            // At least 0.4 % of the width, so a short blip stays visible.
            let to = seconds(*to_ms).max(seconds(*from_ms) + x_max * 0.004);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(seconds(*from_ms), -y_max * 0.05), (to, y_max)],
                    color.mix(0.18).filled(),
                )))
                .map_err(fail)?;
        }
    }
    Ok(chart)
}

/// Each episode's name above its shade.
fn episode_labels(chart: &mut Chart<'_, '_>, scenario: &Scenario, y: f64) -> Result<(), String> {
    for episode in episodes(scenario) {
        let color = episode.phases.first().map_or(TEXT, |phase| phase.2);
        let middle = (seconds(episode.from_ms) + seconds(episode.to_ms)) / 2.0;
        chart
            .draw_series(std::iter::once(Text::new(
                episode.name.clone(),
                (middle, y),
                text_style(13.0, color, HPos::Center, VPos::Top),
            )))
            .map_err(fail)?;
    }
    Ok(())
}

/// A dashed level across the panel, labelled at its right end.
fn reference_line(chart: &mut Chart<'_, '_>, scenario: &Scenario, level: f64, label: String) -> Result<(), String> {
    let x_max = seconds(scenario.config.duration_ms);
    chart
        .draw_series(DashedLineSeries::new([(0.0, level), (x_max, level)], 6, 4, REFERENCE.stroke_width(1)))
        .map_err(fail)?;
    chart
        .draw_series(std::iter::once(Text::new(
            label,
            (x_max * 0.995, level),
            text_style(12.0, REFERENCE, HPos::Right, VPos::Bottom),
        )))
        .map_err(fail)?;
    Ok(())
}

/// One point per bucket, at the bucket's middle.
fn series(report: &VariantReport, scenario: &Scenario, value: fn(&BucketReport) -> f64) -> Vec<(f64, f64)> {
    let half_bucket = seconds(scenario.config.bucket_ms) / 2.0;
    report.buckets.iter().map(|bucket| (seconds(bucket.start_ms) + half_bucket, value(bucket))).collect()
}

fn draw_load(area: &Area<'_>, scenario: &Scenario, report: &VariantReport, y_max: f64) -> Result<(), String> {
    let mut chart = time_panel(area, scenario, y_max, "attempts/s")?;
    let capacity = scenario.capacity_per_second();
    reference_line(&mut chart, scenario, capacity, format!("capacity {capacity:.0}/s"))?;
    if let Some(window_ms) = report.budget_window_ms {
        let x_max = seconds(scenario.config.duration_ms);
        for (index, at) in budget_refills(scenario, report, window_ms).into_iter().enumerate() {
            let x = seconds(at);
            chart
                .draw_series(DashedLineSeries::new([(x, 0.0), (x, y_max * 0.8)], 3, 3, TEXT.stroke_width(1)))
                .map_err(fail)?;
            if index == 0 {
                // Beside the first refill; on its left when the right is short of room.
                let right = x + x_max * 0.25 < x_max;
                let (anchor, offset) = if right { (HPos::Left, x_max * 0.006) } else { (HPos::Right, -x_max * 0.006) };
                chart
                    .draw_series(std::iter::once(Text::new(
                        "budget refills",
                        (x + offset, y_max * 0.8),
                        text_style(12.0, TEXT, anchor, VPos::Center),
                    )))
                    .map_err(fail)?;
            }
        }
    }
    chart
        .draw_series(LineSeries::new(
            series(report, scenario, |bucket| bucket.attempts_per_second),
            LOAD.stroke_width(2),
        ))
        .map_err(fail)?;
    episode_labels(&mut chart, scenario, y_max * 0.99)?;
    Ok(())
}

fn draw_success(area: &Area<'_>, scenario: &Scenario, report: &VariantReport, y_max: f64) -> Result<(), String> {
    let mut chart = time_panel(area, scenario, y_max, "operations/s")?;
    let arrivals = scenario.config.arrivals_per_second;
    reference_line(&mut chart, scenario, arrivals, format!("arrivals {arrivals:.0}/s"))?;
    chart
        .draw_series(LineSeries::new(
            series(report, scenario, |bucket| bucket.succeeded_per_second),
            SUCCESS.stroke_width(2),
        ))
        .map_err(fail)?;
    let recovery = &report.summary.recovery;
    let x_max = seconds(scenario.config.duration_ms);
    let end = seconds(recovery.trigger_end_ms.unwrap_or(0));
    match (recovery.verdict, recovery.recovered_at_ms) {
        (Verdict::Recovered, Some(at)) => {
            let x = seconds(at);
            chart
                .draw_series(DashedLineSeries::new([(x, 0.0), (x, y_max * 0.92)], 5, 3, RECOVERED.stroke_width(2)))
                .map_err(fail)?;
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("recovered +{:.1} s", x - end),
                    (x + x_max * 0.008, y_max * 0.92),
                    text_style(14.0, RECOVERED, HPos::Left, VPos::Top),
                )))
                .map_err(fail)?;
        }
        (Verdict::Metastable, _) => {
            chart
                .draw_series(std::iter::once(Text::new(
                    format!("METASTABLE: no recovery in {:.0} s", x_max - end),
                    ((end + x_max) / 2.0, y_max * 0.45),
                    bold(16.0, METASTABLE, HPos::Center, VPos::Center),
                )))
                .map_err(fail)?;
        }
        (Verdict::NeverHealthy, _) => {
            chart
                .draw_series(std::iter::once(Text::new(
                    format!(
                        "NEVER HEALTHY: {:.0}% succeeded before the trigger",
                        recovery.baseline_success_ratio * 100.0
                    ),
                    (x_max / 2.0, y_max * 0.45),
                    bold(16.0, METASTABLE, HPos::Center, VPos::Center),
                )))
                .map_err(fail)?;
        }
        _ => {}
    }
    episode_labels(&mut chart, scenario, y_max * 0.99)?;
    Ok(())
}

/// Attempts per 10 ms from 100 ms before the first restart to 400 ms after.
fn draw_zoom(area: &Area<'_>, scenario: &Scenario, report: &VariantReport, y_max: f64) -> Result<(), String> {
    let Some(zoom) = &report.zoom else { return Ok(()) };
    let restart = zoom.restart_ms;
    let x_of = |ms: u64| ms as f64 - restart as f64;
    let x_from = x_of(zoom.from_ms);
    let x_to = x_from + (zoom.attempts.len() as u64 * zoom.slot_ms) as f64;
    let x_desc = format!("ms after the restart at {:.1} s", seconds(restart));
    let mut chart = panel(area, x_from..x_to, y_max, &x_desc, "per 10 ms")?;
    let restart_color =
        phase_look(&Phase::Outage { from_ms: 0, to_ms: 0, failure: Failure::Restart, retry_after_ms: None }).1;
    chart
        .draw_series(std::iter::once(Rectangle::new(
            [(0.0, -y_max * 0.05), (zoom.slot_ms as f64, y_max)],
            restart_color.mix(0.18).filled(),
        )))
        .map_err(fail)?;
    let slot = zoom.slot_ms as f64;
    chart
        .draw_series(zoom.attempts.iter().enumerate().map(|(index, count)| {
            let x = x_from + index as f64 * slot;
            Rectangle::new([(x + slot * 0.1, 0.0), (x + slot * 0.9, f64::from(*count))], LOAD.mix(0.75).filled())
        }))
        .map_err(fail)?;
    // What the dependency serves in 10 ms: a taller bar waits in its queue.
    let served = scenario.capacity_per_second() * slot / 1000.0;
    chart
        .draw_series(DashedLineSeries::new([(x_from, served), (x_to, served)], 6, 4, REFERENCE.stroke_width(1)))
        .map_err(fail)?;
    let peak = zoom.attempts.iter().enumerate().max_by_key(|(index, count)| (**count, std::cmp::Reverse(*index)));
    if let Some((index, peak)) = peak {
        let x = x_from + (index as f64 + 0.5) * slot;
        // Right of the bar, or left of it near the panel's right edge.
        let (anchor, at) =
            if x + (x_to - x_from) * 0.3 < x_to { (HPos::Left, x + slot) } else { (HPos::Right, x - slot) };
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{peak} in 10 ms"),
                (at, f64::from(*peak)),
                text_style(13.0, TEXT, anchor, VPos::Bottom),
            )))
            .map_err(fail)?;
    }
    chart
        .draw_series(std::iter::once(Text::new(
            "restart",
            (slot * 1.2, y_max * 0.99),
            text_style(13.0, restart_color, HPos::Left, VPos::Top),
        )))
        .map_err(fail)?;
    Ok(())
}
