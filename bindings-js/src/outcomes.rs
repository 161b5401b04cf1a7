//! What hosts read with the driver (`lib/http.js`): HTTP responses read as
//! outcomes from the values of their guidance headers, each outcome stored in
//! its wire words (`crate::wire::outcome`) for the generated
//! `lib/generated/outcomes.js` to spell as the outcome object.

use retryplan as rp;
use rp::Outcome;
use wasm_bindgen::prelude::*;

use alloc::string::String;
use alloc::vec::Vec;

/// An HTTP response as an outcome (its words stored, its error code
/// returned: see `crate::wire::outcome`): `status` (checked by `lib/http.js`
/// to be a whole number <= 65535), and the raw `Retry-After` and
/// `retry-after-ms` values, read by the core against `nowUnixMs`.
#[wasm_bindgen(js_name = _outcomeFromHttp)]
pub fn outcome_from_http(
    status: u32,
    retry_after: Option<String>,
    retry_after_ms: Option<String>,
    now_unix_ms: f64,
) -> JsValue {
    let status = u16::try_from(status).unwrap_or(u16::MAX);
    crate::wire::outcome(&Outcome::from_http(
        status,
        retry_after.as_deref(),
        retry_after_ms.as_deref(),
        now_unix_ms as u64,
    ))
}

/// An HTTP response as an outcome (stored as words, as `_outcomeFromHttp`; its
/// error code returned, or the `RetryplanError`), read by the core as in every
/// language (`Outcome::read_http_response`): a status outside 100..=599 (or an interim 1xx but 101) is a
/// malformed response (the server's fault); otherwise `values` holds the
/// guidance headers (`GUIDANCE_HEADERS`, in that order: a string, or `null`
/// when absent), HTTP-dates against `nowUnixMs`, Retry-After read as `reading`
/// says (its index in `RetryAfterReading::ALL`), or, given `policy` (a policy's
/// handle; 0 for none), as that policy's HTTP helpers read a response; both
/// given is refused.
#[wasm_bindgen(js_name = _outcomeFromResponse)]
pub fn outcome_from_response(
    status: f64,
    values: Vec<JsValue>,
    now_unix_ms: f64,
    reading: Option<u32>,
    policy: u32,
) -> JsValue {
    // Any whole number is a status a server may send (`lib/http.js` checked
    // it is one): the core reads it as it is.
    let values = guidance_lookup(&values);
    let reading = reading.map(|index| crate::args::named_or_default(Some(index)));
    crate::either((|| {
        let policy = if policy == 0 { None } else { Some(crate::objects::policy(policy)?) };
        let policy = policy.as_deref();
        let outcome = Outcome::read_http_response(status as i64, values.lookup(), now_unix_ms as u64, reading, policy);
        Ok(crate::wire::outcome(&outcome.map_err(crate::js_error)?))
    })())
}

/// The values of the guidance headers, given in `GUIDANCE_HEADERS` order (a
/// string, or anything else for an absent header), then, for a driver, the
/// next hop's "do not retry" answer (`retryplan-retryable`, read by
/// `Driver::handle_response`; `lib/constants.js` `RESPONSE_HEADERS`), looked up by name.
pub(crate) struct Guidance(Vec<Option<String>>);

impl Guidance {
    pub(crate) fn get(&self, wanted: &str) -> Option<&str> {
        let at = match rp::outcomes::http::GUIDANCE_HEADERS.iter().position(|name| *name == wanted) {
            Some(at) => at,
            None if wanted == rp::propagation::RETRYPLAN_RETRYABLE => rp::outcomes::http::GUIDANCE_HEADERS.len(),
            None => return None,
        };
        self.0.get(at)?.as_deref()
    }

    /// The core's header lookup over these values: one type for every reader here (the driver's
    /// `handle_response` and `_outcomeFromResponse`), so the core's generic reading of a response is
    /// compiled once into the wasm, not once per call site.
    pub(crate) fn lookup<'g>(&'g self) -> impl FnMut(&'static str) -> Option<&'g str> + 'g {
        move |name| self.get(name)
    }
}

pub(crate) fn guidance_lookup(values: &[JsValue]) -> Guidance {
    Guidance(values.iter().map(JsValue::as_string).collect())
}
