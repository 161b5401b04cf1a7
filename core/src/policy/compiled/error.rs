//! Why a compiled form is refused: [`CompiledFormError`], with its code,
//! blame and message, like every error of the engine.

use crate::config::error::{Blame, ConfigKind};
use crate::ground::message::Message;

/// What a compiled form holds: the kinds of configuration that have a
/// compiled form (the byte at offset 2: `p`, `d`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FormKind {
    /// A policy ([`Policy::to_compiled`](crate::Policy::to_compiled)).
    Policy,
    /// A dependency's shared controls ([`DependencyConfig::to_compiled`](crate::DependencyConfig::to_compiled)).
    Dependency,
}

impl FormKind {
    /// The configuration the form holds.
    #[must_use]
    pub fn config(self) -> ConfigKind {
        match self {
            FormKind::Policy => ConfigKind::Policy,
            FormKind::Dependency => ConfigKind::Dependency,
        }
    }

    /// Its name in messages: the configuration's (`policy`, `dependency`).
    #[must_use]
    pub fn name(self) -> &'static str {
        self.config().name()
    }
}

/// What is wrong with the damaged form.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Damage {
    /// The CRC-32 in the header does not match the bytes: changed or cut
    /// short after it was compiled.
    Checksum,
    /// The checksum matches but a value does not read (a form not written
    /// by `to_compiled`): the byte offset, from the form's first byte.
    Unreadable {
        /// Where reading stopped.
        offset: usize,
    },
}

/// A compiled form refused by [`Policy::from_compiled`](crate::Policy::from_compiled)
/// (or [`Dependency::from_compiled`](crate::Dependency::from_compiled)).
/// Nothing is created; compile the configuration again.
///
/// Each variant has a stable [`code`](CompiledFormError::code); the blame is
/// always [`Blame::Configuration`].
///
/// ```
/// use retryplan::policy::compiled::FORM_VERSION;
/// use retryplan::{CompiledFormError, Policy};
/// let error = Policy::from_compiled(b"{\"max_attempts\": 3}").unwrap_err();
/// assert_eq!(error.code(), "not_a_compiled_form");
/// let mut form = Policy::default().to_compiled();
/// form[3] = 99;
/// let error = Policy::from_compiled(&form).unwrap_err();
/// assert_eq!(error.code(), "compiled_form_version");
/// assert_eq!(
///     error.to_string(),
///     format!("the compiled policy is form version 99 and this retryplan reads version {FORM_VERSION}: compile the policy again with this version")
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CompiledFormError {
    /// Not a compiled form: shorter than its header or without the magic
    /// `rp` (a form written as base64 text must be decoded to bytes first).
    /// Code `not_a_compiled_form`.
    NotCompiled {
        /// What was expected (a policy or a dependency).
        expected: FormKind,
        /// How many bytes were given.
        len: usize,
    },
    /// A form of another version of the encoding. Code `compiled_form_version`.
    Version {
        /// What was expected (a policy or a dependency).
        expected: FormKind,
        /// The version the form was written in.
        found: u8,
        /// The version this core reads.
        supported: u8,
    },
    /// A damaged form. Code `compiled_form_damaged`.
    Damaged {
        /// What was expected (a policy or a dependency).
        expected: FormKind,
        /// What is wrong.
        damage: Damage,
    },
    /// An intact form of another kind (a dependency's where a policy's is
    /// read). Code `compiled_form_kind`.
    Kind {
        /// What was expected.
        expected: FormKind,
        /// What the form holds, if this core knows the kind.
        found: Option<FormKind>,
    },
}

impl CompiledFormError {
    /// Every code [`CompiledFormError::code`] returns, in the variants' order.
    pub const CODES: [&'static str; 4] =
        ["not_a_compiled_form", "compiled_form_version", "compiled_form_damaged", "compiled_form_kind"];

    /// The stable snake_case identifier of this kind of error.
    #[must_use]
    pub fn code(&self) -> &'static str {
        match self {
            CompiledFormError::NotCompiled { .. } => "not_a_compiled_form",
            CompiledFormError::Version { .. } => "compiled_form_version",
            CompiledFormError::Damaged { .. } => "compiled_form_damaged",
            CompiledFormError::Kind { .. } => "compiled_form_kind",
        }
    }

    /// Who must act: whoever built the page or service with this form
    /// (compile the configuration again).
    #[must_use]
    pub fn blame(&self) -> Blame {
        Blame::Configuration
    }

    /// The error as a message: free text ([`Rule::Text`](crate::ground::message::Rule::Text)),
    /// composed here. Its words are not rules of the message table: each
    /// rule's template would ship in the JavaScript entry's download, where
    /// the JS binding instead fills templates that `core/mirrors` derives from
    /// this text (`COMPILED_FORM` in its generated `wire.js`), checked against
    /// it for every kind.
    #[must_use]
    pub fn message(&self) -> Message {
        Message::text(alloc::string::ToString::to_string(self))
    }
}

impl core::fmt::Display for CompiledFormError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match *self {
            CompiledFormError::NotCompiled { expected, len } => write!(
                f,
                "not a compiled {}: {len} bytes that do not start with a compiled form's header (magic `rp`); a form written as base64 text must be decoded to bytes first",
                expected.name()
            ),
            CompiledFormError::Version { expected, found, supported } => {
                let what = expected.name();
                write!(f, "the compiled {what} is form version {found} and this retryplan reads version {supported}: compile the {what} again with this version")
            }
            CompiledFormError::Damaged { expected, damage: Damage::Checksum } => {
                let what = expected.name();
                write!(f, "the compiled {what} is damaged (its checksum does not match its bytes): compile the {what} again")
            }
            CompiledFormError::Damaged { expected, damage: Damage::Unreadable { offset } } => {
                let what = expected.name();
                write!(f, "the compiled {what} is damaged (byte {offset} does not read as its form says): compile the {what} again")
            }
            CompiledFormError::Kind { expected, found } => {
                write!(f, "expected a compiled {}, got a compiled {}", expected.name(), found.map_or("unknown", FormKind::name))
            }
        }
    }
}

impl core::error::Error for CompiledFormError {}
