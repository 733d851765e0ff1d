//! Reproducible pseudo-random inputs for tests and benchmarks
//! (SplitMix64; **not** for cryptographic use).

/// SplitMix64 generator.
#[derive(Debug, Clone)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from a seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// Next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, bound)`, by rejection; `bound = 0` stands for `2^64`
    /// (the whole word: there is no empty range to draw from).
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return self.next_u64();
        }
        let zone = u64::MAX - (u64::MAX % bound);
        loop {
            let x = self.next_u64();
            if x < zone {
                return x % bound;
            }
        }
    }

    /// `len` coefficients uniform in `[0, q)` (`q = 0`: uniform words, as
    /// [`SplitMix64::below`]).
    pub fn coeffs<W: crate::Coeff>(&mut self, len: usize, q: W) -> Vec<W> {
        (0..len).map(|_| W::from_u64(self.below(q.as_u64()))).collect()
    }
}
