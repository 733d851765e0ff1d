//! Structured values from the fuzzer's bytes.
//!
//! The targets with structured input (`params`, `cpu_polymul`) read their
//! fields in a fixed order from the front of the input, little-endian; a
//! field past the end reads as zeros. The layout is documented next to each
//! target, so seeds can be written by hand.

/// A cursor over the fuzzer's bytes.
#[derive(Debug, Clone)]
pub struct Input<'a> {
    rest: &'a [u8],
}

impl<'a> Input<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Self { rest: data }
    }

    /// The next `N` bytes (zeros past the end).
    fn take<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        let k = N.min(self.rest.len());
        out[..k].copy_from_slice(&self.rest[..k]);
        self.rest = &self.rest[k..];
        out
    }

    /// One byte.
    pub fn u8(&mut self) -> u8 {
        self.take::<1>()[0]
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes(self.take())
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes(self.take())
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self) -> u64 {
        u64::from_le_bytes(self.take())
    }

    /// Every byte not read yet (the cursor is then at the end).
    pub fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.rest)
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_little_endian_and_pads_with_zeros() {
        let mut i = Input::new(&[1, 2, 3, 4, 5]);
        assert_eq!(i.u8(), 1);
        assert_eq!(i.u16(), 0x0302);
        assert_eq!(i.u32(), 0x05_04);
        assert!(i.is_empty());
        assert_eq!(i.u64(), 0);
    }
}
