//! The bytes of a compiled form: the header (magic, kind, version, CRC-32)
//! around a body, and the body's whole numbers (unsigned LEB128). Knows
//! nothing of policies; `fields.rs` says what the numbers mean.

use alloc::vec::Vec;

use super::error::{CompiledFormError, Damage, FormKind};
use super::MAX_FORM_LEN;

/// The first two bytes of every compiled form, in every version: `rp`.
pub(super) const MAGIC: [u8; 2] = *b"rp";

/// Header bytes before the body: magic (2), kind (1), version (1), CRC-32 (4).
pub(super) const HEADER_LEN: usize = 8;

/// The byte at offset 2 naming what the form holds.
pub(super) fn kind_byte(kind: FormKind) -> u8 {
    match kind {
        FormKind::Policy => b'p',
        FormKind::Dependency => b'd',
    }
}

fn kind_of(byte: u8) -> Option<FormKind> {
    match byte {
        b'p' => Some(FormKind::Policy),
        b'd' => Some(FormKind::Dependency),
        _ => None,
    }
}

/// CRC-32 (IEEE 802.3, reflected, as zlib's `crc32`) of `parts` in order.
pub(super) fn crc32(parts: &[&[u8]]) -> u32 {
    let mut crc = !0u32;
    for part in parts {
        for byte in part.iter() {
            crc ^= u32::from(*byte);
            for _ in 0..8 {
                crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
            }
        }
    }
    !crc
}

/// The whole form: header, then `body`.
pub(super) fn seal(kind: FormKind, version: u8, body: &[u8]) -> Vec<u8> {
    let head = [MAGIC[0], MAGIC[1], kind_byte(kind), version];
    let mut form = Vec::with_capacity(HEADER_LEN + body.len());
    form.extend_from_slice(&head);
    form.extend_from_slice(&crc32(&[&head, body]).to_le_bytes());
    form.extend_from_slice(body);
    form
}

/// The body of `form`, once its header says it is a form of `kind` in
/// `version` with an intact checksum. Checked in this order: at most
/// [`MAX_FORM_LEN`] bytes, magic and length, version, checksum, kind (a form
/// of another kind is only reported when it is intact).
pub(super) fn open(form: &[u8], kind: FormKind, version: u8) -> Result<&[u8], CompiledFormError> {
    if form.len() > MAX_FORM_LEN {
        return Err(CompiledFormError::Damaged { expected: kind, damage: Damage::Unreadable { offset: MAX_FORM_LEN } });
    }
    let (Some(head), Some(sum), Some(body)) = (form.get(..4), form.get(4..HEADER_LEN), form.get(HEADER_LEN..)) else {
        return Err(CompiledFormError::NotCompiled { expected: kind, len: form.len() });
    };
    if head.get(..2) != Some(&MAGIC[..]) {
        return Err(CompiledFormError::NotCompiled { expected: kind, len: form.len() });
    }
    let found_version = head.get(3).copied().unwrap_or_default();
    if found_version != version {
        return Err(CompiledFormError::Version { expected: kind, found: found_version, supported: version });
    }
    let mut stored = [0u8; 4];
    stored.copy_from_slice(sum);
    if u32::from_le_bytes(stored) != crc32(&[head, body]) {
        return Err(CompiledFormError::Damaged { expected: kind, damage: Damage::Checksum });
    }
    match head.get(2).copied().and_then(kind_of) {
        Some(found) if found == kind => Ok(body),
        found => Err(CompiledFormError::Kind { expected: kind, found }),
    }
}

/// A body that does not read: the offset (from the form's first byte) of
/// the byte where reading stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Unreadable(pub(super) usize);

/// Appends `value` as unsigned LEB128: seven bits a byte, low bits first,
/// the high bit set on every byte but the last.
pub(super) fn write_number(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a body from its first byte. A value that does not read is
/// recorded (the first one's offset, for [`Reader::finish`]) and read as 0,
/// so every value of the body reads without a branch to return early (the
/// reader is part of a browser runtime's download), and once one has failed
/// every byte after it reads as 0: counts read after a failure are 0, and
/// nothing is read on for long.
pub(super) struct Reader<'a> {
    body: &'a [u8],
    at: usize,
    failed: Option<usize>,
}

impl<'a> Reader<'a> {
    pub(super) fn new(body: &'a [u8]) -> Reader<'a> {
        Reader { body, at: 0, failed: None }
    }

    /// Where the next value starts, to refuse it with [`Reader::refuse`].
    pub(super) fn mark(&self) -> usize {
        self.at
    }

    /// Refuses the value that started at `mark` (unless one failed before).
    pub(super) fn refuse(&mut self, mark: usize) {
        self.failed.get_or_insert(mark);
    }

    /// The whole body read: nothing refused and no byte left.
    pub(super) fn finish(&self) -> Result<(), Unreadable> {
        match self.failed {
            Some(at) => Err(Unreadable(HEADER_LEN.saturating_add(at))),
            None if self.at < self.body.len() => Err(Unreadable(HEADER_LEN.saturating_add(self.at))),
            None => Ok(()),
        }
    }

    /// The next byte (0 past the end, or after a refusal).
    pub(super) fn byte(&mut self) -> u8 {
        match self.body.get(self.at).filter(|_| self.failed.is_none()) {
            Some(byte) => {
                self.at = self.at.saturating_add(1);
                *byte
            }
            None => {
                self.refuse(self.at);
                0
            }
        }
    }

    /// A whole number (LEB128) in the fewest bytes, at most 64 bits.
    pub(super) fn number(&mut self) -> u64 {
        let start = self.at;
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.byte();
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                break;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                // A last byte of 0 after others is a longer spelling of a
                // shorter number: refused, so each value has one form.
                if byte == 0 && shift > 0 {
                    break;
                }
                return value;
            }
        }
        self.refuse(start);
        0
    }

    /// A whole number that must be at most `max` (refused where it starts).
    pub(super) fn number_up_to(&mut self, max: u64) -> u64 {
        self.number_in(0, max)
    }

    /// A whole number that must be in `low..=high` (refused where it starts,
    /// and read as 0).
    pub(super) fn number_in(&mut self, low: u64, high: u64) -> u64 {
        let start = self.at;
        let value = self.number();
        if !(low..=high).contains(&value) {
            self.refuse(start);
            return 0;
        }
        value
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_has_its_own_byte() {
        for kind in [FormKind::Policy, FormKind::Dependency] {
            assert_eq!(kind_of(kind_byte(kind)), Some(kind));
        }
        assert_eq!((kind_byte(FormKind::Policy), kind_byte(FormKind::Dependency)), (b'p', b'd'));
        assert_eq!(kind_of(b'x'), None);
    }

    #[test]
    fn crc32_is_zlibs() {
        // zlib.crc32(b"123456789") == 0xCBF43926, the CRC-32 check value.
        assert_eq!(crc32(&[b"1234", b"56789"]), 0xCBF4_3926);
        assert_eq!(crc32(&[]), 0);
    }

    #[test]
    fn numbers_round_trip_and_overlong_ones_are_refused() {
        for value in [0, 1, 127, 128, 300, 16_384, u64::from(u32::MAX), (1 << 53) - 1, u64::MAX] {
            let mut out = Vec::new();
            write_number(&mut out, value);
            let mut reader = Reader::new(&out);
            assert_eq!(reader.number(), value);
            assert_eq!(reader.finish(), Ok(()));
        }
        let mut out = Vec::new();
        write_number(&mut out, 300);
        assert_eq!(out, [0xac, 0x02]);
        let refused = |bytes: &[u8], max: u64| {
            let mut reader = Reader::new(bytes);
            assert_eq!(reader.number_up_to(max), 0);
            reader.finish()
        };
        // Eleven bytes, or a tenth byte above 1: more than 64 bits.
        assert_eq!(refused(&[0xff; 11], u64::MAX), Err(Unreadable(HEADER_LEN)));
        let mut too_big = [0xff; 10];
        too_big[9] = 0x02;
        assert_eq!(refused(&too_big, u64::MAX), Err(Unreadable(HEADER_LEN)));
        // Cut short: refused where the missing byte would be.
        assert_eq!(refused(&[0x80], u64::MAX), Err(Unreadable(HEADER_LEN + 1)));
        // 0 spelt in two bytes: one spelling per number.
        assert_eq!(refused(&[0x80, 0x00], u64::MAX), Err(Unreadable(HEADER_LEN)));
        assert_eq!(refused(&[0xac, 0x82, 0x00], u64::MAX), Err(Unreadable(HEADER_LEN)));
        assert_eq!(refused(&[5], 4), Err(Unreadable(HEADER_LEN)));
        // Below the least allowed: refused too.
        let mut reader = Reader::new(&[0, 3]);
        assert_eq!((reader.number_in(1, 9), reader.number_in(1, 9)), (0, 0));
        assert_eq!(reader.finish(), Err(Unreadable(HEADER_LEN)));
        let mut reader = Reader::new(&[1, 9]);
        assert_eq!((reader.number_in(1, 9), reader.number_in(1, 9)), (1, 9));
        assert_eq!(reader.finish(), Ok(()));
        // A byte left over; the first refusal is the one reported, and bytes after it read as 0.
        let mut reader = Reader::new(&[1, 2]);
        assert_eq!(reader.number(), 1);
        assert_eq!(reader.finish(), Err(Unreadable(HEADER_LEN + 1)));
        let mut reader = Reader::new(&[9, 2, 3]);
        assert_eq!(reader.number_up_to(4), 0);
        assert_eq!((reader.number(), reader.number()), (0, 0));
        assert_eq!(reader.finish(), Err(Unreadable(HEADER_LEN)));
    }
}
