//! The worst-case timeline (`explain`) drawn as SVG: attempts on one lane,
//! waits on another, against a time axis with the deadline and the response
//! reserve marked. Every number comes from the core's [`Timeline`]; this only
//! lays it out. Each attempt is a `rect` with `data-attempt="N"` and each wait
//! one with `data-wait="N"` (numbered from 1, as the CLI's table does), so a
//! test can count them.

use std::fmt::Write as _;

use retryplan::tools::timeline::TimelineStep;
use retryplan::{Decision, Timeline};

const WIDTH: f64 = 760.0;
const LEFT: f64 = 78.0;
const RIGHT: f64 = 24.0;
const ATTEMPT_Y: f64 = 44.0;
const WAIT_Y: f64 = 80.0;
const LANE_HEIGHT: f64 = 26.0;
const AXIS_Y: f64 = 116.0;
const HEIGHT: u32 = 184;

/// Text safe inside SVG elements and attributes.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A round step for about six ticks across `span` ms (1, 2 or 5 × 10^k).
fn tick_step(span: u64) -> u64 {
    let rough = (span / 6).max(1);
    let mut power = 1u64;
    while power.saturating_mul(10) <= rough {
        power = power.saturating_mul(10);
    }
    [1u64, 2, 5, 10].into_iter().map(|factor| factor.saturating_mul(power)).find(|step| *step >= rough).unwrap_or(power)
}

fn step_end(step: &TimelineStep) -> u64 {
    match *step {
        TimelineStep::Attempt { end_ms, .. } | TimelineStep::Wait { end_ms, .. } => end_ms,
    }
}

/// How the worst case ends, in a few words.
fn ending(decision: &Decision) -> String {
    match *decision {
        Decision::GaveUp { reason, attempts, .. } => {
            let noun = if attempts == 1 { "attempt" } else { "attempts" };
            format!("gives up: {reason} after {attempts} {noun}")
        }
        other => format!("ends: {}", other.kind()),
    }
}

/// The timeline of the policy named `source`, as an SVG document.
#[must_use]
pub fn svg(source: &str, timeline: &Timeline) -> String {
    let end = timeline.steps.last().map_or(timeline.first_attempt_at_ms, step_end);
    let span = end.max(timeline.deadline_ms).max(1);
    let plot = WIDTH - LEFT - RIGHT;
    let x = |ms: u64| LEFT + ms as f64 / span as f64 * plot;
    let width = |from: u64, to: u64| (x(to) - x(from)).max(1.0);

    let mut out = String::new();
    let _ = write!(
        out,
        r##"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" font-family="sans-serif" font-size="12" role="img" aria-label="worst-case timeline">"##
    );
    out.push_str(r##"<defs><pattern id="reserve-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fde2e1"/><line x1="0" y1="0" x2="0" y2="6" stroke="#e5484d" stroke-width="2"/></pattern></defs>"##);
    out.push_str(r##"<rect width="100%" height="100%" fill="white"/>"##);
    let _ = write!(
        out,
        r##"<text x="8" y="20" font-size="14" font-weight="bold">Worst case of {}: {} of {} attempts fit before the {} ms deadline</text>"##,
        escape(source),
        timeline.attempts_that_fit,
        timeline.configured_attempts,
        timeline.deadline_ms
    );
    let _ = write!(out, r##"<text x="8" y="{}" fill="#333">attempts</text>"##, ATTEMPT_Y + 17.0);
    let _ = write!(out, r##"<text x="8" y="{}" fill="#333">waits</text>"##, WAIT_Y + 17.0);

    // Before the first attempt, and the reserve no attempt or wait may reach into.
    if timeline.first_attempt_at_ms > 0 {
        let _ = write!(
            out,
            r##"<rect x="{:.1}" y="{ATTEMPT_Y}" width="{:.1}" height="{LANE_HEIGHT}" fill="#e5e7eb"><title>before the first attempt: {} ms</title></rect>"##,
            x(0),
            width(0, timeline.first_attempt_at_ms),
            timeline.first_attempt_at_ms
        );
    }
    let reserve_from = timeline.deadline_ms.saturating_sub(timeline.response_reserve_ms);
    if timeline.response_reserve_ms > 0 {
        let _ = write!(
            out,
            r##"<rect class="reserve" x="{:.1}" y="{}" width="{:.1}" height="{}" fill="url(#reserve-hatch)"><title>response reserve: {} ms</title></rect>"##,
            x(reserve_from),
            ATTEMPT_Y - 4.0,
            width(reserve_from, timeline.deadline_ms),
            WAIT_Y + LANE_HEIGHT - ATTEMPT_Y + 8.0,
            timeline.response_reserve_ms
        );
    }

    for step in &timeline.steps {
        match *step {
            TimelineStep::Attempt { attempt, start_ms, timeout_ms, end_ms } => {
                let (left, wide) = (x(start_ms), width(start_ms, end_ms));
                let _ = write!(
                    out,
                    r##"<rect data-attempt="{attempt}" x="{left:.1}" y="{ATTEMPT_Y}" width="{wide:.1}" height="{LANE_HEIGHT}" fill="#2563eb" stroke="white"><title>attempt {attempt}: {start_ms}-{end_ms} ms, timeout {timeout_ms} ms</title></rect>"##
                );
                if wide >= 16.0 {
                    let _ = write!(
                        out,
                        r##"<text x="{:.1}" y="{}" fill="white" text-anchor="middle">{attempt}</text>"##,
                        left + wide / 2.0,
                        ATTEMPT_Y + 17.0
                    );
                }
            }
            TimelineStep::Wait { retry, start_ms, min_delay_ms, max_delay_ms, end_ms, .. } => {
                let wait = retry.saturating_add(1);
                let (left, wide) = (x(start_ms), width(start_ms, end_ms));
                let _ = write!(
                    out,
                    r##"<rect data-wait="{wait}" x="{left:.1}" y="{WAIT_Y}" width="{wide:.1}" height="{LANE_HEIGHT}" fill="#f59e0b" fill-opacity="0.35" stroke="#b45309"><title>wait {wait}: {min_delay_ms}-{max_delay_ms} ms, from {start_ms} ms</title></rect>"##
                );
                // The part every draw waits (the jitter's floor), solid.
                if min_delay_ms > 0 {
                    let _ = write!(
                        out,
                        r##"<rect x="{left:.1}" y="{WAIT_Y}" width="{:.1}" height="{LANE_HEIGHT}" fill="#f59e0b"/>"##,
                        width(start_ms, start_ms.saturating_add(min_delay_ms))
                    );
                }
            }
        }
    }

    // The deadline, the axis and its ticks.
    let deadline_x = x(timeline.deadline_ms);
    let _ = write!(
        out,
        r##"<line x1="{deadline_x:.1}" y1="{}" x2="{deadline_x:.1}" y2="{AXIS_Y}" stroke="#dc2626" stroke-width="2"/><text x="{:.1}" y="{}" fill="#dc2626" text-anchor="end">deadline {} ms</text>"##,
        ATTEMPT_Y - 10.0,
        deadline_x - 3.0,
        ATTEMPT_Y - 6.0,
        timeline.deadline_ms
    );
    let _ = write!(out, r##"<line x1="{LEFT}" y1="{AXIS_Y}" x2="{:.1}" y2="{AXIS_Y}" stroke="#555"/>"##, WIDTH - RIGHT);
    let step = tick_step(span);
    let mut tick = 0u64;
    while tick <= span {
        let _ = write!(
            out,
            r##"<line x1="{0:.1}" y1="{AXIS_Y}" x2="{0:.1}" y2="{1}" stroke="#555"/><text x="{0:.1}" y="{2}" text-anchor="middle" fill="#333">{tick}</text>"##,
            x(tick),
            AXIS_Y + 4.0,
            AXIS_Y + 16.0
        );
        tick = tick.saturating_add(step);
        if step == 0 {
            break;
        }
    }
    let _ = write!(
        out,
        r##"<text x="{:.1}" y="{}" text-anchor="end" fill="#333">ms from the operation's start</text>"##,
        WIDTH - RIGHT,
        AXIS_Y + 32.0
    );
    let _ = write!(
        out,
        r##"<text class="ending" x="8" y="{}" fill="#111" font-weight="bold">At {end} ms it {}.</text>"##,
        AXIS_Y + 34.0,
        escape(&ending(&timeline.ending))
    );
    let _ = write!(
        out,
        r##"<text x="8" y="{}" fill="#444">Blue: an attempt running to its timeout. Amber: a wait at its longest (pale: the range jitter draws from). Hatched: the response reserve.</text>"##,
        AXIS_Y + 58.0
    );
    out.push_str("</svg>");
    out
}
