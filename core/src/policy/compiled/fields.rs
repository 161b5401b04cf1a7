//! What the body of a compiled policy holds: [`Encoded`], how each part of
//! a validated [`Policy`] is written and read back, and the one table of
//! the policy's fields (`struct_form!(Policy { ... })` below, the order of
//! the body and of the table in `form.md`).
//!
//! A field added to [`Policy`] fails to build here until it is listed (the
//! reader builds the struct with every field named), and then changes the
//! bytes of every form: `FORM_VERSION` goes up with it (a test pins the
//! default policy's bytes).

use alloc::vec::Vec;

use super::bytes::{write_number, Reader};
use crate::config::error_code::{ErrorCodeTable, ErrorCodeTables};
use crate::ground::codes::{GrpcCode, TransportFailure};
use crate::ground::named::Named;
use crate::ground::units::MAX_MS;
use crate::headers::retry_after::RetryAfterReading;
use crate::policy::config::{
    AboveCap, BackoffKind, GuidanceHeaders, GuidanceMode, HedgingConfig, Idempotency, RetryLayer, MAX_ATTEMPTS_LIMIT,
    MAX_HEDGED_ATTEMPTS, MAX_MULTIPLIER, MAX_REDELIVERY_DELAYS,
};
use crate::policy::names::JitterKind;
use crate::policy::retry_limits::{FailureKind, MethodSet, RetryLimits};
use crate::policy::sets::{Classification, GrpcCodeSet, HttpStatusSet, TransportSet};
use crate::policy::status_rules::{StatusGuidance, StatusRules, MAX_STATUS_RULES};
use crate::policy::validated::{
    AttemptTimeout, Backoff, HeaderFamilies, Jitter, Policy, Propagation, RedeliverySchedule, ServerGuidance,
};

/// A part of a policy as the body holds it.
pub(super) trait Encoded: Sized {
    /// The part's fields in the order written (empty for a single value):
    /// what `form.md`'s table must list.
    #[cfg(test)]
    const FIELDS: &'static [&'static str] = &[];
    /// Appends the part to `out`.
    fn write(&self, out: &mut Vec<u8>);
    /// Reads the part back; a value that does not read is refused in
    /// `input` (see [`Reader`]) and the part read as whatever it holds then.
    fn read(input: &mut Reader<'_>) -> Self;
}

/// [`Encoded`] for a struct: each listed field in turn. The reader names
/// every field, so a field left out of the list does not build. A field
/// written `field in LOW..=HIGH` is refused outside that range (where it
/// starts): the field's own range of [`Policy::new`], kept by a forged form
/// too (see "What the reader checks" on `form.md`).
macro_rules! struct_form {
    ($type:ident { $($field:ident $(in $range:expr)?),* $(,)? }) => {
        impl Encoded for $type {
            #[cfg(test)]
            const FIELDS: &'static [&'static str] = &[$(stringify!($field)),*];
            fn write(&self, out: &mut Vec<u8>) {
                $( self.$field.write(out); )*
            }
            fn read(input: &mut Reader<'_>) -> Self {
                $type { $( $field: struct_form!(@read input $(, $range)?), )* }
            }
        }
    };
    (@read $input:ident) => { Encoded::read($input) };
    (@read $input:ident, $range:expr) => { Bounded::read_in($input, $range) };
}

/// A whole number read within a range (a field written `field in LOW..=HIGH`).
pub(super) trait Bounded: Sized {
    /// The number, refused where it starts outside `range`.
    fn read_in(input: &mut Reader<'_>, range: core::ops::RangeInclusive<Self>) -> Self;
}

macro_rules! bounded {
    ($($type:ty),*) => {$(
        impl Bounded for $type {
            fn read_in(input: &mut Reader<'_>, range: core::ops::RangeInclusive<Self>) -> Self {
                let value = input.number_in((*range.start()).into(), (*range.end()).into());
                <$type>::try_from(value).unwrap_or_default()
            }
        }
    )*};
}

bounded!(u16, u32, u64);

pub(super) use struct_form;

/// [`Encoded`] for an enum with a [`Named`] table: one byte, its place in
/// `ALL`; a byte past the table is refused (and read as the variant given).
macro_rules! named_form {
    ($($type:ty = $refused:expr),* $(,)?) => {$(
        impl Encoded for $type {
            fn write(&self, out: &mut Vec<u8>) {
                out.push(place(*self));
            }
            fn read(input: &mut Reader<'_>) -> Self {
                let mark = input.mark();
                let byte = input.byte();
                <$type as Named>::ALL.get(usize::from(byte)).copied().unwrap_or_else(|| {
                    input.refuse(mark);
                    $refused
                })
            }
        }
    )*};
}

/// A named variant's place in its table's `ALL`.
fn place<T: Named>(variant: T) -> u8 {
    let position = T::ALL.iter().position(|known| known.name() == variant.name()).unwrap_or_default();
    u8::try_from(position).unwrap_or_default()
}

/// `backoff.multiplier`'s largest value, in thousandths (10^9, below `u32::MAX`).
const MAX_MULTIPLIER_PERMILLE: u32 = MAX_MULTIPLIER as u32 * 1000;

// The policy: every field of `Policy`, in the body's order. This is the table.
struct_form!(Policy {
    max_attempts in 1..=MAX_ATTEMPTS_LIMIT,
    total_timeout_ms in 1..=MAX_MS,
    attempt_timeout,
    response_reserve_ms,
    minimum_useful_attempt_ms,
    backoff,
    jitter,
    classification,
    server_guidance,
    retry_limits,
    retry_methods,
    idempotency,
    hedging,
    redelivery,
    propagation,
});

struct_form!(Propagation { reserve_ms, retry_layer, read_headers });

/// A set of header families: one number, its bits (at most every family's).
impl Encoded for HeaderFamilies {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, u64::from(self.bits));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let bits = input.number_in(0, u64::from(HeaderFamilies::ALL.bits));
        HeaderFamilies { bits: u8::try_from(bits).unwrap_or_default() }
    }
}

struct_form!(Backoff {
    kind,
    base_ms,
    multiplier_permille in 1..=MAX_MULTIPLIER_PERMILLE,
    cap_ms,
    throttling_base_ms,
    immediate_first_retry,
});

struct_form!(Classification {
    retry_http,
    retry_grpc,
    retry_transport,
    ambiguous_http,
    ambiguous_grpc,
    conflict_http,
    conflict_grpc,
    retry_error_codes,
    retry_all_server_errors,
});

struct_form!(ServerGuidance {
    honor,
    cap_ms,
    above_cap,
    retry_after_reading,
    statuses,
    mode,
    max_above_backoff_ms,
    headers
});

struct_form!(StatusGuidance { status in 100..=599, honor, requires_guidance, cap_ms, above_cap });

struct_form!(HedgingConfig { delay_ms, max_hedged_attempts in 1..=MAX_HEDGED_ATTEMPTS });

/// The rule between fields the reader keeps (the others are the compiler's:
/// see "What the reader checks" on `form.md`): a policy that hedges may
/// repeat its request, so it is not `unsafe`.
pub(super) fn keeps_cross_field_rules(policy: &Policy) -> bool {
    policy.hedging.is_none() || policy.idempotency != Idempotency::Unsafe
}

/// A ratio in thousandths: 1 to 1000 (`(0, 1]` with at most three decimals).
fn permille(input: &mut Reader<'_>) -> u32 {
    u32::try_from(input.number_in(1, 1000)).unwrap_or_default()
}

named_form!(
    BackoffKind = BackoffKind::Exponential,
    AboveCap = AboveCap::GiveUp,
    GuidanceMode = GuidanceMode::Floor,
    GuidanceHeaders = GuidanceHeaders::All,
    Idempotency = Idempotency::Unsafe,
    RetryAfterReading = RetryAfterReading::Strict,
    JitterKind = JitterKind::None,
    RetryLayer = RetryLayer::Every,
);

/// Every `u64` of a policy or a dependency is a time in ms: at most [`MAX_MS`].
impl Encoded for u64 {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, *self);
    }
    fn read(input: &mut Reader<'_>) -> Self {
        input.number_up_to(MAX_MS)
    }
}

impl Encoded for u32 {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, u64::from(*self));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        u32::try_from(input.number_up_to(u32::MAX.into())).unwrap_or_default()
    }
}

impl Encoded for u16 {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, u64::from(*self));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        u16::try_from(input.number_up_to(u16::MAX.into())).unwrap_or_default()
    }
}

impl Encoded for bool {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(u8::from(*self));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        input.number_up_to(1) == 1
    }
}

/// Absent: the byte 0; present: the byte 1, then the value.
impl<T: Encoded> Encoded for Option<T> {
    fn write(&self, out: &mut Vec<u8>) {
        match self {
            None => out.push(0),
            Some(value) => {
                out.push(1);
                value.write(out);
            }
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        bool::read(input).then(|| T::read(input))
    }
}

/// `fixed_ms`: 0, then the ms; `fraction_of_remaining`: 1, then the permille.
impl Encoded for AttemptTimeout {
    fn write(&self, out: &mut Vec<u8>) {
        match *self {
            AttemptTimeout::Fixed { ms } => {
                out.push(0);
                ms.write(out);
            }
            AttemptTimeout::FractionOfRemaining { permille } => {
                out.push(1);
                permille.write(out);
            }
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        if bool::read(input) {
            AttemptTimeout::FractionOfRemaining { permille: permille(input) }
        } else {
            AttemptTimeout::Fixed { ms: input.number_in(1, MAX_MS) }
        }
    }
}

/// The kind (its place in the jitter kinds' table), then its one value, if any.
impl Encoded for Jitter {
    fn write(&self, out: &mut Vec<u8>) {
        let kind = match *self {
            Jitter::None => JitterKind::None,
            Jitter::Full => JitterKind::Full,
            Jitter::Equal => JitterKind::Equal,
            Jitter::Decorrelated => JitterKind::Decorrelated,
            Jitter::Proportional { .. } => JitterKind::Proportional,
            Jitter::Polly { .. } => JitterKind::Polly,
            Jitter::A6 => JitterKind::A6,
            Jitter::FullThenCap => JitterKind::FullThenCap,
            Jitter::Additive { .. } => JitterKind::Additive,
        };
        kind.write(out);
        match *self {
            Jitter::Proportional { ratio_permille } => ratio_permille.write(out),
            Jitter::Polly { use_jitter } => use_jitter.write(out),
            Jitter::Additive { max_ms } => max_ms.write(out),
            _ => {}
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        match JitterKind::read(input) {
            JitterKind::None => Jitter::None,
            JitterKind::Full => Jitter::Full,
            JitterKind::Equal => Jitter::Equal,
            JitterKind::Decorrelated => Jitter::Decorrelated,
            JitterKind::Proportional => Jitter::Proportional { ratio_permille: permille(input) },
            JitterKind::Polly => Jitter::Polly { use_jitter: bool::read(input) },
            JitterKind::A6 => Jitter::A6,
            JitterKind::FullThenCap => Jitter::FullThenCap,
            JitterKind::Additive => Jitter::Additive { max_ms: u64::read(input) },
        }
    }
}

/// How many statuses, then each as its distance from the one before, less
/// one (the first from 99): `[408, 429]` is `2, 308, 20`.
impl Encoded for HttpStatusSet {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, self.iter().count() as u64);
        let mut previous = 99;
        for status in self.iter() {
            write_number(out, u64::from(status - previous - 1));
            previous = status;
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let count = input.number_up_to(500);
        let mut set = HttpStatusSet::default();
        let mut previous = 99u64;
        for _ in 0..count {
            let mark = input.mark();
            let status = previous.saturating_add(1).saturating_add(input.number_up_to(500));
            match u16::try_from(status).ok().filter(|status| *status <= 599) {
                Some(status) => set.insert(status),
                None => input.refuse(mark),
            }
            previous = status;
        }
        set
    }
}

/// Bit `n` for the code numbered `n` (0 `ok` ... 16 `unauthenticated`); no
/// set holds `ok` (it is a success, never retried, ambiguous or a conflict).
impl Encoded for GrpcCodeSet {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, self.iter().fold(0, |bits, code| bits | 1 << code.number()));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let mark = input.mark();
        let bits = input.number_up_to((1 << GrpcCode::ALL.len()) - 1);
        if bits & 1 << GrpcCode::Ok.number() != 0 {
            input.refuse(mark);
        }
        let mut set = GrpcCodeSet::default();
        for code in GrpcCode::ALL.into_iter().filter(|code| bits & 1 << code.number() != 0) {
            set.insert(code);
        }
        set
    }
}

/// Bit `i` for the `i`-th of `not_sent`, `connection_lost`, `timed_out`.
impl Encoded for TransportSet {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(bits_of(TransportFailure::ALL.iter().map(|failure| self.contains(*failure))));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let bits = input.number_up_to((1 << TransportFailure::ALL.len()) - 1);
        let mut set = TransportSet::default();
        for (bit, failure) in TransportFailure::ALL.into_iter().enumerate() {
            if bits & 1 << bit != 0 {
                set.insert(failure);
            }
        }
        set
    }
}

/// Bit `i` for the `i`-th of `aws_transient`, `aws_throttling`.
impl Encoded for ErrorCodeTables {
    fn write(&self, out: &mut Vec<u8>) {
        out.push(bits_of(ErrorCodeTable::ALL.iter().map(|table| self.contains(*table))));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let bits = input.number_up_to((1 << ErrorCodeTable::ALL.len()) - 1);
        let tables: Vec<ErrorCodeTable> = ErrorCodeTable::ALL
            .into_iter()
            .enumerate()
            .filter(|(bit, _)| bits & 1 << bit != 0)
            .map(|(_, t)| t)
            .collect();
        ErrorCodeTables::of(&tables)
    }
}

/// A byte with bit `i` set for each true `i`-th flag (at most 8).
fn bits_of(flags: impl Iterator<Item = bool>) -> u8 {
    flags.enumerate().fold(0, |bits, (bit, set)| if set { bits | 1 << bit } else { bits })
}

/// How many rules, then each rule (each status at most once).
impl Encoded for StatusRules {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, self.iter().count() as u64);
        for rule in self.iter() {
            rule.write(out);
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let count = input.number_up_to(MAX_STATUS_RULES as u64);
        let mut rules = StatusRules::default();
        for _ in 0..count {
            let mark = input.mark();
            let rule = StatusGuidance::read(input);
            if rules.get(rule.status).is_some() || !rules.push(rule) {
                input.refuse(mark);
            }
        }
        rules
    }
}

/// The limits of `connect`, `read`, `status`, `other`, each optional and
/// below `MAX_ATTEMPTS_LIMIT`.
impl Encoded for RetryLimits {
    fn write(&self, out: &mut Vec<u8>) {
        for kind in [FailureKind::Connect, FailureKind::Read, FailureKind::Status, FailureKind::Other] {
            self.get(kind).write(out);
        }
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let mut limits = [None; 4];
        for limit in &mut limits {
            let mark = input.mark();
            *limit = Option::<u32>::read(input);
            if limit.is_some_and(|limit| limit >= MAX_ATTEMPTS_LIMIT) {
                input.refuse(mark);
            }
        }
        RetryLimits::from_limits(limits)
    }
}

/// Bit `i` for the `i`-th of `RETRY_METHODS` (GET, HEAD, POST, PUT, ...).
impl Encoded for MethodSet {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, u64::from(self.bits()));
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let mark = input.mark();
        MethodSet::from_bits(u16::read(input)).unwrap_or_else(|| {
            input.refuse(mark);
            MethodSet::default()
        })
    }
}

/// How many delays (1 to 8), each delay, then `max_age_ms`.
impl Encoded for RedeliverySchedule {
    fn write(&self, out: &mut Vec<u8>) {
        write_number(out, self.len as u64);
        for delay in self.delays_ms.iter().take(self.len) {
            delay.write(out);
        }
        self.max_age_ms.write(out);
    }
    fn read(input: &mut Reader<'_>) -> Self {
        let len = input.number_in(1, MAX_REDELIVERY_DELAYS as u64) as usize;
        let mut delays_ms = [0; MAX_REDELIVERY_DELAYS];
        for delay in delays_ms.iter_mut().take(len) {
            *delay = u64::read(input);
        }
        RedeliverySchedule { delays_ms, len, max_age_ms: u64::read(input) }
    }
}
