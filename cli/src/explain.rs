//! `retryplan explain`: prints `retryplan::explain`'s worst-case timeline as a
//! table. Every number comes from the core's [`Timeline`]; nothing is
//! recomputed here (only start/end columns are laid out).
//!
//! Numbers are for people: attempts count from 1 (the first attempt is
//! attempt 1) and so do waits (wait 1 comes before attempt 2); the core's
//! `retry` index, which counts retries from 0, appears only in `--json`.

use std::fmt::Write as _;

use retryplan::tools::timeline::{TimelineStep, Warning};
use retryplan::{Decision, Timeline};

use crate::file::Plan;

/// The worst-case timeline of the plan's policy (`retryplan::explain`),
/// without the warning about `server_guidance.cap_ms` when the file does not
/// write it: a warning is about what the user wrote, never about a default
/// (the default cap of 60 s is longer than most budgets, and guidance longer
/// than what remains gives up at once anyway).
#[must_use]
pub fn timeline(plan: &Plan, deadline_ms: Option<u64>, first_attempt_at_ms: u64) -> Timeline {
    let mut timeline = retryplan::explain(&plan.policy, deadline_ms, first_attempt_at_ms);
    if !plan.guidance_cap_written {
        timeline.warnings.retain(|warning| !matches!(warning, Warning::GuidanceCapExceedsDeadline { .. }));
    }
    timeline
}

/// The readable table.
#[must_use]
pub fn render(source: &str, timeline: &Timeline) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Worst case of {source}: every attempt fails at its timeout, every wait at its longest.");
    let _ = writeln!(
        out,
        "Deadline {} ms from the operation's start; first attempt at {} ms; response reserve {} ms.",
        timeline.deadline_ms, timeline.first_attempt_at_ms, timeline.response_reserve_ms
    );
    out.push('\n');
    let _ = writeln!(out, "{:>8}  {:>8}  step", "from ms", "to ms");
    let _ = writeln!(out, "{:>8}  {:>8}  {}", "-------", "-----", "-".repeat(60));
    if timeline.first_attempt_at_ms > 0 {
        let _ = writeln!(
            out,
            "{:>8}  {:>8}  before the first attempt (queueing, connecting)",
            0, timeline.first_attempt_at_ms
        );
    }
    for step in &timeline.steps {
        match *step {
            TimelineStep::Attempt { attempt, start_ms, timeout_ms, end_ms } => {
                let _ =
                    writeln!(out, "{start_ms:>8}  {end_ms:>8}  attempt {attempt}, effective timeout {timeout_ms} ms");
            }
            TimelineStep::Wait { retry, start_ms, ceiling_ms, min_delay_ms, max_delay_ms, end_ms } => {
                let range = if min_delay_ms == max_delay_ms {
                    format!("{max_delay_ms} ms")
                } else {
                    format!("{min_delay_ms} to {max_delay_ms} ms (jitter)")
                };
                // Retry r (from 0) is attempt r + 2; its wait is wait r + 1.
                let (wait, next) = (retry.saturating_add(1), retry.saturating_add(2));
                let _ = writeln!(
                    out,
                    "{start_ms:>8}  {end_ms:>8}  wait {wait}, before attempt {next}: {range}, backoff ceiling {ceiling_ms} ms"
                );
            }
        }
    }
    let end = timeline.steps.last().map_or(timeline.first_attempt_at_ms, |step| match *step {
        TimelineStep::Attempt { end_ms, .. } | TimelineStep::Wait { end_ms, .. } => end_ms,
    });
    let _ = writeln!(out, "{end:>8}  {:>8}  {}", "", ending(&timeline.ending));
    let reserve_from = timeline.deadline_ms.saturating_sub(timeline.response_reserve_ms);
    if timeline.response_reserve_ms > 0 {
        let _ = writeln!(
            out,
            "{reserve_from:>8}  {:>8}  response reserve: no attempt or wait may reach into it",
            timeline.deadline_ms
        );
    }
    out.push('\n');
    let _ = writeln!(
        out,
        "Attempts: {} configured (max_attempts), {} can run before the deadline.",
        timeline.configured_attempts, timeline.attempts_that_fit
    );
    if timeline.attempts_that_fit < timeline.configured_attempts {
        let never: Vec<String> = (timeline.attempts_that_fit + 1..=timeline.configured_attempts)
            .map(|attempt| attempt.to_string())
            .collect();
        let noun = if never.len() == 1 { "Attempt" } else { "Attempts" };
        let _ = writeln!(out, "{noun} {} can never run.", never.join(", "));
    }
    match timeline.unbounded_worst_case_ms {
        Some(worst) => {
            let _ = writeln!(
                out,
                "Unbounded worst case: {worst} ms from the first attempt (every configured attempt at its full timeout plus every longest wait, ignoring the deadline)."
            );
        }
        None => {
            let _ = writeln!(
                out,
                "Unbounded worst case: none (the timeout is a fraction of what remains, so it always fits)."
            );
        }
    }
    if timeline.warnings.is_empty() {
        let _ = writeln!(out, "No warnings.");
    } else {
        let _ = writeln!(out, "Warnings:");
        for warning in &timeline.warnings {
            let _ = writeln!(out, "  - {warning}");
        }
    }
    out
}

fn ending(decision: &Decision) -> String {
    match *decision {
        Decision::GaveUp { reason, attempts, remaining_ms, refused_delay_ms, .. } => {
            let refused = refused_delay_ms
                .map(|delay| format!("; the next wait of {delay} ms plus a useful attempt does not fit"))
                .unwrap_or_default();
            format!(
                "gives up: {reason} after {} with {remaining_ms} ms of time left after the reserve{refused}",
                plural(attempts, "attempt", "attempts")
            )
        }
        other => format!("ends: {}", serde_json::to_string(&other).unwrap_or_else(|_| other.kind().to_owned())),
    }
}

/// `1 attempt`, `2 attempts`.
fn plural(count: u32, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}
