//! Where a DGT pass finds its data: dependency sets, the natural order and
//! Coala's packed order (Algorithm 1), and the packed twiddle tables.
//!
//! The transform has `L = log2 M` stages; the Gentleman–Sande stage `s`
//! pairs the Gaussians whose *logical* index `j` differs in bit `L − 1 − s`.
//! A pass runs stages `s0..s1` (`k = s1 − s0` of them) in shared memory, so
//! its dependency sets are the `2^k` elements that share every other bit:
//! set `(h, c)` with `h` the top `s0` bits and `c` the low `L − s1` bits,
//! local index `r` the `k` bits between. Between passes the data sit in the
//! natural (in-place) order, `j = h·2^(L−s0) + r·2^(L−s1) + c`, where a set
//! is strided by `2^(L−s1)`; in the **packed** order a set is contiguous,
//! `set·2^k + r` with `set = h·2^(L−s1) + c` — for the first pass exactly
//! Coala's Algorithm 1 (`step = 2^(L − s1)`).
//!
//! A block takes `λ = 2^log_cluster` consecutive sets (Coala's clustering):
//! in the natural order their element `r` is `λ` consecutive words, so
//! loads and stores there are coalesced in runs of `λ`; in the packed
//! order the block's `λ·2^k` words are one contiguous run.

/// One pass of a DGT of `M = 2^log_m` Gaussians (`#[repr(C)]`: a field of
/// the pass kernel's argument block).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(C)]
pub struct PassGeometry {
    /// `log2 M`.
    pub log_m: u32,
    /// First stage of the pass.
    pub s0: u32,
    /// One past its last stage.
    pub s1: u32,
    /// `log2 λ`: dependency sets per block.
    pub log_cluster: u32,
    /// `log2` of the Gaussians a thread holds in registers: 0 for Coala's
    /// fixed access (each butterfly is two threads, one stage per barrier,
    /// [`super::pass`]); `u` in `1..=`[`MAX_LOG_UNIT`] for radix-`2^u`
    /// units that run `u` stages per barrier ([`super::unit`]). At most
    /// `k`.
    pub log_unit: u32,
}

/// Largest [`PassGeometry::log_unit`]: radix-8 units (8 Gaussians, 16
/// words, in a thread's registers).
pub const MAX_LOG_UNIT: u32 = 3;

impl PassGeometry {
    /// Stages of the pass, `log2` of the set size.
    #[inline(always)]
    pub fn k(&self) -> u32 {
        self.s1 - self.s0
    }

    /// Bits of `c` (the low index bits that pick the set).
    #[inline(always)]
    pub fn log_low(&self) -> u32 {
        self.log_m - self.s1
    }

    /// `log2` of the number of sets.
    #[inline(always)]
    pub fn log_sets(&self) -> u32 {
        self.log_m - self.k()
    }

    /// Threads per block: `λ` sets × `2^k` (each of a set's `2^(k−1)`
    /// butterflies is two threads, one per output component), or with
    /// register units `λ · 2^(k − log_unit)` (a thread per unit).
    #[inline(always)]
    pub fn threads(&self) -> u32 {
        1 << (self.log_cluster + self.k() - self.log_unit)
    }

    /// Gaussians a thread moves in a load or store phase: `2^log_unit`.
    #[inline(always)]
    pub fn per_thread(&self) -> u32 {
        1 << self.log_unit
    }

    /// Whether the pass runs register units ([`super::unit`]) instead of
    /// Coala's fixed access.
    #[inline(always)]
    pub fn units(&self) -> bool {
        self.log_unit > 0
    }

    /// Butterfly steps of the pass, one barrier each: `k` with Coala's
    /// fixed access, `⌈k / log_unit⌉` with register units.
    #[inline(always)]
    pub fn steps(&self) -> u32 {
        if self.log_unit == 0 { self.k() } else { self.k().div_ceil(self.log_unit) }
    }

    /// Register-unit step `j` (`< steps()`, in forward order): its first
    /// local stage and its stages, `log_unit` of them but fewer in the
    /// last step where `log_unit` does not divide `k`.
    #[inline(always)]
    pub fn unit_step(&self, j: u32) -> (u32, u32) {
        let g = j * self.log_unit;
        (g, self.log_unit.min(self.k() - g))
    }

    /// Blocks per polynomial.
    #[inline(always)]
    pub fn blocks_per_poly(&self) -> u32 {
        1 << (self.log_sets() - self.log_cluster)
    }

    /// Natural-order position of element `r` of set `set`.
    #[inline(always)]
    pub fn natural(&self, set: u32, r: u32) -> u32 {
        let low = self.log_low();
        let c = set & ((1 << low) - 1);
        let h = set >> low;
        (h << (self.log_m - self.s0)) | (r << low) | c
    }

    /// Packed-order position (Algorithm 1) of element `r` of set `set`.
    #[inline(always)]
    pub fn packed(&self, set: u32, r: u32) -> u32 {
        (set << self.k()) | r
    }

    /// Global position of the `e`-th element a block moves (`e < λ·2^k`)
    /// for the block's first set `set0`: in the packed order consecutive
    /// `e` are consecutive words; in the natural order `e` runs over the
    /// cluster's sets first, so consecutive threads touch consecutive words.
    /// Returns `(position, set within the cluster, r)`.
    #[inline(always)]
    pub fn element(&self, set0: u32, e: u32, packed: bool) -> (u32, u32, u32) {
        let (y, r) = if packed {
            (e >> self.k(), e & ((1 << self.k()) - 1))
        } else {
            (e & ((1 << self.log_cluster) - 1), e >> self.log_cluster)
        };
        let set = set0 + y;
        let pos = if packed { self.packed(set, r) } else { self.natural(set, r) };
        (pos, y, r)
    }

    /// Exponent `e` of the twiddle `g^e` of local stage `t` (global stage
    /// `s0 + t`), butterfly `i` of set `set`: `2^s · ((i >> t)·2^(L−s1) + c)`
    /// (the GS twiddle `g^(2^s · (j mod 2^(L−1−s)))` of the pair's first
    /// logical index `j`, written in the pass's local terms).
    #[inline(always)]
    pub fn twiddle_exponent(&self, set: u32, t: u32, i: u32) -> u32 {
        let c = set & ((1 << self.log_low()) - 1);
        (((i >> t) << self.log_low()) | c) << (self.s0 + t)
    }

    /// Index of that twiddle in the pass's packed table, laid out
    /// `[c][t][i]` (sets differing only in `h` share their twiddles): a
    /// block's threads read consecutive words.
    #[inline(always)]
    pub fn twiddle_index(&self, set: u32, t: u32, i: u32) -> u32 {
        let c = set & ((1 << self.log_low()) - 1);
        (((c * self.k()) + t) << (self.k() - 1)) | i
    }

    /// Entries of the pass's packed twiddle table.
    #[inline(always)]
    pub fn twiddle_len(&self) -> u32 {
        (self.k() << (self.k() - 1)) << self.log_low()
    }
}

/// Shared-memory word of buffer `buf`, component `comp`, set `y` of the
/// cluster, local position `r`: `[buf][comp][y][r]`, in the tile that
/// starts at word `tile` (an operand's: 0, or [`shared_words`] for the
/// second operand of a polymul pass).
#[inline(always)]
pub(crate) fn slot(geo: &PassGeometry, tile: usize, buf: u32, comp: u32, y: u32, r: u32) -> usize {
    tile + ((((((buf << 1) | comp) << geo.log_cluster) | y) << geo.k()) | r) as usize
}

/// [`slot`] for a register-unit pass: its one buffer, the same
/// `[comp][y][r]` order. (One padding word per 128 bytes measured slower:
/// H100, 2026-11-27, N = 2^16 × 16, forward 26.5 → 27.1 µs; Nsight Compute
/// showed the same two-way bank conflicts.)
#[inline(always)]
pub(crate) fn unit_slot(geo: &PassGeometry, tile: usize, comp: u32, y: u32, r: u32) -> usize {
    slot(geo, tile, 0, comp, y, r)
}

/// Shared words one operand of a pass needs: two buffers of `2·λ·2^k`
/// (Coala's fixed access reads one and writes the other), or one with
/// register units (each step reads and writes its units' own places).
#[inline(always)]
pub fn shared_words(geo: &PassGeometry) -> usize {
    (if geo.units() { 2usize } else { 4 }) << (geo.log_cluster + geo.k())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Coala's Algorithm 1, literally: for each start `i < step`, the
    /// elements `i, i + step, …` one after another.
    fn algorithm1(a: &[u32], step: usize) -> [u32; 64] {
        let mut out = [0u32; 64];
        let mut index = 0;
        for i in 0..step {
            let mut j = i;
            while j < a.len() {
                out[index] = a[j];
                index += 1;
                j += step;
            }
        }
        out
    }

    #[test]
    fn packing_of_the_first_pass_is_algorithm_1() {
        let a: [u32; 64] = core::array::from_fn(|i| i as u32);
        for s1 in 1..=6 {
            let g = PassGeometry { log_m: 6, s0: 0, s1, log_cluster: 0, log_unit: 0 };
            let want = algorithm1(&a, 1 << (6 - s1));
            for set in 0..1 << g.log_sets() {
                for r in 0..1 << g.k() {
                    assert_eq!(want[g.packed(set, r) as usize], a[g.natural(set, r) as usize]);
                }
            }
        }
    }

    #[test]
    fn sets_partition_the_indices_and_hold_the_pass_pairs() {
        for (s0, s1) in [(0, 3), (3, 6), (2, 5), (0, 6), (1, 2)] {
            let g = PassGeometry { log_m: 6, s0, s1, log_cluster: 0, log_unit: 0 };
            let mut seen = [false; 64];
            for set in 0..1 << g.log_sets() {
                for r in 0..1 << g.k() {
                    let j = g.natural(set, r) as usize;
                    assert!(!seen[j]);
                    seen[j] = true;
                    // Stage s pairs j with j ^ 2^(L-1-s): same set.
                    for s in s0..s1 {
                        let partner = (j ^ (1 << (5 - s))) as u32;
                        assert!((0..1 << g.k()).any(|r2| g.natural(set, r2) == partner));
                    }
                }
            }
            assert!(seen.iter().all(|&b| b));
        }
    }

    #[test]
    fn cluster_elements_cover_the_block_once_and_natural_runs_are_contiguous() {
        let g = PassGeometry { log_m: 8, s0: 0, s1: 4, log_cluster: 2, log_unit: 0 };
        for packed in [false, true] {
            let mut pos: [u32; 64] = [0; 64];
            for e in 0..g.threads() {
                pos[e as usize] = g.element(8, e, packed).0;
            }
            let mut sorted = pos;
            sorted.sort_unstable();
            assert!(sorted.windows(2).all(|w| w[0] < w[1]));
            // Runs of λ = 4 (natural) or 64 (packed) consecutive words.
            let run = if packed { 64 } else { 4 };
            for chunk in pos.chunks(run) {
                assert!(chunk.windows(2).all(|w| w[1] == w[0] + 1), "{packed} {chunk:?}");
            }
        }
    }

    #[test]
    fn twiddle_indices_fill_the_table() {
        let g = PassGeometry { log_m: 7, s0: 0, s1: 3, log_cluster: 0, log_unit: 0 };
        let mut hit = [0u32; 256];
        for set in 0..1 << g.log_sets() {
            for t in 0..g.k() {
                for i in 0..1 << (g.k() - 1) {
                    hit[g.twiddle_index(set, t, i) as usize] += 1;
                }
            }
        }
        let len = g.twiddle_len() as usize;
        assert!(hit[..len].iter().all(|&h| h == 1) && hit[len..].iter().all(|&h| h == 0));
    }
}
