use crate::params::NttParams;
use crate::{Coeff, Result};
use polymul_kernels::{ntt::radix2, pointwise};

/// Forward merged-CT NTT of every polynomial in `data` (a batch stored back to
/// back), running the GPU kernel's per-thread body for every thread.
pub fn forward<W: Coeff>(p: &NttParams<W>, data: &mut [W]) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    for log_m in 0..p.log_n() {
        run_stage(batch, p.n(), |t| {
            // SAFETY: check_batch sized the buffer; t < batch·N/2.
            unsafe {
                radix2::ct_butterfly(
                    data.as_mut_ptr(),
                    p.twiddles().as_ptr(),
                    t,
                    p.log_n(),
                    log_m,
                    p.barrett(),
                )
            }
        });
    }
    Ok(())
}

/// Inverse merged-GS NTT with ½-scaling (so including the `1/N`), as the GPU
/// runs it.
pub fn inverse<W: Coeff>(p: &NttParams<W>, data: &mut [W]) -> Result<()> {
    let batch = p.check_batch("data", data)?;
    for log_m in (0..p.log_n()).rev() {
        run_stage(batch, p.n(), |t| {
            // SAFETY: as in `forward`.
            unsafe {
                radix2::gs_butterfly_half(
                    data.as_mut_ptr(),
                    p.inv_twiddles().as_ptr(),
                    t,
                    p.log_n(),
                    log_m,
                    p.barrett(),
                )
            }
        });
    }
    Ok(())
}

/// Runs one stage's body for every thread `t < batch·N/2`, as a launch would.
fn run_stage(batch: usize, n: usize, mut body: impl FnMut(u32)) {
    for t in 0..(batch * n / 2) as u32 {
        body(t);
    }
}

/// `acc[i] ← acc[i] · other[i] mod q`, as the GPU's pointwise kernel.
pub fn pointwise_mul<W: Coeff>(p: &NttParams<W>, acc: &mut [W], other: &[W]) -> Result<()> {
    p.check_batch("acc", acc)?;
    p.check_batch("other", other)?;
    if acc.len() != other.len() {
        return Err(crate::Error::LengthMismatch {
            what: "other",
            got: other.len(),
            expected: acc.len(),
        });
    }
    for i in 0..acc.len() {
        let a = acc.as_mut_ptr();
        // SAFETY: i < len of both slices.
        unsafe { pointwise::mul_at(a, a, other.as_ptr(), i, p.barrett()) }
    }
    Ok(())
}

/// Negacyclic product of each pair of polynomials in `a` and `b`:
/// forward, forward, pointwise, inverse (equation (2) of the SEED paper).
pub fn polymul<W: Coeff>(p: &NttParams<W>, a: &[W], b: &[W]) -> Result<Vec<W>> {
    p.check_batch("a", a)?;
    p.check_batch("b", b)?;
    if a.len() != b.len() {
        return Err(crate::Error::LengthMismatch {
            what: "b",
            got: b.len(),
            expected: a.len(),
        });
    }
    let mut fa = a.to_vec();
    let mut fb = b.to_vec();
    forward(p, &mut fa)?;
    forward(p, &mut fb)?;
    pointwise_mul(p, &mut fa, &fb)?;
    inverse(p, &mut fa)?;
    Ok(fa)
}
