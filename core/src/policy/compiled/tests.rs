use alloc::string::{String, ToString};
use alloc::vec::Vec;

use super::bytes::{crc32, HEADER_LEN};
use super::fields::Encoded;
use super::*;
use crate::dialects::profiles;
use crate::policy::config::{HedgingConfig, MAX_ATTEMPTS_LIMIT};
use crate::policy::retry_limits::RetryLimits;
use crate::policy::sets::Classification;
use crate::policy::status_rules::{StatusGuidance, StatusRules};
use crate::policy::validated::{AttemptTimeout, Backoff, Jitter, ServerGuidance};

/// Policies that between them use every variant and every optional field.
fn policies() -> Vec<Policy> {
    let mut policies: Vec<Policy> =
        profiles::NAMES.iter().map(|name| Policy::new(&profiles::profile(name).unwrap()).unwrap()).collect();
    let texts = [
        r#"{}"#,
        r#"{"attempt_timeout": {"fraction_of_remaining": 0.25}, "jitter": {"kind": "proportional", "ratio": 0.125}}"#,
        r#"{"jitter": {"kind": "polly", "use_jitter": false}, "backoff": {"base_ms": 200, "multiplier": 2}}"#,
        r#"{"jitter": {"kind": "additive", "max_ms": 1000}, "backoff": {"kind": "linear", "immediate_first_retry": true}}"#,
        r#"{"jitter": {"kind": "a6"}, "backoff": {"kind": "constant", "throttling_base_ms": 500}}"#,
        r#"{"jitter": {"kind": "full_then_cap"}, "retry_on": {"all_server_errors": true, "error_codes": ["aws_transient", "aws_throttling"], "http_statuses": [202, 429], "grpc_codes": ["unauthenticated", "cancelled"], "transport": ["timed_out"]}}"#,
        r#"{"jitter": {"kind": "decorrelated"}, "idempotency": "keyed", "hedging": {"delay_ms": 0, "max_hedged_attempts": 4}}"#,
        r#"{"jitter": {"kind": "equal"}, "idempotency": "unsafe", "retry_methods": ["GET", "QUERY"], "retry_limits": {"connect": 0, "other": 99}}"#,
        r#"{"jitter": {"kind": "none"}, "redelivery": {"delays_ms": [5000, 30000, 120000, 1, 2, 3, 4, 9007199254740991], "max_age_ms": 3600000}}"#,
        r#"{"server_guidance": {"honor": false, "cap_ms": 0, "above_cap": "clamp", "mode": "floor", "max_above_backoff_ms": 5000, "retry_after_reading": "lenient", "statuses": [{"status": 503, "requires_guidance": true, "cap_ms": 0}, {"status": 413, "honor": true, "above_cap": "give_up"}]}}"#,
        r#"{"server_guidance": {"mode": "replace", "headers": "retry_after"}, "ambiguous": {"http_statuses": [], "grpc_codes": []}, "conflict": {"http_statuses": [400, 599]}}"#,
        r#"{"max_attempts": 128, "total_timeout_ms": 9007199254740991, "attempt_timeout": {"fixed_ms": 9007199254740991}}"#,
    ];
    policies.extend(texts.iter().map(|text| Policy::from_json(text).unwrap_or_else(|e| panic!("{text}: {e}"))));
    policies
}

#[test]
fn every_policy_reads_back_equal() {
    for policy in policies() {
        let form = policy.to_compiled();
        assert_eq!(Policy::from_compiled(&form), Ok(policy), "{:?}", policy.to_config());
        assert_eq!(Policy::from_compiled(&form).unwrap().to_compiled(), form);
    }
}

#[test]
fn the_default_policys_form_is_pinned() {
    // A change here changes every form: raise FORM_VERSION with it (and
    // update the size on form.md).
    let form = Policy::default().to_compiled();
    let hex: String = form.iter().map(|byte| alloc::format!("{byte:02x}")).collect();
    assert_eq!(
        hex,
        "72707003de7f284a03904e00b81732640064d00fd00f00000106b40214460100008080010703900301011001b5028008000001e0d4030100000000000000000000000000140007"
    );
    assert_eq!(form.len(), 71);
}

/// `form` with its checksum made right for its bytes (a forgery, or the
/// compiler's bug: the body is then all that refuses it).
fn resealed(mut form: Vec<u8>) -> Vec<u8> {
    let sum = crc32(&[&form[..4], &form[HEADER_LEN..]]);
    form[4..HEADER_LEN].copy_from_slice(&sum.to_le_bytes());
    form
}

#[test]
fn what_is_not_an_intact_form_of_this_version_is_refused_with_its_code() {
    let form = Policy::default().to_compiled();
    let code = |bytes: &[u8]| Policy::from_compiled(bytes).unwrap_err().code();
    assert_eq!(code(b""), "not_a_compiled_form");
    assert_eq!(code(&form[..7]), "not_a_compiled_form");
    assert_eq!(code(b"{\"max_attempts\": 3}"), "not_a_compiled_form");
    let mut other_version = form.clone();
    other_version[3] = FORM_VERSION + 1;
    assert_eq!(
        Policy::from_compiled(&other_version),
        Err(CompiledFormError::Version {
            expected: FormKind::Policy,
            found: FORM_VERSION + 1,
            supported: FORM_VERSION
        })
    );
    let damaged = Err(CompiledFormError::Damaged { expected: FormKind::Policy, damage: Damage::Checksum });
    assert_eq!(Policy::from_compiled(&form[..form.len() - 1]), damaged);
    let mut longer = form.clone();
    longer.push(0);
    assert_eq!(Policy::from_compiled(&longer), damaged);
    let mut flipped = form.clone();
    flipped[20] ^= 0x10;
    assert_eq!(Policy::from_compiled(&flipped), damaged);
    // Intact but of another kind: a dependency's, or one this core does not know.
    let mut dependency = form.clone();
    dependency[2] = b'd';
    let error = Policy::from_compiled(&resealed(dependency)).unwrap_err();
    assert_eq!(error, CompiledFormError::Kind { expected: FormKind::Policy, found: Some(FormKind::Dependency) });
    assert_eq!(error.to_string(), "expected a compiled policy, got a compiled dependency");
    let mut unknown = form.clone();
    unknown[2] = b'x';
    assert_eq!(code(&resealed(unknown)), "compiled_form_kind");
    // Resealed: a byte after the body, a name out of its table.
    let error = Policy::from_compiled(&resealed(longer)).unwrap_err();
    let offset = form.len();
    let unreadable = CompiledFormError::Damaged { expected: FormKind::Policy, damage: Damage::Unreadable { offset } };
    assert_eq!(error, unreadable);
    assert_eq!(
        error.to_string(),
        alloc::format!(
            "the compiled policy is damaged (byte {offset} does not read as its form says): compile the policy again"
        )
    );
    assert_eq!(
        Policy::from_compiled(&flipped).unwrap_err().to_string(),
        "the compiled policy is damaged (its checksum does not match its bytes): compile the policy again"
    );
    assert!(Policy::from_compiled(b"rp").unwrap_err().to_string().starts_with("not a compiled policy: 2 bytes"));
    assert_eq!(error.message().to_string(), error.to_string());
}

#[test]
fn a_form_longer_than_the_limit_is_refused_before_anything_is_read_whatever_follows_its_first_bytes() {
    let too_long = Damage::Unreadable { offset: MAX_FORM_LEN };
    let mut form = Policy::default().to_compiled();
    form.resize(MAX_FORM_LEN + 1, 0);
    let refused = Err(CompiledFormError::Damaged { expected: FormKind::Policy, damage: too_long });
    assert_eq!(Policy::from_compiled(&form), refused);
    // Not a form at all, a longer one, or its first MAX_FORM_LEN + 1 bytes (all a bounded binding copies): one refusal.
    assert_eq!(Policy::from_compiled(&alloc::vec![b'x'; MAX_FORM_LEN + 1]), refused);
    form.resize(2 * MAX_FORM_LEN, 7);
    assert_eq!(Policy::from_compiled(&form), refused);
    assert_eq!(Policy::from_compiled(&form[..=MAX_FORM_LEN]), refused);
    let mut long_dependency = crate::DependencyConfig::default().to_compiled().unwrap();
    long_dependency.resize(MAX_FORM_LEN + 1, 0);
    assert_eq!(
        crate::Dependency::from_compiled(&long_dependency).map(|_| ()),
        Err(CompiledFormError::Damaged { expected: FormKind::Dependency, damage: too_long })
    );
    // At the limit, the form's own checks decide (here: the bytes after the body).
    form.truncate(MAX_FORM_LEN);
    assert_eq!(Policy::from_compiled(&form).unwrap_err().code(), "compiled_form_damaged");
    assert_ne!(Policy::from_compiled(&form), refused);
}

/// The rows of the body table on `form.md`: their field names, in order.
fn documented_fields() -> Vec<String> {
    let page = include_str!("form.md");
    let table = page.split("## Body of a policy").nth(1).unwrap().split("\n\n").nth(2).unwrap();
    table.lines().skip(2).map(|row| row.split('|').nth(2).unwrap().trim().trim_matches('`').to_string()).collect()
}

#[test]
fn the_page_lists_every_field_in_the_order_written() {
    let mut expected = Vec::new();
    for field in Policy::FIELDS {
        let parts = match *field {
            "backoff" => Backoff::FIELDS,
            "classification" => Classification::FIELDS,
            "server_guidance" => ServerGuidance::FIELDS,
            _ => &[],
        };
        if parts.is_empty() {
            expected.push(field.to_string());
        }
        expected.extend(parts.iter().map(|part| alloc::format!("{field}.{part}")));
    }
    assert_eq!(documented_fields(), expected);
    let page = include_str!("form.md");
    let row = |field: &str| page.lines().find(|line| line.contains(&alloc::format!("| `{field}` |"))).unwrap();
    let named_in_order = |row: &str, fields: &[&str]| {
        let places: Vec<usize> = fields.iter().map(|field| row.find(&alloc::format!("`{field}`")).unwrap()).collect();
        assert!(places.windows(2).all(|pair| pair[0] < pair[1]), "{row}");
    };
    named_in_order(row("server_guidance.statuses"), StatusGuidance::FIELDS);
    named_in_order(row("hedging"), HedgingConfig::FIELDS);
    // The tables of names the page spells out.
    let names = |all: &[&str]| all.iter().enumerate().map(|(i, n)| alloc::format!("`{n}` {i}")).collect::<Vec<_>>();
    use crate::ground::named::Named;
    let spelled =
        |row: &str, all: Vec<String>| all.iter().for_each(|name| assert!(row.contains(name), "{name}: {row}"));
    spelled(row("jitter"), names(&crate::policy::names::JitterKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>()));
    spelled(row("idempotency"), names(&crate::policy::Idempotency::ALL.iter().map(|k| k.name()).collect::<Vec<_>>()));
    spelled(row("backoff.kind"), names(&crate::policy::BackoffKind::ALL.iter().map(|k| k.name()).collect::<Vec<_>>()));
    spelled(
        row("server_guidance.mode"),
        names(&crate::policy::GuidanceMode::ALL.iter().map(|k| k.name()).collect::<Vec<_>>()),
    );
    spelled(
        row("server_guidance.above_cap"),
        names(&crate::policy::AboveCap::ALL.iter().map(|k| k.name()).collect::<Vec<_>>()),
    );
    let readings = crate::headers::retry_after::RetryAfterReading::ALL.iter().map(|k| k.name()).collect::<Vec<_>>();
    spelled(row("server_guidance.retry_after_reading"), names(&readings));
    let methods = crate::policy::RETRY_METHODS.join(", ");
    assert!(row("retry_methods").contains(&methods));
}

#[test]
fn dependencies_read_back_equal_and_forms_keep_to_their_kind() {
    use crate::controls::dependency::{Dependency, DependencyConfig};
    let texts = [
        r#"{}"#,
        r#"{"retry_slots": 3}"#,
        r#"{"budget": {"kind": "token_bucket", "max_tokens": 10, "token_ratio": 0.1}}"#,
        r#"{"budget": {"kind": "ratio", "retry_ratio": 0.05, "min_retries_per_second": 10, "window_ms": 10000}, "breaker": {"trip": {"kind": "consecutive", "failures": 5}, "open_ms": 1000, "half_open_probes": 1}}"#,
        r#"{"budget": {"kind": "quota", "capacity": 500, "retry_cost": 5, "timeout_retry_cost": 10, "success_increment": 1, "throttling_retry_cost": 5}, "breaker": {"trip": {"kind": "ratio", "failure_ratio": 0.5, "minimum_throughput": 20, "window_ms": 30000}, "open_ms": 5000, "half_open_probes": 2}, "retry_slots": 0}"#,
    ];
    let mut configs: Vec<DependencyConfig> =
        texts.iter().map(|text| DependencyConfig::from_json(text).unwrap_or_else(|e| panic!("{text}: {e}"))).collect();
    configs.push(crate::dialects::aws::standard_dependency());
    configs.push(crate::dialects::aws::standard_2026_dependency());
    for config in configs {
        let form = config.to_compiled().unwrap();
        assert_eq!(form[..4], [b'r', b'p', b'd', FORM_VERSION]);
        assert_eq!(DependencyConfig::from_compiled(&form), Ok(config));
        let dependency = Dependency::from_compiled(&form).unwrap();
        assert_eq!(dependency.snapshot(0), Dependency::new(&config).unwrap().snapshot(0));
        // A dependency's form is not a policy's, and the other way round.
        let error = Policy::from_compiled(&form).unwrap_err();
        assert_eq!(error.code(), "compiled_form_kind");
        let error = Dependency::from_compiled(&Policy::default().to_compiled()).unwrap_err();
        assert_eq!(error.to_string(), "expected a compiled dependency, got a compiled policy");
    }
    // Only a valid configuration compiles; a forged invalid one is refused as damaged.
    let invalid =
        DependencyConfig::from_json(r#"{"budget": {"kind": "token_bucket", "max_tokens": 0, "token_ratio": 0.1}}"#)
            .unwrap();
    assert_eq!(invalid.to_compiled().unwrap_err().code(), "config_violations");
    let mut body = Vec::new();
    invalid.write(&mut body);
    let forged = super::bytes::seal(FormKind::Dependency, FORM_VERSION, &body);
    assert_eq!(DependencyConfig::from_compiled(&forged), Ok(invalid));
    assert_eq!(
        Dependency::from_compiled(&forged).unwrap_err(),
        CompiledFormError::Damaged {
            expected: FormKind::Dependency,
            damage: Damage::Unreadable { offset: HEADER_LEN }
        }
    );
}

#[test]
fn the_page_lists_every_dependency_field() {
    use crate::controls::breaker::BreakerConfig;
    use crate::controls::dependency::DependencyConfig;
    let page = include_str!("form.md");
    let table = page.split("## Body of a dependency").nth(1).unwrap().split("\n\n").nth(2).unwrap();
    let rows: Vec<&str> =
        table.lines().skip(2).map(|row| row.split('|').nth(2).unwrap().trim().trim_matches('`')).collect();
    assert_eq!(rows, DependencyConfig::FIELDS);
    let breaker = table.lines().find(|row| row.contains("| `breaker` |")).unwrap();
    let places: Vec<usize> =
        BreakerConfig::FIELDS.iter().map(|field| breaker.find(&alloc::format!("`{field}`")).unwrap()).collect();
    assert!(places.windows(2).all(|pair| pair[0] < pair[1]), "{breaker}");
}

#[test]
fn times_above_max_ms_are_refused_where_they_start() {
    // total_timeout_ms (the second field) as 2^53: refused where it starts.
    let form = Policy::default().to_compiled();
    let over = Policy { total_timeout_ms: crate::ground::units::MAX_MS + 1, ..Policy::default() };
    let forged = over.to_compiled();
    let offset = (HEADER_LEN..).find(|at| form.get(*at) != forged.get(*at)).unwrap();
    assert_eq!(offset, HEADER_LEN + 1, "the second field starts after the first's one byte");
    let damaged = CompiledFormError::Damaged { expected: FormKind::Policy, damage: Damage::Unreadable { offset } };
    assert_eq!(Policy::from_compiled(&forged), Err(damaged));
}

/// Found in review: a forged form (its checksum made right) could hold a
/// policy outside the ranges the engine relies on, or hedging with
/// `idempotency = unsafe`. Each case is a rule of `Policy::new`, and the
/// reader refuses it where the field starts (a rule between fields: at the
/// body's first byte).
#[test]
fn a_forged_form_keeps_every_fields_range_and_the_hedging_rule() {
    use crate::policy::config::Idempotency;
    use crate::policy::validated::RedeliverySchedule;
    let hedged =
        Policy::from_json(r#"{"idempotency": "keyed", "hedging": {"delay_ms": 10, "max_hedged_attempts": 2}}"#)
            .unwrap();
    let redelivered = Policy::from_json(r#"{"redelivery": {"delays_ms": [100, 200], "max_age_ms": 5000}}"#).unwrap();
    let proportional = Policy::from_json(r#"{"jitter": {"kind": "proportional", "ratio": 0.5}}"#).unwrap();
    let fraction = Policy::from_json(r#"{"attempt_timeout": {"fraction_of_remaining": 0.5}}"#).unwrap();
    let ruled = Policy::from_json(r#"{"server_guidance": {"statuses": [{"status": 503}, {"status": 429}]}}"#).unwrap();
    let base = Policy::default();
    type Forge = fn(&mut Policy);
    let cases: [(&str, Policy, Forge); 18] = [
        ("max_attempts 0", base, |p| p.max_attempts = 0),
        ("max_attempts 129", base, |p| p.max_attempts = MAX_ATTEMPTS_LIMIT + 1),
        ("total_timeout_ms 0", base, |p| p.total_timeout_ms = 0),
        ("attempt_timeout.fixed_ms 0", base, |p| p.attempt_timeout = AttemptTimeout::Fixed { ms: 0 }),
        ("fraction 0", fraction, |p| p.attempt_timeout = AttemptTimeout::FractionOfRemaining { permille: 0 }),
        ("fraction above 1", fraction, |p| p.attempt_timeout = AttemptTimeout::FractionOfRemaining { permille: 1001 }),
        ("multiplier 0", base, |p| p.backoff.multiplier_permille = 0),
        ("multiplier above the most", base, |p| p.backoff.multiplier_permille = 1_000_000_001),
        ("jitter ratio 0", proportional, |p| p.jitter = Jitter::Proportional { ratio_permille: 0 }),
        ("jitter ratio above 1", proportional, |p| p.jitter = Jitter::Proportional { ratio_permille: 1001 }),
        ("grpc ok retried", base, |p| p.classification.retry_grpc.insert(crate::ground::codes::GrpcCode::Ok)),
        ("status rule 700", ruled, |p| {
            let mut rules = StatusRules::default();
            p.server_guidance.statuses.iter().for_each(|rule| _ = rules.push(StatusGuidance { status: 700, ..rule }));
            p.server_guidance.statuses = rules;
        }),
        ("status rule twice", ruled, |p| {
            let mut rules = StatusRules::default();
            p.server_guidance.statuses.iter().for_each(|rule| _ = rules.push(StatusGuidance { status: 503, ..rule }));
            p.server_guidance.statuses = rules;
        }),
        ("retry limit 100", base, |p| {
            p.retry_limits = RetryLimits::from_limits([None, Some(MAX_ATTEMPTS_LIMIT), None, None]);
        }),
        ("no hedges", hedged, |p| p.hedging = Some(HedgingConfig { delay_ms: 10, max_hedged_attempts: 0 })),
        ("5 hedges", hedged, |p| p.hedging = Some(HedgingConfig { delay_ms: 10, max_hedged_attempts: 5 })),
        ("no redelivery delays", redelivered, |p| {
            p.redelivery = Some(RedeliverySchedule { delays_ms: [0; 8], len: 0, max_age_ms: 5000 });
        }),
        ("hedging an unsafe request", hedged, |p| p.idempotency = Idempotency::Unsafe),
    ];
    for (name, valid, forge) in cases {
        let form = valid.to_compiled();
        assert_eq!(Policy::from_compiled(&form), Ok(valid), "{name}");
        let mut policy = valid;
        forge(&mut policy);
        // A rule of `Policy::new`: only a forgery (or a compiler's bug) writes it.
        assert!(Policy::new(&policy.to_config()).is_err(), "{name}");
        let forged = policy.to_compiled();
        let first_change = (HEADER_LEN..).find(|at| form.get(*at) != forged.get(*at)).unwrap();
        let offset = if name == "hedging an unsafe request" { HEADER_LEN } else { first_change };
        let refused = CompiledFormError::Damaged { expected: FormKind::Policy, damage: Damage::Unreadable { offset } };
        assert_eq!(Policy::from_compiled(&forged), Err(refused), "{name}");
    }
}
