//! The one reader of a policy: [`PolicyConfig::from_value`] (and JSON text,
//! and serde's `Deserialize` for every config type) with its defaults,
//! unknown-field refusal and dotted error paths; and the writer back to a
//! [`Value`] or JSON.

use alloc::string::String;
use alloc::vec::Vec;

use super::config::{
    AttemptTimeoutConfig, BackoffConfig, HedgingConfig, JitterConfig, PolicyConfig, PropagationConfig,
    RedeliveryConfig, RetryLimitsConfig, RetryOnConfig, ServerGuidanceConfig, StatusGuidanceConfig, StatusSetConfig,
};
use super::config::{HEDGED_ATTEMPTS, HTTP_STATUS, MAX_ATTEMPTS, RETRY_LIMIT};
use super::names::JitterKind;
use crate::config::error::Error;

use crate::config::value::{
    expected, join, list, one_of, optional, read_duration_ms, read_error, read_name, tagged, Fields, FromValue, Value,
};
use crate::ground::message::{message, Rule};
use crate::ground::named::Named;

/// The fields of a policy object, in the order `to_json` writes them.
const POLICY_FIELDS: &[&str] = &[
    "max_attempts",
    "total_timeout_ms",
    "attempt_timeout",
    "response_reserve_ms",
    "minimum_useful_attempt_ms",
    "backoff",
    "jitter",
    "retry_on",
    "ambiguous",
    "conflict",
    "server_guidance",
    "retry_limits",
    "retry_methods",
    "idempotency",
    "hedging",
    "redelivery",
    "propagation",
];

/// The old name of `total_timeout_ms`, read for one release ("budget" names
/// the retry budget only).
const TOTAL_TIMEOUT_OLD_NAME: &str = "total_budget_ms";

impl PolicyConfig {
    /// Reads a configuration from a [`Value`] without validating its rules:
    /// absent fields take their defaults, unknown fields are refused, and a
    /// list is accepted only where the schema has one. Errors name the dotted
    /// path of the field being read. `total_timeout_ms` may be given under
    /// its old name, `total_budget_ms`, but not under both.
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a policy (what every field reader's
    /// error names, so nothing re-tags it here).
    pub fn from_value(value: &Value) -> Result<PolicyConfig, Error> {
        let mut config = PolicyConfig::default();
        let fields = Fields::with_old_names(value, "", POLICY_FIELDS, &[TOTAL_TIMEOUT_OLD_NAME])?;
        // Each present field replaces its default; `Fields::new` refused any other key.
        for (key, item) in fields.entries() {
            let path = fields.path(key);
            let path = path.as_str();
            match key {
                "max_attempts" => config.max_attempts = MAX_ATTEMPTS.read(item, path)?,
                "total_timeout_ms" => config.total_timeout_ms = read_duration_ms(item, path)?,
                TOTAL_TIMEOUT_OLD_NAME if fields.get("total_timeout_ms").is_some() => {
                    let message = message!(BothOldAndNewName, "total_timeout_ms", TOTAL_TIMEOUT_OLD_NAME);
                    return Err(read_error(path, message));
                }
                TOTAL_TIMEOUT_OLD_NAME => config.total_timeout_ms = read_duration_ms(item, path)?,
                "attempt_timeout" => config.attempt_timeout = read_attempt_timeout(item, path)?,
                "response_reserve_ms" => config.response_reserve_ms = u64::from_value(item, path)?,
                "minimum_useful_attempt_ms" => config.minimum_useful_attempt_ms = u64::from_value(item, path)?,
                "backoff" => config.backoff = read_backoff(item, path)?,
                "jitter" => config.jitter = read_jitter(item, path)?,
                "retry_on" => config.retry_on = read_retry_on(item, path)?,
                "ambiguous" => config.ambiguous = read_status_set(item, path)?,
                "conflict" => config.conflict = read_status_set(item, path)?,
                "server_guidance" => config.server_guidance = read_server_guidance(item, path)?,
                "retry_limits" => config.retry_limits = read_retry_limits(item, path)?,
                "retry_methods" => config.retry_methods = optional(item, path, read_methods)?,
                "idempotency" => config.idempotency = read_name(item, path)?,
                "hedging" => config.hedging = optional(item, path, read_hedging)?,
                "redelivery" => config.redelivery = optional(item, path, read_redelivery)?,
                "propagation" => config.propagation = read_propagation(item, path)?,
                _ => {}
            }
        }
        Ok(config)
    }

    /// The configuration as a [`Value`] (what `to_json` prints).
    #[must_use]
    pub fn to_value(&self) -> Value {
        // Plain data with string keys: serializing it cannot fail.
        Value::from_serialize(self).unwrap_or(Value::Null)
    }
}

#[cfg(feature = "json")]
impl PolicyConfig {
    /// Reads a configuration from JSON text without validating its rules (see
    /// [`PolicyConfig::from_value`]).
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a policy and the dotted path of the field being read.
    pub fn from_json(json: &str) -> Result<PolicyConfig, Error> {
        PolicyConfig::from_value(&Value::from_json(json)?)
    }

    /// The configuration as pretty-printed JSON.
    #[must_use]
    pub fn to_json(&self) -> String {
        self.to_value().to_json()
    }
}

fn read_attempt_timeout(value: &Value, path: &str) -> Result<AttemptTimeoutConfig, Error> {
    let (key, inner) = one_of(value, path, &["fixed_ms", "fraction_of_remaining"])?;
    let path = join(path, key);
    Ok(if key == "fixed_ms" {
        AttemptTimeoutConfig::FixedMs(read_duration_ms(inner, &path)?)
    } else {
        AttemptTimeoutConfig::FractionOfRemaining(f64::from_value(inner, &path)?)
    })
}

fn read_backoff(value: &Value, path: &str) -> Result<BackoffConfig, Error> {
    let defaults = BackoffConfig::default();
    let fields = Fields::new(
        value,
        path,
        &["kind", "base_ms", "multiplier", "cap_ms", "throttling_base_ms", "immediate_first_retry"],
    )?;
    Ok(BackoffConfig {
        kind: fields.with("kind", defaults.kind, read_name)?,
        base_ms: fields.or("base_ms", defaults.base_ms)?,
        multiplier: fields.or("multiplier", defaults.multiplier)?,
        cap_ms: fields.or("cap_ms", defaults.cap_ms)?,
        throttling_base_ms: fields.optional("throttling_base_ms", u64::from_value)?,
        immediate_first_retry: fields.or("immediate_first_retry", defaults.immediate_first_retry)?,
    })
}

fn read_jitter(value: &Value, path: &str) -> Result<JitterConfig, Error> {
    let (kind, fields) = tagged(value, path, |kind: JitterKind| match kind {
        JitterKind::Proportional => &["kind", "ratio"],
        JitterKind::Polly => &["kind", "use_jitter"],
        JitterKind::Additive => &["kind", "max_ms"],
        _ => &["kind"],
    })?;
    Ok(match kind {
        JitterKind::None => JitterConfig::None,
        JitterKind::Full => JitterConfig::Full,
        JitterKind::Equal => JitterConfig::Equal,
        JitterKind::Decorrelated => JitterConfig::Decorrelated,
        JitterKind::Proportional => JitterConfig::Proportional { ratio: fields.required("ratio")? },
        JitterKind::Polly => JitterConfig::Polly { use_jitter: fields.or("use_jitter", true)? },
        JitterKind::A6 => JitterConfig::A6,
        JitterKind::FullThenCap => JitterConfig::FullThenCap,
        JitterKind::Additive => JitterConfig::Additive { max_ms: fields.required("max_ms")? },
    })
}

fn read_retry_on(value: &Value, path: &str) -> Result<RetryOnConfig, Error> {
    let defaults = RetryOnConfig::default();
    let fields =
        Fields::new(value, path, &["http_statuses", "grpc_codes", "transport", "error_codes", "all_server_errors"])?;
    Ok(RetryOnConfig {
        http_statuses: fields.with("http_statuses", defaults.http_statuses, read_http_statuses)?,
        grpc_codes: fields.with("grpc_codes", defaults.grpc_codes, read_names)?,
        transport: fields.with("transport", defaults.transport, read_names)?,
        error_codes: fields.with("error_codes", defaults.error_codes, read_names)?,
        all_server_errors: fields.or("all_server_errors", defaults.all_server_errors)?,
    })
}

fn read_status_set(value: &Value, path: &str) -> Result<StatusSetConfig, Error> {
    let fields = Fields::new(value, path, &["http_statuses", "grpc_codes"])?;
    Ok(StatusSetConfig {
        http_statuses: fields.with("http_statuses", Vec::new(), read_http_statuses)?,
        grpc_codes: fields.with("grpc_codes", Vec::new(), read_names)?,
    })
}

fn read_server_guidance(value: &Value, path: &str) -> Result<ServerGuidanceConfig, Error> {
    let defaults = ServerGuidanceConfig::default();
    let fields = Fields::new(
        value,
        path,
        &["honor", "cap_ms", "above_cap", "mode", "max_above_backoff_ms", "retry_after_reading", "headers", "statuses"],
    )?;
    Ok(ServerGuidanceConfig {
        honor: fields.or("honor", defaults.honor)?,
        cap_ms: fields.or("cap_ms", defaults.cap_ms)?,
        above_cap: fields.with("above_cap", defaults.above_cap, read_name)?,
        retry_after_reading: fields.with("retry_after_reading", defaults.retry_after_reading, read_name)?,
        statuses: fields.with("statuses", defaults.statuses, read_status_rules)?,
        mode: fields.with("mode", defaults.mode, read_name)?,
        max_above_backoff_ms: fields.optional("max_above_backoff_ms", u64::from_value)?,
        headers: fields.with("headers", defaults.headers, read_name)?,
    })
}

/// Reads an `http_statuses` list: each item an HTTP status ([`HTTP_STATUS`]).
fn read_http_statuses(value: &Value, path: &str) -> Result<Vec<u16>, Error> {
    list(value, path, Rule::List, read_http_status)
}

/// Reads an HTTP status: what is no status at all (70000, -1, a string) in the words of one outside 100..=599.
fn read_http_status(value: &Value, path: &str) -> Result<u16, Error> {
    HTTP_STATUS.read_u16(value, path)
}

/// Reads `server_guidance.statuses`: a list of per-status rules.
fn read_status_rules(value: &Value, path: &str) -> Result<Vec<StatusGuidanceConfig>, Error> {
    list(value, path, Rule::ListOfStatusRules, read_status_rule)
}

fn read_status_rule(value: &Value, path: &str) -> Result<StatusGuidanceConfig, Error> {
    let fields = Fields::new(value, path, &["status", "honor", "requires_guidance", "cap_ms", "above_cap"])?;
    Ok(StatusGuidanceConfig {
        status: fields.required_with("status", read_http_status)?,
        honor: fields.optional("honor", bool::from_value)?,
        requires_guidance: fields.or("requires_guidance", false)?,
        cap_ms: fields.optional("cap_ms", u64::from_value)?,
        above_cap: fields.optional("above_cap", read_name)?,
    })
}

fn read_retry_limits(value: &Value, path: &str) -> Result<RetryLimitsConfig, Error> {
    let fields = Fields::new(value, path, &["connect", "read", "status", "other"])?;
    Ok(RetryLimitsConfig {
        connect: fields.optional_bounded("connect", RETRY_LIMIT)?,
        read: fields.optional_bounded("read", RETRY_LIMIT)?,
        status: fields.optional_bounded("status", RETRY_LIMIT)?,
        other: fields.optional_bounded("other", RETRY_LIMIT)?,
    })
}

/// Reads `retry_methods`: a list of method names.
fn read_methods(value: &Value, path: &str) -> Result<Vec<String>, Error> {
    list(value, path, Rule::ListOfMethodNames, |entry, path| match entry {
        Value::String(text) => Ok(text.clone()),
        other => Err(expected(path, Rule::MethodName, other)),
    })
}

fn read_hedging(value: &Value, path: &str) -> Result<HedgingConfig, Error> {
    let fields = Fields::new(value, path, &["delay_ms", "max_hedged_attempts"])?;
    Ok(HedgingConfig {
        delay_ms: fields.required("delay_ms")?,
        max_hedged_attempts: fields.required_bounded("max_hedged_attempts", HEDGED_ATTEMPTS)?,
    })
}

/// A list of enum names.
fn read_names<T: Named>(value: &Value, path: &str) -> Result<Vec<T>, Error> {
    list(value, path, Rule::ListOfNames, read_name)
}

/// A policy's `redelivery` section (both fields required).
fn read_redelivery(value: &Value, path: &str) -> Result<RedeliveryConfig, Error> {
    let fields = Fields::new(value, path, &["delays_ms", "max_age_ms"])?;
    Ok(RedeliveryConfig { delays_ms: fields.required("delays_ms")?, max_age_ms: fields.required("max_age_ms")? })
}

fn read_propagation(value: &Value, path: &str) -> Result<PropagationConfig, Error> {
    let defaults = PropagationConfig::default();
    let fields = Fields::new(value, path, &["reserve_ms", "retry_layer", "read_headers"])?;
    Ok(PropagationConfig {
        reserve_ms: fields.or("reserve_ms", defaults.reserve_ms)?,
        retry_layer: fields.with("retry_layer", defaults.retry_layer, read_name)?,
        read_headers: fields.with("read_headers", defaults.read_headers, read_names)?,
    })
}

crate::config::value::deserialize_through_value!(PolicyConfig, |value, _| PolicyConfig::from_value(value));
crate::config::value::deserialize_through_value!(AttemptTimeoutConfig, read_attempt_timeout);
crate::config::value::deserialize_through_value!(BackoffConfig, read_backoff);
crate::config::value::deserialize_through_value!(JitterConfig, read_jitter);
crate::config::value::deserialize_through_value!(RetryOnConfig, read_retry_on);
crate::config::value::deserialize_through_value!(StatusSetConfig, read_status_set);
crate::config::value::deserialize_through_value!(ServerGuidanceConfig, read_server_guidance);
crate::config::value::deserialize_through_value!(HedgingConfig, read_hedging);
crate::config::value::deserialize_through_value!(RedeliveryConfig, read_redelivery);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_written_back_out_reads_in_as_the_same_numbers() {
        // Found by fuzz/config: a long decimal was read one ulp off the nearest
        // float, and read again from its own output one ulp elsewhere.
        let text = r#"{"jitter": {"kind": "proportional", "ratio": 1777777777777777777777777777777777777777777777777777777777777.2}}"#;
        let config = PolicyConfig::from_json(text).unwrap();
        assert_eq!(PolicyConfig::from_json(&config.to_json()).unwrap(), config);
    }

    #[test]
    fn json_errors_name_the_path() {
        let error = PolicyConfig::from_json(r#"{"backoff": {"base_ms": -5}}"#).unwrap_err();
        let Error::InvalidConfig { config, field, message } = error else { panic!("wrong error") };
        assert_eq!((config, &*field), (crate::config::error::ConfigKind::Policy, "backoff.base_ms"));
        assert!(message.to_string().contains("-5"), "{message}");
        let error = PolicyConfig::from_json(r#"{"max_attemps": 3}"#).unwrap_err();
        assert!(error.to_string().contains("unknown field `max_attemps`"), "{error}");
        let error = PolicyConfig::from_json(r#"{} {}"#).unwrap_err();
        assert_eq!(error.code(), "invalid_config");
        // Of the whole text: no field to name, and no empty one (`at \`\``).
        assert!(error.to_string().starts_with("invalid policy configuration: trailing characters"), "{error}");
    }

    /// Each whole-number field with a rule of its own: a value its type
    /// holds and validation refuses (its words), and what is no such number
    /// at all (the reader's): the same field, the same rule, the same words
    /// but for the value. The config is JSON with `VALUE` for the field's.
    #[test]
    fn a_number_beyond_its_type_is_refused_with_the_rule_validation_states() {
        use crate::config::error::ConfigKind;
        use crate::Policy;
        let hedged = r#"{"idempotency": "idempotent", "hedging": {"delay_ms": 10, "max_hedged_attempts": VALUE}}"#;
        let cases = [
            ("max_attempts", r#"{"max_attempts": VALUE}"#, "129", MAX_ATTEMPTS),
            ("hedging.max_hedged_attempts", hedged, "5", HEDGED_ATTEMPTS),
            ("retry_limits.connect", r#"{"retry_limits": {"connect": VALUE}}"#, "128", RETRY_LIMIT),
            ("retry_limits.read", r#"{"retry_limits": {"read": VALUE}}"#, "128", RETRY_LIMIT),
            ("retry_limits.status", r#"{"retry_limits": {"status": VALUE}}"#, "128", RETRY_LIMIT),
            ("retry_limits.other", r#"{"retry_limits": {"other": VALUE}}"#, "128", RETRY_LIMIT),
        ];
        for (field, config, refused, bounded) in cases {
            let rule = bounded.rule;
            let error = Policy::from_json(&config.replace("VALUE", refused)).unwrap_err();
            let Error::ConfigViolations { violations, .. } = &error else { panic!("{field}: {error}") };
            let [violation] = violations.as_slice() else { panic!("{field}: {error}") };
            assert_eq!((violation.field.as_str(), violation.message.rule()), (field, rule), "{error}");
            let validated = violation.message.to_string();
            // The rule's words say the range it checks.
            let range = format!("{field} ({refused}) must be a whole number in {}..={}", bounded.min, bounded.max);
            assert!(validated.starts_with(&range), "{validated}");
            for (written, shown) in
                [("4294967296", "4294967296"), ("-1", "-1"), ("2.5", "2.5"), (r#""3""#, r#"the string "3""#)]
            {
                let error = PolicyConfig::from_json(&config.replace("VALUE", written)).unwrap_err();
                let Error::InvalidConfig { config: ConfigKind::Policy, field: at, message } = &error else {
                    panic!("{field} {written}: {error}")
                };
                assert_eq!((&**at, message.rule()), (field, rule), "{error}");
                let expected = validated.replacen(&format!("({refused})"), &format!("({shown})"), 1);
                assert_eq!(message.to_string(), expected, "{field} {written}");
            }
        }
    }

    /// Each HTTP status a policy names: what is no status at all (beyond a
    /// `u16`, negative, fractional, a string) is refused in the words
    /// validation refuses a status outside 100..=599 with (600), not with
    /// the range of the `u16` it is kept in.
    #[test]
    fn a_status_beyond_16_bits_is_refused_as_no_http_status() {
        use crate::config::error::ConfigKind;
        use crate::Policy;
        let cases = [
            ("retry_on.http_statuses[1]", r#"{"retry_on": {"http_statuses": [503, VALUE]}}"#),
            ("ambiguous.http_statuses[0]", r#"{"ambiguous": {"http_statuses": [VALUE]}}"#),
            ("conflict.http_statuses[0]", r#"{"conflict": {"http_statuses": [VALUE]}}"#),
            ("server_guidance.statuses[0].status", r#"{"server_guidance": {"statuses": [{"status": VALUE}]}}"#),
        ];
        for (field, config) in cases {
            let error = Policy::from_json(&config.replace("VALUE", "600")).unwrap_err();
            let Error::ConfigViolations { violations, .. } = &error else { panic!("{field}: {error}") };
            let [violation] = violations.as_slice() else { panic!("{field}: {error}") };
            assert_eq!(violation.field.as_str(), field, "{error}");
            let validated = violation.message.to_string();
            assert_eq!(validated, format!("{field} (600) must be an HTTP status in 100..=599"));
            for (written, shown) in
                [("70000", "70000"), ("-1", "-1"), ("2.5", "2.5"), (r#""503""#, r#"the string "503""#)]
            {
                let error = PolicyConfig::from_json(&config.replace("VALUE", written)).unwrap_err();
                let Error::InvalidConfig { config: ConfigKind::Policy, field: at, message } = &error else {
                    panic!("{field} {written}: {error}")
                };
                assert_eq!((&**at, message.rule()), (field, HTTP_STATUS.rule), "{error}");
                assert_eq!(
                    message.to_string(),
                    validated.replacen("(600)", &format!("({shown})"), 1),
                    "{field} {written}"
                );
            }
        }
    }

    #[test]
    fn total_budget_ms_is_read_as_total_timeout_ms_and_both_is_an_error() {
        let new = PolicyConfig::from_json(r#"{"total_timeout_ms": 1234}"#).unwrap();
        assert_eq!(new.total_timeout_ms, 1234);
        assert_eq!(PolicyConfig::from_json(r#"{"total_budget_ms": 1234}"#).unwrap(), new);
        assert!(!new.to_json().contains("total_budget_ms"), "the old name is never written");
        for both in
            [r#"{"total_timeout_ms": 5, "total_budget_ms": 5}"#, r#"{"total_budget_ms": 5, "total_timeout_ms": 5}"#]
        {
            let error = PolicyConfig::from_json(both).unwrap_err();
            let Error::InvalidConfig { config, field, .. } = &error else { panic!("wrong error: {error}") };
            assert_eq!((*config, &**field), (crate::config::error::ConfigKind::Policy, "total_budget_ms"));
            assert_eq!(
                error.to_string(),
                "invalid policy configuration at `total_budget_ms`: both `total_timeout_ms` and its old name \
                 `total_budget_ms` are given; keep `total_timeout_ms` only"
            );
        }
        let error = PolicyConfig::from_json(r#"{"total_budget_ms": -1}"#).unwrap_err();
        assert!(error.to_string().contains("`total_budget_ms`"), "{error}");
        let error = PolicyConfig::from_json(r#"{"max_attemps": 3}"#).unwrap_err();
        assert!(!error.to_string().contains("total_budget_ms"), "an old name is never suggested: {error}");
    }

    #[test]
    fn serde_reads_every_config_type_through_the_one_reader() {
        let backoff: BackoffConfig = serde_json::from_str(r#"{"base_ms": 5}"#).unwrap();
        assert_eq!(backoff, BackoffConfig { base_ms: 5, ..BackoffConfig::default() });
        let timeout: AttemptTimeoutConfig = serde_json::from_str(r#"{"fixed_ms": 7}"#).unwrap();
        assert_eq!(timeout, AttemptTimeoutConfig::FixedMs(7));
        let error = serde_json::from_str::<HedgingConfig>(r#"{"delay_ms": 5}"#).unwrap_err();
        assert!(error.to_string().contains("max_hedged_attempts"), "{error}");
        let error = serde_json::from_str::<PolicyConfig>(r#"{"jitter": {"kind": "full", "ratio": 0.2}}"#).unwrap_err();
        assert!(error.to_string().contains("jitter.ratio"), "{error}");
    }

    /// `schema.json` beside this file (the JSON Schema every binding's mirror
    /// is generated from) names exactly the fields this reader knows, in
    /// every object section: a field added here and not there, or there and
    /// not here, fails.
    #[test]
    fn the_policy_schema_names_the_fields_the_reader_knows() {
        use serde_json::{json, Value as Json};
        let schema: Json = serde_json::from_str(include_str!("schema.json")).unwrap();
        let defs = &schema["$defs"];
        // Each object section: where it sits (a JSON pointer into a config) and its schema.
        let mut sections = vec![(String::new(), &defs["policyConfig"])];
        let mut checked = 0;
        while let Some((pointer, section)) = sections.pop() {
            let section = match section["$ref"].as_str() {
                Some(reference) => &defs[reference.trim_start_matches("#/$defs/")],
                None => section,
            };
            let Some(properties) = section["properties"].as_object() else { continue };
            // A deprecated old name is read but never listed as expected.
            let current = properties.iter().filter(|(_, property)| property["deprecated"] != true);
            let mut known: Vec<&str> = current.map(|(key, _)| key.as_str()).collect();
            known.sort_unstable();
            let mut config = json!({});
            let probe = json!({"no_such_field": 0});
            if pointer.is_empty() {
                config = probe;
            } else {
                let mut at = &mut config;
                for key in pointer.trim_start_matches('/').split('/') {
                    at = if key == "0" {
                        *at = json!([{}]);
                        &mut at[0]
                    } else {
                        at.as_object_mut().unwrap().entry(key).or_insert(json!({}))
                    };
                }
                *at = probe;
            }
            let error = PolicyConfig::from_json(&config.to_string()).unwrap_err().to_string();
            let listed = error.split("expected one of ").nth(1).unwrap_or_else(|| panic!("{pointer}: {error}"));
            let mut read: Vec<&str> = listed.split(", ").map(|name| name.trim_matches('`')).collect();
            read.sort_unstable();
            assert_eq!(known, read, "the schema's properties and the reader's fields at {pointer:?}");
            checked += 1;
            for (key, property) in properties {
                let property = if property["type"] == "array" {
                    (format!("{pointer}/{key}/0"), &property["items"])
                } else {
                    (format!("{pointer}/{key}"), property)
                };
                sections.push(property);
            }
        }
        assert!(checked >= 9, "{checked} sections");
    }
}
crate::config::value::deserialize_through_value!(StatusGuidanceConfig, read_status_rule);
crate::config::value::deserialize_through_value!(RetryLimitsConfig, read_retry_limits);
