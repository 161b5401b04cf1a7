//! Text from callers and servers as it appears in messages. A leaf: it
//! depends on nothing else in the crate.

use alloc::string::String;

/// Longest excerpt of a caller's or a server's text kept in an error, in characters.
pub(crate) const EXCERPT_CHARS: usize = 64;

/// At most [`EXCERPT_CHARS`] characters of `value`, cut on a char boundary
/// and marked with a trailing `…` when cut: what an error keeps of a value it
/// refuses (a header, a field name, a string where a number belongs), so a
/// 50 MB value makes a short message, never a 50 MB one.
pub(crate) fn excerpt(value: &str) -> String {
    excerpt_chars(value, EXCERPT_CHARS)
}

/// At most `max_chars` characters of `value`, as [`excerpt`].
pub(crate) fn excerpt_chars(value: &str, max_chars: usize) -> String {
    match value.char_indices().nth(max_chars) {
        Some((cut, _)) => {
            let mut out = String::from(value.get(..cut).unwrap_or_default());
            out.push('…');
            out
        }
        None => String::from(value),
    }
}

/// A string in double quotes for messages, with quotes, backslashes, control
/// characters and the invisible formatting characters (zero-width, bidi
/// overrides) escaped, so a server-sent header cannot disguise a log line
/// (`{:?}` would do it too, but its Unicode tables cost the wasm kilobytes).
pub(crate) struct Quoted<'a>(pub(crate) &'a str);

impl core::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        use core::fmt::Write;
        f.write_char('"')?;
        for c in self.0.chars() {
            match c {
                '"' | '\\' => {
                    f.write_char('\\')?;
                    f.write_char(c)?;
                }
                c if c.is_control() || is_invisible_format(c) => write!(f, "\\u{{{:x}}}", u32::from(c))?,
                c => f.write_char(c)?,
            }
        }
        f.write_char('"')
    }
}

/// Appends `number` in decimal digits (without the formatter: the wasm
/// build carries no formatting machinery).
pub(crate) fn push_decimal(out: &mut String, number: u64) {
    let mut digits = [0u8; 20];
    let mut rest = number;
    let mut start = digits.len();
    loop {
        start -= 1;
        if let Some(slot) = digits.get_mut(start) {
            *slot = b'0' + (rest % 10) as u8;
        }
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    for digit in digits.iter().skip(start) {
        out.push(char::from(*digit));
    }
}

/// Zero-width and bidirectional formatting characters (Unicode `Cf` that renders as nothing).
fn is_invisible_format(c: char) -> bool {
    matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn excerpts_are_bounded_on_a_char_boundary() {
        assert_eq!(excerpt("short"), "short");
        assert_eq!(excerpt(&"x".repeat(64)), "x".repeat(64));
        assert_eq!(excerpt(&"é".repeat(65)), format!("{}…", "é".repeat(64)));
    }

    #[test]
    fn decimals_without_the_formatter() {
        for number in [0, 7, 10, 1234, u64::MAX] {
            let mut text = String::new();
            super::push_decimal(&mut text, number);
            assert_eq!(text, number.to_string());
        }
    }

    #[test]
    fn quoted_escapes_what_would_confuse_a_log_line() {
        assert_eq!(Quoted("a\"b\\c\n…").to_string(), "\"a\\\"b\\\\c\\u{a}…\"");
        assert_eq!(Quoted("1\u{202e}0\u{200b}").to_string(), "\"1\\u{202e}0\\u{200b}\"");
    }
}
