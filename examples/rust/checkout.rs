//! The 800 ms checkout: prints a policy's worst-case timeline, then runs one
//! operation against a scripted dependency and prints every decision.
//!
//! ```text
//! cargo run -p retryplan-repository --example checkout [POLICY.json]
//! ```

use std::process::ExitCode;

use retryplan::tools::timeline::TimelineStep;
use retryplan::{explain, Decision, IdempotencyKey, Operation, OperationOptions, Outcome, Policy};

const DEFAULT_POLICY: &str = include_str!("../policies/checkout.json");

fn main() -> ExitCode {
    let (name, text) = match std::env::args().nth(1) {
        Some(path) => match std::fs::read_to_string(&path) {
            Ok(text) => (path, text),
            Err(error) => {
                eprintln!("cannot read {path}: {error}");
                return ExitCode::from(2);
            }
        },
        None => ("examples/policies/checkout.json".to_owned(), DEFAULT_POLICY.to_owned()),
    };
    let policy = match Policy::from_json(&text) {
        Ok(policy) => policy,
        Err(error) => {
            eprintln!("{name}: {error}");
            return ExitCode::from(2);
        }
    };

    // The first attempt starts 50 ms in (time spent getting a connection).
    let timeline = match explain(&policy, None, 50) {
        Ok(timeline) => timeline,
        Err(error) => {
            eprintln!("{name}: {error}");
            return ExitCode::from(2);
        }
    };
    println!("Policy {name}: worst case against a {} ms deadline", timeline.deadline_ms);
    for step in &timeline.steps {
        match *step {
            TimelineStep::Attempt { attempt, start_ms, timeout_ms, end_ms } => {
                println!("  {start_ms:>6} ms  attempt {attempt} runs up to {timeout_ms} ms (until {end_ms} ms)");
            }
            TimelineStep::Wait { retry, start_ms, min_delay_ms, max_delay_ms, .. } => {
                // `retry` counts retries from 0; people count waits from 1, as the CLI does.
                let (wait, next) = (retry.saturating_add(1), retry.saturating_add(2));
                println!("  {start_ms:>6} ms  wait {wait}, before attempt {next}: {min_delay_ms}..={max_delay_ms} ms");
            }
        }
    }
    println!("  ends with: {}", serde_json::to_string(&timeline.ending).unwrap_or_default());
    for warning in &timeline.warnings {
        println!("  warning: {warning}");
    }

    println!("\nOne checkout against a dependency that answers 503, then 503 with Retry-After: 0.1 s:");
    let key = IdempotencyKey::new("order-5001").unwrap_or_else(|_| unreachable!("a valid literal key"));
    // The caller's own key; the fixed seed 42 makes this run repeatable (a real client's
    // jitter comes from `OperationOptions::from_entropy`, or the key with it).
    let mut operation = Operation::new(&policy, 0, OperationOptions::new(42).with_idempotency_key(key));
    let replies = [
        (200, Outcome::HttpStatus { status: 503, retry_after_ms: None, error_code: None }),
        (200, Outcome::HttpStatus { status: 503, retry_after_ms: Some(100), error_code: None }),
    ];
    let mut now_ms = 50;
    let mut replies = replies.iter();
    let mut decision = operation.poll(now_ms);
    loop {
        let current = match decision {
            Ok(current) => current,
            Err(error) => {
                eprintln!("engine error: {error}");
                return ExitCode::FAILURE;
            }
        };
        println!("  {now_ms:>6} ms  {}", serde_json::to_string(&current).unwrap_or_default());
        decision = match current {
            Decision::StartAttempt { attempt, timeout_ms, .. } => {
                let Some((took_ms, outcome)) = replies.next() else { break };
                now_ms += (*took_ms).min(timeout_ms);
                println!(
                    "  {now_ms:>6} ms  attempt {attempt} -> {}",
                    serde_json::to_string(outcome).unwrap_or_default()
                );
                operation.on_outcome(now_ms, attempt, outcome)
            }
            Decision::Wait { until_ms, .. } | Decision::AwaitOutcome { until_ms, .. } => {
                now_ms = until_ms;
                operation.poll(now_ms)
            }
            _ => break,
        };
    }
    println!("  idempotency key on every attempt: {}", operation.idempotency_key());
    ExitCode::SUCCESS
}
