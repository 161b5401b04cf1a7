//! What `simulate` reports: per-bucket series, a summary per variant, the
//! recovery verdict, and the terminal table.

use std::fmt::Write as _;

use retryplan::engine::stats::GiveUpCounts;
use retryplan::GiveUpReason;
use serde::Serialize;

use crate::scenario::{Failure, Phase, Scenario};
use crate::sim::{Run, SLOT_MS};

/// A bucket's success ratio must reach this share of the healthy baseline to
/// count as recovered.
pub const RECOVERED_SHARE: f64 = 0.9;

/// Below this success ratio before the trigger, the fleet was never healthy:
/// there is nothing to recover to, and "recovered" would be a false comfort
/// (a plan whose every operation fails "recovers" at once).
pub const HEALTHY_BASELINE: f64 = 0.5;

/// One bucket of the series, as printed by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct BucketReport {
    /// Bucket start, ms.
    pub start_ms: u64,
    /// Logical operations that arrived.
    pub arrivals: u64,
    /// Attempts that reached the dependency (offered load).
    pub attempts: u64,
    /// Of those, attempts beyond one per logical operation (retries at any layer).
    pub retries: u64,
    /// Offered load, attempts per second.
    pub attempts_per_second: f64,
    /// The most attempts that reached the dependency within one 10 ms slot
    /// of the bucket: retries that arrive together show here, not in the
    /// per-second rate.
    pub peak_attempts_in_10ms: u32,
    /// Retries per second.
    pub retries_per_second: f64,
    /// Logical operations that succeeded in the bucket.
    pub succeeded: u64,
    /// Successful logical operations per second.
    pub succeeded_per_second: f64,
    /// Logical operations that gave up, by reason.
    pub gave_up: GiveUpCounts,
    /// Logical operations ending in reconciliation.
    pub reconciles: u64,
    /// Logical operations ending in a restart of the unit.
    pub restarts: u64,
    /// Retry-budget refusals (any layer).
    pub budget_refusals: u64,
    /// Circuit-breaker refusals (any layer).
    pub breaker_refusals: u64,
    /// Retry-slot refusals (any layer).
    pub retry_slot_refusals: u64,
    /// Requests the dependency shed with a full queue.
    pub shed: u64,
    /// Requests the dependency served after the client had given up on them.
    pub served_late: u64,
    /// Median latency of successful logical operations, ms.
    pub latency_p50_ms: Option<u32>,
    /// 99th percentile latency of successful logical operations, ms.
    pub latency_p99_ms: Option<u32>,
}

/// What happened after the trigger, as `--json` spells it (snake_case).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every bucket from some point to the end succeeds at `RECOVERED_SHARE`
    /// of the baseline or better.
    Recovered,
    /// The success ratio never came back (to the end of the run).
    Metastable,
    /// Before the trigger, fewer than `HEALTHY_BASELINE` of the operations
    /// succeeded: the plan does not work even without trouble.
    NeverHealthy,
    /// The scenario has no outage or brownout.
    NoTrigger,
    /// Too few buckets after the trigger to tell.
    Undetermined,
}

/// Did the fleet come back after the trigger?
#[derive(Clone, Debug, Serialize)]
pub struct Recovery {
    /// The verdict.
    pub verdict: Verdict,
    /// When the last phase ended, ms.
    pub trigger_end_ms: Option<u64>,
    /// Success ratio of the buckets before the first phase (1 when there are none).
    pub baseline_success_ratio: f64,
    /// Start of the first bucket from which every bucket to the end stays at
    /// or above `RECOVERED_SHARE` of the baseline.
    pub recovered_at_ms: Option<u64>,
    /// Plain words.
    pub description: String,
}

/// Totals for one variant.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Logical operations that arrived.
    pub operations: u64,
    /// Attempts that reached the dependency.
    pub attempts: u64,
    /// Attempts beyond one per logical operation.
    pub retries: u64,
    /// Attempts per logical operation.
    pub amplification: f64,
    /// Logical operations that succeeded.
    pub succeeded: u64,
    /// `succeeded / operations`.
    pub success_rate: f64,
    /// Give-ups by reason (logical operations).
    pub gave_up: GiveUpCounts,
    /// Reconciliations (logical operations).
    pub reconciles: u64,
    /// Restarts (logical operations).
    pub restarts: u64,
    /// Retry-budget refusals, any layer.
    pub budget_refusals: u64,
    /// Circuit-breaker refusals, any layer.
    pub breaker_refusals: u64,
    /// Retry-slot refusals, any layer.
    pub retry_slot_refusals: u64,
    /// Requests shed by the dependency.
    pub shed: u64,
    /// Requests served after their client had given up.
    pub served_late: u64,
    /// Median latency of successful operations, ms.
    pub latency_p50_ms: Option<u32>,
    /// 99th percentile latency of successful operations, ms.
    pub latency_p99_ms: Option<u32>,
    /// Highest offered load in one bucket, attempts per second.
    pub peak_attempts_per_second: f64,
    /// The most attempts that reached the dependency within one 10 ms slot.
    pub peak_attempts_in_10ms: u32,
    /// When that slot starts, ms.
    pub peak_10ms_at_ms: u64,
    /// The recovery verdict.
    pub recovery: Recovery,
}

/// One variant's report.
#[derive(Clone, Debug, Serialize)]
pub struct VariantReport {
    /// Short name (`as_written`, `no_jitter`, `no_budget`, `layered`).
    pub name: String,
    /// What differs from the file.
    pub description: String,
    /// Layers of retries.
    pub layers: u32,
    /// The window of the variant's ratio retry budget, when it has one (the
    /// chart marks when the window lets retries through again).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget_window_ms: Option<u64>,
    /// Totals.
    pub summary: Summary,
    /// Per-bucket series.
    pub buckets: Vec<BucketReport>,
    /// Attempts per 10 ms around the scenario's first restart, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zoom: Option<Zoom>,
}

/// A short window at 10 ms resolution (see [`Scenario::zoom_window`]).
#[derive(Clone, Debug, Serialize)]
pub struct Zoom {
    /// When the restart it looks at begins, ms.
    pub restart_ms: u64,
    /// Start of the first slot, ms.
    pub from_ms: u64,
    /// Width of a slot, ms.
    pub slot_ms: u64,
    /// Attempts that reached the dependency in each slot.
    pub attempts: Vec<u32>,
}

fn percentile(sorted: &[u32], share: f64) -> Option<u32> {
    if sorted.is_empty() {
        return None;
    }
    let rank = ((share * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted.get(rank - 1).copied()
}

/// Builds a variant's report from its run.
#[must_use]
pub fn variant_report(
    name: &str,
    description: &str,
    layers: u32,
    budget_window_ms: Option<u64>,
    scenario: &Scenario,
    run: Run,
) -> VariantReport {
    let bucket_ms = scenario.config.bucket_ms;
    let per_second = |count: u64| count as f64 * 1000.0 / bucket_ms as f64;
    let mut all_latencies = Vec::new();
    let mut reports = Vec::with_capacity(run.buckets.len());
    let mut totals = retryplan::engine::stats::Stats::default();
    let (mut operations, mut attempts, mut retries) = (0, 0, 0);
    let (mut budget, mut breaker, mut retry_slot, mut shed, mut late) = (0, 0, 0, 0, 0);
    let mut peak: f64 = 0.0;
    // The busiest 10 ms slot of each bucket (slots past the last bucket count in it).
    let last_bucket = run.buckets.len().saturating_sub(1);
    let mut slot_peaks = vec![0u32; run.buckets.len()];
    let (mut peak_slot, mut peak_slot_index) = (0u32, 0usize);
    for (index, count) in run.attempts_per_slot.iter().enumerate() {
        let start = index as u64 * SLOT_MS;
        let bucket = usize::try_from(start / bucket_ms).unwrap_or(usize::MAX).min(last_bucket);
        if let Some(slot_peak) = slot_peaks.get_mut(bucket) {
            *slot_peak = (*slot_peak).max(*count);
        }
        if *count > peak_slot {
            (peak_slot, peak_slot_index) = (*count, index);
        }
    }
    let zoom = scenario.zoom_window().map(|(restart_ms, from_ms, to_ms)| Zoom {
        restart_ms,
        from_ms,
        slot_ms: SLOT_MS,
        attempts: (from_ms / SLOT_MS..to_ms.div_ceil(SLOT_MS))
            .map(|index| {
                usize::try_from(index).ok().and_then(|index| run.attempts_per_slot.get(index)).copied().unwrap_or(0)
            })
            .collect(),
    });
    for (index, mut bucket) in run.buckets.into_iter().enumerate() {
        bucket.latencies_ms.sort_unstable();
        let top = bucket.top;
        operations += bucket.arrivals;
        attempts += bucket.attempts;
        retries += bucket.extra_attempts;
        totals.merge(&top);
        budget += bucket.budget_refusals;
        breaker += bucket.breaker_refusals;
        retry_slot += bucket.retry_slot_refusals;
        shed += bucket.shed;
        late += bucket.served_late;
        peak = peak.max(per_second(bucket.attempts));
        reports.push(BucketReport {
            start_ms: index as u64 * bucket_ms,
            arrivals: bucket.arrivals,
            attempts: bucket.attempts,
            retries: bucket.extra_attempts,
            attempts_per_second: per_second(bucket.attempts),
            peak_attempts_in_10ms: slot_peaks.get(index).copied().unwrap_or(0),
            retries_per_second: per_second(bucket.extra_attempts),
            succeeded: top.succeeded,
            succeeded_per_second: per_second(top.succeeded),
            gave_up: top.gave_up,
            reconciles: top.reconciles,
            restarts: top.restarts,
            budget_refusals: bucket.budget_refusals,
            breaker_refusals: bucket.breaker_refusals,
            retry_slot_refusals: bucket.retry_slot_refusals,
            shed: bucket.shed,
            served_late: bucket.served_late,
            latency_p50_ms: percentile(&bucket.latencies_ms, 0.5),
            latency_p99_ms: percentile(&bucket.latencies_ms, 0.99),
        });
        all_latencies.extend_from_slice(&bucket.latencies_ms);
    }
    all_latencies.sort_unstable();
    let recovery = recovery(scenario, &reports);
    let ratio = |part: u64| if operations == 0 { 0.0 } else { part as f64 / operations as f64 };
    VariantReport {
        name: name.to_owned(),
        description: description.to_owned(),
        layers,
        budget_window_ms,
        summary: Summary {
            operations,
            attempts,
            retries,
            amplification: ratio(attempts),
            succeeded: totals.succeeded,
            success_rate: ratio(totals.succeeded),
            gave_up: totals.gave_up,
            reconciles: totals.reconciles,
            restarts: totals.restarts,
            budget_refusals: budget,
            breaker_refusals: breaker,
            retry_slot_refusals: retry_slot,
            shed,
            served_late: late,
            latency_p50_ms: percentile(&all_latencies, 0.5),
            latency_p99_ms: percentile(&all_latencies, 0.99),
            peak_attempts_per_second: peak,
            peak_attempts_in_10ms: peak_slot,
            peak_10ms_at_ms: peak_slot_index as u64 * SLOT_MS,
            recovery,
        },
        buckets: reports,
        zoom,
    }
}

fn bucket_ended(bucket: &BucketReport) -> u64 {
    bucket.succeeded + bucket.gave_up.total() + bucket.reconciles + bucket.restarts
}

fn success_ratio(buckets: &[BucketReport]) -> Option<f64> {
    let ended: u64 = buckets.iter().map(bucket_ended).sum();
    let succeeded: u64 = buckets.iter().map(|bucket| bucket.succeeded).sum();
    (ended > 0).then(|| succeeded as f64 / ended as f64)
}

/// The recovery verdict: after the last phase, does the success ratio come
/// back to the healthy baseline and stay there to the end?
fn recovery(scenario: &Scenario, buckets: &[BucketReport]) -> Recovery {
    let bucket_ms = scenario.config.bucket_ms;
    let Some(trigger_start) = scenario.trigger_start_ms() else {
        return Recovery {
            verdict: Verdict::NoTrigger,
            trigger_end_ms: None,
            baseline_success_ratio: success_ratio(buckets).unwrap_or(1.0),
            recovered_at_ms: None,
            description: "no outage or brownout in the scenario".to_owned(),
        };
    };
    let trigger_end = scenario.trigger_end_ms();
    let before = usize::try_from(trigger_start / bucket_ms).unwrap_or(usize::MAX).min(buckets.len());
    let baseline = buckets.get(..before).and_then(success_ratio).unwrap_or(1.0);
    let first_after = usize::try_from(trigger_end.div_ceil(bucket_ms)).unwrap_or(usize::MAX).min(buckets.len());
    let after = buckets.get(first_after..).unwrap_or(&[]);
    let threshold = baseline * RECOVERED_SHARE;
    let good = |bucket: &BucketReport| {
        let ended = bucket_ended(bucket);
        ended > 0 && bucket.succeeded as f64 / ended as f64 >= threshold
    };
    let suffix = after.iter().rev().take_while(|bucket| good(bucket)).count();
    let needed = (after.len() / 4).max(2).min(after.len());
    let seconds = |ms: u64| format!("{:.1} s", ms as f64 / 1000.0);
    if after.len() < 2 {
        return Recovery {
            verdict: Verdict::Undetermined,
            trigger_end_ms: Some(trigger_end),
            baseline_success_ratio: baseline,
            recovered_at_ms: None,
            description: "the scenario ends too soon after the trigger to tell (leave at least two buckets)".to_owned(),
        };
    }
    if baseline < HEALTHY_BASELINE {
        return Recovery {
            verdict: Verdict::NeverHealthy,
            trigger_end_ms: Some(trigger_end),
            baseline_success_ratio: baseline,
            recovered_at_ms: None,
            description: format!("never healthy: {:.1}% succeeded before the trigger", baseline * 100.0),
        };
    }
    if suffix >= needed {
        let at = (first_after + after.len() - suffix) as u64 * bucket_ms;
        Recovery {
            verdict: Verdict::Recovered,
            trigger_end_ms: Some(trigger_end),
            baseline_success_ratio: baseline,
            recovered_at_ms: Some(at),
            description: format!("recovered {} after the trigger ended", seconds(at.saturating_sub(trigger_end))),
        }
    } else {
        let end = scenario.config.duration_ms;
        Recovery {
            verdict: Verdict::Metastable,
            trigger_end_ms: Some(trigger_end),
            baseline_success_ratio: baseline,
            recovered_at_ms: None,
            description: format!(
                "metastable: still failing {} after the trigger ended",
                seconds(end.saturating_sub(trigger_end))
            ),
        }
    }
}

/// A time from the start in seconds, with as many decimals as it needs (up to ms).
fn clock(ms: u64) -> String {
    let decimals = if ms % 100 == 0 {
        1
    } else if ms % 10 == 0 {
        2
    } else {
        3
    };
    format!("{:.decimals$} s", ms as f64 / 1000.0)
}

fn percent(value: f64) -> String {
    format!("{:.1}%", value * 100.0)
}

fn ms(value: Option<u32>) -> String {
    value.map_or_else(|| "-".to_owned(), |value| format!("{value} ms"))
}

/// The terminal table: one column per variant.
#[must_use]
pub fn table(scenario: &Scenario, seed: u64, reports: &[VariantReport]) -> String {
    let config = &scenario.config;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} logical operations/s for {:.1} s from {} client(s), seed {seed}; the dependency serves about {:.0} requests/s",
        config.arrivals_per_second,
        config.duration_ms as f64 / 1000.0,
        config.clients,
        scenario.capacity_per_second()
    );
    for phase in &config.phases {
        let (from, to) = phase.window();
        let what = match phase {
            Phase::Outage { failure, retry_after_ms, .. } => match (failure, retry_after_ms) {
                // Named as the plan writes it (`"failure": "timeout"`), then in words.
                (Failure::Unavailable, Some(ra)) => format!("outage, failure unavailable (503, Retry-After {ra} ms)"),
                (Failure::Unavailable, None) => "outage, failure unavailable (503)".to_owned(),
                (Failure::Timeout, _) => "outage, failure timeout (a stall: no answer, attempts time out)".to_owned(),
                (Failure::Restart, _) => {
                    "outage, failure restart (held requests reset, new connections refused)".to_owned()
                }
            },
            Phase::Brownout { slowdown, .. } => format!("brownout ({slowdown}x slower)"),
        };
        let _ = writeln!(out, "  {} to {}: {what}", clock(from), clock(to));
    }
    out.push('\n');

    let mut rows: Vec<(String, Vec<String>)> = Vec::new();
    let mut row = |label: &str, cell: &dyn Fn(&VariantReport) -> String| {
        rows.push((label.to_owned(), reports.iter().map(cell).collect()));
    };
    row("", &|r| r.name.clone());
    row("logical operations", &|r| r.summary.operations.to_string());
    row("attempts at the dependency", &|r| r.summary.attempts.to_string());
    row("attempt amplification", &|r| format!("{:.2}x", r.summary.amplification));
    row("retries per operation", &|r| format!("{:.3}", r.summary.retries as f64 / r.summary.operations.max(1) as f64));
    row("peak offered load", &|r| format!("{:.0}/s", r.summary.peak_attempts_per_second));
    row("largest 10 ms burst", &|r| {
        format!("{} at {:.2} s", r.summary.peak_attempts_in_10ms, r.summary.peak_10ms_at_ms as f64 / 1000.0)
    });
    row("success rate", &|r| percent(r.summary.success_rate));
    for reason in GiveUpReason::ALL {
        if reports.iter().any(|r| r.summary.gave_up.get(reason) > 0) {
            row(&format!("gave up: {}", reason.name()), &|r| r.summary.gave_up.get(reason).to_string());
        }
    }
    if reports.iter().any(|r| r.summary.reconciles > 0) {
        row("reconcile", &|r| r.summary.reconciles.to_string());
    }
    if reports.iter().any(|r| r.summary.restarts > 0) {
        row("restart", &|r| r.summary.restarts.to_string());
    }
    row("budget refusals (all layers)", &|r| r.summary.budget_refusals.to_string());
    row("breaker refusals (all layers)", &|r| r.summary.breaker_refusals.to_string());
    if reports.iter().any(|r| r.summary.retry_slot_refusals > 0) {
        row("retry slot refusals", &|r| r.summary.retry_slot_refusals.to_string());
    }
    row("shed by the dependency", &|r| r.summary.shed.to_string());
    row("served after the client left", &|r| r.summary.served_late.to_string());
    row("latency p50 (successes)", &|r| ms(r.summary.latency_p50_ms));
    row("latency p99 (successes)", &|r| ms(r.summary.latency_p99_ms));
    row("after the trigger", &|r| match r.summary.recovery.verdict {
        Verdict::Recovered => {
            let at = r.summary.recovery.recovered_at_ms.unwrap_or(0);
            let end = r.summary.recovery.trigger_end_ms.unwrap_or(0);
            format!("recovered +{:.1} s", at.saturating_sub(end) as f64 / 1000.0)
        }
        Verdict::Metastable => "METASTABLE".to_owned(),
        Verdict::NeverHealthy => "NEVER HEALTHY".to_owned(),
        Verdict::NoTrigger => "no trigger".to_owned(),
        Verdict::Undetermined => "undetermined".to_owned(),
    });

    let label_width = rows.iter().map(|(label, _)| label.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..reports.len())
        .map(|column| rows.iter().map(|(_, cells)| cells.get(column).map_or(0, String::len)).max().unwrap_or(0))
        .collect();
    for (index, (label, cells)) in rows.iter().enumerate() {
        let _ = write!(out, "{label:<label_width$}");
        for (cell, width) in cells.iter().zip(&widths) {
            let _ = write!(out, "  {cell:>width$}");
        }
        out.push('\n');
        if index == 0 {
            let total = label_width + widths.iter().map(|width| width + 2).sum::<usize>();
            let _ = writeln!(out, "{}", "-".repeat(total));
        }
    }
    out.push('\n');
    for report in reports {
        let _ = writeln!(out, "{}: {}; {}", report.name, report.description, report.summary.recovery.description);
    }
    out
}
