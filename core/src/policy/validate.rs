//! Validation: [`Policy::new`] checks every rule of a [`PolicyConfig`] and
//! reports all violations at once, each naming its field; nothing is clamped.

use super::config::RetryLayer;
use super::config::{
    AboveCap, AttemptTimeoutConfig, BackoffConfig, BackoffKind, GuidanceHeaders, GuidanceMode, Idempotency,
    JitterConfig, PolicyConfig, HEDGED_ATTEMPTS, MAX_ATTEMPTS, MAX_MULTIPLIER, MAX_REDELIVERY_DELAYS,
    POLLY_MAX_BASE_MS,
};
use super::retry_limits::{MethodSet, RetryLimits};
use super::sets::{Classification, GrpcCodeSet, HttpStatusSet, TransportSet, SERVER_ERRORS};
use super::status_rules::StatusRules;
use super::validated::{
    AttemptTimeout, Backoff, HeaderFamilies, Jitter, Policy, Propagation, RedeliverySchedule, ServerGuidance,
};
use alloc::vec::Vec;

use crate::config::error::{ConfigKind, Error, Violation};
use crate::config::value::{item, Bounded};
use crate::ground::codes::GrpcCode;
use crate::ground::message::{message, Message};
use crate::ground::named::Named;
use crate::ground::units::{permille_of, MAX_MS};
use crate::headers::retry_after::RetryAfterReading;

impl Default for Policy {
    fn default() -> Self {
        // The default configuration is valid (a unit test checks it), so the
        // fallback is never used; it only avoids a panic path.
        Policy::new(&PolicyConfig::default()).unwrap_or_else(|_| unreachable_default())
    }
}

#[cold]
fn unreachable_default() -> Policy {
    Policy {
        max_attempts: 1,
        total_timeout_ms: 1,
        attempt_timeout: AttemptTimeout::Fixed { ms: 1 },
        response_reserve_ms: 0,
        minimum_useful_attempt_ms: 0,
        backoff: Backoff {
            kind: BackoffKind::Constant,
            base_ms: 0,
            multiplier_permille: 1000,
            cap_ms: 0,
            throttling_base_ms: None,
            immediate_first_retry: false,
        },
        jitter: Jitter::None,
        classification: Classification::default(),
        server_guidance: ServerGuidance {
            honor: false,
            cap_ms: 0,
            above_cap: AboveCap::GiveUp,
            mode: GuidanceMode::Floor,
            retry_after_reading: RetryAfterReading::Strict,
            statuses: StatusRules::default(),
            max_above_backoff_ms: None,
            headers: GuidanceHeaders::All,
        },
        retry_limits: RetryLimits::default(),
        retry_methods: None,
        idempotency: Idempotency::Unsafe,
        hedging: None,
        redelivery: None,
        propagation: Propagation {
            reserve_ms: 0,
            retry_layer: RetryLayer::Every,
            read_headers: HeaderFamilies::default(),
        },
    }
}

/// Polly's own rules when `jitter.kind` is `polly`: `Delay` in [0, 1 day],
/// the exponential factor fixed at 2; a zero base and a cap below the base
/// are valid (Polly gives 0, and the cap). `throttling_base_ms`, Polly's
/// `Delay` after a throttling error, follows the same rules as `base_ms`.
fn check_polly(check: &mut Checker, backoff: &BackoffConfig) {
    let one_day = POLLY_MAX_BASE_MS;
    let bases =
        [("backoff.base_ms", Some(backoff.base_ms)), ("backoff.throttling_base_ms", backoff.throttling_base_ms)];
    for (field, base_ms) in bases {
        if let Some(base_ms) = base_ms.filter(|base_ms| *base_ms > one_day) {
            check.fail(field, message!(PollyBaseRange, field, base_ms, one_day));
        }
    }
    if backoff.kind == BackoffKind::Exponential && backoff.multiplier != 2.0 {
        check.fail("backoff.multiplier", message!(PollyMultiplier, backoff.multiplier));
    }
}

/// Collects violations while validating.
struct Checker {
    violations: Vec<Violation>,
}

impl Checker {
    fn fail(&mut self, field: &str, message: Message) {
        self.violations.push(Violation::new(field, message));
    }

    /// A whole number outside its field's range, in the words its reader uses too.
    fn bounded(&mut self, field: &str, bounded: Bounded, value: u32) {
        self.violations.extend(bounded.check(field, value.into()));
    }

    fn ms(&mut self, field: &str, value: u64) {
        if value > MAX_MS {
            self.fail(field, message!(MsAboveMax, alloc::string::String::from(field), value, MAX_MS));
        }
    }

    /// A decimal with at most three decimals in `[low, high]`, as thousandths.
    fn permille(&mut self, field: &str, value: f64, low: f64, high: f64, open_low: bool) -> u32 {
        permille_of(value, low, high, open_low).unwrap_or_else(|rule| {
            self.fail(field, rule.message(field, value));
            1000
        })
    }

    fn http_set(&mut self, field: &'static str, statuses: &[u16]) -> HttpStatusSet {
        let mut set = HttpStatusSet::default();
        for (index, status) in statuses.iter().enumerate() {
            if (100..=599).contains(status) {
                set.insert(*status);
            } else {
                // The item, as a reading error names it (`retry_on.http_statuses[1]`).
                self.fail(&item(field, index), message!(StatusOutOfRange, field, index, *status));
            }
        }
        set
    }
}

/// Each item of `list` with its index, the first of equal items only: a
/// violation of an item names its first place as written.
fn first_places<T: PartialEq>(list: &[T]) -> impl Iterator<Item = (usize, &T)> {
    list.iter().enumerate().filter(move |(index, value)| !list.iter().take(*index).any(|earlier| earlier == *value))
}

fn grpc_set(codes: &[GrpcCode]) -> GrpcCodeSet {
    let mut set = GrpcCodeSet::default();
    for code in codes {
        set.insert(*code);
    }
    set
}

impl Policy {
    /// Validates a configuration. Every broken rule is reported in
    /// [`Error::ConfigViolations`] naming a policy, each naming its field.
    ///
    /// # Errors
    /// [`Error::ConfigViolations`] listing every rule the configuration
    /// breaks (a value out of its range, fields that contradict each other),
    /// each with its dotted field path.
    pub fn new(config: &PolicyConfig) -> Result<Policy, Error> {
        let mut check = Checker { violations: Vec::new() };
        let c = config;

        check.bounded("max_attempts", MAX_ATTEMPTS, c.max_attempts);
        if c.total_timeout_ms == 0 {
            check.fail("total_timeout_ms", message!(TotalTimeoutZero));
        }
        check.ms("total_timeout_ms", c.total_timeout_ms);
        check.ms("response_reserve_ms", c.response_reserve_ms);
        check.ms("minimum_useful_attempt_ms", c.minimum_useful_attempt_ms);
        let before_first_attempt = c.response_reserve_ms.saturating_add(c.minimum_useful_attempt_ms);
        if c.total_timeout_ms > 0 && before_first_attempt >= c.total_timeout_ms {
            check.fail(
                "total_timeout_ms",
                message!(NoAttemptFits, c.total_timeout_ms, c.response_reserve_ms, c.minimum_useful_attempt_ms),
            );
        }

        let attempt_timeout = match c.attempt_timeout {
            AttemptTimeoutConfig::FixedMs(ms) => {
                check.ms("attempt_timeout.fixed_ms", ms);
                if ms == 0 {
                    check.fail("attempt_timeout.fixed_ms", message!(AtLeastOne, "attempt_timeout.fixed_ms", 0u64));
                } else if ms < c.minimum_useful_attempt_ms {
                    check.fail(
                        "attempt_timeout.fixed_ms",
                        message!(FixedTimeoutTooShort, ms, c.minimum_useful_attempt_ms),
                    );
                }
                AttemptTimeout::Fixed { ms }
            }
            AttemptTimeoutConfig::FractionOfRemaining(fraction) => AttemptTimeout::FractionOfRemaining {
                permille: check.permille("attempt_timeout.fraction_of_remaining", fraction, 0.0, 1.0, true),
            },
        };

        let b = &c.backoff;
        check.ms("backoff.base_ms", b.base_ms);
        check.ms("backoff.cap_ms", b.cap_ms);
        let polly = matches!(c.jitter, JitterConfig::Polly { .. });
        if polly {
            check_polly(&mut check, b);
        } else if b.cap_ms < b.base_ms && b.cap_ms != 0 {
            // A cap of 0 is got's `backoffLimit: 0`: every backoff is 0, whatever the base.
            check.fail("backoff.cap_ms", message!(CapBelowBase, b.cap_ms, b.base_ms));
        }
        let multiplier_permille = check.permille("backoff.multiplier", b.multiplier, 0.0, MAX_MULTIPLIER, true);
        if !polly && b.kind != BackoffKind::Constant && b.base_ms == 0 {
            check.fail("backoff.base_ms", message!(BaseZero, b.kind.name()));
        }
        if let Some(throttling_base_ms) = b.throttling_base_ms.filter(|_| !polly) {
            check.ms("backoff.throttling_base_ms", throttling_base_ms);
            if throttling_base_ms > b.cap_ms && b.cap_ms != 0 {
                check
                    .fail("backoff.throttling_base_ms", message!(ThrottlingBaseAboveCap, throttling_base_ms, b.cap_ms));
            }
            if throttling_base_ms == 0 && (b.kind != BackoffKind::Constant || c.jitter == JitterConfig::Decorrelated) {
                check.fail("backoff.throttling_base_ms", message!(ThrottlingBaseZero));
            }
        }

        let jitter = match c.jitter {
            JitterConfig::None => Jitter::None,
            JitterConfig::Full => Jitter::Full,
            JitterConfig::Equal => Jitter::Equal,
            JitterConfig::Decorrelated => {
                if b.base_ms == 0 {
                    check.fail("jitter.kind", message!(DecorrelatedNeedsBase));
                }
                Jitter::Decorrelated
            }
            JitterConfig::Proportional { ratio } => {
                Jitter::Proportional { ratio_permille: check.permille("jitter.ratio", ratio, 0.0, 1.0, true) }
            }
            JitterConfig::Polly { use_jitter } => Jitter::Polly { use_jitter },
            JitterConfig::A6 => Jitter::A6,
            JitterConfig::FullThenCap => Jitter::FullThenCap,
            JitterConfig::Additive { max_ms } => {
                check.ms("jitter.max_ms", max_ms);
                Jitter::Additive { max_ms }
            }
        };

        let mut classification = Classification {
            retry_http: check.http_set("retry_on.http_statuses", &c.retry_on.http_statuses),
            retry_grpc: grpc_set(&c.retry_on.grpc_codes),
            retry_transport: {
                let mut set = TransportSet::default();
                for failure in &c.retry_on.transport {
                    set.insert(*failure);
                }
                set
            },
            ambiguous_http: check.http_set("ambiguous.http_statuses", &c.ambiguous.http_statuses),
            ambiguous_grpc: grpc_set(&c.ambiguous.grpc_codes),
            conflict_http: check.http_set("conflict.http_statuses", &c.conflict.http_statuses),
            conflict_grpc: grpc_set(&c.conflict.grpc_codes),
            retry_error_codes: crate::config::error_code::ErrorCodeTables::of(&c.retry_on.error_codes),
            retry_all_server_errors: c.retry_on.all_server_errors,
        };
        if c.retry_on.all_server_errors {
            // A listed conflict stays a conflict: it is redone, not repeated.
            for status in SERVER_ERRORS.filter(|status| !classification.conflict_http.contains(*status)) {
                classification.retry_http.insert(status);
            }
        }
        // Each of these is about one item, so it names the item (its first
        // place in the list as written), as a reading error does.
        let conflicts = first_places(&c.conflict.http_statuses).filter(|(_, status)| (100..=599).contains(*status));
        for (index, &status) in conflicts {
            let field = item("conflict.http_statuses", index);
            if status < 400 {
                check.fail(&field, message!(ConflictNotError, &field, status));
            }
            if classification.retry_http.contains(status) {
                check.fail(&field, message!(ConflictAlsoRetried, &field, status));
            }
        }
        // A 2xx may be retried: polling a 202 until the work is done (urllib3's
        // `status_forcelist` takes any status). 1xx are interim and 3xx are the
        // HTTP client's to follow. (`all_server_errors` adds only 5xx.)
        let success = |status: &u16| (100..200).contains(status) || (300..400).contains(status);
        for (index, &status) in first_places(&c.retry_on.http_statuses).filter(|(_, status)| success(status)) {
            let field = item("retry_on.http_statuses", index);
            check.fail(&field, message!(RetriedNotError, &field, status));
        }
        for (index, code) in first_places(&c.conflict.grpc_codes) {
            if classification.retry_grpc.contains(*code) {
                let field = item("conflict.grpc_codes", index);
                check.fail(&field, message!(GrpcConflictAlsoRetried, &field, code.name()));
            }
        }
        for (list, codes) in [
            ("retry_on.grpc_codes", &c.retry_on.grpc_codes),
            ("ambiguous.grpc_codes", &c.ambiguous.grpc_codes),
            ("conflict.grpc_codes", &c.conflict.grpc_codes),
        ] {
            if let Some(index) = codes.iter().position(|code| *code == GrpcCode::Ok) {
                let field = item(list, index);
                check.fail(&field, message!(GrpcOkListed, &field));
            }
        }

        check.ms("server_guidance.cap_ms", c.server_guidance.cap_ms);
        if let Some(above_ms) = c.server_guidance.max_above_backoff_ms {
            check.ms("server_guidance.max_above_backoff_ms", above_ms);
            if c.server_guidance.mode != GuidanceMode::Floor {
                check.fail(
                    "server_guidance.max_above_backoff_ms",
                    message!(AboveBackoffNeedsFloor, c.server_guidance.mode.name()),
                );
            }
        }
        let g = &c.server_guidance;
        let statuses = StatusRules::new(&g.statuses, (g.honor, g.cap_ms, g.above_cap), &mut check.violations);
        let retry_limits = RetryLimits::new(&c.retry_limits, &mut check.violations);
        let retry_methods = c.retry_methods.as_ref().map(|methods| MethodSet::new(methods, &mut check.violations));
        if let Some(hedging) = c.hedging {
            check.ms("hedging.delay_ms", hedging.delay_ms);
            check.bounded("hedging.max_hedged_attempts", HEDGED_ATTEMPTS, hedging.max_hedged_attempts);
            if c.idempotency == Idempotency::Unsafe {
                check.fail("hedging", message!(HedgingUnsafe));
            }
        }

        let redelivery = c.redelivery.as_ref().map(|config| {
            let count = config.delays_ms.len();
            if !(1..=MAX_REDELIVERY_DELAYS).contains(&count) {
                check.fail("redelivery.delays_ms", message!(RedeliveryDelays, count, MAX_REDELIVERY_DELAYS));
            }
            let mut delays_ms = [0; MAX_REDELIVERY_DELAYS];
            for (index, delay) in config.delays_ms.iter().enumerate() {
                check.ms(&item("redelivery.delays_ms", index), *delay);
                if let Some(slot) = delays_ms.get_mut(index) {
                    *slot = *delay;
                }
            }
            check.ms("redelivery.max_age_ms", config.max_age_ms);
            RedeliverySchedule { delays_ms, len: count.min(MAX_REDELIVERY_DELAYS), max_age_ms: config.max_age_ms }
        });

        check.ms("propagation.reserve_ms", c.propagation.reserve_ms);
        let propagation = Propagation {
            reserve_ms: c.propagation.reserve_ms,
            retry_layer: c.propagation.retry_layer,
            read_headers: HeaderFamilies::of(&c.propagation.read_headers),
        };

        if !check.violations.is_empty() {
            return Err(Error::ConfigViolations { config: ConfigKind::Policy, violations: check.violations });
        }
        Ok(Policy {
            max_attempts: c.max_attempts,
            total_timeout_ms: c.total_timeout_ms,
            attempt_timeout,
            response_reserve_ms: c.response_reserve_ms,
            minimum_useful_attempt_ms: c.minimum_useful_attempt_ms,
            backoff: Backoff {
                kind: b.kind,
                base_ms: b.base_ms,
                multiplier_permille,
                cap_ms: b.cap_ms,
                throttling_base_ms: b.throttling_base_ms,
                immediate_first_retry: b.immediate_first_retry,
            },
            jitter,
            classification,
            server_guidance: ServerGuidance {
                honor: c.server_guidance.honor,
                cap_ms: c.server_guidance.cap_ms,
                above_cap: c.server_guidance.above_cap,
                retry_after_reading: c.server_guidance.retry_after_reading,
                statuses,
                mode: c.server_guidance.mode,
                max_above_backoff_ms: c.server_guidance.max_above_backoff_ms,
                headers: c.server_guidance.headers,
            },
            retry_limits,
            retry_methods,
            idempotency: c.idempotency,
            hedging: c.hedging,
            redelivery,
            propagation,
        })
    }

    #[cfg(feature = "json")]
    /// Reads and validates a policy from JSON text. Reading errors name the
    /// field path ([`Error::InvalidConfig`]); rule violations come as
    /// [`Error::ConfigViolations`].
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] when the text is not JSON or a field cannot
    /// be read (an unknown field, a wrong type), naming its dotted path;
    /// [`Error::ConfigViolations`] as [`Policy::new`].
    pub fn from_json(json: &str) -> Result<Policy, Error> {
        Policy::new(&PolicyConfig::from_json(json)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_config_is_valid_and_round_trips() {
        let config = PolicyConfig::default();
        let policy = Policy::new(&config).expect("default is valid");
        assert_eq!(policy, Policy::default());
        assert_eq!(policy.to_config(), config);
        let json = config.to_json();
        assert_eq!(PolicyConfig::from_json(&json).expect("round trip"), config);
    }

    #[test]
    fn every_dialect_field_round_trips() {
        use super::super::config::{RetryLimitsConfig, StatusGuidanceConfig};
        let mut config = PolicyConfig::default();
        config.backoff.base_ms = 50;
        config.backoff.cap_ms = 20_000;
        config.backoff.throttling_base_ms = Some(1_000);
        config.backoff.immediate_first_retry = true;
        config.jitter = JitterConfig::FullThenCap;
        config.server_guidance.retry_after_reading = RetryAfterReading::Lenient;
        config.server_guidance.statuses = vec![StatusGuidanceConfig {
            status: 503,
            honor: Some(true),
            requires_guidance: true,
            cap_ms: Some(10_000),
            above_cap: Some(AboveCap::Clamp),
        }];
        config.server_guidance.max_above_backoff_ms = Some(5_000);
        config.retry_limits = RetryLimitsConfig { connect: Some(2), read: None, status: Some(1), other: Some(0) };
        config.retry_methods = Some(vec!["GET".to_owned(), "POST".to_owned()]);
        let policy = Policy::new(&config).expect("valid");
        assert_eq!(policy.to_config(), config);
        assert_eq!(PolicyConfig::from_json(&config.to_json()).expect("round trip"), config);

        // The other side of each choice: polly with a throttling base, mode replace.
        config.jitter = JitterConfig::Polly { use_jitter: true };
        config.server_guidance.mode = GuidanceMode::Replace;
        config.server_guidance.max_above_backoff_ms = None;
        let policy = Policy::new(&config).expect("valid");
        assert_eq!(policy.to_config(), config);
        assert_eq!(PolicyConfig::from_json(&config.to_json()).expect("round trip"), config);
    }

    #[test]
    fn every_violation_is_reported_with_its_field() {
        let mut config = PolicyConfig::default();
        config.max_attempts = 0;
        config.backoff.base_ms = 200;
        config.backoff.cap_ms = 100;
        config.backoff.multiplier = 2.0005;
        config.jitter = JitterConfig::Proportional { ratio: f64::NAN };
        config.retry_on.http_statuses = vec![503, 700];
        let Err(Error::ConfigViolations { config: ConfigKind::Policy, violations }) = Policy::new(&config) else {
            panic!("expected invalid policy");
        };
        let fields: Vec<&str> = violations.iter().map(|v| v.field.as_str()).collect();
        // A bad item of a list is named by its own path, as a reading error names it.
        assert_eq!(
            fields,
            ["max_attempts", "backoff.cap_ms", "backoff.multiplier", "jitter.ratio", "retry_on.http_statuses[1]"]
        );
        assert_eq!(violations[1].message, "backoff.cap_ms (100) must be >= backoff.base_ms (200)");
        assert_eq!(violations[4].message, "retry_on.http_statuses[1] (700) must be an HTTP status in 100..=599");
    }

    #[test]
    fn a_violation_of_one_item_names_the_item_at_its_first_place_as_written() {
        let mut config = PolicyConfig::default();
        config.retry_on.http_statuses = vec![503, 304, 304];
        config.retry_on.grpc_codes = vec![GrpcCode::Unavailable, GrpcCode::Ok];
        config.conflict.http_statuses = vec![409, 302, 302, 503];
        config.conflict.grpc_codes = vec![GrpcCode::Aborted, GrpcCode::Unavailable];
        let Err(Error::ConfigViolations { violations, .. }) = Policy::new(&config) else { panic!("expected invalid") };
        let said: Vec<(&str, String)> = violations.iter().map(|v| (v.field.as_str(), v.message.to_string())).collect();
        assert_eq!(
            said,
            [
                ("conflict.http_statuses[1]", "conflict.http_statuses[1] (302) must be an error status (>= 400)".into()),
                (
                    "conflict.http_statuses[3]",
                    "conflict.http_statuses[3] (503) must not also be in retry_on.http_statuses: a conflict is redone, \
                     not repeated"
                        .into()
                ),
                (
                    "retry_on.http_statuses[1]",
                    "retry_on.http_statuses[1] (304) must be a 2xx (polled again) or an error status (>= 400): 1xx \
                     and 3xx count as success"
                        .into()
                ),
                (
                    "conflict.grpc_codes[1]",
                    "conflict.grpc_codes[1] (unavailable) must not also be in retry_on.grpc_codes".into()
                ),
                ("retry_on.grpc_codes[1]", "retry_on.grpc_codes[1] (ok) must not be listed: it counts as success".into()),
            ]
        );
    }

    #[test]
    fn budget_must_leave_room_for_one_attempt() {
        let mut config = PolicyConfig::default();
        config.total_timeout_ms = 150;
        config.response_reserve_ms = 50;
        config.minimum_useful_attempt_ms = 100;
        let error = Policy::new(&config).unwrap_err();
        assert!(error.to_string().contains("no attempt could ever start"), "{error}");
    }
}
