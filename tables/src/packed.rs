//! Tables of 2-bit values, four to a byte, lowest bits first.

use foxbase_core::Value;

/// The 2-bit code of an unused slot (no canonical position there).
pub const UNUSED: u8 = 3;

/// A tier's values: 2 bits per index (see [`Value::code`]).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PackedValues {
    len: u64,
    bytes: Vec<u8>,
}

impl PackedValues {
    /// `len` slots, all set to code `fill`.
    pub fn filled(len: u64, fill: u8) -> PackedValues {
        let byte = (fill & 3) * 0b0101_0101;
        PackedValues { len, bytes: vec![byte; len.div_ceil(4) as usize] }
    }

    /// Wraps packed bytes; `None` unless there are exactly ceil(len / 4) of them.
    pub fn from_bytes(len: u64, bytes: Vec<u8>) -> Option<PackedValues> {
        (bytes.len() as u64 == len.div_ceil(4)).then_some(PackedValues { len, bytes })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The packed bytes, four codes to a byte, lowest bits first (for
    /// writers that fill whole bytes, e.g. in parallel chunks).
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        &mut self.bytes
    }

    /// The code at index `i`. Precondition: `i < len`.
    #[inline]
    pub fn code(&self, i: u64) -> u8 {
        (self.bytes[(i / 4) as usize] >> ((i % 4) * 2)) & 3
    }

    /// The value at `i`, `None` for an unused slot. Precondition: `i < len`.
    #[inline]
    pub fn value(&self, i: u64) -> Option<Value> {
        Value::from_code(self.code(i))
    }

    /// Sets the code at `i`. Precondition: `i < len`.
    #[inline]
    pub fn set_code(&mut self, i: u64, code: u8) {
        let shift = (i % 4) * 2;
        let b = &mut self.bytes[(i / 4) as usize];
        *b = (*b & !(3 << shift)) | ((code & 3) << shift);
    }

    /// Counts of codes 0..=3 (draw, win, loss, unused).
    pub fn histogram(&self) -> [u64; 4] {
        let mut h = [0u64; 4];
        for i in 0..self.len {
            h[self.code(i) as usize] += 1;
        }
        h
    }
}
