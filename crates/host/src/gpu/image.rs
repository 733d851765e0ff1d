//! The kernel images: the PTX (and SASS) embedded at build time, and which
//! of them a device loads.
//!
//! build.rs (build/embed.rs) embeds them zstd-packed: the distinct PTX
//! texts as one frame (sm_70's text is sm_80's with another `.target`
//! line, so it is not stored twice), each cubin as a frame of its own.
//! An image is unpacked the first time it is needed and kept for the rest
//! of the process, so a second [`crate::Gpu`] loads it without unpacking.

use crate::{Error, Result};
use cust::module::Module;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// One embedded PTX module: its text is `start..start + len` of the
/// unpacked PTX, with `target.0..target.1` of it replaced by the line
/// `target.2` where that is `Some`.
struct PtxModule {
    sm: u32,
    start: usize,
    len: usize,
    target: Option<(usize, usize, &'static str)>,
}

/// One embedded cubin: a zstd frame that unpacks to `len` bytes.
struct CubinModule {
    sm: u32,
    packed: &'static [u8],
    len: usize,
}

mod embedded {
    use super::{CubinModule, PtxModule};
    include!(concat!(env!("OUT_DIR"), "/ptx_modules.rs"));
}

/// The largest window a frame may use; build/embed.rs packs with at most
/// this one.
const WINDOW_LOG_MAX: u32 = 30;

/// The unpacked PTX texts (all of them: they are one frame).
static PTX_UNPACKED: OnceLock<std::result::Result<Box<str>, String>> = OnceLock::new();
/// The PTX modules whose `.target` line differs from the stored text's.
static PTX_PATCHED: [OnceLock<std::result::Result<Box<str>, String>>; embedded::PTX_COUNT] =
    [const { OnceLock::new() }; embedded::PTX_COUNT];
/// The unpacked cubins.
static CUBINS: [OnceLock<std::result::Result<Box<[u8]>, String>>; embedded::CUBIN_COUNT] =
    [const { OnceLock::new() }; embedded::CUBIN_COUNT];

/// The SM versions whose PTX is embedded in this build, ascending.
pub fn embedded_ptx_archs() -> Vec<u32> {
    embedded::PTX_MODULES.iter().map(|m| m.sm).collect()
}

/// The SM versions whose prebuilt SASS (cubin) is embedded, ascending
/// (empty when `ptxas` was not found at build time).
pub fn embedded_cubin_archs() -> Vec<u32> {
    embedded::CUBIN_MODULES.iter().map(|m| m.sm).collect()
}

/// The embedded cubin (an ELF image of SASS) for one SM version, `None`
/// if none was built for it.
///
/// The image is embedded zstd-packed: the first call for an SM version
/// unpacks it (about 12 MB; milliseconds) and keeps it for the rest of the
/// process. [`Error::EmbeddedImage`] if it does not unpack (a damaged
/// binary: the build checked it).
pub fn embedded_cubin(sm: u32) -> Result<Option<&'static [u8]>> {
    match embedded::CUBIN_MODULES.iter().position(|m| m.sm == sm) {
        Some(i) => cubin_at(i).map(|(bin, _)| Some(bin)),
        None => Ok(None),
    }
}

/// The embedded PTX text for one SM version, `None` if it was not built.
///
/// The texts are embedded zstd-packed, as one frame: the first call
/// unpacks them all (about 20 MB each but sm_70's, which is sm_80's with
/// another `.target` line; tens of milliseconds) and keeps them for the
/// rest of the process. [`Error::EmbeddedImage`] if they do not unpack
/// (a damaged binary: the build checked them).
pub fn embedded_ptx(sm: u32) -> Result<Option<&'static str>> {
    match embedded::PTX_MODULES.iter().position(|m| m.sm == sm) {
        Some(i) => ptx_at(i).map(|(text, _)| Some(text)),
        None => Ok(None),
    }
}

/// The SM version of the newest embedded PTX for a device of compute
/// capability `major.minor`.
pub(super) fn ptx_arch_for(major: i32, minor: i32) -> Result<u32> {
    newest_arch(&embedded_ptx_archs(), major, minor)
}

/// The newest of `archs` (ascending SM versions) that a device of compute
/// capability `major.minor` runs; a documentation-only build (`DOCS_RS`, no
/// modules) says so rather than blaming the device.
fn newest_arch(archs: &[u32], major: i32, minor: i32) -> Result<u32> {
    if archs.is_empty() {
        return Err(Error::NoEmbeddedKernels);
    }
    let cc = u32::try_from(major.saturating_mul(10).saturating_add(minor)).unwrap_or(0);
    archs.iter().rev().copied().find(|sm| *sm <= cc).ok_or(Error::NoPtxForDevice { major, minor })
}

/// Whether the PTX of `sm_<arch>` has pass kernels that wait for their
/// predecessor (`griddepcontrol`), so that they may launch as programmatic
/// dependents.
pub(super) fn dependent_launch(arch: u32) -> bool {
    embedded::DEPENDENT_LAUNCH_ARCHS.contains(&arch)
}

/// The embedded cubin a device of compute capability `major.minor` runs:
/// that major version's, of an equal or older minor one (prebuilt SASS
/// runs on devices of the same major version and an equal or newer minor
/// one). Its index in `CUBIN_MODULES`.
fn cubin_index_for(major: i32, minor: i32) -> Option<usize> {
    embedded::CUBIN_MODULES.iter().rposition(|m| (m.sm / 10) as i32 == major && (m.sm % 10) as i32 <= minor)
}

/// Unpacks the embedded image [`load`] starts from for a device of
/// compute capability `major.minor` with PTX arch `ptx_arch`: its cubin,
/// else the PTX. Returns the time spent unpacking (zero if it was
/// unpacked before); an image that does not unpack is left for [`load`]
/// to report. `Gpu::with_options` runs this beside the context's creation.
pub(super) fn unpack_for(major: i32, minor: i32, ptx_arch: u32) -> Duration {
    let spent = match cubin_index_for(major, minor) {
        Some(i) => cubin_at(i).map(|(_, t)| t),
        None => match embedded::PTX_MODULES.iter().position(|m| m.sm == ptx_arch) {
            Some(i) => ptx_at(i).map(|(_, t)| t),
            None => Ok(Duration::ZERO),
        },
    };
    spent.unwrap_or(Duration::ZERO)
}

/// Loads the kernels for a device of compute capability `major.minor`
/// (context current): the image `kernel_image` names, else the embedded
/// cubin of that major version and an equal or older minor one, else the
/// PTX of `sm_<ptx_arch>`, JIT-compiled. `unpacked`: the time
/// [`unpack_for`] spent on the image beforehand. Returns the module and
/// what was loaded, in words (with the time spent unpacking it).
pub(super) fn load(
    major: i32,
    minor: i32,
    ptx_arch: u32,
    kernel_image: Option<&std::path::Path>,
    unpacked: Duration,
) -> Result<(Module, String)> {
    if let Some((path, image)) = kernel_image_override(kernel_image)? {
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
        return Ok((m, format!("{path} (GpuOptions::kernel_image)")));
    }
    // A driver that refuses the cubin JIT-compiles the PTX instead.
    if let Some(i) = cubin_index_for(major, minor) {
        let (bin, spent) = cubin_at(i)?;
        if let Ok(m) = Module::from_cubin(bin, &[]) {
            let sm = embedded::CUBIN_MODULES[i].sm;
            return Ok((m, format!("SASS sm_{sm} (prebuilt cubin, {})", unpack_note(unpacked + spent))));
        }
    }
    let i = embedded::PTX_MODULES
        .iter()
        .position(|m| m.sm == ptx_arch)
        .ok_or(Error::NoPtxForDevice { major, minor })?;
    let (ptx, spent) = ptx_at(i)?;
    let m = Module::from_ptx(ptx, &[]).map_err(|source| Error::Cuda {
        during: "loading the kernels' PTX",
        source: crate::DriverError(source),
    })?;
    Ok((m, format!("PTX sm_{ptx_arch} (JIT-compiled at load, {})", unpack_note(unpacked + spent))))
}

/// The unpacking time, in words for `DeviceInfo::kernel_image`.
fn unpack_note(spent: Duration) -> String {
    if spent.is_zero() {
        "unpacked before".into()
    } else {
        format!("zstd-unpacked in {:.1} ms", spent.as_secs_f64() * 1e3)
    }
}

/// The cubin `CUBIN_MODULES[i]`, unpacked (once a process), and the time
/// this call spent unpacking it.
fn cubin_at(i: usize) -> Result<(&'static [u8], Duration)> {
    let m = &embedded::CUBIN_MODULES[i];
    let mut spent = Duration::ZERO;
    let bin = CUBINS[i].get_or_init(|| {
        let t = Instant::now();
        let bin = unpack(m.packed, m.len).map(Vec::into_boxed_slice);
        spent = t.elapsed();
        bin
    });
    match bin {
        Ok(bin) => Ok((bin, spent)),
        Err(detail) => {
            Err(Error::EmbeddedImage { image: format!("cubin sm_{}", m.sm), detail: detail.clone() })
        }
    }
}

/// The PTX text `PTX_MODULES[i]`, unpacked (once a process; its
/// `.target` line put in), and the time this call spent unpacking it.
fn ptx_at(i: usize) -> Result<(&'static str, Duration)> {
    let m = &embedded::PTX_MODULES[i];
    let mut spent = Duration::ZERO;
    let t = Instant::now();
    let all = PTX_UNPACKED.get_or_init(|| {
        let text = unpack(embedded::PTX_PACKED, embedded::PTX_UNPACKED_LEN).and_then(|v| {
            String::from_utf8(v).map(String::into_boxed_str).map_err(|_| "not UTF-8 text".to_string())
        });
        spent = t.elapsed();
        text
    });
    let broken = |detail: String| Error::EmbeddedImage { image: format!("PTX sm_{}", m.sm), detail };
    let all = all.as_deref().map_err(|e| broken(e.clone()))?;
    let text = all
        .get(m.start..m.start + m.len)
        .ok_or_else(|| broken(format!("bytes {}..{} of {}", m.start, m.start + m.len, all.len())))?;
    let Some(target) = m.target else { return Ok((text, spent)) };
    let t = Instant::now();
    let mut rebuilt = false;
    let patched = PTX_PATCHED[i].get_or_init(|| {
        rebuilt = true;
        patch_target(text, target)
            .map(String::into_boxed_str)
            .ok_or_else(|| format!("no `.target` line at bytes {}..{}", target.0, target.1))
    });
    if rebuilt {
        spent += t.elapsed();
    }
    let patched = patched.as_deref().map_err(|e| broken(e.clone()))?;
    Ok((patched, spent))
}

/// `text` with bytes `start..end` (its `.target` line) replaced by `line`;
/// `None` if that range is not in `text`.
fn patch_target(text: &str, (start, end, line): (usize, usize, &str)) -> Option<String> {
    let (head, tail) = (text.get(..start)?, text.get(end..)?);
    text.get(start..end).filter(|old| old.starts_with(".target "))?;
    Some([head, line, tail].concat())
}

/// One zstd frame of build/embed.rs, unpacked: it must give `len` bytes.
fn unpack(packed: &[u8], len: usize) -> std::result::Result<Vec<u8>, String> {
    use zstd::zstd_safe::DParameter;
    let mut d = zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?;
    d.set_parameter(DParameter::WindowLogMax(WINDOW_LOG_MAX)).map_err(|e| e.to_string())?;
    let out = d.decompress(packed, len).map_err(|e| e.to_string())?;
    if out.len() != len {
        return Err(format!("{} bytes, not {len}", out.len()));
    }
    Ok(out)
}

/// The kernel image [`GpuOptions::kernel_image`] names (a cubin or PTX
/// file with every kernel of the embedded module, e.g. the embedded PTX
/// after `ptxas` with other options): a developer's knob for trying code
/// generation options on a GPU machine without Rust. None: `None`.
///
/// [`GpuOptions::kernel_image`]: crate::GpuOptions::kernel_image
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
    fn newest_arch_picks_the_newest_arch_the_device_runs() {
        let archs = [70, 80, 90];
        for (major, minor, want) in [(7, 0, 70), (7, 5, 70), (8, 6, 80), (9, 0, 90), (12, 0, 90)] {
            assert_eq!(newest_arch(&archs, major, minor).unwrap(), want, "{major}.{minor}");
        }
        assert!(matches!(newest_arch(&archs, 6, 1), Err(Error::NoPtxForDevice { major: 6, minor: 1 })));
        assert!(matches!(newest_arch(&archs, -1, 0), Err(Error::NoPtxForDevice { .. })));
    }

    #[test]
    fn a_build_without_kernels_says_so_for_every_device() {
        for (major, minor) in [(7, 0), (9, 0), (12, 1)] {
            assert!(matches!(newest_arch(&[], major, minor), Err(Error::NoEmbeddedKernels)));
        }
    }

    #[test]
    fn patch_target_replaces_only_the_target_line() {
        let text = ".version 7.0\n.target sm_80\n.address_size 64\n";
        let start = text.find(".target").unwrap();
        let end = start + ".target sm_80".len();
        let got = patch_target(text, (start, end, ".target sm_70")).unwrap();
        assert_eq!(got, text.replace("sm_80", "sm_70"));
        // A range that is not the `.target` line, or not in the text.
        assert_eq!(patch_target(text, (0, 5, ".target sm_70")), None);
        assert_eq!(patch_target(text, (start, text.len() + 1, ".target sm_70")), None);
    }

    #[test]
    fn unpack_rejects_damaged_frames() {
        let data = b"polymul ".repeat(1000);
        let packed = zstd::bulk::compress(&data, 3).unwrap();
        assert_eq!(unpack(&packed, data.len()).unwrap(), data);
        assert!(unpack(&packed[..packed.len() / 2], data.len()).is_err());
        assert!(unpack(b"not zstd", data.len()).is_err());
        // A frame that unpacks to fewer bytes than the index says.
        assert!(unpack(&packed, data.len() + 1).is_err());
    }
}
