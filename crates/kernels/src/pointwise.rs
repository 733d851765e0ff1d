//! Element-wise (Hadamard) modular product.

use crate::Word;
use crate::arith::{Barrett4, ModMul};

/// `out[i] = a[i] · b[i] mod q` for element `i`.
///
/// # Safety
/// `i` must be inside all three buffers (which may alias exactly) and
/// `a[i], b[i] < q`.
#[inline(always)]
pub unsafe fn mul_at<W: Word>(out: *mut W, a: *const W, b: *const W, i: usize, red: &Barrett4<W>) {
    // SAFETY: the caller guarantees `i` is in bounds.
    unsafe { *out.add(i) = red.mul(*a.add(i), *b.add(i)) }
}
