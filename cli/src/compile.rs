//! `retryplan compile`: a policy file's compiled form
//! ([`retryplan::Policy::to_compiled`]), as base64 text or raw bytes.
//!
//! The policy is validated exactly as `check` validates it (the core's every
//! rule, each problem naming its field); only a valid policy is compiled.
//! The form is the core's; this module only spells it as text.

/// The standard base64 alphabet of RFC 4648, section 4: `A-Z a-z 0-9 + /`.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` as base64 (RFC 4648 section 4: the standard alphabet with `+`
/// and `/`, padded with `=`), what `atob`, `Buffer.from(text, "base64")`
/// and Python's `base64.b64decode` read.
#[must_use]
pub fn base64(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for (index, shift) in [18, 12, 6, 0].into_iter().enumerate() {
            if index <= chunk.len() {
                text.push(char::from(ALPHABET[(n >> shift & 63) as usize]));
            } else {
                text.push('=');
            }
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_is_rfc_4648s() {
        // RFC 4648 section 10's test vectors.
        let cases = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (bytes, text) in cases {
            assert_eq!(base64(bytes.as_bytes()), text);
        }
        assert_eq!(base64(&[0xfb, 0xff]), "+/8=");
    }
}
