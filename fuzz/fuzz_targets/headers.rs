//! Every header reader on any text: Retry-After (delta-seconds and the three
//! HTTP-date forms; the lenient reading agrees with the strict one wherever
//! that one reads), retry-after-ms, RateLimit / RateLimit-Policy and
//! RateLimit-Reset, grpc-timeout (ms and ns, with the encoders' round trips),
//! grpc-retry-pushback-ms, the AWS error code, and an HTTP response's outcome. Never a panic; results within their documented
//! bounds; errors keep a bounded excerpt of the value.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use retryplan::headers::grpc_timeout::{
    encode_grpc_timeout, encode_grpc_timeout_ns, parse_grpc_timeout, parse_grpc_timeout_ns, MAX_GRPC_TIMEOUT_NS,
};
use retryplan::headers::rate_limit::{parse_rate_limit, parse_rate_limit_reset};
use retryplan::headers::retry_after::{
    parse_grpc_pushback, parse_retry_after, parse_retry_after_ms_header, parse_retry_after_with, HeaderError,
    RetryAfterReading,
};
use retryplan::policy::MAX_MS;
use retryplan::{dialects::aws, Outcome};

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    value: &'a str,
    now_unix_ms: u64,
    status: u16,
    number: u64,
    /// Header names (by index into `retryplan::outcomes::http::GUIDANCE_HEADERS` and a few
    /// more) and values for the response reader.
    headers: Vec<(u8, &'a str)>,
}

/// A header error's message is short whatever the value's length.
fn bounded(error: &HeaderError) {
    let message = error.to_string();
    assert!(message.len() <= 512, "a {}-byte message", message.len());
}

/// An interim status (RFC 9110 §15.2): 1xx but 101.
fn interim(status: u16) -> bool {
    (100..=199).contains(&status) && status != 101
}

fuzz_target!(|input: Input<'_>| {
    let value = input.value;
    let strict = parse_retry_after(value, input.now_unix_ms);
    match &strict {
        Ok(ms) => assert!(*ms <= MAX_MS),
        Err(error) => bounded(error),
    }
    match parse_retry_after_with(value, input.now_unix_ms, RetryAfterReading::Lenient) {
        Ok(ms) => {
            assert!(ms <= MAX_MS);
            assert!(strict.as_ref().is_err() || strict == Ok(ms), "{value:?}: strict {strict:?}, lenient {ms}");
        }
        Err(error) => {
            bounded(&error);
            assert!(strict.is_err(), "{value:?}: the strict reading reads it, the lenient one does not");
        }
    }
    let policy = input.headers.first().map(|(_, policy)| *policy);
    match parse_rate_limit(value, policy) {
        Ok(wait) => assert!(wait.is_none_or(|ms| ms <= MAX_MS)),
        Err(error) => bounded(&error),
    }
    match parse_rate_limit_reset(value, input.now_unix_ms) {
        Ok(ms) => assert!(ms <= MAX_MS),
        Err(error) => bounded(&error),
    }
    match parse_retry_after_ms_header(value) {
        Ok(ms) => assert!(ms <= MAX_MS),
        Err(error) => bounded(&error),
    }
    match parse_grpc_timeout(value) {
        Ok(ms) => {
            let again = parse_grpc_timeout(&encode_grpc_timeout(ms)).expect("an encoded timeout reads back");
            assert!(again <= ms, "{value:?}: {ms} ms encodes as {again} ms: never more time than given");
        }
        Err(error) => bounded(&error),
    }
    match parse_grpc_timeout_ns(value) {
        Ok(ns) => {
            assert!(ns <= MAX_GRPC_TIMEOUT_NS);
            let again = parse_grpc_timeout_ns(&encode_grpc_timeout_ns(ns)).expect("an encoded timeout reads back");
            assert!(again <= ns);
        }
        Err(error) => bounded(&error),
    }
    let ms = input.number;
    let again = parse_grpc_timeout(&encode_grpc_timeout(ms)).expect("every encoded timeout reads back");
    assert!(again <= ms);
    let again = parse_grpc_timeout_ns(&encode_grpc_timeout_ns(ms)).expect("every encoded timeout reads back");
    assert!(again <= ms);
    let _ = parse_grpc_pushback(value);
    if let Some(code) = aws::sanitize_error_code(value) {
        assert!(code.len() <= value.len());
    }
    let _ = aws::error_code_from_response(Some(value), Some(value));

    const NAMES: [&str; 6] = ["retry-after", "retry-after-ms", "x-ms-retry-after-ms", "x-amzn-errortype", "date", ""];
    let header = |name: &'static str| {
        input.headers.iter().find(|(index, _)| NAMES[usize::from(*index) % NAMES.len()] == name).map(|(_, v)| *v)
    };
    match Outcome::from_http_response(input.status, header, input.now_unix_ms) {
        // A status outside 100..=599, or an interim 1xx but 101 given as the answer, is a malformed response.
        Outcome::HttpStatus { status, retry_after_ms, .. } => {
            assert!((100..=599).contains(&status) && status == input.status && !interim(status));
            assert!(retry_after_ms.is_none_or(|ms| ms <= MAX_MS));
        }
        Outcome::Transport { .. } => assert!(!(100..=599).contains(&input.status) || interim(input.status)),
        other => panic!("a response read as {other:?}"),
    }
});
