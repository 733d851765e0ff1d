//! The traits every plan implements, one shape for all six plan kinds:
//! [`crate::NttPlan`], [`crate::RnsPlan`], [`crate::DgtPlan`] (GPU),
//! [`crate::CpuPlan`], [`crate::CpuRnsPlan`] (CPU) and the planner's
//! [`crate::Multiplier`] (either).
//!
//! - [`Plan`]: what a plan is (N, moduli, where it runs) and the host
//!   product every plan offers.
//! - [`Product<W, B>`]: negacyclic products on buffers `B`, host slices
//!   (`[W]`, and `Vec<W>`) or device words ([`DeviceView`], and
//!   [`DeviceVec`]), with the same signatures for both.
//! - [`Transform<W, B>`]: the forward and inverse NTT and the pointwise
//!   product in the NTT domain. Only plans whose transform *is* the NTT
//!   implement it: the DGT's domain is another one, so [`crate::DgtPlan`]
//!   does not, and a DGT-domain buffer can never pass for NTT-domain data.
//!   A [`crate::Multiplier`] that chose the DGT returns
//!   [`crate::Error::NotNttDomain`] from these methods.
//! - [`DevicePlan`]: device memory and streams of a GPU plan.
//!
//! Every GPU plan's host-slice methods come from its device methods
//! (validate, upload, compute, download); `DeviceVec<W>` and `Vec<W>`
//! arguments work wherever views and slices do (blanket implementations
//! here).
//!
//! ```no_run
//! use polymul::{DevicePlan, Gpu, NttParams, NttPlan, Product, Transform};
//!
//! /// Squares every polynomial of `x` with any plan, on any buffer kind.
//! fn square<W: polymul::Coeff, B: ?Sized>(plan: &impl Product<W, B>, x: &mut B, scratch: &mut B) -> polymul::Result<()> {
//!     plan.polymul_in_place(x, scratch)
//! }
//!
//! let gpu = Gpu::new()?;
//! let plan = NttPlan::new(&gpu, NttParams::<u64>::with_prime_bits(1 << 12, 62)?)?;
//! let mut a = vec![3u64; 1 << 12];
//! let mut scratch = a.clone();
//! square(&plan, &mut a[..], &mut scratch[..])?;           // host slices
//! let (mut d, mut s) = (plan.upload(&a)?, plan.upload(&a)?);
//! square(&plan, &mut *d, &mut *s)?;                       // device views
//! plan.forward(&mut d)?;                                  // NTT domain
//! # Ok::<(), polymul::Error>(())
//! ```

use crate::gpu::{DeviceVec, DeviceView, Gpu, GpuStream};
use crate::layout::Layout;
use crate::{Coeff, Result};

/// Where a plan runs; its `Display` is one line for a log
/// (`GPU NVIDIA H100 80GB HBM3`, `CPU backend (2 threads)`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA GPU, by name.
    Gpu(String),
    /// The CPU backend ([`crate::CpuPlan`]) on this many threads
    /// (rayon's global pool).
    Cpu {
        /// Worker threads.
        threads: usize,
    },
    /// Several plans' backends: a [`crate::MultiPlan`]'s, one per plan.
    Several(Vec<Backend>),
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Backend::Gpu(name) => write!(f, "GPU {name}"),
            Backend::Cpu { threads } => write!(f, "CPU backend ({threads} threads)"),
            Backend::Several(all) => {
                write!(f, "{} devices: ", all.len())?;
                for (i, b) in all.iter().enumerate() {
                    write!(f, "{}{b}", if i == 0 { "" } else { ", " })?;
                }
                Ok(())
            }
        }
    }
}

/// What every plan is: a negacyclic product of `N`-word polynomials modulo
/// one or more moduli (towers), created once and executed many times.
///
/// Data is tower-major (one tower for a plain modulus; see [`Layout`]):
/// a buffer holds `batch` polynomials of tower 0, then `batch` of tower 1,
/// and so on. Every method validates before it computes and returns a
/// typed [`crate::Error`]; no method panics on bad input.
pub trait Plan<W: Coeff>: Send + Sync + std::fmt::Debug {
    /// Words per polynomial (N).
    fn n(&self) -> usize;

    /// The moduli, one per tower.
    fn moduli(&self) -> Vec<u64>;

    /// Where it runs.
    fn backend(&self) -> Backend;

    /// The layout of `batch` polynomials per tower of this plan.
    fn layout(&self, batch: usize) -> Layout {
        Layout { n: self.n(), towers: self.moduli().len(), batch }
    }

    /// `a ⊗ b` of host words (each pair of polynomials, every tower), in a
    /// new vector. Both operands are validated (a positive multiple of
    /// `towers · N` words, equal lengths, every word below its tower's
    /// modulus) before anything is computed.
    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>>;

    /// The ciphertext tensor product of host words ([`crate::Tensor`] has
    /// the layout): `a` and `b` hold `2m` polynomials per tower, the result
    /// `3m`. Both are validated first, as for [`Plan::polymul`]. GPU and
    /// CPU plans run their transforms and the tensor kernel; the default
    /// (any other plan) is [`crate::tensor_by_products`].
    ///
    /// # Errors
    /// As [`crate::Tensor::tensor_into`].
    fn tensor(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        crate::ciphertext::by_products((self.n(), &self.moduli()), (a, b), |x, y| self.polymul(x, y))
    }
}

/// The tensor product of any plan through its host product: one
/// [`Plan::polymul`] call on `4m` pairs per tower (`a0·b0`, `a0·b1`,
/// `a1·b0`, `a1·b1` for every ciphertext), then the cross terms summed
/// modulo each tower's prime. What [`Plan::tensor`] does by default.
///
/// # Errors
/// As [`Tensor::tensor_into`].
pub fn tensor_by_products<W: Coeff, P: Plan<W> + ?Sized>(plan: &P, a: &[W], b: &[W]) -> Result<Vec<W>> {
    crate::ciphertext::by_products((plan.n(), &plan.moduli()), (a, b), |x, y| plan.polymul(x, y))
}

/// Negacyclic products on buffers `B`: host slices (`[W]`) or device words
/// ([`DeviceView<W>`]), with the same signatures for both. On a GPU plan the
/// device methods queue work on the plan's stream and return without
/// waiting (errors inside a kernel surface at the next synchronisation);
/// the host methods return when the result is in place.
///
/// **Any batch.** A GPU plan's calls take batches above one launch's limit
/// ([`crate::NttParams::max_batch`] polynomials per tower): device views
/// run in launches of at most that many (with several towers, whose rows of
/// a piece are not contiguous, each piece goes through a device buffer and
/// the call waits for its work before it returns); host slices above the
/// limit or the device's free memory run in pieces whose uploads overlap
/// the previous piece's kernels and download. The words are those of the
/// unsplit call.
pub trait Product<W: Coeff, B: ?Sized>: Plan<W> {
    /// `out ← a ⊗ b`, leaving `a` and `b` intact (all three of one
    /// length). On a GPU this costs two device copies more than
    /// [`Product::polymul_in_place`].
    fn polymul_into(&self, a: &B, b: &B, out: &mut B) -> Result<()>;

    /// `a ← a ⊗ b`; `b`'s words are scratch afterwards (the fastest product:
    /// no copies). Upload or copy `b` again to reuse it.
    fn polymul_in_place(&self, a: &mut B, b: &mut B) -> Result<()>;
}

/// The ciphertext tensor product: from ciphertexts `a = (a0, a1)` and
/// `b = (b0, b1)`, the three polynomials `(a0·b0, a0·b1 + a1·b0, a1·b1)`,
/// each a negacyclic product modulo every tower's prime. It is the core of
/// BFV, BGV and CKKS multiplication (before relinearisation).
///
/// **Layout.** A ciphertext is two polynomials in the plan's tower-major
/// layout ([`crate::Layout`]): per tower, ciphertext `j`'s `c0` is
/// polynomial `2j` and its `c1` polynomial `2j + 1`. So `m` ciphertexts
/// are a buffer of `2m` polynomials per tower (`towers · 2m · N` words),
/// and their products a buffer of `3m` per tower, ciphertext `j`'s three
/// at `3j`, `3j + 1`, `3j + 2`. One ciphertext on an RNS plan of `L` towers
/// is `[t0: c0, c1][t1: c0, c1]…`, `2 · L · N` words.
///
/// **Where it runs.** [`Tensor::tensor_into`] on host slices and device
/// views, and the host convenience [`crate::Plan::tensor`]:
///
/// - GPU plans ([`crate::NttPlan`], [`crate::RnsPlan`]): both inputs'
///   forward transforms (one call each over their `2m` polynomials per
///   tower), one launch of the tensor kernel (`polymul_kernels::tensor`:
///   four products and a sum per position, every tower), and the inverse of
///   the `3m` outputs in one call. `tensor_into` on device views copies the
///   inputs into the plan's scratch first; `tensor_in_place` (inherent on the
///   GPU plans) transforms them where they are.
/// - CPU plans ([`crate::CpuPlan`], [`crate::CpuRnsPlan`]): the same steps
///   with the CPU backend's transforms, and the tensor kernel's own code
///   looped on the host.
/// - Any other plan ([`crate::DgtPlan`], [`crate::MultiPlan`]):
///   [`crate::Plan::tensor`]'s default, one [`crate::Plan::polymul`] call on
///   `4m` pairs per tower and a modular sum ([`tensor_by_products`]).
///
/// On buffers `B`: host slices `[W]` or device views [`crate::DeviceView`].
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, rns::{RnsBasis, RnsPlan}};
/// let gpu = Gpu::new()?;
/// let basis = RnsBasis::<u32>::new(1 << 16, 30, 32)?;
/// let plan = RnsPlan::new(&gpu, &basis)?;
/// let (n, l) = (basis.n(), basis.len());
/// let (a, b) = (plan.zeros(2)?, plan.zeros(2)?); // one ciphertext each
/// let mut out = plan.zeros(3)?;                  // its three products
/// plan.tensor_into(&*a, &*b, &mut *out)?;
/// assert_eq!(out.len(), 3 * l * n);
/// # Ok::<(), polymul::Error>(())
/// ```
pub trait Tensor<W: Coeff, B: ?Sized>: Product<W, B> {
    /// `out ← a ⊗ b`: for every ciphertext `j` and tower, `out`'s
    /// polynomials `3j, 3j + 1, 3j + 2` become `a0·b0`, `a0·b1 + a1·b0` and
    /// `a1·b1` (negacyclic products modulo the tower's prime). `a` and `b`
    /// are left intact.
    ///
    /// # Errors
    /// [`crate::Error::NotAMultipleOfN`] (a length that is not whole polynomials
    /// of every tower), [`crate::Error::NotCiphertexts`] (an odd number per
    /// tower), [`crate::Error::LengthMismatch`] (`b` not `a`'s length, `out` not
    /// 3/2 of it), [`crate::Error::CoefficientOutOfRange`] for unreduced host
    /// words, and the plan's device errors.
    fn tensor_into(&self, a: &B, b: &B, out: &mut B) -> Result<()>;
}

/// The negacyclic NTT on buffers `B`: forward (normal order in,
/// bit-reversed out), inverse (scaled by `1/N`: `inverse(forward(x)) = x`)
/// and the pointwise product in the NTT domain. Every plan kind whose
/// transform is the NTT implements it; the DGT plan does not (its domain is
/// another one).
pub trait Transform<W: Coeff, B: ?Sized>: Product<W, B> {
    /// The forward transform of every polynomial (and tower).
    ///
    /// # Errors
    /// [`crate::Error::FusedPlanTransform`] on a plan that only multiplies
    /// (a fused-polymul NTT plan), [`crate::Error::NotNttDomain`] on a
    /// [`crate::Multiplier`] that chose the DGT; the input checks'.
    fn forward(&self, data: &mut B) -> Result<()>;

    /// The inverse transform (scaled). Errors as [`Transform::forward`].
    fn inverse(&self, data: &mut B) -> Result<()>;

    /// `acc ← acc ⊙ other`, element-wise modulo each tower's modulus: the
    /// product in the NTT domain.
    fn pointwise_mul(&self, acc: &mut B, other: &B) -> Result<()>;
}

/// A plan resident on a GPU: its device memory and its stream (cuFFT's
/// plan/exec split: create once, execute many times).
///
/// Its [`Product`] (and, for NTT plans, [`Transform`]) methods on
/// [`DeviceView`]s queue work; those on host slices come from them.
pub trait DevicePlan<W: Coeff>: Product<W, DeviceView<W>> {
    /// The GPU the plan runs on.
    fn gpu(&self) -> &Gpu;

    /// Validates host words (tower-major, a positive multiple of
    /// `towers · N`, each below its tower's modulus) and uploads them; the
    /// buffer remembers its [`Layout`].
    fn upload(&self, words: &[W]) -> Result<DeviceVec<W>>;

    /// `batch` zero polynomials per tower on the device: any batch (the
    /// plans' device methods split one above the launch limit into
    /// launches).
    ///
    /// # Errors
    /// [`crate::Error::NotAMultipleOfN`] for `batch = 0` (before any
    /// allocation), [`crate::Error::OutOfDeviceMemory`] (also for a batch
    /// whose bytes overflow the address space).
    fn zeros(&self, batch: usize) -> Result<DeviceVec<W>>;

    /// Copies device words back after the work queued on the plan's stream.
    fn download(&self, v: &DeviceView<W>) -> Result<Vec<W>>;

    /// Queues the plan's later work on `stream` (`None`: the GPU's own).
    fn set_stream(&mut self, stream: Option<&GpuStream>);

    /// Waits for the work the plan queued.
    fn synchronize(&self) -> Result<()>;
}

/// [`Product`] on host slices for a GPU plan type, from its device
/// methods: validated, then uploaded, computed on the device and
/// downloaded — in pieces that overlap their copies and kernels where the
/// batch exceeds one launch or the device's free memory
/// (`gpu/split.rs`; the type implements its `SplitPlan`). With
/// `transform, "words"`, [`Transform`] on host slices too (`"words"`
/// names the data in errors). (A macro, not a blanket implementation over
/// [`DevicePlan`]: coherence could not tell the GPU plans' implementations
/// from the CPU plans' then.)
macro_rules! host_slices_via_device {
    ($plan:ident) => {
        /// Any batch: one above the launch limit
        /// ([`NttParams::max_batch`](crate::NttParams::max_batch)) or the
        /// device's free memory runs in pieces, the next piece's upload
        /// overlapping this one's kernels and download, with the words of
        /// the unsplit call. Should the device run out of memory, pieces
        /// shrink; at the smallest piece (one polynomial, or 1 MiB per
        /// operand where polynomials are smaller) the call returns
        /// [`Error::OutOfDeviceMemory`](crate::Error::OutOfDeviceMemory)
        /// with `out` (`a`) holding the products of a leading part of the
        /// batch (the same polynomials in every tower) and otherwise
        /// untouched. Input errors leave everything untouched.
        impl<W: $crate::Coeff> $crate::Product<W, [W]> for $plan<W> {
            fn polymul_into(&self, a: &[W], b: &[W], out: &mut [W]) -> $crate::Result<()> {
                use $crate::gpu::split::SplitPlan as _;
                if out.len() != a.len() {
                    return Err($crate::Error::LengthMismatch {
                        what: "out",
                        got: out.len(),
                        expected: a.len(),
                    });
                }
                let layout = self.split_towers().check_pair(a, b)?;
                let io = $crate::gpu::split::HostIo { a: Some(a), b: Some(b), out };
                $crate::gpu::split::host_call(self, $crate::gpu::split::Op::Product, io, layout)
            }

            fn polymul_in_place(&self, a: &mut [W], b: &mut [W]) -> $crate::Result<()> {
                use $crate::gpu::split::SplitPlan as _;
                let layout = self.split_towers().check_pair(a, b)?;
                let io = $crate::gpu::split::HostIo { a: None, b: Some(b), out: a };
                $crate::gpu::split::host_call(self, $crate::gpu::split::Op::Product, io, layout)
            }
        }
    };
    ($plan:ident, transform, $words:literal) => {
        $crate::traits::host_slices_via_device!($plan);

        /// Any batch, in pieces where it must be, as the host-slice
        /// [`Product`](crate::Product) (out of memory: `data` / `acc`
        /// holds the results of a leading part of the batch, the rest is
        /// untouched).
        impl<W: $crate::Coeff> $crate::Transform<W, [W]> for $plan<W> {
            fn forward(&self, data: &mut [W]) -> $crate::Result<()> {
                self.host_transform($crate::gpu::split::Op::Forward, data)
            }

            fn inverse(&self, data: &mut [W]) -> $crate::Result<()> {
                self.host_transform($crate::gpu::split::Op::Inverse, data)
            }

            fn pointwise_mul(&self, acc: &mut [W], other: &[W]) -> $crate::Result<()> {
                use $crate::gpu::split::SplitPlan as _;
                let layout = self.split_towers().check($words, acc)?;
                self.split_towers().check($words, other)?;
                if other.len() != acc.len() {
                    return Err($crate::Error::LengthMismatch {
                        what: "other",
                        got: other.len(),
                        expected: acc.len(),
                    });
                }
                let io = $crate::gpu::split::HostIo { a: None, b: Some(other), out: acc };
                $crate::gpu::split::host_call(self, $crate::gpu::split::Op::Pointwise, io, layout)
            }
        }

        impl<W: $crate::Coeff> $plan<W> {
            /// A forward or inverse transform of host words, any batch.
            fn host_transform(&self, op: $crate::gpu::split::Op, data: &mut [W]) -> $crate::Result<()> {
                use $crate::gpu::split::SplitPlan as _;
                let layout = self.split_towers().check($words, data)?;
                if self.engine.options.fused_polymul {
                    return Err($crate::Error::FusedPlanTransform);
                }
                let io = $crate::gpu::split::HostIo { a: None, b: None, out: data };
                $crate::gpu::split::host_call(self, op, io, layout)
            }
        }
    };
}
pub(crate) use host_slices_via_device;

/// Owning device buffers where views are taken (`plan.forward(&mut v)`
/// for a `DeviceVec` `v`).
impl<W: Coeff, P: Product<W, DeviceView<W>> + ?Sized> Product<W, DeviceVec<W>> for P {
    fn polymul_into(&self, a: &DeviceVec<W>, b: &DeviceVec<W>, out: &mut DeviceVec<W>) -> Result<()> {
        Product::<W, DeviceView<W>>::polymul_into(self, a, b, out)
    }

    fn polymul_in_place(&self, a: &mut DeviceVec<W>, b: &mut DeviceVec<W>) -> Result<()> {
        Product::<W, DeviceView<W>>::polymul_in_place(self, a, b)
    }
}

impl<W: Coeff, P: Transform<W, DeviceView<W>> + ?Sized> Transform<W, DeviceVec<W>> for P {
    fn forward(&self, data: &mut DeviceVec<W>) -> Result<()> {
        Transform::<W, DeviceView<W>>::forward(self, data)
    }

    fn inverse(&self, data: &mut DeviceVec<W>) -> Result<()> {
        Transform::<W, DeviceView<W>>::inverse(self, data)
    }

    fn pointwise_mul(&self, acc: &mut DeviceVec<W>, other: &DeviceVec<W>) -> Result<()> {
        Transform::<W, DeviceView<W>>::pointwise_mul(self, acc, other)
    }
}

/// `Vec<W>` where slices are taken (`plan.forward(&mut v)` for a `Vec` `v`).
impl<W: Coeff, P: Product<W, [W]> + ?Sized> Product<W, Vec<W>> for P {
    fn polymul_into(&self, a: &Vec<W>, b: &Vec<W>, out: &mut Vec<W>) -> Result<()> {
        Product::<W, [W]>::polymul_into(self, a, b, out)
    }

    fn polymul_in_place(&self, a: &mut Vec<W>, b: &mut Vec<W>) -> Result<()> {
        Product::<W, [W]>::polymul_in_place(self, a, b)
    }
}

impl<W: Coeff, P: Transform<W, [W]> + ?Sized> Transform<W, Vec<W>> for P {
    fn forward(&self, data: &mut Vec<W>) -> Result<()> {
        Transform::<W, [W]>::forward(self, data)
    }

    fn inverse(&self, data: &mut Vec<W>) -> Result<()> {
        Transform::<W, [W]>::inverse(self, data)
    }

    fn pointwise_mul(&self, acc: &mut Vec<W>, other: &Vec<W>) -> Result<()> {
        Transform::<W, [W]>::pointwise_mul(self, acc, other)
    }
}
