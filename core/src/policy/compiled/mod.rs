#![doc = include_str!("form.md")]

use alloc::vec::Vec;

mod bytes;
mod dependency;
mod error;
mod fields;

pub use error::{CompiledFormError, Damage, FormKind};

use crate::policy::validated::Policy;
use bytes::Reader;
use fields::Encoded;

/// The version of the compiled form this core writes and reads (see the
/// module docs); a form of any other version is refused.
pub const FORM_VERSION: u8 = 3;

/// The longest form the reader reads, in bytes (1 MiB: a policy's form is a
/// few dozen bytes, one listing every error code it retries a few
/// kilobytes). A longer one is refused before anything else is read, as
/// damaged at this offset (`compiled_form_damaged`): the byte there cannot
/// be part of a form, whatever the bytes before it. So a binding that copies
/// a form into memory it must bound (wasm) may copy its first
/// `MAX_FORM_LEN + 1` bytes only, and gets the refusal the whole form gets.
pub const MAX_FORM_LEN: usize = 1 << 20;

impl Policy {
    /// The policy's compiled form: a few dozen bytes that
    /// [`Policy::from_compiled`] reads back without the configuration reader
    /// (see [`compiled`](crate::policy::compiled)).
    ///
    /// ```
    /// use retryplan::Policy;
    /// let policy = Policy::from_json(r#"{"max_attempts": 4, "total_timeout_ms": 2000}"#).unwrap();
    /// let form = policy.to_compiled();
    /// assert_eq!(&form[..2], b"rp");
    /// assert_eq!(Policy::from_compiled(&form), Ok(policy));
    /// ```
    #[must_use]
    pub fn to_compiled(&self) -> Vec<u8> {
        let mut body = Vec::new();
        self.write(&mut body);
        bytes::seal(FormKind::Policy, FORM_VERSION, &body)
    }

    /// Reads a compiled form back: the policy [`Policy::to_compiled`] wrote,
    /// equal to it. Validation happened when the form was compiled; this
    /// checks that the form is one (magic, version, CRC-32 checksum, every
    /// value readable and in its field's range, and the rules between fields
    /// the engine's safety needs: see the module docs), so it carries no
    /// reader, validator or messages of configurations.
    ///
    /// # Errors
    /// [`CompiledFormError`]: not a compiled form, another version, damaged
    /// (its checksum, or a value that does not read), or a dependency's.
    pub fn from_compiled(form: &[u8]) -> Result<Policy, CompiledFormError> {
        let body = bytes::open(form, FormKind::Policy, FORM_VERSION)?;
        read_body(body)
            .and_then(|policy| {
                // A rule between fields: refused at the body's first byte, as
                // `Dependency::from_compiled` refuses a configuration.
                let keeps = fields::keeps_cross_field_rules(&policy);
                keeps.then_some(policy).ok_or(bytes::Unreadable(bytes::HEADER_LEN))
            })
            .map_err(|bytes::Unreadable(offset)| CompiledFormError::Damaged {
                expected: FormKind::Policy,
                damage: Damage::Unreadable { offset },
            })
    }
}

/// A whole body: the value, and nothing after it.
fn read_body<T: Encoded>(body: &[u8]) -> Result<T, bytes::Unreadable> {
    let mut input = Reader::new(body);
    let value = T::read(&mut input);
    input.finish().map(|()| value)
}

#[cfg(test)]
mod tests;
