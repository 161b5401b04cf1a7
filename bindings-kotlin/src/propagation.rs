//! Propagation across hops (`retryplan::propagation`): the incoming
//! request's context, read by the core through the host's header lookup
//! (an opaque object), and the headers the driver writes on each attempt
//! and on the answer. Conversion only: every value is the core's.

use std::collections::HashMap;
use std::sync::Arc;

use retryplan as rp;
use retryplan::propagation::{HeaderList, REQUEST_HEADERS};

use crate::policy::Policy;
use crate::{long_out, ms_in, Result};

/// A lookup of the incoming request's headers by lower-case name (null when absent;
/// a header sent as several field lines joined by `", "`).
#[uniffi::export(callback_interface)]
pub trait HeaderLookup: Send + Sync {
    fn header(&self, name: String) -> Option<String>;
}

/// One header to write: its lower-case name and its value.
#[derive(Clone, Debug, PartialEq, Eq, uniffi::Record)]
pub struct HeaderField {
    pub name: String,
    pub value: String,
}

/// What the request being served says about its caller (the core's
/// `IncomingContext`), opaque: made by `read` (or `none`), handed to
/// `Driver.with_incoming`.
#[derive(Debug, uniffi::Object)]
pub struct IncomingContext(pub(crate) rp::propagation::IncomingContext);

#[uniffi::export]
impl IncomingContext {
    /// Reads the incoming request's headers through `lookup` at `now_ms`, as
    /// `policy.propagation.read_headers` says. `InvalidRequestHeader` (blame
    /// `caller`) naming the header and its rule for a value that breaks it (`InvalidArgument`
    /// naming `Idempotency-Key` for a key that is not one): a server answers
    /// either with 400.
    #[uniffi::constructor]
    pub fn read(policy: Arc<Policy>, now_ms: i64, lookup: Box<dyn HeaderLookup>) -> Result<Arc<IncomingContext>> {
        let now_ms = ms_in("now_ms", now_ms)?;
        // The core's lookup lends its answers for the whole read: ask the host once for each name it reads.
        let values: HashMap<&'static str, String> =
            REQUEST_HEADERS.into_iter().filter_map(|name| Some((name, lookup.header(name.to_owned())?))).collect();
        let context =
            rp::propagation::IncomingContext::read(&policy.0, now_ms, |name| values.get(name).map(String::as_str))?;
        Ok(Arc::new(IncomingContext(context)))
    }

    /// The context of a request with none of the headers, read at `received_at_ms`.
    #[uniffi::constructor]
    pub fn none(received_at_ms: i64) -> Result<Arc<IncomingContext>> {
        Ok(Arc::new(IncomingContext(rp::propagation::IncomingContext::none(ms_in("received_at_ms", received_at_ms)?))))
    }

    /// When the request was read, on the host's monotonic clock (ms).
    pub fn received_at_ms(&self) -> i64 {
        long_out(self.0.received_at_ms)
    }

    /// The caller's remaining time when it sent the request, in ns (a `Long`, as every number of this API: the
    /// core saturates a longer one at 2^63 - 1); null without a deadline header.
    pub fn caller_remaining_ns(&self) -> Option<i64> {
        self.0.caller_remaining_ns.map(long_out)
    }

    /// The header that gave `caller_remaining_ns`.
    pub fn deadline_header(&self) -> Option<String> {
        self.0.deadline_header.map(str::to_owned)
    }

    /// Attempts the caller made before this one (0 for its first).
    pub fn previous_attempts(&self) -> i64 {
        i64::from(self.0.previous_attempts)
    }

    /// The caller's idempotency key, sent on every hop unchanged.
    pub fn idempotency_key(&self) -> Option<String> {
        self.0.idempotency_key.as_ref().map(|key| key.as_str().to_owned())
    }

    /// A layer above retries this request.
    pub fn caller_retries(&self) -> bool {
        self.0.caller_retries
    }

    /// The deadline of an operation serving this request under `policy`, on the
    /// host's clock (`received_at_ms + caller's remaining - propagation.reserve_ms`);
    /// null without a deadline.
    pub fn deadline_ms(&self, policy: Arc<Policy>) -> Option<i64> {
        self.0.deadline_ms(policy.0.propagation().reserve_ms).map(long_out)
    }
}

pub(crate) fn fields(headers: &HeaderList) -> Vec<HeaderField> {
    headers.iter().map(|(name, value)| HeaderField { name: name.to_owned(), value: value.to_owned() }).collect()
}
