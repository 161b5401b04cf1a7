//! `retryplan explain`: prints `retryplan::explain`'s worst-case timeline as a
//! table. Every number comes from the core's [`Timeline`]; nothing is
//! recomputed here (only start/end columns are laid out).
//!
//! Numbers are for people: attempts count from 1 (the first attempt is
//! attempt 1) and so do waits (wait 1 comes before attempt 2); the core's
//! `retry` index, which counts retries from 0, appears only in `--json`.
//!
//! A hedged policy's attempts overlap: a hedge starts while earlier attempts
//! still run, so its row names them (`attempt 2, a hedge beside attempt 1`),
//! and the ending is drawn when the last window closes.

use std::fmt::Write as _;

use retryplan::policy::HedgingConfig;
use retryplan::tools::timeline::{TimelineStep, Warning};
use retryplan::{Decision, Error, Policy, Timeline};

use crate::file::Plan;

/// The worst-case timeline of the plan's policy (`retryplan::explain`),
/// without the warning about `server_guidance.cap_ms` when the file does not
/// write it: a warning is about what the user wrote, never about a default
/// (the default cap of 60 s is longer than most budgets, and guidance longer
/// than what remains gives up at once anyway).
///
/// # Errors
/// The core's error for a time past `MAX_MS` (2^53 - 1), naming the argument
/// (`retryplan::explain`): never a made-up ending.
pub fn timeline(plan: &Plan, deadline_ms: Option<u64>, first_attempt_at_ms: u64) -> Result<Timeline, Error> {
    Ok(without_unwritten_cap(plan, retryplan::explain(&plan.policy, deadline_ms, first_attempt_at_ms)?))
}

fn without_unwritten_cap(plan: &Plan, mut timeline: Timeline) -> Timeline {
    if !plan.guidance_cap_written {
        timeline.warnings.retain(|warning| !matches!(warning, Warning::GuidanceCapExceedsDeadline { .. }));
    }
    timeline
}

/// The readable table. A policy that hedges is told by its overlapping
/// windows here; [`render_policy`] names its hedging even when the deadline
/// leaves no room for a hedge.
#[must_use]
pub fn render(source: &str, timeline: &Timeline) -> String {
    let overlaps = timeline.steps.iter().enumerate().any(|(index, step)| match *step {
        TimelineStep::Attempt { start_ms, .. } => !running_at(&timeline.steps[..index], start_ms).is_empty(),
        TimelineStep::Wait { .. } => false,
    });
    table(source, timeline, overlaps, None)
}

/// The readable table of `policy`'s timeline, with a line on its hedging.
#[must_use]
pub fn render_policy(source: &str, policy: &Policy, timeline: &Timeline) -> String {
    table(source, timeline, policy.hedging().is_some(), policy.hedging())
}

fn table(source: &str, timeline: &Timeline, hedged: bool, hedging: Option<HedgingConfig>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "Worst case of {source}: every attempt fails at its timeout, every wait at its longest.");
    if let Some(hedging) = hedging {
        let _ = writeln!(
            out,
            "Hedged: a hedge starts {} ms after the latest start while attempts run, up to {} at once.",
            hedging.delay_ms,
            hedging.max_hedged_attempts.saturating_add(1)
        );
    }
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
    for (index, step) in timeline.steps.iter().enumerate() {
        match *step {
            TimelineStep::Attempt { attempt, start_ms, timeout_ms, end_ms } => {
                let beside = running_at(&timeline.steps[..index], start_ms);
                let hedge = if beside.is_empty() {
                    String::new()
                } else {
                    let noun = if beside.len() == 1 { "attempt" } else { "attempts" };
                    format!(", a hedge beside {noun} {}", in_words(&beside))
                };
                let _ = writeln!(
                    out,
                    "{start_ms:>8}  {end_ms:>8}  attempt {attempt}{hedge}, effective timeout {timeout_ms} ms"
                );
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
    // The last window to close (a hedge's windows overlap: the last to start
    // need not be the last to end).
    let end = timeline
        .steps
        .iter()
        .map(|step| match *step {
            TimelineStep::Attempt { end_ms, .. } | TimelineStep::Wait { end_ms, .. } => end_ms,
        })
        .max()
        .unwrap_or(timeline.first_attempt_at_ms);
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
        Some(worst) if hedged => {
            let _ = writeln!(
                out,
                "Unbounded worst case: {worst} ms from the first attempt (every configured attempt at its full timeout, hedges beside the attempts they hedge, plus every longest wait, ignoring the deadline)."
            );
        }
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
        // Not the worst case of an attempt that fails retryably at its
        // timeout, but each in words all the same (never as raw JSON).
        Decision::Reconcile { attempts, .. } => format!(
            "ends after {}: reconcile (the write may have happened; look it up by its idempotency key)",
            plural(attempts, "attempt", "attempts")
        ),
        Decision::Restart { attempts, .. } => {
            format!("ends after {}: restart (re-read and redo the change)", plural(attempts, "attempt", "attempts"))
        }
        Decision::Succeeded { attempts, winner, .. } => {
            format!("succeeds: attempt {winner} of {}", plural(attempts, "attempt", "attempts"))
        }
        Decision::StartAttempt { .. } | Decision::Wait { .. } | Decision::AwaitOutcome { .. } => {
            format!("ends: {}", decision.kind())
        }
    }
}

/// The attempts among `earlier` steps still running at `at_ms`.
fn running_at(earlier: &[TimelineStep], at_ms: u64) -> Vec<u32> {
    earlier
        .iter()
        .filter_map(|step| match *step {
            TimelineStep::Attempt { attempt, end_ms, .. } if end_ms > at_ms => Some(attempt),
            _ => None,
        })
        .collect()
}

/// `1`, `1 and 2`, `1, 2 and 3`.
fn in_words(numbers: &[u32]) -> String {
    let words: Vec<String> = numbers.iter().map(u32::to_string).collect();
    match words.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => words.concat(),
    }
}

/// `1 attempt`, `2 attempts`.
fn plural(count: u32, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}
