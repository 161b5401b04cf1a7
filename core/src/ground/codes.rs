//! The codes outcomes report and policies list, with their snake_case names:
//! gRPC status codes, and the transport class ([`TransportFailure`]: may the
//! request have reached the server?). The failure vocabulary a host names
//! what it saw in is [`Failure`](crate::Failure), mapped onto these.
//! Published here, where they are defined, and at the crate root;
//! [`classify`](crate::outcomes::classify) re-exports them (the path before the floors).

use crate::ground::named::Named;

/// gRPC status codes, by their canonical names in snake_case.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[allow(missing_docs)]
pub enum GrpcCode {
    Ok,
    Cancelled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
    Unauthenticated,
}

impl GrpcCode {
    /// Every code, in numeric order.
    pub const ALL: [GrpcCode; 17] = [
        GrpcCode::Ok,
        GrpcCode::Cancelled,
        GrpcCode::Unknown,
        GrpcCode::InvalidArgument,
        GrpcCode::DeadlineExceeded,
        GrpcCode::NotFound,
        GrpcCode::AlreadyExists,
        GrpcCode::PermissionDenied,
        GrpcCode::ResourceExhausted,
        GrpcCode::FailedPrecondition,
        GrpcCode::Aborted,
        GrpcCode::OutOfRange,
        GrpcCode::Unimplemented,
        GrpcCode::Internal,
        GrpcCode::Unavailable,
        GrpcCode::DataLoss,
        GrpcCode::Unauthenticated,
    ];

    /// The numeric code on the wire (0 for `ok` ... 16 for `unauthenticated`).
    #[must_use]
    pub fn number(self) -> u32 {
        self as u32
    }

    /// The code for a wire number, if it is one of the 17 defined codes.
    #[must_use]
    pub fn from_number(number: u32) -> Option<GrpcCode> {
        usize::try_from(number).ok().and_then(|index| GrpcCode::ALL.get(index).copied())
    }

    /// The snake_case name, as in JSON.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            GrpcCode::Ok => "ok",
            GrpcCode::Cancelled => "cancelled",
            GrpcCode::Unknown => "unknown",
            GrpcCode::InvalidArgument => "invalid_argument",
            GrpcCode::DeadlineExceeded => "deadline_exceeded",
            GrpcCode::NotFound => "not_found",
            GrpcCode::AlreadyExists => "already_exists",
            GrpcCode::PermissionDenied => "permission_denied",
            GrpcCode::ResourceExhausted => "resource_exhausted",
            GrpcCode::FailedPrecondition => "failed_precondition",
            GrpcCode::Aborted => "aborted",
            GrpcCode::OutOfRange => "out_of_range",
            GrpcCode::Unimplemented => "unimplemented",
            GrpcCode::Internal => "internal",
            GrpcCode::Unavailable => "unavailable",
            GrpcCode::DataLoss => "data_loss",
            GrpcCode::Unauthenticated => "unauthenticated",
        }
    }
}

/// The transport class of a failure below the application protocol: whether
/// the request may have reached the server, what the engine decides on. Each
/// failure of the failure vocabulary (`Failure`) but `cancelled` has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TransportFailure {
    /// The request never left (DNS failure, connection refused, TLS handshake
    /// failed before sending). Always safe to repeat.
    NotSent,
    /// The connection broke after the request was (partly) sent: it may have
    /// been processed.
    ConnectionLost,
    /// The attempt's timeout fired after sending: it may have been processed.
    TimedOut,
}

impl TransportFailure {
    /// Every kind, in declaration order.
    pub const ALL: [TransportFailure; 3] =
        [TransportFailure::NotSent, TransportFailure::ConnectionLost, TransportFailure::TimedOut];

    /// True when the server may have processed the request.
    #[must_use]
    pub fn may_have_been_processed(self) -> bool {
        !matches!(self, TransportFailure::NotSent)
    }
}

impl Named for GrpcCode {
    const ALL: &'static [Self] = &GrpcCode::ALL;
    fn name(self) -> &'static str {
        GrpcCode::name(self)
    }
}

crate::ground::named::named_serde!(GrpcCode);

impl Named for TransportFailure {
    const ALL: &'static [Self] = &TransportFailure::ALL;
    fn name(self) -> &'static str {
        match self {
            TransportFailure::NotSent => "not_sent",
            TransportFailure::ConnectionLost => "connection_lost",
            TransportFailure::TimedOut => "timed_out",
        }
    }
}

crate::ground::named::named_serde!(TransportFailure);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grpc_numbers_match_the_wire() {
        for (index, code) in GrpcCode::ALL.iter().enumerate() {
            assert_eq!(code.number() as usize, index);
            assert_eq!(GrpcCode::from_number(code.number()), Some(*code));
        }
        assert_eq!(GrpcCode::Unavailable.number(), 14);
        assert_eq!(GrpcCode::from_number(17), None);
    }
}
