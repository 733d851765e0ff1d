//! Checked construction of the kernels' argument blocks (issue 31).
//!
//! Every kernel takes one `#[repr(C)]` argument block whose `# Invariants`
//! section lists what its `unsafe` blocks rely on. The blocks' fields are
//! `pub(crate)`: outside this crate a block is built only through its
//! constructor (`new`), which takes each device buffer as a [`Buf`] (its
//! first element and how many elements it holds) with the counts the kernel
//! indexes by, and refuses ([`ArgsError`]) a block whose buffers are null
//! or too short for what the kernel will index, or whose sizes or moduli are
//! outside the kernel's range. What a constructor cannot see (that the words
//! are reduced, that the tables hold the right twiddles, the grid and shared
//! memory of the launch) stays the caller's, as each block's docs say.
//!
//! Host only: the constructors are not compiled for `nvptx64`, so they cannot
//! change the PTX. They are O(1) and allocate nothing.

use crate::Word;
use crate::ntt::radix2::Twiddles;
use crate::towers::{TOWER_WORDS, Towers};

/// Why a constructor refused an argument block. No formatting machinery:
/// [`ArgsError::why`] is a static string the host wraps in its error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ArgsError {
    /// A buffer the kernel dereferences is null.
    Null,
    /// A buffer holds fewer elements than the kernel indexes.
    Short,
    /// A size (`log_n`, a stage, a radix, a tile, a geometry) outside the
    /// kernel's range.
    Size,
    /// A count (towers, elements, threads) that is zero where it must not
    /// be, or overflows the kernel's index type.
    Count,
    /// A modulus outside the kernel's bound for its word.
    Modulus,
}

impl ArgsError {
    /// What was wrong, in words.
    pub const fn why(self) -> &'static str {
        match self {
            ArgsError::Null => "a buffer the kernel reads or writes is null",
            ArgsError::Short => "a buffer is shorter than what the kernel indexes",
            ArgsError::Size => "a size is outside the kernel's range",
            ArgsError::Count => "a count is zero or overflows the kernel's index type",
            ArgsError::Modulus => "a modulus is outside the kernel's bound",
        }
    }
}

/// A device buffer as the constructors take it: its first element and how
/// many elements (words, pairs) it holds. Only compared and copied on the
/// host, never dereferenced.
#[derive(Debug, Clone, Copy)]
pub struct Buf<T> {
    /// The first element (a device address).
    pub ptr: *const T,
    /// Elements the buffer holds.
    pub len: usize,
}

impl<T> Buf<T> {
    /// A buffer of `len` elements at `ptr`.
    #[inline]
    pub const fn new(ptr: *const T, len: usize) -> Self {
        Buf { ptr, len }
    }

    /// No buffer: null and empty (an optional operand left out).
    #[inline]
    pub const fn none() -> Self {
        Buf { ptr: core::ptr::null(), len: 0 }
    }

    /// Whether the buffer is null.
    #[inline]
    pub fn is_null(&self) -> bool {
        self.ptr.is_null()
    }

    /// `Ok` if the buffer is non-null and holds at least `elems` elements.
    #[inline]
    pub fn holds(&self, elems: u64) -> Result<(), ArgsError> {
        if self.ptr.is_null() {
            Err(ArgsError::Null)
        } else if (self.len as u64) < elems {
            Err(ArgsError::Short)
        } else {
            Ok(())
        }
    }

    /// As [`Buf::holds`], or `Ok` for a null buffer (an optional operand).
    #[inline]
    pub fn holds_if_any(&self, elems: u64) -> Result<(), ArgsError> {
        if self.ptr.is_null() { Ok(()) } else { self.holds(elems) }
    }

    /// The pointer, writable (the kernels write through it).
    #[inline]
    pub(crate) fn mut_ptr(&self) -> *mut T {
        self.ptr as *mut T
    }
}

/// `a · b + c` in `u64`, or [`ArgsError::Count`] on overflow.
#[inline]
pub(crate) fn span(a: u64, b: u64, c: u64) -> Result<u64, ArgsError> {
    a.checked_mul(b).and_then(|x| x.checked_add(c)).ok_or(ArgsError::Count)
}

/// The tower arguments of one launch with the grid's tower extent, checked:
/// the invariants of [`Towers`] that do not involve the data (a null table
/// and one row, or a table of `rows · TOWER_WORDS` words). Built only by
/// [`TowerGrid::new`]; every constructor of a block with towers takes one.
#[derive(Debug, Clone, Copy)]
pub struct TowerGrid<W> {
    towers: Towers<W>,
    rows: u32,
}

impl<W: Copy> TowerGrid<W> {
    /// The towers of a launch with `rows` block rows: `moduli` the constants
    /// table (null for one tower), `data_words` one tower's words of data,
    /// `tw_words` one tower's words of each twiddle table.
    ///
    /// Refuses zero rows ([`ArgsError::Count`]), a null table with more than
    /// one row ([`ArgsError::Null`]) and a table shorter than
    /// `rows · TOWER_WORDS` ([`ArgsError::Short`]). That the rows hold the
    /// towers' constants stays the caller's.
    #[inline]
    pub fn new(moduli: Buf<W>, rows: u32, data_words: u64, tw_words: u32) -> Result<Self, ArgsError> {
        if rows == 0 {
            return Err(ArgsError::Count);
        }
        if moduli.is_null() {
            if rows != 1 {
                return Err(ArgsError::Null);
            }
        } else {
            moduli.holds(rows as u64 * TOWER_WORDS as u64)?;
        }
        Ok(TowerGrid { towers: Towers { moduli: moduli.ptr, data_words, tw_words }, rows })
    }

    /// The same towers with another twiddle stride (`0` for the kernels
    /// without tables).
    #[inline]
    pub fn with_tw_words(self, tw_words: u32) -> Self {
        TowerGrid { towers: Towers { tw_words, ..self.towers }, ..self }
    }

    /// The grid's tower extent.
    #[inline]
    pub fn rows(&self) -> u32 {
        self.rows
    }

    /// One tower's words of data.
    #[inline]
    pub fn data_words(&self) -> u64 {
        self.towers.data_words
    }

    /// The block's tower arguments.
    #[inline]
    pub fn towers(&self) -> Towers<W> {
        self.towers
    }

    /// `Ok` if `b` is non-null and holds `used` words of the last tower's
    /// data, `data_words` after the previous one's (`used = data_words`
    /// for a launch over the whole batch).
    #[inline]
    pub fn data(&self, b: &Buf<W>, used: u64) -> Result<(), ArgsError> {
        b.holds(span(self.rows as u64 - 1, self.towers.data_words, used)?)
    }

    /// `Ok` if `b` is non-null and holds `per_tower` elements of the last
    /// tower's table, `tw_words` after the previous one's (`T`: the table's
    /// element).
    #[inline]
    pub fn table<T>(&self, b: &Buf<T>, per_tower: u64) -> Result<(), ArgsError> {
        b.holds(span(self.rows as u64 - 1, self.towers.tw_words as u64, per_tower)?)
    }
}

impl<W: Copy> TowerGrid<W> {
    /// The twiddles of a launch that reads `per_tower` prepared words of
    /// each tower's table: `main` checked to hold them, `aux` too where it
    /// is not null (whether the reduction needs it stays the caller's).
    #[inline]
    pub(crate) fn twiddles(
        &self,
        main: &Buf<W>,
        aux: &Buf<W>,
        per_tower: u64,
    ) -> Result<Twiddles<W>, ArgsError> {
        self.table(main, per_tower)?;
        if !aux.is_null() {
            self.table(aux, per_tower)?;
        }
        Ok(Twiddles { main: main.ptr, aux: aux.ptr })
    }

    /// `data_words / 2^log_n`, the polynomials per tower, checked to be a
    /// whole non-zero number with `data_words / 2` (a launch's threads)
    /// below `2^32`; [`ArgsError::Size`] unless `min_log_n ≤ log_n < 32`.
    #[inline]
    pub(crate) fn batch(&self, log_n: u32, min_log_n: u32) -> Result<u64, ArgsError> {
        if log_n < min_log_n || log_n >= 32 {
            return Err(ArgsError::Size);
        }
        let dw = self.towers.data_words;
        if dw == 0 || dw & ((1u64 << log_n) - 1) != 0 || dw >> 1 > u32::MAX as u64 {
            return Err(ArgsError::Count);
        }
        Ok(dw >> log_n)
    }
}

/// `Ok` if a one-tower launch's modulus `q` (read by the kernel where the
/// tower table is null) lies in `3..2^max_bits`: `W::BITS − 2` for the
/// kernels that reduce with Algorithm 4 or Harvey's lazy butterflies
/// (`4q < 2^β`), `W::BITS − 1` for the others (the loosest bound of the
/// reductions; that `q` suits the launch's own reduction stays the
/// caller's). A launch with a table reads its moduli from there.
#[inline]
pub(crate) fn one_tower_modulus<W: Word>(grid: &TowerGrid<W>, q: W, max_bits: u32) -> Result<(), ArgsError> {
    let q = q.as_u64();
    if !grid.towers.moduli.is_null() || (q >= 3 && q < 1u64 << max_bits) {
        Ok(())
    } else {
        Err(ArgsError::Modulus)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::Barrett4;
    use crate::arith::harvey::ShoupPair;
    use crate::ntt::lazy::{LaunchArgs, LazyTwiddles};
    use crate::ntt::radix2::Radix2Args;
    use crate::ntt::tiled::{TileGeometry, TiledArgs, TiledPass};
    use crate::pointwise::{FusedHadamardArgs, PointwiseArgs};

    /// A fake device address (never dereferenced).
    fn at<T>(len: usize) -> Buf<T> {
        Buf::new(core::ptr::dangling::<T>(), len)
    }

    const Q: u32 = 7681;

    fn b4() -> Barrett4<u32> {
        Barrett4 { q: Q, mu: 0, m: 13 }
    }

    #[test]
    fn tower_grid_checks_the_table() {
        assert_eq!(TowerGrid::<u32>::new(Buf::none(), 0, 8, 8).err(), Some(ArgsError::Count));
        assert_eq!(TowerGrid::<u32>::new(Buf::none(), 2, 8, 8).err(), Some(ArgsError::Null));
        assert_eq!(TowerGrid::<u32>::new(at(2 * TOWER_WORDS - 1), 2, 8, 8).err(), Some(ArgsError::Short));
        let g = TowerGrid::<u32>::new(at(2 * TOWER_WORDS), 2, 8, 8).unwrap();
        assert_eq!((g.rows(), g.data_words()), (2, 8));
        assert_eq!(g.data(&at(15), 8), Err(ArgsError::Short));
        assert_eq!(g.data(&at(16), 8), Ok(()));
        assert_eq!(g.data(&Buf::none(), 8), Err(ArgsError::Null));
        // A pipelined launch: one polynomial of the last tower.
        assert_eq!(g.data(&at(12), 4), Ok(()));
    }

    #[test]
    fn radix2_checks_extents_stages_and_modulus() {
        let g = TowerGrid::<u32>::new(Buf::none(), 1, 16, 8).unwrap();
        let tw = (at(8), Buf::none());
        assert!(Radix2Args::new(at(16), tw, &g, 3, 2, (Q, 0, 0)).is_ok());
        assert_eq!(Radix2Args::new(at(15), tw, &g, 3, 2, (Q, 0, 0)).err(), Some(ArgsError::Short));
        assert_eq!(Radix2Args::new(at(16), tw, &g, 3, 3, (Q, 0, 0)).err(), Some(ArgsError::Size));
        assert_eq!(
            Radix2Args::new(at(16), (at(4), Buf::none()), &g, 3, 2, (Q, 0, 0)).err(),
            Some(ArgsError::Short)
        );
        // A fused plan's half table serves the stages below log_n − 1.
        assert!(Radix2Args::new(at(16), (at(4), Buf::none()), &g, 3, 1, (Q, 0, 0)).is_ok());
        assert_eq!(
            Radix2Args::new(at(16), (at(8), at(7)), &g, 3, 2, (Q, 0, 0)).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(Radix2Args::new(at(16), tw, &g, 3, 2, (1 << 31, 0, 0)).err(), Some(ArgsError::Modulus));
        // 16 words are not whole polynomials of 32.
        assert_eq!(Radix2Args::new(at(16), tw, &g, 5, 2, (Q, 0, 0)).err(), Some(ArgsError::Count));
    }

    #[test]
    fn tiled_checks_the_geometry() {
        let g = TowerGrid::<u32>::new(at(2 * TOWER_WORDS), 2, 32, 16).unwrap();
        let pass = |l1, log_tile, strided| TiledPass {
            geo: TileGeometry { log_n: 4, l1, log_tile },
            strided,
            log_radix: 2,
            direct: true,
            stop: 4,
        };
        let tw = (at(32), Buf::none());
        assert!(TiledArgs::new(at(64), tw, &g, 2, pass(2, 3, true), (Q, 0, 0)).is_ok());
        assert_eq!(
            TiledArgs::new(at(64), tw, &g, 2, pass(0, 4, true), (Q, 0, 0)).err(),
            Some(ArgsError::Size)
        );
        assert_eq!(
            TiledArgs::new(at(64), tw, &g, 2, pass(3, 2, false), (Q, 0, 0)).err(),
            Some(ArgsError::Size)
        );
        assert_eq!(
            TiledArgs::new(at(63), tw, &g, 2, pass(0, 4, false), (Q, 0, 0)).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            TiledArgs::new(at(64), (at(31), Buf::none()), &g, 2, pass(0, 4, false), (Q, 0, 0)).err(),
            Some(ArgsError::Short)
        );
        // Polynomial 1 of a pipelined launch: 16 + 32 words from its start.
        assert!(TiledArgs::new(at(48), tw, &g, 1, pass(0, 4, false), (Q, 0, 0)).is_ok());
    }

    #[test]
    fn tensor_checks_inputs_output_and_ciphertext_shape() {
        use crate::tensor::TensorArgs;
        // Two towers of one ciphertext of N = 8: 16 input and 24 output words each.
        let g = TowerGrid::<u32>::new(at(2 * TOWER_WORDS), 2, 16, 0).unwrap();
        assert!(TensorArgs::new(at(48), at(32), at(32), &g, 3, b4()).is_ok());
        assert_eq!(TensorArgs::new(at(47), at(32), at(32), &g, 3, b4()).err(), Some(ArgsError::Short));
        assert_eq!(TensorArgs::new(at(48), at(31), at(32), &g, 3, b4()).err(), Some(ArgsError::Short));
        assert_eq!(TensorArgs::new(Buf::none(), at(32), at(32), &g, 3, b4()).err(), Some(ArgsError::Null));
        // 16 words per tower are one polynomial of 16, not a ciphertext (two).
        assert_eq!(TensorArgs::new(at(48), at(32), at(32), &g, 4, b4()).err(), Some(ArgsError::Count));
        assert_eq!(TensorArgs::new(at(48), at(32), at(32), &g, 32, b4()).err(), Some(ArgsError::Size));
        let one = TowerGrid::<u32>::new(Buf::none(), 1, 16, 0).unwrap();
        let wide = Barrett4 { q: 1 << 30, ..b4() };
        assert_eq!(TensorArgs::new(at(24), at(16), at(16), &one, 3, wide).err(), Some(ArgsError::Modulus));
    }

    #[test]
    fn pointwise_and_fused_hadamard_check_operands() {
        let g = TowerGrid::<u32>::new(Buf::none(), 1, 16, 8).unwrap();
        assert!(PointwiseArgs::new(at(16), at(16), at(16), &g, b4()).is_ok());
        assert_eq!(PointwiseArgs::new(at(16), at(16), at(8), &g, b4()).err(), Some(ArgsError::Short));
        assert_eq!(PointwiseArgs::new(at(16), at(16), Buf::none(), &g, b4()).err(), Some(ArgsError::Null));
        let wide = Barrett4 { q: 1 << 30, ..b4() };
        assert_eq!(PointwiseArgs::new(at(16), at(16), at(16), &g, wide).err(), Some(ArgsError::Modulus));
        let tw = (at(4), Buf::none());
        assert!(FusedHadamardArgs::new(at(16), at(16), tw, &g, 3, (Q, 0, 0), b4()).is_ok());
        assert_eq!(
            FusedHadamardArgs::new(at(16), at(16), (at(3), Buf::none()), &g, 3, (Q, 0, 0), b4()).err(),
            Some(ArgsError::Short)
        );
    }

    #[test]
    fn lazy_checks_tables_and_ctrl() {
        let g = TowerGrid::<u32>::new(at(2 * TOWER_WORDS), 2, 32, 0).unwrap();
        let t = |pairs: u32, len| LazyTwiddles::<u32> {
            fwd: at::<ShoupPair<u32>>(len),
            inv: at(len),
            pairs,
            computed_rows: false,
        };
        let ok = LaunchArgs::new(at(64), Buf::none(), &t(17, 34), &g, 4, 2, 0, b4()).unwrap();
        // Computed row twiddles: the plain 17 pairs and the small tables
        // (N = 16: 4 low pairs, 4 high factors of 2 pairs) per tower.
        let c = |pairs, len| LazyTwiddles { computed_rows: true, ..t(pairs, len) };
        assert_eq!(crate::ntt::lazy::computed_table_pairs(4), 29);
        assert!(LaunchArgs::new(at(64), Buf::none(), &c(29, 58), &g, 4, 2, 0, b4()).is_ok());
        assert_eq!(
            LaunchArgs::new(at(64), Buf::none(), &c(28, 58), &g, 4, 2, 0, b4()).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            LaunchArgs::new(at(64), Buf::none(), &c(29, 57), &g, 4, 2, 0, b4()).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            LaunchArgs::new(at(64), Buf::none(), &t(16, 34), &g, 4, 2, 0, b4()).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            LaunchArgs::new(at(64), Buf::none(), &t(17, 33), &g, 4, 2, 0, b4()).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            LaunchArgs::new(at(64), at(63), &t(17, 34), &g, 4, 2, 0, b4()).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            LaunchArgs::new(at(64), Buf::none(), &t(17, 34), &g, 4, 0, 0, b4()).err(),
            Some(ArgsError::Count)
        );
        assert_eq!(
            LaunchArgs::new(at(64), Buf::none(), &t(17, 34), &g, 1, 2, 0, b4()).err(),
            Some(ArgsError::Size)
        );
        // Fused: fused_ctrl_words(subs = 2) = 4 words per tower, lag ≥ 4.
        assert!(ok.fused(at(8), 4, &g).is_ok());
        assert_eq!(ok.fused(at(7), 4, &g).err(), Some(ArgsError::Short));
        assert_eq!(ok.fused(at(8), 3, &g).err(), Some(ArgsError::Count));
    }

    #[test]
    fn dgt_blocks_check_operands_and_tables() {
        use crate::dgt::codec::{DgtCodecArgs, DgtPointwiseArgs};
        use crate::dgt::layout::PassGeometry;
        use crate::dgt::pass::{DgtArgs, DgtStep, DgtTables, Op, Order};
        // M = 8 Gaussians, 2 polynomials: 32 words; one pass of all 3 stages.
        let g = TowerGrid::<u32>::new(Buf::none(), 1, 32, 64).unwrap();
        let geo = PassGeometry { log_m: 3, s0: 0, s1: 3, log_cluster: 0, log_unit: 0 };
        let tl = geo.twiddle_len() as usize;
        let tables = DgtTables { tw: at(64), tw_inv: at(64), weights: at(64), inv_weights: at(64) };
        let step = |op| DgtStep { geo, op, load: Order::Natural, store: Order::Natural, batch: 2 };
        let s = (Q, 0, 13);
        assert!(DgtArgs::new((at(32), at(32), Buf::none()), &tables, &g, step(Op::Forward), s).is_ok());
        assert_eq!(
            DgtArgs::new((at(32), at(32), Buf::none()), &tables, &g, step(Op::Polymul), s).err(),
            Some(ArgsError::Null)
        );
        assert_eq!(
            DgtArgs::new((at(32), at(31), Buf::none()), &tables, &g, step(Op::Inverse), s).err(),
            Some(ArgsError::Short)
        );
        let short = DgtTables { tw: at(tl - 1), ..tables };
        assert_eq!(
            DgtArgs::new((at(32), at(32), Buf::none()), &short, &g, step(Op::Forward), s).err(),
            Some(ArgsError::Short)
        );
        let bad = DgtStep { geo: PassGeometry { s1: 4, ..geo }, ..step(Op::Forward) };
        assert_eq!(
            DgtArgs::new((at(32), at(32), Buf::none()), &tables, &g, bad, s).err(),
            Some(ArgsError::Size)
        );
        let wrong_batch = DgtStep { batch: 3, ..step(Op::Forward) };
        assert_eq!(
            DgtArgs::new((at(32), at(32), Buf::none()), &tables, &g, wrong_batch, s).err(),
            Some(ArgsError::Count)
        );
        assert!(
            DgtCodecArgs::new(
                at(32),
                Buf::new(core::ptr::dangling::<u32>().wrapping_add(1), 32),
                at(8),
                &g,
                3,
                3,
                Q
            )
            .is_ok()
        );
        assert_eq!(DgtCodecArgs::new(at(32), at(32), at(8), &g, 3, 3, Q).err(), Some(ArgsError::Count));
        assert!(DgtPointwiseArgs::new(at(32), at(32), &g, 3, s).is_ok());
        assert_eq!(DgtPointwiseArgs::new(at(32), at(16), &g, 3, s).err(), Some(ArgsError::Short));
    }

    #[test]
    fn conversions_check_buffers_and_counts() {
        use crate::rns::crt::{self, CrtArgs};
        use crate::rns::decompose::{self, DecomposeArgs};
        let (count, l, k) = (16u32, 2u32, 3u32);
        let dt = decompose::table_words(k as usize, l as usize);
        let ct = crt::table_words(k as usize, l as usize);
        let a = DecomposeArgs::<u32>::new(at(32), at(48), at(dt), (count, l, k), 2).unwrap();
        assert_eq!(a.magic, crate::rns::div_magic(l));
        assert_eq!(
            DecomposeArgs::<u32>::new(at(31), at(48), at(dt), (count, l, k), 2).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            DecomposeArgs::<u32>::new(at(32), at(48), at(dt - 1), (count, l, k), 2).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            DecomposeArgs::<u32>::new(at(32), at(48), at(dt), (0, l, k), 2).err(),
            Some(ArgsError::Count)
        );
        assert!(CrtArgs::<u32>::new(at(48), at(32), at(ct), (count, l, k)).is_ok());
        assert_eq!(CrtArgs::<u32>::new(at(47), at(32), at(ct), (count, l, k)).err(), Some(ArgsError::Short));
        assert_eq!(
            CrtArgs::<u32>::new(at(48), at(32), at(ct), (count, l, crt::MAX_TOWERS as u32 + 1)).err(),
            Some(ArgsError::Count)
        );
    }

    #[test]
    fn microbench_blocks_check_buffers_and_modulus() {
        use crate::arith::harvey::ShoupPair;
        use crate::microbench::{ButterflyFloorArgs, CHAINS, ModMulBenchArgs};
        assert!(ModMulBenchArgs::<u32>::new(at(CHAINS * 8), (at(8), Buf::none()), 8, 4, (Q, 0, 0)).is_ok());
        assert_eq!(
            ModMulBenchArgs::<u32>::new(at(CHAINS * 8 - 1), (at(8), Buf::none()), 8, 4, (Q, 0, 0)).err(),
            Some(ArgsError::Short)
        );
        assert_eq!(
            ModMulBenchArgs::<u32>::new(at(CHAINS * 8), (at(8), at(7)), 8, 4, (Q, 0, 0)).err(),
            Some(ArgsError::Short)
        );
        let w = ShoupPair { w: 3u32, wp: 0 };
        assert!(ButterflyFloorArgs::new(at(256), 256, 1, w, Q).is_ok());
        assert_eq!(ButterflyFloorArgs::new(at(255), 256, 1, w, Q).err(), Some(ArgsError::Short));
        assert_eq!(ButterflyFloorArgs::new(at(256), 256, 1, w, 1u32 << 30).err(), Some(ArgsError::Modulus));
    }
}
