//! The per-call rules of an [`NttEngine`]: which kernel, radix and tile a
//! call on `batch` polynomials runs (the options asked for, or the rules
//! measured on an H100/H200: [`super::super::auto_kernel`],
//! [`super::super::auto_radix`], the tile rule), and what follows from
//! them (passes over device memory, the geometry).

use super::super::launch::{Direction, FusedKernels, LazyTables};
use super::super::{NttKernel, auto_kernel, auto_radix, is_batched, shared_memory_kernel};
use super::NttEngine;
use super::lazy_state::{LazyPath, LazyState};
use crate::Coeff;
use polymul_kernels::ntt::tiled::TileGeometry;

impl<W: Coeff> NttEngine<W> {
    pub(crate) fn kernel_for_dir(&self, batch: usize, inverse: bool) -> NttKernel {
        match self.options.kernel {
            NttKernel::Auto => {
                let batched = is_batched(self.n(), batch.saturating_mul(self.towers));
                let k = auto_kernel(W::BITS, self.log_n, batched, inverse);
                let k = match (k, &self.lazy) {
                    (NttKernel::Cluster, Some(lz)) if lz.cluster.is_none() => NttKernel::Lazy,
                    (k, _) => k,
                };
                match k {
                    NttKernel::TwoD if self.geometries_2d.is_empty() => NttKernel::Tiled,
                    // A fused plan has no lazy kernels: the best of the others.
                    NttKernel::Lazy | NttKernel::Cluster if self.lazy.is_none() => {
                        match shared_memory_kernel(W::BITS, self.log_n, batched, inverse) {
                            NttKernel::TwoD if self.geometries_2d.is_empty() => NttKernel::Tiled,
                            k => k,
                        }
                    }
                    k => k,
                }
            }
            // Where there are no cluster kernels, the two-pass lazy ones.
            NttKernel::Cluster if self.lazy.as_ref().is_none_or(|l| l.cluster.is_none()) => NttKernel::Lazy,
            k => k,
        }
    }

    pub(crate) fn log_radix_for(&self, batch: usize, inverse: bool) -> u32 {
        self.log_radix.unwrap_or_else(|| {
            let k = self.kernel_for_dir(batch, inverse);
            let polys = batch.saturating_mul(self.towers);
            if let (NttKernel::Lazy, Some(lz)) = (k, &self.lazy) {
                // A transform on the moderate path: its radix.
                if let Some(path) = lz.transform_moderate(polys, inverse) {
                    return path.kernels.row_log_r();
                }
                // A launch on the latency schedule: its radix.
                if lz.fused_for(batch).is_none()
                    && let Some(l) = lz.latency_for(polys)
                {
                    return l.kernels.row_log_r();
                }
            }
            auto_radix(
                k,
                W::BITS,
                self.log_n,
                is_batched(self.n(), batch.saturating_mul(self.towers)),
                inverse,
            )
        })
    }

    /// The tile geometry a kernel uses for `batch` polynomials per tower:
    /// the largest candidate tile that still launches at least two blocks
    /// per SM, else the smallest.
    pub(crate) fn tile_for(&self, kernel: NttKernel, batch: usize) -> TileGeometry {
        let geos = match kernel {
            NttKernel::TwoD | NttKernel::TwoDPipelined => &self.geometries_2d,
            _ => &self.geometries,
        };
        // Pipelined launches are one polynomial (of every tower) each.
        let batch = if kernel == NttKernel::TwoDPipelined { 1 } else { batch };
        let polys = batch.saturating_mul(self.towers);
        let want = 2 * self.gpu.info().multiprocessors.max(1) as usize;
        let first = geos[0];
        geos.iter()
            .rev()
            .copied()
            .find(|g| polys.saturating_mul(g.blocks_per_poly()) >= want)
            .unwrap_or(first)
    }

    /// How a whole transform of `batch` polynomials per tower in `dir` runs
    /// where it runs on the lazy kernels: the fused two-pass launch, or the
    /// plain launches of a path (the moderate path in its bands, else the
    /// latency schedule or the full tiles); `None` where the call runs
    /// another kernel.
    pub(super) fn lazy_route(&self, dir: Direction, batch: usize) -> Option<LazyRoute<'_, W>> {
        let inverse = dir == Direction::Inverse;
        let lz = self.lazy.as_ref().filter(|_| self.kernel_for_dir(batch, inverse) == NttKernel::Lazy)?;
        let polys = batch.saturating_mul(self.towers);
        let moderate = lz.transform_moderate(polys, inverse);
        if let Some(fk) = lz.fused_for(batch)
            && (moderate.is_none() || fk.always)
        {
            return Some(LazyRoute::Fused(fk, lz.tables()));
        }
        Some(LazyRoute::Plain(moderate.unwrap_or_else(|| lz.path_for(polys)), lz))
    }

    /// Kernel launches of one tensor product of `m` ciphertexts per tower
    /// (`NttEngine::tensor_in_place`).
    pub(crate) fn tensor_launches(&self, m: usize) -> u32 {
        let (fwd, inv) =
            (self.lazy_route(Direction::Forward, 2 * m), self.lazy_route(Direction::Inverse, 3 * m));
        match (fwd, inv) {
            (Some(LazyRoute::Plain(f, _)), Some(LazyRoute::Plain(i, _))) if 3 * m <= self.max_batch() => {
                let fused = i.kernels.has_tensor_inverse();
                (f.kernels.passes(false) + i.kernels.passes(true)) as u32 + u32::from(!fused)
            }
            _ => 2 * self.global_passes(2 * m) + 1 + self.global_passes(3 * m),
        }
    }

    /// Global-memory passes of one transform of `batch` polynomials per tower.
    pub(crate) fn global_passes(&self, batch: usize) -> u32 {
        match self.kernel_for_dir(batch, false) {
            NttKernel::Radix2Global => self.log_n,
            // One pass where a fused launch runs both (the words between
            // them stay in L2), else the route's passes.
            NttKernel::Lazy => match self.lazy_route(Direction::Forward, batch) {
                Some(LazyRoute::Fused(..)) => 1,
                Some(LazyRoute::Plain(path, _)) => path.kernels.passes(false) as u32,
                None => 2,
            },
            NttKernel::Cluster => 1,
            k => 1 + u32::from(self.tile_for(k, batch).l1 > 0),
        }
    }

    /// The forward geometry of `batch` polynomials per tower (`None` for
    /// radix 2 and the lazy kernels, whose shapes are compile-time).
    pub(crate) fn geometry_for(&self, batch: usize) -> Option<TileGeometry> {
        match self.kernel_for_dir(batch, false) {
            NttKernel::Radix2Global | NttKernel::Lazy | NttKernel::Cluster => None,
            k => Some(self.tile_for(k, batch)),
        }
    }
}

/// How a transform runs on the lazy kernels ([`NttEngine::lazy_route`]).
pub(super) enum LazyRoute<'a, W: Coeff> {
    /// The fused two-pass kernels, with the tables they read.
    Fused(&'a FusedKernels<W>, LazyTables<W>),
    /// The plain launches of a path, and the state it belongs to.
    Plain(LazyPath<'a, W>, &'a LazyState<W>),
}
