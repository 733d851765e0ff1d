//! Twiddle tables on the device: the multiplicands a reduction prepared
//! ([`Multiplicands`]), main and auxiliary words, one tower after another.

use crate::gpu::{DeviceVec, Gpu};
use crate::reduction::Multiplicands;
use crate::{Coeff, Error, Result};

/// Device-resident prepared multiplicands.
#[derive(Debug)]
pub(crate) struct DeviceMultiplicands<W: Coeff> {
    pub(crate) parts: (W, W, u32),
    pub(crate) main: DeviceVec<W>,
    pub(crate) aux: Option<DeviceVec<W>>,
}

impl<W: Coeff> DeviceMultiplicands<W> {
    /// The main and auxiliary words as the argument blocks' constructors
    /// take them (a null auxiliary buffer for a reduction without them).
    pub(crate) fn bufs(&self) -> (polymul_kernels::args::Buf<W>, polymul_kernels::args::Buf<W>) {
        use crate::gpu::launch::buf;
        let aux = self.aux.as_ref().map_or(polymul_kernels::args::Buf::none(), |a| buf(a.ptr(), a.len()));
        (buf(self.main.ptr(), self.main.len()), aux)
    }

    /// Device bytes of the table (main and auxiliary words).
    pub(crate) fn bytes(&self) -> usize {
        (self.main.len() + self.aux.as_ref().map_or(0, |a| a.len())) * std::mem::size_of::<W>()
    }

    /// Uploads the tables of several towers back to back (tower 0's
    /// constants as `parts`); all prepared for one reduction.
    pub(crate) fn upload_all(gpu: &Gpu, towers: &[Multiplicands<W>]) -> Result<Self> {
        let first = towers.first().ok_or(Error::EmptyBasis)?;
        let main: Vec<W> = towers.iter().flat_map(|p| p.main.iter().copied()).collect();
        let aux = first
            .aux
            .as_ref()
            .map(|_| towers.iter().flat_map(|p| p.aux.iter().flatten().copied()).collect::<Vec<W>>());
        Ok(Self {
            parts: first.parts,
            main: gpu.upload(&main)?,
            aux: aux.as_ref().map(|a| gpu.upload(a)).transpose()?,
        })
    }

    pub(crate) fn upload(gpu: &Gpu, p: &Multiplicands<W>) -> Result<Self> {
        Ok(Self {
            parts: p.parts,
            main: gpu.upload(&p.main)?,
            aux: p.aux.as_ref().map(|a| gpu.upload(a)).transpose()?,
        })
    }
}
