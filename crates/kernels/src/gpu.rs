//! Thin wrappers over `core::arch::nvptx` special registers.

use core::arch::nvptx::{_block_dim_x, _block_idx_x, _thread_idx_x};

/// Global linear thread index in x: `blockIdx.x · blockDim.x + threadIdx.x`.
#[inline(always)]
pub fn global_thread_x() -> u32 {
    // SAFETY: reading special registers has no preconditions.
    unsafe { (_block_idx_x() as u32) * (_block_dim_x() as u32) + _thread_idx_x() as u32 }
}
