//! Every configuration reader on any text, with its round trip: a policy, a
//! dependency, a budget, a breaker, a gRPC service config, a profile name.
//! What reads and validates, written back out (`to_json` / `to_config` /
//! serde) and read again, gives the same thing; what is refused is an error
//! naming its field with a bounded message. `check::policy`, which reads on
//! past every problem, agrees with the strict reader on what is a policy, in
//! a bounded number of passes. Never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use retryplan::config::value::Value;
use retryplan::controls::breaker::BreakerConfig;
use retryplan::controls::budget::BudgetConfig;
use retryplan::dialects::grpc::{ServiceConfig, ServiceConfigOptions};
use retryplan::tools::check;
use retryplan::{CircuitBreaker, Dependency, DependencyConfig, Error, Policy, PolicyConfig, RetryBudget};

/// An error names its field and says why in a bounded message (a refused
/// value is kept as an excerpt, never whole).
fn bounded(error: &Error) {
    match error {
        Error::ConfigViolations { violations, .. } => {
            assert!(!violations.is_empty());
            for violation in violations {
                let message = violation.message.to_string();
                assert!(violation.field.len() <= 512 && message.len() <= 1024, "{violation:?}");
            }
        }
        Error::InvalidConfig { field, message, .. } => {
            let message = message.to_string();
            assert!(field.len() <= 512 && message.len() <= 1024, "{} / {} bytes", field.len(), message.len())
        }
        other => assert!(other.to_string().len() <= 1024, "{other}"),
    }
}

/// A valid policy's normalised form reads back as itself, and validates to the same policy.
fn policy_round_trip(policy: &Policy) {
    let config = policy.to_config();
    let json = config.to_json();
    let again = PolicyConfig::from_json(&json).unwrap_or_else(|error| panic!("{json}: {error}"));
    assert_eq!(again, config, "{json}");
    let revalidated = Policy::new(&again).unwrap_or_else(|error| panic!("{json}: {error}"));
    assert_eq!(revalidated.to_config(), config);
}

fn policy(text: &str) {
    let accepted = match PolicyConfig::from_json(text) {
        Ok(config) => {
            let json = config.to_json();
            assert_eq!(PolicyConfig::from_json(&json).as_ref(), Ok(&config), "{json}");
            match Policy::new(&config) {
                Ok(policy) => {
                    policy_round_trip(&policy);
                    true
                }
                Err(error) => {
                    bounded(&error);
                    false
                }
            }
        }
        Err(error) => {
            bounded(&error);
            false
        }
    };
    if let Ok(value) = Value::from_json(text) {
        check_policy(&value, accepted);
    }
}

/// What `retryplan check` (and a form's checker) makes of a policy: accepted exactly when the strict reader
/// and validation accept it; else at least one problem, each bounded (libFuzzer's timeout bounds its passes).
fn check_policy(value: &Value, accepted: bool) {
    match check::policy(value) {
        Ok(_) => assert!(accepted, "check accepted what the reader or validation refuses"),
        Err(problems) => {
            assert!(!accepted && !problems.is_empty(), "check refused what reads and validates: {problems:?}");
            for problem in &problems {
                let message = problem.message.to_string();
                assert!(problem.field.len() <= 512 && message.len() <= 1024, "{problem:?}");
            }
        }
    }
}

fn dependency(text: &str) {
    match DependencyConfig::from_json(text) {
        Ok(config) => {
            let json = serde_json::to_string(&config).expect("a config serializes");
            assert_eq!(DependencyConfig::from_json(&json).as_ref(), Ok(&config), "{json}");
            match Dependency::new(&config) {
                Ok(dependency) => {
                    let _ = dependency.snapshot(0);
                }
                Err(error) => bounded(&error),
            }
        }
        Err(error) => bounded(&error),
    }
}

fn budget(value: &Value) {
    match BudgetConfig::from_value(value) {
        Ok(config) => {
            let json = serde_json::to_string(&config).expect("a config serializes");
            let again = BudgetConfig::from_value(&Value::from_json(&json).expect("json"));
            assert_eq!(again.as_ref(), Ok(&config), "{json}");
            if let Err(error) = RetryBudget::new(&config) {
                bounded(&error);
            }
        }
        Err(error) => bounded(&error),
    }
}

fn breaker(value: &Value) {
    match BreakerConfig::from_value(value) {
        Ok(config) => {
            let json = serde_json::to_string(&config).expect("a config serializes");
            let again = BreakerConfig::from_value(&Value::from_json(&json).expect("json"));
            assert_eq!(again.as_ref(), Ok(&config), "{json}");
            if let Err(error) = CircuitBreaker::new(&config) {
                bounded(&error);
            }
        }
        Err(error) => bounded(&error),
    }
}

fn service_config(text: &str, cap: u8) {
    let options = ServiceConfigOptions { max_attempts_cap: u32::from(cap) };
    match ServiceConfig::from_json(text, options) {
        Ok(config) => {
            for method in &config.methods {
                policy_round_trip(&method.policy);
                assert!(config.profile_for(&method.service, &method.method).is_some(), "{method:?}");
            }
            if let Some(throttling) = &config.throttling {
                Dependency::new(throttling).expect("a service config's throttling is a valid dependency");
            }
        }
        Err(error) => bounded(&error),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    match selector % 6 {
        0 => policy(text),
        1 => dependency(text),
        2 | 3 => match Value::from_json(text) {
            Ok(value) if selector % 6 == 2 => budget(&value),
            Ok(value) => breaker(&value),
            Err(error) => bounded(&error),
        },
        4 => service_config(text, selector / 6),
        _ => match retryplan::dialects::profiles::profile(text) {
            Ok(config) => policy_round_trip(&Policy::new(&config).expect("a built-in profile is valid")),
            Err(error) => bounded(&error),
        },
    }
});
