//! Reading a gRPC service config (its JSON form) into one policy per method
//! selector and the channel's shared retry throttling.
//!
//! What is read, and how (gRFC A6 "Validation of retryPolicy / hedgingPolicy /
//! retryThrottling", `grpc/service_config/service_config.proto`):
//!
//! - `methodConfig[]`, each with `name[]` selectors `{service, method}`. A
//!   method config without names is skipped (with a warning). An empty or
//!   absent `service` needs an empty `method` and makes the default config;
//!   an empty `method` makes the service's default. Every selector must be
//!   unique in the whole config.
//! - `timeout`, `retryPolicy`, `hedgingPolicy` of a method config; at most one
//!   of the last two (a proto `oneof`). What they become is in [`super::a6`].
//! - `retryThrottling`: `maxTokens` a JSON integer in (0, 1000]; `tokenRatio`
//!   a number > 0, decimals beyond the third ignored (warned).
//! - Field names as in the proto3 JSON mapping: the lowerCamelCase name in
//!   any ASCII case, as grpc-go's reader matches it (its own tests write
//!   `"MaxAttempts"`), or the proto field name as written (`max_attempts`);
//!   any other spelling is an unknown key. A name given twice is an error.
//!   `null` is the field's default, the same as absent (proto3 JSON). Fields
//!   the engine has no use for but gRPC
//!   clients read (`loadBalancingPolicy`, `loadBalancingConfig`,
//!   `healthCheckConfig`, `waitForReady`, message sizes) are checked for
//!   their JSON type only, as grpc-go and grpc-java refuse a wrong one;
//!   unknown fields are ignored, as gRPC clients ignore them.
//! - Integers (`maxAttempts`, `maxTokens`, status codes) as JSON numbers
//!   without a fraction: `3` or `3.0`, never `"3"`.
//! - Status codes as a JSON integer 1..=16 or a name in any case
//!   (`"UNAVAILABLE"`, `"unavailable"`, `14`); `OK` is refused (grpc-java).
//!
//! Invalid input is an error naming the field path and the rule
//! (`methodConfig[0].retryPolicy.maxAttempts`); what A6 caps or truncates
//! instead of refusing is done and reported in [`ServiceConfig::warnings`].

use alloc::borrow::ToOwned;
use alloc::collections::BTreeSet;
use alloc::string::String;
use alloc::vec::Vec;

use crate::config::error::{ConfigKind, Error, Violation};
use crate::config::value::{expected, item, read_error, Number, Value};
use crate::controls::dependency::DependencyConfig;
use crate::ground::message::{message, Message, Rule};
use crate::ground::text::excerpt;
use crate::outcomes::classify::GrpcCode;
use crate::policy::{Policy, PolicyConfig};

use super::a6::{self, HedgingPolicy, RetryPolicy};
use super::duration::parse_duration_ns;
// Defined with the other findings of a read; still published here as before.
pub use super::findings::ConfigWarning;
use super::findings::{rule, Warnings};

/// The client-side cap on `maxAttempts` gRPC applies by default (A6 "Limits
/// on Retries and Hedges").
pub const DEFAULT_MAX_ATTEMPTS_CAP: u32 = 5;

/// How a service config is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ServiceConfigOptions {
    /// The client-side cap on `maxAttempts` of retry and hedging policies
    /// (a channel argument in gRPC): higher values are treated as this one,
    /// with a warning. Default 5, and a cap below 2 means the default, as
    /// grpc-go's `WithMaxCallAttempts` reads it.
    pub max_attempts_cap: u32,
}

impl Default for ServiceConfigOptions {
    fn default() -> Self {
        ServiceConfigOptions { max_attempts_cap: DEFAULT_MAX_ATTEMPTS_CAP }
    }
}

/// The policy of one method selector.
#[derive(Clone, Debug, PartialEq)]
pub struct MethodProfile {
    /// The selector as a gRPC path: `/service/method`, `/service/` for a
    /// service's default, `""` for the default config.
    pub name: String,
    /// The service (with its proto package), empty for the default config.
    pub service: String,
    /// The method, empty for a service's default or the default config.
    pub method: String,
    /// The policy, validated.
    pub policy: Policy,
}

/// A service config, read.
///
/// ```
/// use retryplan::dialects::grpc::ServiceConfig;
/// let config = ServiceConfig::from_json(r#"{
///   "methodConfig": [{
///     "name": [{"service": "helloworld.Greeter"}],
///     "retryPolicy": {"maxAttempts": 9, "initialBackoff": "0.1s", "maxBackoff": "1s",
///                     "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}
///   }],
///   "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}
/// }"#, Default::default()).unwrap();
/// let policy = config.profile_for("helloworld.Greeter", "SayHello").unwrap();
/// assert_eq!(policy.max_attempts(), 5);
/// assert_eq!(config.warnings[0].field, "methodConfig[0].retryPolicy.maxAttempts");
/// assert!(config.throttling.is_some());
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ServiceConfig {
    /// One profile per selector, in the order the config names them.
    pub methods: Vec<MethodProfile>,
    /// The channel's retry throttling as a dependency (a token bucket), if
    /// the config has `retryThrottling`: share one per server name.
    pub throttling: Option<DependencyConfig>,
    /// What was capped or truncated rather than refused.
    pub warnings: Vec<ConfigWarning>,
}

impl ServiceConfig {
    /// Reads a service config from a [`Value`].
    ///
    /// # Errors
    /// [`Error::InvalidConfig`] naming a service config for a field of the wrong type, and
    /// [`Error::ConfigViolations`] naming a service config for a rule broken (every one at once is not
    /// attempted: the first one found is reported), each naming the field
    /// path.
    pub fn from_value(value: &Value, options: ServiceConfigOptions) -> Result<ServiceConfig, Error> {
        ConfigKind::ServiceConfig.reading(ServiceConfig::read(value, options))
    }

    fn read(value: &Value, options: ServiceConfigOptions) -> Result<ServiceConfig, Error> {
        // grpc-go `WithMaxCallAttempts`: "A value of 5 will be used if this dial option is not set or n < 2."
        let options = ServiceConfigOptions {
            max_attempts_cap: if options.max_attempts_cap < 2 {
                DEFAULT_MAX_ATTEMPTS_CAP
            } else {
                options.max_attempts_cap
            },
        };
        let mut reader = Reader { options, warnings: Warnings::default() };
        let top = Object::new(value, "")?;
        top.check_unused(&[
            ("loadBalancingPolicy", Shape::String),
            ("loadBalancingConfig", Shape::List),
            ("healthCheckConfig", Shape::Object),
        ])?;
        let mut methods: Vec<MethodProfile> = Vec::new();
        // Every selector named so far: one ordered set, so a config of n
        // names costs n log n, not n^2.
        let mut named: BTreeSet<String> = BTreeSet::new();
        if let Some((path, list)) = top.get("methodConfig")? {
            for (index, entry) in list_items(list, &path)?.iter().enumerate() {
                let path = item(&path, index);
                for profile in reader.method_config(entry, &path)? {
                    if !named.insert(profile.name.clone()) {
                        return Err(rule(&path, message!(SelectorTwice, excerpt(&profile.name))));
                    }
                    methods.push(profile);
                }
            }
        }
        let throttling = match top.get("retryThrottling")? {
            Some((path, item)) => Some(reader.throttling(item, &path)?),
            None => None,
        };
        Ok(ServiceConfig { methods, throttling, warnings: reader.warnings.0 })
    }

    /// Reads a service config from JSON text (see [`ServiceConfig::from_value`]).
    ///
    /// # Errors
    /// As [`ServiceConfig::from_value`], and [`Error::InvalidConfig`] for text that is not JSON.
    #[cfg(feature = "json")]
    pub fn from_json(json: &str, options: ServiceConfigOptions) -> Result<ServiceConfig, Error> {
        ServiceConfig::from_value(&ConfigKind::ServiceConfig.reading(Value::from_json(json))?, options)
    }

    /// The profile of the most specific selector for `service`/`method`: the
    /// exact method, else the service's default, else the default config.
    #[must_use]
    pub fn method_for(&self, service: &str, method: &str) -> Option<&MethodProfile> {
        let find = |service: &str, method: &str| {
            self.methods.iter().find(|profile| profile.service == service && profile.method == method)
        };
        find(service, method).or_else(|| find(service, "")).or_else(|| find("", ""))
    }

    /// The policy of [`ServiceConfig::method_for`].
    #[must_use]
    pub fn profile_for(&self, service: &str, method: &str) -> Option<&Policy> {
        self.method_for(service, method).map(|profile| &profile.policy)
    }
}

/// The reader's state: its options and the warnings so far.
struct Reader {
    options: ServiceConfigOptions,
    warnings: Warnings,
}

impl Reader {
    fn method_config(&mut self, value: &Value, path: &str) -> Result<Vec<MethodProfile>, Error> {
        let object = Object::new(value, path)?;
        object.check_unused(&[
            ("waitForReady", Shape::Boolean),
            ("maxRequestMessageBytes", Shape::WholeNumber),
            ("maxResponseMessageBytes", Shape::WholeNumber),
        ])?;
        let names = match object.get("name")? {
            Some((names_path, list)) => list_items(list, &names_path)?
                .iter()
                .enumerate()
                .map(|(index, value)| selector(value, &item(&names_path, index)))
                .collect::<Result<Vec<_>, Error>>()?,
            None => Vec::new(),
        };
        let timeout_ns = match object.get("timeout")? {
            Some((timeout_path, item)) => Some((duration(item, &timeout_path)?, timeout_path)),
            None => None,
        };
        let retry = match object.get("retryPolicy")? {
            Some((retry_path, item)) => Some(self.retry_policy(item, &retry_path)?),
            None => None,
        };
        let hedging = match object.get("hedgingPolicy")? {
            Some((hedging_path, item)) => Some(self.hedging_policy(item, &hedging_path)?),
            None => None,
        };
        if retry.is_some() && hedging.is_some() {
            return Err(rule(path, message!(RetryAndHedging)));
        }
        let config = a6::method_policy(
            &mut self.warnings,
            timeout_ns.as_ref().map(|(ns, p)| (*ns, p.as_str())),
            retry,
            hedging,
        )?;
        let policy = validated(&config, path)?;
        if names.is_empty() {
            self.warnings.warn(path, message!(NoNames));
        }
        Ok(names
            .into_iter()
            .map(|(service, method)| {
                let name = if service.is_empty() { String::new() } else { ["/", &service, "/", &method].concat() };
                MethodProfile { name, service, method, policy }
            })
            .collect())
    }

    fn retry_policy(&mut self, value: &Value, path: &str) -> Result<RetryPolicy, Error> {
        let object = Object::new(value, path)?;
        let max_attempts = self.max_attempts(&object, path)?;
        let (initial_path, initial) = object.required("initialBackoff", path)?;
        let initial_backoff_ns = positive_duration(initial, &initial_path)?;
        let (max_path, max) = object.required("maxBackoff", path)?;
        let max_backoff_ns = positive_duration(max, &max_path)?;
        let (multiplier_path, multiplier) = object.required("backoffMultiplier", path)?;
        let backoff_multiplier = match multiplier {
            Value::Number(number) if number.as_f64() > 0.0 => number.as_f64(),
            Value::Number(number) => {
                return Err(rule(&multiplier_path, message!(NotPositive, &multiplier_path, number.arg())))
            }
            other => return Err(expected(&multiplier_path, Rule::PositiveNumber, other)),
        };
        let (codes_path, codes) = object.required("retryableStatusCodes", path)?;
        let retryable_codes = status_codes(codes, &codes_path)?;
        if retryable_codes.is_empty() {
            return Err(rule(&codes_path, message!(Empty, &codes_path)));
        }
        Ok(RetryPolicy {
            max_attempts,
            initial_backoff_ns,
            initial_path,
            max_backoff_ns,
            max_path,
            backoff_multiplier,
            multiplier_path,
            retryable_codes,
        })
    }

    fn hedging_policy(&mut self, value: &Value, path: &str) -> Result<HedgingPolicy, Error> {
        let object = Object::new(value, path)?;
        let max_attempts = self.max_attempts(&object, path)?;
        let (delay_ns, delay_path) = match object.get("hedgingDelay")? {
            Some((delay_path, item)) => {
                let ns = duration(item, &delay_path)?;
                if ns < 0 {
                    return Err(rule(&delay_path, message!(Negative, &delay_path)));
                }
                (ns, delay_path)
            }
            None => (0, super::join_path(path, "hedgingDelay")),
        };
        let non_fatal_codes = match object.get("nonFatalStatusCodes")? {
            Some((codes_path, codes)) => status_codes(codes, &codes_path)?,
            None => Vec::new(),
        };
        Ok(HedgingPolicy { max_attempts, delay_ns, delay_path, non_fatal_codes })
    }

    /// `maxAttempts`: required, a JSON integer > 1; above the cap it is the cap (warned).
    fn max_attempts(&mut self, object: &Object<'_>, path: &str) -> Result<u32, Error> {
        let (attempts_path, value) = object.required("maxAttempts", path)?;
        let attempts = match integer(value) {
            Some(Number::Unsigned(n)) => n,
            Some(Number::Negative(n)) => {
                return Err(rule(&attempts_path, message!(AttemptsNotAboveOne, &attempts_path, n)))
            }
            _ => return Err(expected(&attempts_path, Rule::IntegerAboveOne, value)),
        };
        if attempts <= 1 {
            return Err(rule(&attempts_path, message!(AttemptsNotAboveOne, &attempts_path, attempts)));
        }
        let cap = self.options.max_attempts_cap;
        if attempts > u64::from(cap) {
            self.warnings.warn(&attempts_path, message!(AboveAttemptsCap, &attempts_path, attempts, cap));
            return Ok(cap);
        }
        // At most the cap (a u32) here.
        Ok(u32::try_from(attempts).unwrap_or(cap))
    }

    fn throttling(&mut self, value: &Value, path: &str) -> Result<DependencyConfig, Error> {
        let object = Object::new(value, path)?;
        let (tokens_path, tokens) = object.required("maxTokens", path)?;
        let max_tokens = match integer(tokens) {
            Some(Number::Unsigned(n)) if (1..=1000).contains(&n) => u32::try_from(n).unwrap_or(1000),
            Some(number @ (Number::Unsigned(_) | Number::Negative(_))) => {
                return Err(rule(&tokens_path, message!(TokensOutOfRange, &tokens_path, number.arg())))
            }
            _ => return Err(expected(&tokens_path, Rule::TokensInteger, tokens)),
        };
        let (ratio_path, ratio) = object.required("tokenRatio", path)?;
        let token_ratio = match ratio {
            Value::Number(number) if number.as_f64() > 0.0 && number.as_f64().is_finite() => number.as_f64(),
            Value::Number(number) => return Err(rule(&ratio_path, message!(NotPositive, &ratio_path, number.arg()))),
            other => return Err(expected(&ratio_path, Rule::PositiveNumber, other)),
        };
        Ok(a6::throttling(&mut self.warnings, max_tokens, token_ratio, &ratio_path))
    }
}

/// The policy of a method config, its violations named under the method
/// config's path (`methodConfig[0].hedging.max_hedged_attempts`).
fn validated(config: &PolicyConfig, path: &str) -> Result<Policy, Error> {
    Policy::new(config).map_err(|error| match error {
        Error::ConfigViolations { violations, .. } => Error::ConfigViolations {
            config: ConfigKind::ServiceConfig,
            violations: violations
                .into_iter()
                .map(|violation| Violation { field: super::join_path(path, &violation.field), ..violation })
                .collect(),
        },
        other => other,
    })
}

/// A selector `{service, method}`: `""`, `null` and absent are the same.
fn selector(value: &Value, path: &str) -> Result<(String, String), Error> {
    let object = Object::new(value, path)?;
    let text = |key: &str| -> Result<String, Error> {
        match object.get(key)? {
            None => Ok(String::new()),
            Some((_, Value::String(text))) => Ok(text.clone()),
            Some((field, other)) => Err(expected(&field, Rule::String, other)),
        }
    };
    let (service, method) = (text("service")?, text("method")?);
    if service.is_empty() && !method.is_empty() {
        return Err(rule(path, message!(MethodWithoutService, excerpt(&method))));
    }
    Ok((service, method))
}

/// A Duration string, in signed nanoseconds.
fn duration(value: &Value, path: &str) -> Result<i128, Error> {
    match value {
        Value::String(text) => parse_duration_ns(text)
            .map_err(|what| read_error(path, message!(DurationSyntax, Message::new(what, Vec::new()), excerpt(text)))),
        other => Err(expected(path, Rule::Duration, other)),
    }
}

/// A Duration that must be > 0.
fn positive_duration(value: &Value, path: &str) -> Result<i128, Error> {
    let ns = duration(value, path)?;
    if ns <= 0 {
        return Err(rule(path, message!(DurationNotPositive, path.to_owned())));
    }
    Ok(ns)
}

/// A list of status codes: integers 1..=16 or names in any case; `OK` refused.
fn status_codes(value: &Value, path: &str) -> Result<Vec<GrpcCode>, Error> {
    let mut codes = Vec::new();
    for (index, entry) in list_items(value, path)?.iter().enumerate() {
        let field = item(path, index);
        let code = match (entry, integer(entry)) {
            (_, Some(Number::Unsigned(n))) => u32::try_from(n).ok().and_then(GrpcCode::from_number),
            (Value::String(name), _) => GrpcCode::ALL.into_iter().find(|code| code.name().eq_ignore_ascii_case(name)),
            _ => None,
        };
        match code {
            Some(GrpcCode::Ok) => return Err(rule(&field, message!(GrpcOkRefused, &field))),
            Some(code) => {
                if !codes.contains(&code) {
                    codes.push(code);
                }
            }
            None => return Err(expected(&field, Rule::StatusCode, entry)),
        }
    }
    Ok(codes)
}

/// A JSON integer: a number without a fraction, written `3` or `3.0` (JSON
/// does not tell them apart; grpc-java reads both, and a host's JSON parser
/// may hand either). `None` for anything else.
fn integer(value: &Value) -> Option<Number> {
    match value {
        Value::Number(Number::Float(number)) => match Number::from_f64(*number) {
            Number::Float(_) => None,
            whole => Some(whole),
        },
        Value::Number(number) => Some(*number),
        _ => None,
    }
}

/// The JSON type of a field read only to be checked ([`Object::check_unused`]).
#[derive(Clone, Copy)]
enum Shape {
    /// `true` or `false`.
    Boolean,
    /// A string.
    String,
    /// A list.
    List,
    /// An object.
    Object,
    /// A JSON integer, 0 or more.
    WholeNumber,
}

/// The items of a list.
fn list_items<'a>(value: &'a Value, path: &str) -> Result<&'a [Value], Error> {
    match value {
        Value::List(items) => Ok(items),
        other => Err(expected(path, Rule::List, other)),
    }
}

/// An object whose keys are matched as gRPC clients read them: the
/// lowerCamelCase JSON name in any ASCII case (grpc-go's JSON reader ignores
/// case; grpc-java and grpc core match it as written), or the proto field
/// name as written (`max_attempts`: the proto3 JSON mapping's other
/// spelling). Any other key (`Max_Attempts`, `m_a_x_attempts`) is unknown.
struct Object<'a> {
    path: &'a str,
    fields: &'a [(String, Value)],
}

/// Whether `key` names the field `name` (lowerCamelCase): that name in any ASCII case, or its proto field name
/// (`max_attempts`) exactly.
fn names_field(key: &str, name: &str) -> bool {
    if key.eq_ignore_ascii_case(name) {
        return true;
    }
    let mut proto = name.chars().flat_map(|c| {
        let underscore = c.is_ascii_uppercase().then_some('_');
        underscore.into_iter().chain(core::iter::once(c.to_ascii_lowercase()))
    });
    let mut key_chars = key.chars();
    loop {
        match (key_chars.next(), proto.next()) {
            (None, None) => return true,
            (Some(given), Some(wanted)) if given == wanted => {}
            _ => return false,
        }
    }
}

impl<'a> Object<'a> {
    fn new(value: &'a Value, path: &'a str) -> Result<Object<'a>, Error> {
        match value {
            Value::Object(fields) => Ok(Object { path, fields }),
            other => Err(expected(path, Rule::Object, other)),
        }
    }

    /// The field called `name` (lowerCamelCase), with its path, if present.
    fn get(&self, name: &str) -> Result<Option<(String, &'a Value)>, Error> {
        let mut matches = self.fields.iter().filter(|(key, _)| names_field(key, name));
        let found = matches.next();
        if let Some((again, _)) = matches.next() {
            return Err(read_error(&super::join_path(self.path, again), message!(KeyTwice, name.to_owned())));
        }
        // proto3 JSON: `null` is the field's default, the same as absent.
        Ok(found
            .filter(|(_, value)| *value != Value::Null)
            .map(|(key, value)| (super::join_path(self.path, key), value)))
    }

    /// Checks the type of fields the engine has no use for but gRPC clients
    /// read: grpc-go and grpc-java refuse a config whose `waitForReady` is
    /// not a boolean, so it is refused here too (what it is for is not
    /// checked: a load-balancing policy's name, for one).
    fn check_unused(&self, fields: &[(&str, Shape)]) -> Result<(), Error> {
        for &(name, shape) in fields {
            if let Some((path, value)) = self.get(name)? {
                let (fits, rule) = match shape {
                    Shape::Boolean => (matches!(value, Value::Bool(_)), Rule::Boolean),
                    Shape::String => (matches!(value, Value::String(_)), Rule::String),
                    Shape::List => (matches!(value, Value::List(_)), Rule::List),
                    Shape::Object => (matches!(value, Value::Object(_)), Rule::Object),
                    Shape::WholeNumber => {
                        (matches!(integer(value), Some(Number::Unsigned(_))), Rule::WholeNumberFromZero)
                    }
                };
                if !fits {
                    return Err(expected(&path, rule, value));
                }
            }
        }
        Ok(())
    }

    /// A required field.
    fn required(&self, name: &str, path: &str) -> Result<(String, &'a Value), Error> {
        self.get(name)?.ok_or_else(|| {
            let field = super::join_path(path, name);
            rule(&field, message!(Required, &field))
        })
    }
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<ServiceConfig, Error> {
        ServiceConfig::from_json(json, ServiceConfigOptions::default())
    }

    /// The JSON name in any ASCII case (grpc-go's reader ignores case) and the proto field name as written (proto3
    /// JSON); any other spelling is another key, which gRPC clients ignore as unknown.
    #[test]
    fn a_key_is_the_json_name_in_any_case_or_the_proto_field_name() {
        for key in ["maxAttempts", "max_attempts", "MAXATTEMPTS", "maxattempts", "MaxAttempts"] {
            assert!(names_field(key, "maxAttempts"), "{key}");
        }
        let others = ["Max_Attempts", "MAX_ATTEMPTS", "m_a_x_attempts", "_maxAttempts", "max__attempts", "maxAttempt"];
        for key in others {
            assert!(!names_field(key, "maxAttempts"), "{key}");
        }
        let config = read(r#"{"retry_throttling": {"max_tokens": 10, "token_ratio": 0.1}}"#).unwrap();
        assert!(config.throttling.is_some());
        let ignored = read(r#"{"retry__throttling": {"maxTokens": 10, "tokenRatio": 0.1}}"#).unwrap();
        assert!(ignored.throttling.is_none());
    }

    #[test]
    fn refused_names_keys_and_values_are_kept_as_excerpts() {
        let long = "x".repeat(1 << 20);
        for json in [
            format!(
                r#"{{"methodConfig": [{{"name": [{{"service": "{long}"}}]}}, {{"name": [{{"service": "{long}"}}]}}]}}"#
            ),
            format!(r#"{{"methodConfig": [{{"name": [{{"method": "{long}"}}]}}]}}"#),
            format!(r#"{{"methodConfig": [{{"name": [{{}}], "timeout": "{long}"}}]}}"#),
        ] {
            let error = read(&json).unwrap_err();
            let (field, message) = match &error {
                Error::InvalidConfig { field, message, .. } => (String::from(&**field), message.to_string()),
                Error::ConfigViolations { violations, .. } => {
                    (violations[0].field.clone(), violations[0].message.to_string())
                }
                other => panic!("{other}"),
            };
            assert!(
                field.len() <= 300 && message.len() <= 600,
                "{} / {} bytes: {}",
                field.len(),
                message.len(),
                &message[..200]
            );
        }
    }

    const RETRY: &str = r#""retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s", "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}"#;

    #[test]
    fn most_specific_selector_wins() {
        let config = read(&format!(
            r#"{{"methodConfig": [
                {{"name": [{{}}], "timeout": "3s"}},
                {{"name": [{{"service": "MyService"}}], {RETRY}}},
                {{"name": [{{"service": "MyService", "method": "Foo"}}], "timeout": "1s"}}
            ]}}"#
        ))
        .unwrap();
        assert_eq!(config.method_for("MyService", "Foo").unwrap().name, "/MyService/Foo");
        assert_eq!(config.method_for("MyService", "Bar").unwrap().name, "/MyService/");
        assert_eq!(config.method_for("AnotherService", "Baz").unwrap().name, "");
        assert_eq!(config.profile_for("MyService", "Bar").unwrap().max_attempts(), 4);
        assert_eq!(config.profile_for("MyService", "Foo").unwrap().total_timeout_ms(), 1_000);
    }

    #[test]
    fn errors_name_the_field() {
        let error =
            read(r#"{"methodConfig": [{"name": [{"service": "s"}], "retryPolicy": {"maxAttempts": 1}}]}"#).unwrap_err();
        assert_eq!(
            error.to_string(),
            "invalid gRPC service configuration: methodConfig[0].retryPolicy.maxAttempts (1) must be an integer > 1"
        );
        let error = read(r#"{"methodConfig": [{"name": [{"method": "m"}]}]}"#).unwrap_err();
        assert!(error.to_string().contains("needs a service"), "{error}");
        let error =
            read(r#"{"methodConfig": [{"name": [{"service": "s"}]}, {"name": [{"service": "s", "method": null}]}]}"#)
                .unwrap_err();
        assert!(error.to_string().contains("named twice"), "{error}");
        let error = read(r#"{"methodConfig": [{"name": [{"service": "s"}], "timeout": "3c"}]}"#).unwrap_err();
        assert_eq!(error.code(), "invalid_config");
        assert!(
            error.to_string().starts_with("invalid gRPC service configuration at `methodConfig[0].timeout`: "),
            "{error}"
        );
    }

    #[test]
    fn keys_match_any_case_and_unknown_keys_are_ignored() {
        let config = read(
            r#"{"loadBalancingPolicy": "round_robin", "methodConfig": [{"name": [{"service": "grpc.testing.TestService"}],
               "waitForReady": true, "retryPolicy": {"MaxAttempts": 4, "InitialBackoff": ".01s", "MaxBackoff": ".01s",
               "BackoffMultiplier": 1.0, "retryable_status_codes": ["unavailable", 4]}}]}"#,
        )
        .unwrap();
        let policy = config.profile_for("grpc.testing.TestService", "EmptyCall").unwrap();
        assert_eq!(policy.to_config().retry_on.grpc_codes, [GrpcCode::DeadlineExceeded, GrpcCode::Unavailable]);
    }
}
