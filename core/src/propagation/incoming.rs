//! Reading the incoming request: [`IncomingContext::read`].

use alloc::boxed::Box;

use crate::config::error::Error;
use crate::config::idempotency_key::IdempotencyKey;
use crate::ground::units::MAX_MS;
use crate::headers::grpc_timeout::parse_grpc_timeout_ns;
use crate::headers::retry_after::HeaderError;
use crate::policy::{HeaderFamily, Policy};

use super::{
    ENVOY_ATTEMPT_COUNT, ENVOY_EXPECTED_RQ_TIMEOUT_MS, GRPC_PREVIOUS_RPC_ATTEMPTS, GRPC_TIMEOUT, IDEMPOTENCY_KEY,
    RETRYPLAN_ATTEMPT, RETRYPLAN_CALLER_RETRIES, RETRYPLAN_TIMEOUT_MS,
};

const NS_PER_MS: u64 = 1_000_000;

/// What the request being served says about its caller (see the
/// [module documentation](super) for the headers and their rules).
///
/// ```
/// use retryplan::{propagation::IncomingContext, Policy};
/// let policy = Policy::default();
/// let headers = [("grpc-timeout", "1500m"), ("x-envoy-attempt-count", "2"), ("idempotency-key", "order-5001")];
/// let lookup = |name: &str| headers.iter().find(|(key, _)| *key == name).map(|(_, value)| *value);
/// let context = IncomingContext::read(&policy, 10_000, lookup).unwrap();
/// assert_eq!(context.caller_remaining_ns, Some(1_500_000_000));
/// assert_eq!(context.deadline_header, Some("grpc-timeout"));
/// assert_eq!((context.previous_attempts, context.caller_retries), (1, true));
/// // 10 000 + 1 500 - the 20 ms reserve for the answer's way back.
/// assert_eq!(context.deadline_ms(policy.propagation().reserve_ms), Some(11_480));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncomingContext {
    /// When the request was read, on the host's monotonic clock (ms).
    pub received_at_ms: u64,
    /// The caller's remaining time when it sent the request, in ns (the
    /// tightest deadline header read); `None` when it sent none.
    pub caller_remaining_ns: Option<u64>,
    /// The header that gave [`caller_remaining_ns`](Self::caller_remaining_ns).
    pub deadline_header: Option<&'static str>,
    /// Attempts the caller made before this one (0 for its first).
    pub previous_attempts: u32,
    /// The caller's idempotency key, sent on every hop unchanged.
    pub idempotency_key: Option<IdempotencyKey>,
    /// A layer above retries this request (it said so, or this is not its
    /// first attempt).
    pub caller_retries: bool,
}

impl IncomingContext {
    /// The context of a request with none of the headers: no deadline, a
    /// first attempt, no key, a caller that does not retry.
    #[must_use]
    pub fn none(received_at_ms: u64) -> IncomingContext {
        IncomingContext {
            received_at_ms,
            caller_remaining_ns: None,
            deadline_header: None,
            previous_attempts: 0,
            idempotency_key: None,
            caller_retries: false,
        }
    }

    /// Reads the incoming request's headers through `header` (a lookup by
    /// lower-case name) at `now_ms`, as `policy.propagation.read_headers`
    /// says.
    ///
    /// # Errors
    /// [`Error::InvalidRequestHeader`] naming the header and its rule for a
    /// value that breaks it (blame `caller`: the caller of this service sent
    /// it); [`Error::InvalidArgument`] naming `Idempotency-Key` for a key
    /// that is not one (the refusal [`IdempotencyKey::from_request_header`]
    /// gives wherever a request's key is read, also blame `caller`).
    pub fn read<'a>(
        policy: &Policy,
        now_ms: u64,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
    ) -> Result<IncomingContext, Error> {
        let mut context = IncomingContext::propagated(policy, now_ms, &mut header)
            .map_err(|refused| Error::InvalidRequestHeader(Box::new(refused)))?;
        if let Some(value) = header(IDEMPOTENCY_KEY) {
            context.idempotency_key = Some(IdempotencyKey::from_request_header(value)?);
        }
        Ok(context)
    }

    /// What the propagation headers say (all but the key), as
    /// [`read`](Self::read) reads them; the first value that breaks its
    /// header's rule refuses the request.
    fn propagated<'a>(
        policy: &Policy,
        now_ms: u64,
        mut header: impl FnMut(&'static str) -> Option<&'a str>,
    ) -> Result<IncomingContext, HeaderError> {
        let families = policy.propagation().read_headers;
        let mut context = IncomingContext::none(now_ms);
        let mut deadline = |name: &'static str, remaining_ns: Option<u64>| {
            if let Some(ns) = remaining_ns {
                if context.caller_remaining_ns.is_none_or(|tightest| ns < tightest) {
                    context.caller_remaining_ns = Some(ns);
                    context.deadline_header = Some(name);
                }
            }
        };
        if families.contains(HeaderFamily::Grpc) {
            if let Some(value) = header(GRPC_TIMEOUT) {
                deadline(GRPC_TIMEOUT, Some(parse_grpc_timeout_ns(value)?));
            }
        }
        if families.contains(HeaderFamily::Envoy) {
            if let Some(value) = header(ENVOY_EXPECTED_RQ_TIMEOUT_MS) {
                // Envoy writes its route timeout here, and a timeout of 0 is
                // its "no timeout": read as no deadline.
                let ms = digits(ENVOY_EXPECTED_RQ_TIMEOUT_MS, value, MAX_MS, "at most 9007199254740991 (2^53 - 1) ms")?;
                deadline(ENVOY_EXPECTED_RQ_TIMEOUT_MS, (ms > 0).then(|| ms.saturating_mul(NS_PER_MS)));
            }
        }
        if families.contains(HeaderFamily::Retryplan) {
            if let Some(value) = header(RETRYPLAN_TIMEOUT_MS) {
                let ms = digits(RETRYPLAN_TIMEOUT_MS, value, MAX_MS, "at most 9007199254740991 (2^53 - 1) ms")?;
                deadline(RETRYPLAN_TIMEOUT_MS, Some(ms.saturating_mul(NS_PER_MS)));
            }
        }
        let mut previous = |count: u64| {
            let count = u32::try_from(count).unwrap_or(u32::MAX);
            context.previous_attempts = context.previous_attempts.max(count);
        };
        let u32_limit = "at most 4294967295";
        if families.contains(HeaderFamily::Grpc) {
            if let Some(value) = header(GRPC_PREVIOUS_RPC_ATTEMPTS) {
                previous(digits(GRPC_PREVIOUS_RPC_ATTEMPTS, value, u32::MAX.into(), u32_limit)?);
            }
        }
        for (family, name) in [(HeaderFamily::Envoy, ENVOY_ATTEMPT_COUNT), (HeaderFamily::Retryplan, RETRYPLAN_ATTEMPT)]
        {
            if let Some(value) = header(name).filter(|_| families.contains(family)) {
                let number = digits(name, value, u32::MAX.into(), u32_limit)?;
                if number == 0 {
                    return Err(HeaderError::out_of_range(name, "at least 1 (the first attempt is 1)", value));
                }
                previous(number - 1);
            }
        }
        let says_retries = match header(RETRYPLAN_CALLER_RETRIES).filter(|_| families.contains(HeaderFamily::Retryplan))
        {
            Some(value) => boolean(RETRYPLAN_CALLER_RETRIES, value)?,
            None => false,
        };
        context.caller_retries = says_retries || context.previous_attempts > 0;
        Ok(context)
    }

    /// The deadline of an operation serving this request, on the host's
    /// clock: `received_at_ms + caller's remaining - reserve_ms`, the
    /// remaining time rounded down to whole ms (never more than the caller
    /// has), saturating at the reception time; `None` without a deadline.
    #[must_use]
    pub fn deadline_ms(&self, reserve_ms: u64) -> Option<u64> {
        let remaining_ms = self.caller_remaining_ns? / NS_PER_MS;
        Some(self.received_at_ms.saturating_add(remaining_ms.saturating_sub(reserve_ms)))
    }
}

/// A header value of ASCII digits only (surrounding spaces and tabs
/// ignored), at most `max`.
fn digits(header: &'static str, value: &str, max: u64, limit: &'static str) -> Result<u64, HeaderError> {
    let trimmed = value.trim_matches([' ', '\t']);
    if trimmed.is_empty() {
        return Err(HeaderError::Empty { header });
    }
    if !trimmed.bytes().all(|byte| byte.is_ascii_digit()) {
        return Err(HeaderError::malformed(header, "only ASCII digits (no sign, no unit)", trimmed));
    }
    let number = trimmed.bytes().try_fold(0u64, |sum, digit| sum.checked_mul(10)?.checked_add(u64::from(digit - b'0')));
    match number {
        Some(number) if number <= max => Ok(number),
        _ => Err(HeaderError::out_of_range(header, limit, trimmed)),
    }
}

/// An RFC 9651 boolean: `?1` or `?0`.
fn boolean(header: &'static str, value: &str) -> Result<bool, HeaderError> {
    match value.trim_matches([' ', '\t']) {
        "?1" => Ok(true),
        "?0" => Ok(false),
        "" => Err(HeaderError::Empty { header }),
        other => Err(HeaderError::malformed(header, "a structured-field boolean, ?1 or ?0", other)),
    }
}
