//! The browser playground's wasm: the CLI's `check`, `explain` and
//! `simulate` (with the CLI's own chart) over the text a person types into a
//! static page.
//!
//! Nothing is decided here. Every problem comes from the CLI's file reader
//! (the core's `check` underneath, with its did-you-mean suggestions), the
//! timeline from [`retryplan::explain`], the fleet run from the CLI's
//! simulator and its SVG from the CLI's chart. This crate only bounds the
//! input (text length, simulation size, so a run finishes in the page in
//! about a second) and turns results into JSON for `main.js`.

pub mod timeline_chart;

use retryplan_cli::file::{self, FileError, Plan, Problem, Selection};
use retryplan_cli::simulate::{self, VariantName};
use retryplan_cli::{chart, explain, report};
use serde::Serialize;
use serde_json::json;
use wasm_bindgen::prelude::wasm_bindgen;

/// The longest text the page accepts, in bytes (the CLI reads any size).
pub const MAX_TEXT_BYTES: usize = 64 * 1024;
/// The most logical operations one variant may simulate in the page
/// (`arrivals_per_second` × `duration_ms`); the CLI's limit is far higher.
pub const MAX_OPERATIONS: u64 = 100_000;
/// The most attempts all five variants ([`VariantName::ALL`]) could make if
/// every operation used every attempt (`operations × (4 × max_attempts +
/// max_attempts^layers)`; `3 × max_attempts + 2 × max_attempts^layers` when
/// every layer of the propagated variant retries): the page simulates about a
/// million attempts a second.
pub const MAX_WORST_CASE_ATTEMPTS: u64 = 1_500_000;
/// The most clients the page simulates (each holds its own controls).
pub const MAX_CLIENTS: u32 = 20;
/// The deepest layered variant the page simulates.
pub const MAX_LAYERS: u32 = 3;

/// What `check` answers: every problem at once, or what the file holds.
#[derive(Debug, Serialize)]
struct Checked {
    ok: bool,
    /// Every problem, each with its dotted field path.
    problems: Vec<Problem>,
    /// What the file holds (`policy`, `profiles.NAME`, `dependency`, `scenario`).
    sections: Vec<String>,
    /// The names of the file's profiles, for the page's profile menu.
    profiles: Vec<String>,
}

/// One problem at the whole text (`field` empty).
fn problem(field: &str, message: impl Into<String>) -> Problem {
    Problem { field: field.to_owned(), message: message.into() }
}

/// The problems of a file the reader refused; a usage error (a profile the
/// file lacks) is reported at `profile`.
fn problems_of(error: FileError) -> Vec<Problem> {
    match error {
        FileError::Invalid(problems) => problems,
        FileError::Usage(message) => vec![problem("profile", message)],
        FileError::Io(message) => vec![problem("", message)],
    }
}

/// Reads the text as the CLI reads a file; `all_profiles` checks every
/// profile (as `check` does without `--profile`).
fn load(text: &str, profile: Option<&str>, all_profiles: bool) -> Result<Plan, Vec<Problem>> {
    if text.len() > MAX_TEXT_BYTES {
        return Err(vec![problem(
            "",
            format!(
                "the text is {} bytes; the playground reads at most {MAX_TEXT_BYTES} (the CLI reads any size)",
                text.len()
            ),
        )]);
    }
    let profile = profile.filter(|name| !name.is_empty());
    file::load(text, &Selection { profile, all_profiles: all_profiles && profile.is_none() }).map_err(problems_of)
}

fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string(value).unwrap_or_else(|error| {
        json!({"ok": false, "problems": [{"field": "", "message": format!("cannot write JSON: {error}")}]}).to_string()
    })
}

fn refused(problems: Vec<Problem>) -> String {
    to_json(&json!({"ok": false, "problems": problems}))
}

/// `retryplan check`: every problem of the text at once, each with its field
/// path and rule, as JSON `{ok, problems: [{field, message}], sections, profiles}`.
#[wasm_bindgen]
#[must_use]
pub fn check(text: &str) -> String {
    match load(text, None, true) {
        Ok(plan) => {
            let profiles = plan
                .sections
                .iter()
                .filter_map(|section| section.strip_prefix("profiles."))
                .map(str::to_owned)
                .collect();
            to_json(&Checked { ok: true, problems: Vec::new(), sections: plan.sections, profiles })
        }
        Err(problems) => to_json(&Checked { ok: false, problems, sections: Vec::new(), profiles: Vec::new() }),
    }
}

/// `retryplan explain [--deadline-ms N] [--first-attempt-at-ms N]`: the
/// chosen policy's worst-case timeline (the core's JSON), its warnings in
/// words, the CLI's table and the timeline drawn as SVG, as JSON
/// `{ok, source, timeline, warnings, table, svg}`; or `{ok: false, problems}`.
#[wasm_bindgen]
#[must_use]
pub fn explain(
    text: &str,
    profile: Option<String>,
    deadline_ms: Option<u32>,
    first_attempt_at_ms: Option<u32>,
) -> String {
    let plan = match load(text, profile.as_deref(), false) {
        Ok(plan) => plan,
        Err(problems) => return refused(problems),
    };
    let timeline = match explain::timeline(&plan, deadline_ms.map(u64::from), first_attempt_at_ms.map_or(0, u64::from))
    {
        Ok(timeline) => timeline,
        Err(error) => {
            let field = match &error {
                retryplan::Error::InvalidArgument { field, .. } => *field,
                _ => "",
            };
            return refused(vec![Problem::new(field, error.to_string())]);
        }
    };
    let warnings: Vec<String> = timeline.warnings.iter().map(ToString::to_string).collect();
    let table = explain::render(&plan.policy_source, &timeline);
    let svg = timeline_chart::svg(&plan.policy_source, &timeline);
    to_json(&json!({
        "ok": true, "source": plan.policy_source, "timeline": timeline, "warnings": warnings, "table": table, "svg": svg,
    }))
}

/// Problems that keep the file's scenario from running in the page, each at
/// its field; empty when it fits.
fn too_large(plan: &Plan, scenario: &retryplan_cli::scenario::Scenario) -> Vec<Problem> {
    let config = &scenario.config;
    let mut problems = Vec::new();
    let operations = config.arrivals_per_second * config.duration_ms as f64 / 1000.0;
    let attempts = f64::from(plan.policy.max_attempts());
    let worst_case = operations * worst_case_attempts_per_operation(plan, config.layers);
    if operations > MAX_OPERATIONS as f64 {
        problems.push(problem(
            "scenario.arrivals_per_second",
            format!(
                "{} operations/s for {} ms is {operations:.0} operations per variant; the playground simulates at most {MAX_OPERATIONS} (about a second in the page): lower arrivals_per_second or duration_ms, or run `retryplan simulate` for the full size",
                config.arrivals_per_second, config.duration_ms
            ),
        ));
    }
    if config.clients > MAX_CLIENTS {
        problems.push(problem(
            "scenario.clients",
            format!("{} clients; the playground simulates at most {MAX_CLIENTS}", config.clients),
        ));
    }
    if config.layers > MAX_LAYERS {
        problems.push(problem(
            "scenario.layers",
            format!("{} layers; the playground simulates at most {MAX_LAYERS}", config.layers),
        ));
    }
    if problems.is_empty() && worst_case > MAX_WORST_CASE_ATTEMPTS as f64 {
        problems.push(problem(
            "scenario",
            format!(
                "{operations:.0} operations of up to {attempts} attempts ({attempts}^{} in the layered variant{}) could make {worst_case:.0} attempts in the {} variants; the playground simulates at most {MAX_WORST_CASE_ATTEMPTS}: lower arrivals_per_second, duration_ms, layers or max_attempts, or run `retryplan simulate`",
                config.layers,
                if every_layer_retries(plan) { " and the propagated one, every layer retrying" } else { "" },
                VariantName::ALL.len(),
            ),
        ));
    }
    problems
}

/// The attempts one operation could make at the dependency in all the
/// variants the page runs ([`VariantName::ALL`]), if each used every attempt.
fn worst_case_attempts_per_operation(plan: &Plan, layers: u32) -> f64 {
    let attempts = f64::from(plan.policy.max_attempts());
    let layered = attempts.powf(f64::from(layers));
    VariantName::ALL
        .iter()
        .map(|variant| match variant {
            VariantName::AsWritten | VariantName::NoJitter | VariantName::NoBudget => attempts,
            VariantName::Layered => layered,
            // Only the outermost layer retries, unless the policy says every layer does.
            VariantName::Propagated if every_layer_retries(plan) => layered,
            VariantName::Propagated => attempts,
        })
        .sum()
}

/// Whether every layer of the propagated variant retries (`retry_layer` `every`).
fn every_layer_retries(plan: &Plan) -> bool {
    plan.policy.propagation().retry_layer == retryplan::policy::RetryLayer::Every
}

/// `retryplan simulate`: every variant through the file's scenario with the
/// CLI's simulator, its summary table and its SVG chart, as JSON
/// `{ok, table, svg, attempts, variants: [{name, summary}]}`; or
/// `{ok: false, problems}` (including a scenario too large for the page).
#[wasm_bindgen]
#[must_use]
pub fn simulate(text: &str, profile: Option<String>, seed: u32) -> String {
    let seed = u64::from(seed);
    let plan = match load(text, profile.as_deref(), false) {
        Ok(plan) => plan,
        Err(problems) => return refused(problems),
    };
    let Some(scenario) = plan.scenario.clone() else {
        return refused(vec![problem("scenario", "simulate needs a `scenario` (arrivals, capacity, phases)")]);
    };
    let bounds = too_large(&plan, &scenario);
    if !bounds.is_empty() {
        return refused(bounds);
    }
    let variants = match simulate::variants(&plan, &scenario, &VariantName::ALL) {
        Ok(variants) => variants,
        Err(message) => {
            // The CLI's message starts with its field: `scenario.layers: ...`.
            let (field, rule) = message.split_once(": ").unwrap_or(("", message.as_str()));
            return refused(vec![problem(field, rule)]);
        }
    };
    let result = match simulate::run(&plan, &scenario, &variants, seed, &mut |_, _| {}) {
        Ok(result) => result,
        Err(error) => return refused(vec![problem("", format!("internal error (a simulator bug): {}", error.0))]),
    };
    let svg = match chart::svg(&plan.policy_source, &scenario, seed, &result.variants) {
        Ok(svg) => svg,
        Err(error) => return refused(vec![problem("", format!("cannot draw the chart: {error}"))]),
    };
    let table = report::table(&scenario, seed, &result.variants);
    let attempts: u64 = result.variants.iter().map(|variant| variant.summary.attempts).sum();
    let variants: Vec<_> =
        result.variants.iter().map(|variant| json!({"name": variant.name, "summary": variant.summary})).collect();
    to_json(&json!({"ok": true, "table": table, "svg": svg, "attempts": attempts, "variants": variants}))
}

/// The page's bounds, for its notes: `{max_text_bytes, max_operations,
/// max_worst_case_attempts, max_clients, max_layers}`.
#[wasm_bindgen]
#[must_use]
pub fn limits() -> String {
    to_json(&json!({
        "max_text_bytes": MAX_TEXT_BYTES,
        "max_operations": MAX_OPERATIONS,
        "max_worst_case_attempts": MAX_WORST_CASE_ATTEMPTS,
        "max_clients": MAX_CLIENTS,
        "max_layers": MAX_LAYERS,
    }))
}

#[cfg(test)]
mod tests;
