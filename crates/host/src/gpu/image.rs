//! The kernel images: the PTX (and SASS) embedded at build time, and which
//! of them a device loads.

use crate::{Error, Result};
use cust::module::Module;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/ptx_modules.rs"));
}

/// The SM versions whose PTX is embedded in this build, ascending.
pub fn embedded_ptx_archs() -> Vec<u32> {
    embedded::PTX_MODULES.iter().map(|(sm, _)| *sm).collect()
}

/// The SM versions whose prebuilt SASS (cubin) is embedded, ascending
/// (empty when `ptxas` was not found at build time).
pub fn embedded_cubin_archs() -> Vec<u32> {
    embedded::CUBIN_MODULES.iter().map(|(sm, _)| *sm).collect()
}

/// The embedded cubin (an ELF image of SASS) for one SM version, if built.
pub fn embedded_cubin(sm: u32) -> Option<&'static [u8]> {
    embedded::CUBIN_MODULES.iter().find(|(s, _)| *s == sm).map(|(_, b)| *b)
}

/// The embedded PTX text for one SM version, if it was built.
pub fn embedded_ptx(sm: u32) -> Option<&'static str> {
    embedded::PTX_MODULES.iter().find(|(s, _)| *s == sm).map(|(_, p)| *p)
}

/// The newest embedded PTX for a device of compute capability
/// `major.minor`: its SM version and text.
pub(super) fn ptx_for(major: i32, minor: i32) -> Result<&'static (u32, &'static str)> {
    newest_ptx(embedded::PTX_MODULES, major, minor)
}

/// The newest module of `modules` (ascending SM versions) that a device of
/// compute capability `major.minor` runs; a documentation-only build
/// (`DOCS_RS`, no modules) says so rather than blaming the device.
fn newest_ptx<T>(modules: &[(u32, T)], major: i32, minor: i32) -> Result<&(u32, T)> {
    if modules.is_empty() {
        return Err(Error::NoEmbeddedKernels);
    }
    let cc = u32::try_from(major.saturating_mul(10).saturating_add(minor)).unwrap_or(0);
    modules.iter().rev().find(|(sm, _)| *sm <= cc).ok_or(Error::NoPtxForDevice { major, minor })
}

/// Whether the PTX of `sm_<arch>` has pass kernels that wait for their
/// predecessor (`griddepcontrol`), so that they may launch as programmatic
/// dependents.
pub(super) fn dependent_launch(arch: u32) -> bool {
    embedded::DEPENDENT_LAUNCH_ARCHS.contains(&arch)
}

/// Loads the kernels for a device of compute capability `major.minor`
/// (context current): the image `kernel_image` names, else the embedded
/// cubin of that major version and an equal or older minor one, else the
/// PTX of `sm_<ptx_arch>` (`ptx`), JIT-compiled. Returns the module and
/// what was loaded, in words.
pub(super) fn load(
    major: i32,
    minor: i32,
    ptx_arch: u32,
    ptx: &str,
    kernel_image: Option<&std::path::Path>,
) -> Result<(Module, String)> {
    // Prebuilt SASS runs on devices of the same major version and an
    // equal or newer minor one; anything else (or a driver that refuses
    // the cubin) JIT-compiles the PTX.
    let cubin = embedded::CUBIN_MODULES
        .iter()
        .rev()
        .find(|(sm, _)| (*sm / 10) as i32 == major && (*sm % 10) as i32 <= minor)
        .and_then(|(sm, bin)| Module::from_cubin(bin, &[]).ok().map(|m| (*sm, m)));
    Ok(match (kernel_image_override(kernel_image)?, cubin) {
        (Some((path, image)), _) => {
            let m = if image.starts_with(b"\x7fELF") {
                Module::from_cubin(&image, &[])
            } else {
                let text = String::from_utf8(image).map_err(|_| Error::KernelImage {
                    path: path.clone(),
                    detail: "neither a cubin (ELF) nor PTX text".into(),
                })?;
                Module::from_ptx(text, &[])
            };
            let m = m.map_err(|e| Error::KernelImage { path: path.clone(), detail: e.to_string() })?;
            (m, format!("{path} (GpuOptions::kernel_image)"))
        }
        (None, Some((sm, m))) => (m, format!("SASS sm_{sm} (prebuilt cubin)")),
        (None, None) => (
            Module::from_ptx(ptx, &[]).map_err(|source| Error::Cuda {
                during: "loading the kernels' PTX",
                source: crate::DriverError(source),
            })?,
            format!("PTX sm_{ptx_arch} (JIT-compiled at load)"),
        ),
    })
}

/// The kernel image [`GpuOptions::kernel_image`] names (a cubin or PTX
/// file with every kernel of the embedded module, e.g. the embedded PTX
/// after `ptxas` with other options): a developer's knob for trying code
/// generation options on a GPU machine without Rust. None: `None`.
fn kernel_image_override(path: Option<&std::path::Path>) -> Result<Option<(String, Vec<u8>)>> {
    let Some(path) = path else { return Ok(None) };
    let shown = path.to_string_lossy().into_owned();
    let image =
        std::fs::read(path).map_err(|e| Error::KernelImage { path: shown.clone(), detail: e.to_string() })?;
    Ok(Some((shown, image)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newest_ptx_picks_the_newest_arch_the_device_runs() {
        let modules = [(70, "a"), (80, "b"), (90, "c")];
        for (major, minor, want) in [(7, 0, 70), (7, 5, 70), (8, 6, 80), (9, 0, 90), (12, 0, 90)] {
            assert_eq!(newest_ptx(&modules, major, minor).unwrap().0, want, "{major}.{minor}");
        }
        assert!(matches!(newest_ptx(&modules, 6, 1), Err(Error::NoPtxForDevice { major: 6, minor: 1 })));
        assert!(matches!(newest_ptx(&modules, -1, 0), Err(Error::NoPtxForDevice { .. })));
    }

    #[test]
    fn a_build_without_kernels_says_so_for_every_device() {
        let none: [(u32, &str); 0] = [];
        for (major, minor) in [(7, 0), (9, 0), (12, 1)] {
            assert!(matches!(newest_ptx(&none, major, minor), Err(Error::NoEmbeddedKernels)));
        }
    }
}
