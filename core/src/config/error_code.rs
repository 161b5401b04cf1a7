//! Error codes of HTTP outcomes, as AWS services send them
//! (`ThrottlingException`, `SlowDown`, ...): the inline [`ErrorCode`], the
//! built-in tables a policy may retry ([`ErrorCodeTable`]), and the reader of
//! a response's code ([`error_code_from_response`]). Published here,
//! where they are defined; [`crate::dialects::aws`] re-exports them with its
//! tables (the path the bindings use); a leaf, so classification and the
//! policy schema can use it.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use alloc::string::String;

use crate::config::error::Error;
use crate::ground::message::{message, Message};
use crate::headers::error_body::{json_error_code, xml_error_code};

/// The longest error code an [`ErrorCode`] holds, in bytes.
pub const MAX_ERROR_CODE_LEN: usize = 64;

/// Error codes the SDKs retry as transient (reference guide, "transient
/// errors"; botocore `TransientRetryableChecker`).
pub const TRANSIENT_ERROR_CODES: [&str; 3] = ["RequestTimeout", "RequestTimeoutException", "PriorRequestNotComplete"];

/// Error codes the SDKs retry as throttling (reference guide, "throttling
/// errors"; botocore `ThrottledRetryableChecker`).
pub const THROTTLING_ERROR_CODES: [&str; 14] = [
    "Throttling",
    "ThrottlingException",
    "ThrottledException",
    "RequestThrottledException",
    "TooManyRequestsException",
    "ProvisionedThroughputExceededException",
    "TransactionInProgressException",
    "RequestLimitExceeded",
    "BandwidthLimitExceeded",
    "LimitExceededException",
    "RequestThrottled",
    "SlowDown",
    "PriorRequestNotComplete",
    "EC2ThrottledException",
];

/// A built-in table of error codes a policy may retry (`retry_on.error_codes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorCodeTable {
    /// [`TRANSIENT_ERROR_CODES`].
    AwsTransient,
    /// [`THROTTLING_ERROR_CODES`] (classified with `throttling: true`).
    AwsThrottling,
}

impl ErrorCodeTable {
    /// Every table, in declaration order.
    pub const ALL: [ErrorCodeTable; 2] = [ErrorCodeTable::AwsTransient, ErrorCodeTable::AwsThrottling];

    /// True when `code` is in the table.
    #[must_use]
    pub fn contains(self, code: &ErrorCode) -> bool {
        match self {
            ErrorCodeTable::AwsTransient => code.is_transient(),
            ErrorCodeTable::AwsThrottling => code.is_throttling(),
        }
    }
}

impl crate::ground::named::Named for ErrorCodeTable {
    const ALL: &'static [Self] = &ErrorCodeTable::ALL;
    fn name(self) -> &'static str {
        match self {
            ErrorCodeTable::AwsTransient => "aws_transient",
            ErrorCodeTable::AwsThrottling => "aws_throttling",
        }
    }
}

crate::ground::named::named_serde!(ErrorCodeTable);

/// A set of [`ErrorCodeTable`]s, as a validated policy keeps it (no heap).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ErrorCodeTables(u8);

impl ErrorCodeTables {
    /// The set of the listed tables.
    #[must_use]
    pub fn of(tables: &[ErrorCodeTable]) -> ErrorCodeTables {
        ErrorCodeTables(tables.iter().fold(0, |bits, table| bits | 1 << *table as u8))
    }

    /// True when `table` is in the set.
    #[must_use]
    pub fn contains(&self, table: ErrorCodeTable) -> bool {
        self.0 & (1 << table as u8) != 0
    }

    /// The tables in declaration order.
    pub fn iter(&self) -> impl Iterator<Item = ErrorCodeTable> + '_ {
        ErrorCodeTable::ALL.into_iter().filter(|table| self.contains(*table))
    }
}

/// An AWS error code (`ThrottlingException`, `SlowDown`, ...): 1 to 64
/// visible ASCII characters, stored inline so an [`Outcome`](crate::Outcome)
/// stays `Copy`.
///
/// ```
/// use retryplan::dialects::aws::ErrorCode;
/// let code = ErrorCode::new("SlowDown").unwrap();
/// assert_eq!(code.as_str(), "SlowDown");
/// assert!(code.is_throttling());
/// assert_eq!(ErrorCode::new("").unwrap_err().to_string(), "invalid argument `error_code`: must be 1 to 64 bytes long, got 0");
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ErrorCode {
    len: u8,
    bytes: [u8; MAX_ERROR_CODE_LEN],
}

impl ErrorCode {
    /// Checks and stores a code.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `error_code` when the code is empty,
    /// longer than 64 bytes, or holds anything but visible ASCII. Nothing is
    /// ever truncated.
    pub fn new(code: &str) -> Result<ErrorCode, Error> {
        let invalid = |rule: Message| Error::InvalidArgument { field: "error_code", rule };
        if code.is_empty() || code.len() > MAX_ERROR_CODE_LEN {
            return Err(invalid(message!(TextLength, MAX_ERROR_CODE_LEN, code.len())));
        }
        if let Some(bad) = code.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(invalid(message!(NotVisibleAscii, String::from(bad))));
        }
        let mut bytes = [0u8; MAX_ERROR_CODE_LEN];
        for (slot, byte) in bytes.iter_mut().zip(code.bytes()) {
            *slot = byte;
        }
        // The length was checked to be at most 64 above.
        Ok(ErrorCode { len: u8::try_from(code.len()).unwrap_or(u8::MAX), bytes })
    }

    /// The code as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        let used = self.bytes.get(..usize::from(self.len)).unwrap_or_default();
        // Only visible ASCII is ever stored, so this is valid UTF-8.
        core::str::from_utf8(used).unwrap_or_default()
    }

    /// True for a code in [`THROTTLING_ERROR_CODES`].
    #[must_use]
    pub fn is_throttling(&self) -> bool {
        THROTTLING_ERROR_CODES.contains(&self.as_str())
    }

    /// True for a code in [`TRANSIENT_ERROR_CODES`].
    #[must_use]
    pub fn is_transient(&self) -> bool {
        TRANSIENT_ERROR_CODES.contains(&self.as_str())
    }
}

impl core::fmt::Debug for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ErrorCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ErrorCode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<ErrorCode, D::Error> {
        let text = String::deserialize(deserializer)?;
        ErrorCode::new(&text).map_err(serde::de::Error::custom)
    }
}

/// An error code as the services write it, reduced to the bare code as the
/// SDKs do: everything from the first `:` on is dropped (`x-amzn-errortype:
/// ValidationException:http://internal...`), then everything up to the last
/// `#` (`aws.dynamodb#ThrottlingException`). Surrounding whitespace is
/// ignored. `None` when nothing is left.
///
/// ```
/// use retryplan::dialects::aws::sanitize_error_code;
/// assert_eq!(sanitize_error_code("com.amazon#ThrottlingException:http://x"), Some("ThrottlingException"));
/// assert_eq!(sanitize_error_code(" SlowDown "), Some("SlowDown"));
/// assert_eq!(sanitize_error_code(":x"), None);
/// ```
#[must_use]
pub fn sanitize_error_code(raw: &str) -> Option<&str> {
    let code = bare_error_code(raw).trim_ascii();
    (!code.is_empty()).then_some(code)
}

/// The code in `raw` as botocore reduces it: before the first `:`, after the
/// last `#`, nothing trimmed (a body's `<Code> SlowDown </Code>` is no code).
fn bare_error_code(raw: &str) -> &str {
    let before_colon = raw.split(':').next().unwrap_or_default();
    before_colon.rsplit('#').next().unwrap_or_default()
}

/// The error code of an AWS response, read only where the protocols put it
/// (botocore's response parsers, smithy-rs's error readers):
///
/// 1. the `x-amzn-errortype` header (JSON protocols);
/// 2. else, in a JSON body, the top-level object's string member `code`,
///    else `Code`, else `__type` (never a member of a nested object or array);
/// 3. else, in an XML body, the `<Code>` of the error element: a root
///    `<Error>` (S3), the root's `<Error>` (`<ErrorResponse><Error>`,
///    awsQuery and restXml), or the first `<Error>` of the root's `<Errors>`
///    (EC2's `<Response><Errors><Error>`), never text elsewhere (comments,
///    CDATA, other elements).
///
/// The first of them that is there decides, as in botocore: a header that is
/// there but empty, or a body's code member that is empty or no string, is
/// no code (the body is not read further). The header is reduced by
/// [`sanitize_error_code`]; a body's code the same way but nothing trimmed,
/// so a padded `<Code> SlowDown </Code>` is no code, as botocore keeps the
/// spaces and no table holds such a code. A body that does not parse has no
/// code; a value that is not a valid [`ErrorCode`] (longer than 64
/// bytes, not visible ASCII) counts as no code: it cannot name a retryable
/// error. Nothing here fails; the reading is one pass over the body.
///
/// ```
/// use retryplan::dialects::aws::error_code_from_response;
/// let xml = "<Error><Code>SlowDown</Code><Message>Reduce your rate</Message></Error>";
/// assert_eq!(error_code_from_response(None, Some(xml)).unwrap().as_str(), "SlowDown");
/// let json = r#"{"__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException"}"#;
/// assert_eq!(error_code_from_response(None, Some(json)).unwrap().as_str(), "ProvisionedThroughputExceededException");
/// assert_eq!(error_code_from_response(Some("ThrottlingException:http://x"), None).unwrap().as_str(), "ThrottlingException");
/// let nested = r#"{"code": "ValidationError", "detail": {"__type": "Throttling"}}"#;
/// assert_eq!(error_code_from_response(None, Some(nested)).unwrap().as_str(), "ValidationError");
/// ```
#[must_use]
pub fn error_code_from_response(errortype_header: Option<&str>, body: Option<&str>) -> Option<ErrorCode> {
    if let Some(header) = errortype_header {
        return ErrorCode::new(sanitize_error_code(header)?).ok();
    }
    let body = body?.trim_ascii_start();
    let raw = if body.starts_with('{') {
        json_error_code(body)?
    } else if body.starts_with('<') {
        xml_error_code(body)?
    } else {
        return None;
    };
    ErrorCode::new(bare_error_code(raw)).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_checked_and_never_truncated() {
        assert_eq!(ErrorCode::new(&"x".repeat(64)).unwrap().as_str().len(), 64);
        let error = ErrorCode::new(&"x".repeat(65)).unwrap_err();
        assert_eq!(error.to_string(), "invalid argument `error_code`: must be 1 to 64 bytes long, got 65");
        assert!(ErrorCode::new("Slow Down").is_err());
        assert!(ErrorCode::new("Throttlé").is_err());
        let code = ErrorCode::new("PriorRequestNotComplete").unwrap();
        assert!(code.is_throttling() && code.is_transient());
        assert!(!ErrorCode::new("throttling").unwrap().is_throttling(), "codes are case-sensitive");
    }

    #[test]
    fn codes_from_responses() {
        let code = |header, body| error_code_from_response(header, body).map(|c| c.as_str().to_owned());
        assert_eq!(code(Some("SlowDown"), Some("<Code>Other</Code>")).as_deref(), Some("SlowDown"));
        assert_eq!(code(None, Some(r#"{"code": "Throttling"}"#)).as_deref(), Some("Throttling"));
        assert_eq!(
            code(None, Some("<Response><Errors><Error><Code>RequestLimitExceeded</Code></Error></Errors></Response>"))
                .as_deref(),
            Some("RequestLimitExceeded")
        );
        assert_eq!(code(None, Some("plain text")), None);
        assert_eq!(code(None, Some("{not json")), None);
        let long = "y".repeat(65);
        assert_eq!(code(Some(long.as_str()), None), None);
        assert_eq!(code(None, None), None);
    }

    #[test]
    fn the_first_code_there_decides_and_a_body_code_is_not_trimmed() {
        // botocore's parsers: the first member present ends the search, and a body's code keeps its spaces.
        let code = |header, body| error_code_from_response(header, body).map(|c| c.as_str().to_owned());
        assert_eq!(code(Some(""), Some(r#"{"code": "Throttling"}"#)), None, "an empty header is there");
        assert_eq!(code(Some(" SlowDown "), None).as_deref(), Some("SlowDown"), "a header's whitespace is no part");
        assert_eq!(code(None, Some(r#"{"code": "", "Code": "Throttling"}"#)), None);
        assert_eq!(code(None, Some(r#"{"code": 5, "Code": "Throttling"}"#)), None);
        assert_eq!(code(None, Some(r#"{"Code": {"x": 1}, "__type": "Throttling"}"#)), None);
        assert_eq!(code(None, Some(r#"{"message": 5, "__type": "Throttling"}"#)).as_deref(), Some("Throttling"));
        assert_eq!(code(None, Some("<Error><Code> SlowDown </Code></Error>")), None);
        assert_eq!(code(None, Some(r#"{"code": " Throttling"}"#)), None);
        assert_eq!(code(None, Some(r#"{"__type": "aws# Throttling"}"#)), None);
        assert_eq!(code(None, Some(r#"{"__type": "aws#Throttling: x"}"#)).as_deref(), Some("Throttling"));
    }
}
