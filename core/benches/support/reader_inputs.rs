//! The largest inputs a caller can hand each reader (shared by the
//! `readers` benchmark and the `reader_costs` example): a 1 MiB header value
//! (Go net/http's `DefaultMaxHeaderBytes`) and a 4 MB configuration or error
//! body, each shaped to hit the reader's slowest path.

#![allow(dead_code)]

use retryplan::dialects::grpc::{ServiceConfig, ServiceConfigOptions};
use retryplan::{dialects::aws, headers::grpc_timeout, headers::rate_limit, headers::retry_after, Policy};

/// A header value's largest size, in bytes.
pub const HEADER_BYTES: usize = 1 << 20;
/// A configuration's or an error body's largest size, in bytes.
pub const CONFIG_BYTES: usize = 4_000_000;

/// `item(0), item(1), ...` joined by `separator` while under `limit` bytes.
fn repeated(limit: usize, separator: &str, item: impl Fn(usize) -> String) -> String {
    let mut out = String::new();
    for index in 0.. {
        let next = item(index);
        if out.len() + separator.len() + next.len() > limit {
            break;
        }
        if index > 0 {
            out.push_str(separator);
        }
        out.push_str(&next);
    }
    out
}

/// A named reader run once over its largest input.
pub type Reader = (&'static str, Box<dyn Fn() -> bool>);

/// Every reader with its input built.
pub fn readers() -> Vec<Reader> {
    let names = repeated(CONFIG_BYTES - 200, ",", |i| format!(r#"{{"service":"s","method":"m{i}"}}"#));
    let service_config = format!(
        r#"{{"methodConfig":[{{"name":[{names}],"retryPolicy":{{"maxAttempts":3,"initialBackoff":"0.1s","maxBackoff":"1s","backoffMultiplier":2,"retryableStatusCodes":["UNAVAILABLE"]}}}}]}}"#
    );
    let limits = repeated(HEADER_BYTES, ", ", |i| format!(r#""p{i}";r=0"#));
    let policies = repeated(HEADER_BYTES, ", ", |i| format!(r#""q{i}";q=1;w=1"#));
    let parameters = format!(r#""p";r=0{}"#, repeated(HEADER_BYTES - 10, "", |i| format!(";k{i}")));
    let statuses = repeated(CONFIG_BYTES - 200, ",", |i| format!(r#"{{"status":{}}}"#, i % 65_536));
    let policy = format!(r#"{{"max_attempts":3,"server_guidance":{{"statuses":[{statuses}]}}}}"#);
    let http_statuses = repeated(CONFIG_BYTES - 200, ",", |i| format!("{}", 100 + i % 500));
    let status_list = format!(r#"{{"max_attempts":3,"retry_on":{{"http_statuses":[{http_statuses}]}}}}"#);
    let json_body = format!(
        r#"{{"detail":{}{},"code":"Throttling"}}"#,
        "[".repeat(CONFIG_BYTES / 2 - 40),
        "]".repeat(CONFIG_BYTES / 2 - 40)
    );
    let xml_body = format!(
        "<ErrorResponse>{}<Error><Code>Throttling</Code></Error></ErrorResponse>",
        "<Detail><Code>x</Code></Detail>".repeat(CONFIG_BYTES / 32)
    );
    let digits = "9".repeat(HEADER_BYTES);
    let spaces = format!("{}Sun, 06 Nov 1994 08:49:37 GMT", " ".repeat(HEADER_BYTES - 40));
    let words = "Sun, ".repeat(HEADER_BYTES / 5);
    let timeout = format!("{}S", "9".repeat(HEADER_BYTES - 1));
    vec![
        (
            "grpc service config, 4 MB of method names",
            Box::new(move || ServiceConfig::from_json(&service_config, ServiceConfigOptions::default()).is_ok()),
        ),
        (
            "RateLimit x RateLimit-Policy, 1 MiB each",
            Box::new(move || rate_limit::parse_rate_limit(&limits, Some(&policies)).is_ok()),
        ),
        ("RateLimit, 1 MiB of parameters", Box::new(move || rate_limit::parse_rate_limit(&parameters, None).is_ok())),
        ("policy, 4 MB of status rules", Box::new(move || Policy::from_json(&policy).is_ok())),
        ("policy, 4 MB of http_statuses", Box::new(move || Policy::from_json(&status_list).is_ok())),
        (
            "AWS JSON error body, 4 MB nested",
            Box::new(move || aws::error_code_from_response(None, Some(&json_body)).is_some()),
        ),
        ("AWS XML error body, 4 MB", Box::new(move || aws::error_code_from_response(None, Some(&xml_body)).is_some())),
        ("Retry-After, 1 MiB of digits", {
            let digits = digits.clone();
            Box::new(move || retry_after::parse_retry_after(&digits, 0).is_ok())
        }),
        (
            "Retry-After, 1 MiB of spaces and a date",
            Box::new(move || retry_after::parse_retry_after(&spaces, 0).is_ok()),
        ),
        (
            "Retry-After lenient, 1 MiB of day names",
            Box::new(move || {
                retry_after::parse_retry_after_with(&words, 0, retry_after::RetryAfterReading::Lenient).is_ok()
            }),
        ),
        (
            "retry-after-ms, 1 MiB of digits",
            Box::new(move || retry_after::parse_retry_after_ms_header(&digits).is_ok()),
        ),
        ("grpc-timeout, 1 MiB", Box::new(move || grpc_timeout::parse_grpc_timeout(&timeout).is_ok())),
    ]
}
