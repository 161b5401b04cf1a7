#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use serde_json::Value;

use super::{check, explain, limits, simulate, MAX_OPERATIONS, MAX_TEXT_BYTES, MAX_WORST_CASE_ATTEMPTS};

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("the wrapper always answers JSON")
}

/// `field: message` for every problem of an answer.
fn problems(answer: &Value) -> Vec<(String, String)> {
    assert_eq!(answer["ok"], false, "{answer}");
    answer["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|problem| (problem["field"].as_str().unwrap().to_owned(), problem["message"].as_str().unwrap().to_owned()))
        .collect()
}

const SMALL_PLAN: &str = r#"{
  "policy": {
    "max_attempts": 3, "total_timeout_ms": 800, "attempt_timeout": {"fixed_ms": 200},
    "response_reserve_ms": 50, "minimum_useful_attempt_ms": 100,
    "backoff": {"kind": "exponential", "base_ms": 50, "multiplier": 2.0, "cap_ms": 400},
    "jitter": {"kind": "full"}
  },
  "dependency": {"budget": {"kind": "ratio", "retry_ratio": 0.1, "min_retries_per_second": 5, "window_ms": 10000}},
  "scenario": {
    "duration_ms": 10000, "bucket_ms": 1000, "arrivals_per_second": 200, "clients": 4,
    "capacity": {"workers": 8, "queue_limit": 256},
    "service_time": {"kind": "exponential", "mean_ms": 20}, "layers": 2,
    "phases": [{"kind": "outage", "from_ms": 3000, "to_ms": 5000, "failure": "timeout"}]
  }
}"#;

#[test]
fn check_reports_every_problem_by_field_with_a_suggestion_and_never_panics() {
    let text =
        r#"{"max_attempt": 3, "jitter": "full", "backoff": {"kind": "exponential", "base_ms": 500, "cap_ms": 100}}"#;
    let found = problems(&parse(&check(text)));
    let fields: Vec<&str> = found.iter().map(|(field, _)| field.as_str()).collect();
    assert!(fields.contains(&"max_attempt"), "{found:?}");
    assert!(fields.contains(&"jitter"), "{found:?}");
    assert!(fields.iter().any(|field| field.starts_with("backoff")), "{found:?}");
    assert!(found.iter().any(|(_, message)| message.contains("max_attempts")), "no suggestion: {found:?}");

    // Not JSON, not an object, empty: problems at the whole text, no panic.
    for text in ["{", "[1, 2]", "", "\"policy\"", "{\"policy\": {\"max_attempts\": 1e400}}"] {
        assert!(!problems(&parse(&check(text))).is_empty(), "{text}");
    }
}

#[test]
fn a_valid_plan_checks_explains_and_simulates() {
    let checked = parse(&check(SMALL_PLAN));
    assert_eq!(checked["ok"], true, "{checked}");
    assert_eq!(checked["sections"], serde_json::json!(["policy", "dependency", "scenario"]));

    let explained = parse(&explain(SMALL_PLAN, None, None, None));
    assert_eq!(explained["ok"], true, "{explained}");
    let fit = explained["timeline"]["attempts_that_fit"].as_u64().unwrap();
    let svg = explained["svg"].as_str().unwrap();
    assert_eq!(svg.matches("data-attempt=").count() as u64, fit);
    assert!(explained["table"].as_str().unwrap().contains("attempt 1"));

    let simulated = parse(&simulate(SMALL_PLAN, None, 1));
    assert_eq!(simulated["ok"], true, "{simulated}");
    assert_eq!(simulated["variants"].as_array().unwrap().len(), 5);
    assert!(simulated["attempts"].as_u64().unwrap() > 0);
    assert!(simulated["svg"].as_str().unwrap().starts_with("<svg"));
    // The same seed gives the same run.
    assert_eq!(simulate(SMALL_PLAN, None, 1), simulate(SMALL_PLAN, None, 1));
}

#[test]
fn fewer_attempts_draw_fewer_bars() {
    let two = SMALL_PLAN.replacen("\"max_attempts\": 3", "\"max_attempts\": 2", 1);
    let answer = parse(&explain(&two, None, None, None));
    assert_eq!(answer["svg"].as_str().unwrap().matches("data-attempt=").count(), 2);
}

#[test]
fn a_caller_deadline_cuts_the_timeline_and_warns_in_words() {
    let answer = parse(&explain(SMALL_PLAN, None, Some(400), Some(20)));
    assert_eq!(answer["timeline"]["deadline_ms"], 400);
    assert_eq!(answer["timeline"]["first_attempt_at_ms"], 20);
    let fit = answer["timeline"]["attempts_that_fit"].as_u64().unwrap();
    assert!(fit < 3, "{answer}");
    assert_eq!(answer["svg"].as_str().unwrap().matches("data-attempt=").count() as u64, fit);
    let warnings = answer["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|warning| warning.as_str().unwrap().contains("only")), "{warnings:?}");
}

#[test]
fn inputs_past_the_page_bounds_are_refused_by_field() {
    let long = format!("{{\"policy\": {{}}, \"padding\": \"{}\"}}", "x".repeat(MAX_TEXT_BYTES));
    let found = problems(&parse(&check(&long)));
    assert!(found[0].1.contains("at most"), "{found:?}");

    let big = SMALL_PLAN.replacen("\"arrivals_per_second\": 200", "\"arrivals_per_second\": 20000", 1);
    let found = problems(&parse(&simulate(&big, None, 1)));
    assert_eq!(found[0].0, "scenario.arrivals_per_second");
    assert!(found[0].1.contains(&MAX_OPERATIONS.to_string()), "{found:?}");

    let persistent = SMALL_PLAN.replacen("\"max_attempts\": 3", "\"max_attempts\": 40", 1);
    let found = problems(&parse(&simulate(&persistent, None, 1)));
    assert_eq!(found[0].0, "scenario");
    assert!(found[0].1.contains("40^2 in the layered variant"), "{found:?}");

    let crowded = SMALL_PLAN.replacen("\"clients\": 4", "\"clients\": 500", 1);
    assert_eq!(problems(&parse(&simulate(&crowded, None, 1)))[0].0, "scenario.clients");

    let no_scenario = r#"{"policy": {"max_attempts": 2}}"#;
    assert_eq!(problems(&parse(&simulate(no_scenario, None, 1)))[0].0, "scenario");
    assert_eq!(problems(&parse(&explain(no_scenario, Some("missing".to_owned()), None, None)))[0].0, "profile");
    assert_eq!(parse(&limits())["max_operations"], MAX_OPERATIONS);
}

#[test]
fn the_attempt_bound_counts_each_of_the_five_variants() {
    // 80,000 operations of up to 3 attempts, 2 layers: 3 + 3 + 3 + 9 + 3 = 21 attempts each
    // (1,680,000), past the bound; without the propagated variant it would be 1,440,000.
    let busy = SMALL_PLAN.replacen("\"arrivals_per_second\": 200", "\"arrivals_per_second\": 8000", 1);
    let found = problems(&parse(&simulate(&busy, None, 1)));
    assert_eq!(found[0].0, "scenario", "{found:?}");
    assert!(found[0].1.contains("1680000 attempts in the 5 variants"), "{found:?}");
    assert!(found[0].1.contains(&MAX_WORST_CASE_ATTEMPTS.to_string()), "{found:?}");
    // 60,000 operations: 1,260,000 attempts fit; with every layer of the propagated
    // variant retrying it is 9 there too (27 per operation, 1,620,000): refused.
    let fits = SMALL_PLAN.replacen("\"arrivals_per_second\": 200", "\"arrivals_per_second\": 6000", 1);
    let every = fits.replacen(
        "\"jitter\": {\"kind\": \"full\"}",
        "\"jitter\": {\"kind\": \"full\"}, \"propagation\": {\"retry_layer\": \"every\"}",
        1,
    );
    assert_ne!(every, fits);
    let found = problems(&parse(&simulate(&every, None, 1)));
    assert_eq!(found[0].0, "scenario", "{found:?}");
    assert!(found[0].1.contains("and the propagated one, every layer retrying"), "{found:?}");
    assert!(found[0].1.contains("1620000 attempts"), "{found:?}");
    assert_eq!(parse(&check(&fits))["ok"], true);
}
