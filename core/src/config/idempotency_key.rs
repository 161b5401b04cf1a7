//! The idempotency key: the one name of an operation across all its attempts,
//! and the header that carries it. (A leaf below both `operation`, which makes
//! keys, and `http`, which reads a request's own.)

use alloc::string::String;
use alloc::sync::Arc;

use crate::config::error::Error;
use crate::ground::lock::Once;
use crate::ground::message::message;
use crate::ground::rng::mix;

/// The header carrying the operation's idempotency key.
pub const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// The longest idempotency key accepted, in bytes.
pub const MAX_IDEMPOTENCY_KEY_LEN: usize = 255;

/// An idempotency key: 1 to 255 visible ASCII characters (it travels in a header).
///
/// A key made from random bits ([`IdempotencyKey::from_bits`], the keys an
/// operation derives or draws) is spelt as a UUID only when first read: most
/// operations of a safe policy never send theirs.
#[derive(Clone)]
pub struct IdempotencyKey(Spelling);

#[derive(Clone)]
enum Spelling {
    /// A key the caller chose, checked (shared: a clone per operation copies
    /// no text).
    Given(Arc<str>),
    /// 128 bits in the UUID version 4 layout, spelt on first read.
    Uuid { bits: u128, text: Once<String> },
    /// An operation's key derived from its seed: the bits are mixed (and
    /// spelt) only when first read.
    Derived { seed: u64, text: Once<String> },
}

impl IdempotencyKey {
    /// Checks and wraps a caller-supplied key.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the key is empty, longer than 255
    /// bytes, or holds anything but visible ASCII (`!` to `~`).
    pub fn new(key: impl Into<String>) -> Result<IdempotencyKey, Error> {
        let key = key.into();
        if key.is_empty() || key.len() > MAX_IDEMPOTENCY_KEY_LEN {
            return Err(Error::InvalidArgument {
                field: "idempotency_key",
                rule: message!(TextLength, MAX_IDEMPOTENCY_KEY_LEN, key.len()),
            });
        }
        if let Some(bad) = key.chars().find(|c| !c.is_ascii_graphic()) {
            return Err(Error::InvalidArgument {
                field: "idempotency_key",
                rule: message!(NotVisibleAscii, String::from(bad)),
            });
        }
        Ok(IdempotencyKey(Spelling::Given(Arc::from(key))))
    }

    /// The key a request carries in its own `Idempotency-Key` header
    /// ([`IDEMPOTENCY_KEY_HEADER`]): the field value, exactly as written, without
    /// the optional whitespace (spaces and horizontal tabs) around it, which is
    /// not part of a field value (RFC 9110 §5.5: parsers exclude it; fetch's
    /// `Headers` and OkHttp strip it before any helper reads the header, so
    /// every language reads `" order-5001\t"` as `order-5001`). It is sent back
    /// unchanged on every attempt. Two forms are read:
    ///
    /// - a Structured Field String (RFC 9651 §3.3.3), the syntax
    ///   `draft-ietf-httpapi-idempotency-key-header` gives the field:
    ///   `"8e03978e-40d5-43e8-bc93-6894a57f9324"`, printable ASCII (spaces
    ///   included) between double quotes, with only `\"` and `\\` escaped,
    ///   and nothing after the closing quote;
    /// - a bare key of visible ASCII, as Stripe and most APIs take it
    ///   (`order-5001`), checked as [`IdempotencyKey::new`] checks a key,
    ///   except that it holds no comma: a recipient may join a field's
    ///   lines with one (RFC 9110 §5.3; wsgiref and gunicorn join them with
    ///   a bare `,`), so `order-5001,order-5002` may be two keys, and names
    ///   no one operation. A key with a comma is written as a String
    ///   (`"a,b"`).
    ///
    /// Either is at most 255 bytes as written, and holds at least one
    /// character: an empty value (or only whitespace) and the empty string
    /// `""` are refused. Whitespace inside the value is the value's: a bare
    /// key holds none (`a key` is refused), a String may hold spaces
    /// (`"a key"`), and neither holds a tab.
    ///
    /// ```
    /// use retryplan::IdempotencyKey;
    /// assert_eq!(IdempotencyKey::from_request_header("order-5001").unwrap().as_str(), "order-5001");
    /// assert_eq!(IdempotencyKey::from_request_header(" order-5001\t").unwrap().as_str(), "order-5001");
    /// assert_eq!(IdempotencyKey::from_request_header("\"a \\\"key\\\"\"").unwrap().as_str(), "\"a \\\"key\\\"\"");
    /// assert_eq!(IdempotencyKey::from_request_header("\t\"a key\" ").unwrap().as_str(), "\"a key\"");
    /// assert_eq!(IdempotencyKey::from_request_header("\"a,b\"").unwrap().as_str(), "\"a,b\"");
    /// for bad in ["", " \t ", "\"\"", "\"open", "\"a\"b", "\"\\n\"", "a key", "a\tkey", "\"a\tkey\"", "\nkey", "a,b", "\"a\",\"b\""] {
    ///     assert!(IdempotencyKey::from_request_header(bad).is_err(), "{bad:?}");
    /// }
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `Idempotency-Key` when the value is
    /// empty or `""`, longer than 255 bytes, or neither form.
    pub fn from_request_header(value: &str) -> Result<IdempotencyKey, Error> {
        let refuse = |rule| Error::InvalidArgument { field: IDEMPOTENCY_KEY_HEADER, rule };
        // RFC 9110 §5.5: the OWS around a field value (SP, HTAB) is not part of it.
        let value = value.trim_matches([' ', '\t']);
        // `""` is the Structured Field String that holds nothing: as empty as no value.
        if value.is_empty() || value == "\"\"" {
            return Err(refuse(message!(RequestKeyEmpty, MAX_IDEMPOTENCY_KEY_LEN)));
        }
        if value.len() > MAX_IDEMPOTENCY_KEY_LEN {
            return Err(refuse(message!(TextLength, MAX_IDEMPOTENCY_KEY_LEN, value.len())));
        }
        let well_formed = match value.strip_prefix('"') {
            Some(rest) => is_sf_string_body(rest.as_bytes()),
            // A comma joins field lines (RFC 9110 §5.3): `a,b` may be two keys, and names no one operation.
            None => value.bytes().all(|byte| byte.is_ascii_graphic() && byte != b','),
        };
        if !well_formed {
            return Err(refuse(message!(RequestKeySyntax, String::from(value))));
        }
        Ok(IdempotencyKey(Spelling::Given(Arc::from(value))))
    }

    /// A UUID-formatted (version 4 layout) key made from 128 bits: 32
    /// lowercase hex digits dashed 8-4-4-4-12, with the version and variant
    /// bits set. Spelt when first read.
    #[must_use]
    pub fn from_bits(bits: u128) -> IdempotencyKey {
        IdempotencyKey(Spelling::Uuid { bits: uuid_layout(bits), text: Once::new() })
    }

    /// The key an operation derives from its seed (when the caller gives
    /// none): [`from_bits`](IdempotencyKey::from_bits) of two mixes of the
    /// seed, computed when first read.
    pub(crate) fn derived(seed: u64) -> IdempotencyKey {
        IdempotencyKey(Spelling::Derived { seed, text: Once::new() })
    }

    /// The key as text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        match &self.0 {
            Spelling::Given(key) => key,
            Spelling::Uuid { bits, text } => text.get_or_init(|| uuid_text(*bits)),
            Spelling::Derived { seed, text } => text.get_or_init(|| uuid_text(uuid_layout(derived_bits(*seed)))),
        }
    }

    /// Calls `read` with the key as text, keeping no spelling: a key not
    /// read before is spelt into a 36-byte array on the stack, not into a
    /// `String` kept with the key (for a caller that copies the text out: in
    /// wasm the allocation and its free cost more than the spelling). The
    /// text is [`as_str`](IdempotencyKey::as_str)'s.
    pub fn read_text<T>(&self, read: impl FnOnce(&str) -> T) -> T {
        let bits = match &self.0 {
            Spelling::Given(key) => return read(key),
            Spelling::Uuid { bits, text } => text.get().ok_or(*bits),
            Spelling::Derived { seed, text } => text.get().ok_or_else(|| uuid_layout(derived_bits(*seed))),
        };
        match bits {
            Ok(spelt) => read(spelt),
            // Hex digits and dashes are always UTF-8.
            Err(bits) => read(core::str::from_utf8(&uuid_bytes(bits)).unwrap_or_default()),
        }
    }
}

/// True when `rest` (a Structured Field String after its opening quote) is
/// printable ASCII up to a closing quote that ends it, escaping only `"` and
/// `\` (RFC 9651 §4.2.5).
fn is_sf_string_body(rest: &[u8]) -> bool {
    let mut bytes = rest.iter();
    while let Some(&byte) = bytes.next() {
        match byte {
            b'\\' => {
                if !matches!(bytes.next(), Some(b'"' | b'\\')) {
                    return false;
                }
            }
            b'"' => return bytes.next().is_none(),
            b' '..=b'~' => {}
            _ => return false,
        }
    }
    false
}

/// Stream constant for [`mix`]: derived idempotency keys.
const KEY_STREAM: u64 = 0x4944_454d_5f4b_4559; // "IDEM_KEY"

/// The 128 bits of the key derived from `seed`.
fn derived_bits(seed: u64) -> u128 {
    u128::from(mix(seed, KEY_STREAM, 0)) << 64 | u128::from(mix(seed, KEY_STREAM, 1))
}

/// `bits` with the UUID version 4 and variant bits set.
fn uuid_layout(bits: u128) -> u128 {
    (bits & !(0xF << 76) | (0x4 << 76)) & !(0x3 << 62) | (0x2 << 62)
}

/// 32 lowercase hex digits, most significant first, dashed 8-4-4-4-12, read
/// from the two 64-bit halves into a byte array (no string slicing or
/// indexing: their panic paths cost the wasm build kilobytes; no push per
/// character: it costs the wasm build more time than the operation's
/// decisions).
fn uuid_bytes(bits: u128) -> [u8; 36] {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut text = [b'-'; 36];
    let mut position = 0;
    for half in [(bits >> 64) as u64, bits as u64] {
        let mut shift = 64;
        while shift > 0 {
            shift -= 4;
            if matches!(position, 8 | 13 | 18 | 23) {
                position += 1;
            }
            if let (Some(byte), Some(digit)) = (text.get_mut(position), HEX.get(((half >> shift) & 0xF) as usize)) {
                *byte = *digit;
            }
            position += 1;
        }
    }
    text
}

/// [`uuid_bytes`] as a `String`.
fn uuid_text(bits: u128) -> String {
    // Hex digits and dashes are always UTF-8.
    String::from_utf8(uuid_bytes(bits).to_vec()).unwrap_or_default()
}

impl PartialEq for IdempotencyKey {
    fn eq(&self, other: &Self) -> bool {
        self.as_str() == other.as_str()
    }
}

impl Eq for IdempotencyKey {}

impl core::hash::Hash for IdempotencyKey {
    fn hash<H: core::hash::Hasher>(&self, state: &mut H) {
        self.as_str().hash(state);
    }
}

impl PartialOrd for IdempotencyKey {
    fn partial_cmp(&self, other: &Self) -> Option<core::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for IdempotencyKey {
    fn cmp(&self, other: &Self) -> core::cmp::Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl core::fmt::Debug for IdempotencyKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("IdempotencyKey").field(&self.as_str()).finish()
    }
}

impl core::fmt::Display for IdempotencyKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_uuid_v4_layout_in_lowercase_hex() {
        let key = IdempotencyKey::from_bits(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        assert_eq!(key.as_str(), "01234567-89ab-4def-bedc-ba9876543210");
        assert_eq!(IdempotencyKey::from_bits(u128::MAX).as_str(), "ffffffff-ffff-4fff-bfff-ffffffffffff");
        assert_eq!(IdempotencyKey::from_bits(0).as_str(), "00000000-0000-4000-8000-000000000000");
    }

    #[test]
    fn the_spelling_is_the_bits_in_hex_dashed_8_4_4_4_12_for_every_byte_value() {
        // Each byte value 0..=255 at each of the 16 places, against the formatter's hex.
        for value in 0..=255u8 {
            for place in 0..16 {
                let bits = u128::from(value) << (8 * place)
                    | 0x0f1e_2d3c_4b5a_6978_8796_a5b4_c3d2_e1f0 & !(0xff << (8 * place));
                let hex = alloc::format!("{bits:032x}");
                let dashed = [&hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..]].join("-");
                assert_eq!(core::str::from_utf8(&uuid_bytes(bits)).unwrap(), dashed, "{bits:#x}");
            }
        }
    }

    #[test]
    fn read_text_gives_the_text_as_str_gives_before_and_after_a_spelling() {
        let given = IdempotencyKey::new("order-5001").unwrap();
        assert_eq!(given.read_text(|text: &str| text.to_owned()), "order-5001");
        for key in [IdempotencyKey::from_bits(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210), IdempotencyKey::derived(7)] {
            let unspelt = key.read_text(|text: &str| text.to_owned());
            assert_eq!(unspelt, key.as_str());
            assert_eq!(key.read_text(|text: &str| text.to_owned()), unspelt, "read again once spelt");
        }
        assert_eq!(
            IdempotencyKey::from_bits(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210)
                .read_text(|text: &str| text.to_owned()),
            "01234567-89ab-4def-bedc-ba9876543210"
        );
    }

    #[test]
    fn a_spelt_and_a_given_key_with_the_same_text_are_equal() {
        let derived = IdempotencyKey::from_bits(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
        let given = IdempotencyKey::new("01234567-89ab-4def-bedc-ba9876543210").unwrap();
        assert_eq!(derived, given);
        assert_eq!(derived.clone().to_string(), given.to_string());
        assert_eq!(format!("{derived:?}"), "IdempotencyKey(\"01234567-89ab-4def-bedc-ba9876543210\")");
    }

    #[test]
    fn key_validation() {
        assert!(IdempotencyKey::new("order-5001").is_ok());
        assert_eq!(IdempotencyKey::new("").unwrap_err().code(), "invalid_argument");
        assert!(IdempotencyKey::new("has space").is_err());
        assert!(IdempotencyKey::new("x".repeat(256)).is_err());
        assert!(IdempotencyKey::new("ключ").is_err());
    }
}
