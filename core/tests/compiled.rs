//! Compiled policies under damage: whatever bytes `Policy::from_compiled`
//! is handed (random, cut short, a bit flipped, or a forged body with its
//! checksum made right), it answers without a panic; damage is refused;
//! and a forged policy that does read runs an operation without a panic.

// A test, a benchmark or an example: a panic is its failure report (the workspace denies these elsewhere).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use proptest::prelude::*;
use retryplan::engine::backoff::backoff_ceilings_ms;
use retryplan::ground::codes::{GrpcCode, TransportFailure};
use retryplan::ground::message::Rule;
use retryplan::headers::retry_after::Pushback;
use retryplan::policy::compiled::FORM_VERSION;
use retryplan::{
    dialects::profiles, explain, CompiledFormError, Dependency, DependencyConfig, Error, Operation, OperationOptions,
    Outcome, Policy, Verdict,
};

/// CRC-32 (zlib's), written here again so the test does not trust the core's.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for byte in bytes {
        crc ^= u32::from(*byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// `form` with the checksum its header and body call for.
fn resealed(mut form: Vec<u8>) -> Vec<u8> {
    if form.len() >= 8 {
        let mut covered = form[..4].to_vec();
        covered.extend_from_slice(&form[8..]);
        form[4..8].copy_from_slice(&crc32(&covered).to_le_bytes());
    }
    form
}

/// Every built-in profile's policy, and a few that use the rarer sections.
fn policies() -> Vec<Policy> {
    let mut policies: Vec<Policy> = profiles::NAMES
        .iter()
        .map(|name| Policy::new(&profiles::profile(name).expect("a profile")).expect("valid"))
        .collect();
    for text in [
        r#"{"server_guidance": {"statuses": [{"status": 503, "requires_guidance": true, "cap_ms": 0}]}, "retry_methods": ["GET"], "retry_limits": {"read": 1}}"#,
        r#"{"hedging": {"delay_ms": 50, "max_hedged_attempts": 2}, "redelivery": {"delays_ms": [100, 200], "max_age_ms": 5000}}"#,
        r#"{"attempt_timeout": {"fraction_of_remaining": 0.5}, "jitter": {"kind": "additive", "max_ms": 300}}"#,
    ] {
        policies.push(Policy::from_json(text).expect("valid"));
    }
    policies
}

/// The rules of `Policy::new` between fields that `Policy::from_compiled`
/// does not check (the compiler does; `form.md` says why the engine needs
/// none of them). Every other rule holds for whatever a forged form reads as.
const LEFT_TO_THE_COMPILER: [Rule; 14] = [
    Rule::NoAttemptFits,
    Rule::FixedTimeoutTooShort,
    Rule::PollyBaseRange,
    Rule::PollyMultiplier,
    Rule::CapBelowBase,
    Rule::BaseZero,
    Rule::ThrottlingBaseAboveCap,
    Rule::ThrottlingBaseZero,
    Rule::DecorrelatedNeedsBase,
    Rule::ConflictNotError,
    Rule::ConflictAlsoRetried,
    Rule::RetriedNotError,
    Rule::GrpcConflictAlsoRetried,
    Rule::AboveBackoffNeedsFloor,
];

/// The rules `Policy::new` finds broken in `policy` as configuration.
fn violated_rules(policy: &Policy) -> Vec<Rule> {
    match Policy::new(&policy.to_config()) {
        Ok(_) => Vec::new(),
        Err(Error::ConfigViolations { violations, .. }) => violations.iter().map(|v| v.message.rule()).collect(),
        Err(error) => panic!("{error}"),
    }
}

#[test]
fn the_rules_left_to_the_compiler_are_rules() {
    // Each is broken by a forged policy, so the list names no rule that cannot be.
    let mut seen = Vec::new();
    let forgeries = [
        r#"{"total_timeout_ms": 100, "response_reserve_ms": 50, "minimum_useful_attempt_ms": 50}"#,
        r#"{"attempt_timeout": {"fixed_ms": 10}, "minimum_useful_attempt_ms": 50}"#,
        r#"{"jitter": {"kind": "polly"}, "backoff": {"base_ms": 86400001, "cap_ms": 86400001, "multiplier": 3}}"#,
        r#"{"backoff": {"base_ms": 200, "cap_ms": 100}}"#,
        r#"{"backoff": {"base_ms": 0, "throttling_base_ms": 0, "cap_ms": 100}, "jitter": {"kind": "decorrelated"}}"#,
        r#"{"backoff": {"throttling_base_ms": 5000}}"#,
        r#"{"conflict": {"http_statuses": [302, 503]}, "retry_on": {"http_statuses": [301, 503]}}"#,
        r#"{"conflict": {"grpc_codes": ["unavailable"]}}"#,
        r#"{"server_guidance": {"mode": "a6", "max_above_backoff_ms": 5}}"#,
    ];
    for text in forgeries {
        let config = retryplan::PolicyConfig::from_json(text).expect("reads");
        match Policy::new(&config) {
            Err(Error::ConfigViolations { violations, .. }) => seen.extend(violations.iter().map(|v| v.message.rule())),
            other => panic!("{text}: {other:?}"),
        }
    }
    for rule in LEFT_TO_THE_COMPILER {
        assert!(seen.contains(&rule), "{rule:?}");
    }
}

fn outcome(pick: u8, delay_ms: u64) -> Outcome {
    match pick % 7 {
        0 => Outcome::Success,
        1 => Outcome::HttpStatus {
            status: [429, 500, 503, 409, 404][usize::from(pick / 7) % 5],
            retry_after_ms: Some(delay_ms),
            error_code: None,
        },
        2 => Outcome::GrpcStatus { code: GrpcCode::Unavailable, pushback: Some(Pushback::RetryAfterMs(delay_ms)) },
        3 => Outcome::Transport { failure: TransportFailure::ConnectionLost, retry_after_ms: None },
        4 => Outcome::Transport { failure: TransportFailure::NotSent, retry_after_ms: Some(delay_ms) },
        5 => Outcome::Application { verdict: Verdict::Retryable },
        _ => Outcome::Cancelled,
    }
}

/// Runs `policy` through an operation fed `picks`, and its other readers: no panic.
fn exercise(policy: &Policy, picks: &[(u8, u64)]) {
    let _ = policy.to_config();
    let _ = explain(policy, None, 0);
    let _ = backoff_ceilings_ms(policy, 5);
    let mut operation = Operation::new(policy, 1_000, OperationOptions::new(7));
    let mut now = 1_000u64;
    let mut decision = operation.poll(now);
    for (pick, delay_ms) in picks {
        now = now.saturating_add(*delay_ms % 5_000);
        decision = match decision {
            Ok(retryplan::Decision::StartAttempt { attempt, .. }) => {
                operation.on_outcome(now, attempt, &outcome(*pick, *delay_ms))
            }
            Ok(retryplan::Decision::Wait { until_ms, .. }) => operation.poll(until_ms.max(now)),
            _ => return,
        };
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3_000, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_are_refused(bytes in proptest::collection::vec(any::<u8>(), 0..120), header in any::<bool>()) {
        let form = if header { [b"rpp".as_slice(), &[FORM_VERSION], &bytes].concat() } else { bytes };
        // A random checksum matches once in 2^32.
        let answer = Policy::from_compiled(&form);
        prop_assert!(answer.is_err(), "{:?}", answer);
        // Random bytes under a right checksum: refused, or a policy; never a panic.
        if let Ok(policy) = Policy::from_compiled(&resealed(form)) {
            exercise(&policy, &[(1, 100), (3, 0), (5, 7)]);
        }
    }

    #[test]
    fn damage_is_refused(which in 0usize..12, cut in any::<prop::sample::Index>(), bit in any::<prop::sample::Index>()) {
        let policies = policies();
        let form = policies[which % policies.len()].to_compiled();
        // Cut short anywhere.
        let short = &form[..cut.index(form.len())];
        prop_assert!(Policy::from_compiled(short).is_err());
        // One bit flipped anywhere: CRC-32 catches every single-bit error.
        let bit = bit.index(form.len() * 8);
        let mut flipped = form.clone();
        flipped[bit / 8] ^= 1 << (bit % 8);
        let error = Policy::from_compiled(&flipped).unwrap_err();
        let expected = match bit / 8 {
            0 | 1 => "not_a_compiled_form",
            3 => "compiled_form_version",
            _ => "compiled_form_damaged",
        };
        prop_assert_eq!(error.code(), expected, "{}", error);
    }

    #[test]
    fn forged_bodies_read_or_are_refused_and_never_panic(
        which in 0usize..12,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in proptest::option::of(any::<prop::sample::Index>()),
        picks in proptest::collection::vec((any::<u8>(), 0u64..70_000), 0..12),
    ) {
        let policies = policies();
        let mut form = policies[which % policies.len()].to_compiled();
        for (at, byte) in &edits {
            let at = 8 + at.index(form.len() - 8);
            form[at] = *byte;
        }
        if let Some(cut) = cut {
            form.truncate(8 + cut.index(form.len() - 8));
        }
        match Policy::from_compiled(&resealed(form)) {
            Ok(policy) => {
                // It reads back as it reads: its own form is stable.
                prop_assert_eq!(Policy::from_compiled(&policy.to_compiled()), Ok(policy));
                // It breaks no rule of `Policy::new` but those the reader leaves to the compiler.
                for rule in violated_rules(&policy) {
                    prop_assert!(LEFT_TO_THE_COMPILER.contains(&rule), "{:?}: {:?}", rule, policy.to_config());
                }
                exercise(&policy, &picks);
            }
            Err(error) => prop_assert!(
                matches!(error, CompiledFormError::Damaged { .. }),
                "{:?}", error
            ),
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1_000, ..ProptestConfig::default() })]

    #[test]
    fn forged_dependency_bodies_build_controls_or_are_refused(
        which in 0usize..3,
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let configs = [
            retryplan::dialects::aws::standard_dependency(),
            retryplan::dialects::aws::standard_2026_dependency(),
            DependencyConfig::from_json(r#"{"budget": {"kind": "ratio", "retry_ratio": 0.1, "min_retries_per_second": 5, "window_ms": 10000}, "breaker": {"trip": {"kind": "ratio", "failure_ratio": 0.5, "minimum_throughput": 20, "window_ms": 30000}, "open_ms": 5000, "half_open_probes": 2}, "retry_slots": 4}"#).expect("valid"),
        ];
        let mut form = configs[which].to_compiled().expect("valid");
        for (at, byte) in &edits {
            let at = 8 + at.index(form.len() - 8);
            form[at] = *byte;
        }
        match Dependency::from_compiled(&resealed(form)) {
            Ok(dependency) => {
                let _ = dependency.snapshot(0);
                let policy = Policy::default();
                let options = OperationOptions::new(3).with_dependency(dependency);
                let mut operation = Operation::new(&policy, 0, options);
                let _ = operation.poll(0);
                let _ = operation.on_outcome(10, 1, &Outcome::Transport { failure: TransportFailure::NotSent, retry_after_ms: None });
                let _ = operation.poll(5_000);
            }
            Err(error) => prop_assert!(matches!(error, CompiledFormError::Damaged { .. }), "{:?}", error),
        }
    }
}

#[test]
fn every_profile_compiles_to_a_small_form() {
    for (name, policy) in profiles::NAMES.iter().zip(policies()) {
        let form = policy.to_compiled();
        assert_eq!(Policy::from_compiled(&form), Ok(policy), "{name}");
        // The form carries every field (no defaults): a bound, not a benchmark.
        assert!(form.len() < 128, "{name}: {} bytes", form.len());
    }
}

/// The default policy's form with `max_attempts` (its first field, the
/// body's first byte) written as `max_attempts` in LEB128, checksum made right.
fn default_with_max_attempts(max_attempts: u64) -> Vec<u8> {
    let form = Policy::default().to_compiled();
    assert!(Policy::default().max_attempts() < 0x80, "one byte in the default form");
    let mut forged = form[..8].to_vec();
    let mut value = max_attempts;
    while value >= 0x80 {
        forged.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    forged.push(value as u8);
    forged.extend_from_slice(&form[9..]);
    resealed(forged)
}

/// Found by fuzz/compiled: a forged body (its checksum made right) with
/// `max_attempts` 132,106,879, which `explain` walked attempt by attempt for
/// minutes. The reader keeps the bounds the engine's work relies on.
#[test]
fn a_forged_form_cannot_ask_for_more_attempts_than_any_policy_makes() {
    let error = Policy::from_compiled(&default_with_max_attempts(132_106_879)).unwrap_err();
    assert_eq!(error.code(), "compiled_form_damaged");
    assert_eq!(
        error.to_string(),
        "the compiled policy is damaged (byte 8 does not read as its form says): compile the policy again"
    );
    // At the bound it reads; one above, or none, it does not.
    let read = |max_attempts| Policy::from_compiled(&default_with_max_attempts(max_attempts)).map(|p| p.max_attempts());
    assert_eq!(read(128), Ok(128));
    assert_eq!(read(1), Ok(1));
    assert!(read(129).is_err());
    assert!(read(0).is_err());
}
