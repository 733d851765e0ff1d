//! The embedding half of build.rs: packs the kernel images (zstd) and
//! writes the index `src/gpu/image.rs` includes (`OUT_DIR/ptx_modules.rs`).
//!
//! - PTX: the distinct texts one after another in one zstd frame, with a
//!   window that spans them all (long-distance matching), so that the
//!   sm_90 text, which shares almost all of its lines with sm_80's, costs
//!   about 0.1 MB beside it. A text that differs from an earlier one only
//!   in its `.target` line (sm_70 and sm_80) is not stored again: the index
//!   names the earlier text and the line to put in.
//! - Cubins: one zstd frame each, so that loading a device's SASS unpacks
//!   only its 12 MB.
//!
//! Every frame is unpacked again here and compared with what went in.
//! The level: `POLYMUL_ZSTD_LEVEL` (1 to 22), else [`DEFAULT_LEVEL`] for
//! release builds and [`QUICK_LEVEL`] for the others; docs/toolchain.md
//! ("Kernel images") has the sizes and times behind them.

use super::Built;
use std::path::Path;

/// The zstd level of release builds (`PROFILE=release`).
const DEFAULT_LEVEL: i32 = 19;
/// The zstd level of the other builds (debug, test, clippy).
const QUICK_LEVEL: i32 = 3;

/// The largest window a frame may use (2^30 bytes); the runtime decoder
/// accepts up to `WINDOW_LOG_MAX` (src/gpu/image.rs), set equal.
const WINDOW_LOG_MAX: u32 = 30;

/// One PTX module of the index: where its text lies in the unpacked PTX,
/// and the `.target` line to put in place of `start..end` of that text.
struct PtxEntry {
    sm: u32,
    start: usize,
    len: usize,
    target: Option<(usize, usize, String)>,
}

/// Packs the images of `built` into `out_dir` and writes
/// `out_dir/ptx_modules.rs`, the index `src/gpu/image.rs` includes.
pub(crate) fn write_index(out_dir: &Path, mut built: Vec<Built>) -> Result<(), String> {
    built.sort_by_key(|b| b.arch);
    let level = level()?;
    let (unpacked, entries) = ptx_texts(&built)?;
    let ptx_packed = "polymul_kernels_ptx.zst";
    // The PTX and every cubin side by side (the PTX frame takes longest).
    let started = std::time::Instant::now();
    let mut sizes = Vec::new();
    let cubins: Vec<(u32, String, usize)> = std::thread::scope(|s| {
        let ptx = s.spawn(|| pack_to(&unpacked, level, &out_dir.join(ptx_packed)));
        let cubins: Vec<_> = built
            .iter()
            .filter_map(|b| b.cubin_file.as_ref().map(|f| (b.arch.0, f)))
            .map(|(sm, file)| {
                s.spawn(move || {
                    let bin = std::fs::read(out_dir.join(file)).map_err(|e| format!("{file}: {e}"))?;
                    let packed = format!("{file}.zst");
                    let size = pack_to(&bin, level, &out_dir.join(&packed))?;
                    Ok(((sm, packed, bin.len()), size))
                })
            })
            .collect();
        sizes.push((ptx_packed.to_string(), unpacked.len(), joined(ptx)?));
        let mut done = Vec::new();
        for h in cubins {
            let (cubin, size) = joined(h)?;
            sizes.push((cubin.1.clone(), cubin.2, size));
            done.push(cubin);
        }
        Ok::<_, String>(done)
    })?;

    let mut index = format!(
        "// Written by build.rs (build/embed.rs): the kernel images, zstd-packed at level {level} \
         in {:.1} s:\n",
        started.elapsed().as_secs_f64()
    );
    for (file, raw, packed) in &sizes {
        index.push_str(&format!("// {file}: {raw} -> {packed} bytes\n"));
    }
    index.push_str(
        "\n\
         /// The distinct PTX texts of `polymul-kernels`, one after another, as one zstd frame.\n",
    );
    index.push_str(&format!(
        "pub(crate) static PTX_PACKED: &[u8] = include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{ptx_packed}\"));\n\
         /// The length of [`PTX_PACKED`] unpacked.\n\
         pub(crate) const PTX_UNPACKED_LEN: usize = {};\n\
         /// How many PTX modules there are.\n\
         pub(crate) const PTX_COUNT: usize = {};\n\
         /// The PTX modules by SM version, ascending.\n\
         pub(crate) static PTX_MODULES: [PtxModule; PTX_COUNT] = [\n",
        unpacked.len(),
        entries.len()
    ));
    for e in &entries {
        let target = match &e.target {
            Some((start, end, line)) => format!("Some(({start}, {end}, {line:?}))"),
            None => "None".into(),
        };
        index.push_str(&format!(
            "    PtxModule {{ sm: {}, start: {}, len: {}, target: {target} }},\n",
            e.sm, e.start, e.len
        ));
    }
    index.push_str(&format!(
        "];\n/// How many cubins there are.\npub(crate) const CUBIN_COUNT: usize = {};\n\
         /// SASS (cubin) of `polymul-kernels` by SM version, ascending, each its own zstd frame.\n\
         pub(crate) static CUBIN_MODULES: [CubinModule; CUBIN_COUNT] = [\n",
        cubins.len()
    ));
    for (sm, packed, len) in &cubins {
        index.push_str(&format!(
            "    CubinModule {{ sm: {sm}, packed: include_bytes!(concat!(env!(\"OUT_DIR\"), \"/{packed}\")), \
             len: {len} }},\n"
        ));
    }
    // The modules whose lazy pass kernels wait for their predecessor
    // (`griddepcontrol`, the sm_90 build): the host may launch those passes
    // as programmatic dependents. Found here once, not by every `Gpu::new`.
    index.push_str(
        "];\n/// SM versions whose PTX has `griddepcontrol.wait` (programmatic dependent launches).\n\
         pub(crate) static DEPENDENT_LAUNCH_ARCHS: &[u32] = &[",
    );
    for b in built.iter().filter(|b| b.dependent) {
        index.push_str(&format!("{}, ", b.arch.0));
    }
    index.push_str("];\n");
    std::fs::write(out_dir.join("ptx_modules.rs"), index).map_err(|e| e.to_string())
}

/// What a compression thread returned.
fn joined<T>(h: std::thread::ScopedJoinHandle<'_, Result<T, String>>) -> Result<T, String> {
    h.join().unwrap_or_else(|_| Err("a compression thread panicked".into()))
}

/// The zstd level: `POLYMUL_ZSTD_LEVEL`, else by profile.
fn level() -> Result<i32, String> {
    println!("cargo:rerun-if-env-changed=POLYMUL_ZSTD_LEVEL");
    if let Ok(v) = std::env::var("POLYMUL_ZSTD_LEVEL") {
        return match v.trim().parse::<i32>() {
            Ok(l) if (1..=22).contains(&l) => Ok(l),
            _ => Err(format!("POLYMUL_ZSTD_LEVEL={v}: give a zstd level from 1 to 22")),
        };
    }
    Ok(if std::env::var("PROFILE").is_ok_and(|p| p == "release") { DEFAULT_LEVEL } else { QUICK_LEVEL })
}

/// The distinct PTX texts, concatenated, and every arch's place in them.
fn ptx_texts(built: &[Built]) -> Result<(Vec<u8>, Vec<PtxEntry>), String> {
    let mut unpacked = Vec::new();
    let mut stored: Vec<(usize, &str)> = Vec::new();
    let mut entries = Vec::new();
    for b in built {
        let ptx = b.ptx.as_str();
        let same = stored.iter().find_map(|&(start, text)| {
            let (s, e) = differs_in_target_only(text, ptx)?;
            Some((start, text.len(), (s, e, target_line(ptx)?.to_string())))
        });
        let entry = match same {
            Some((start, len, target)) => PtxEntry { sm: b.arch.0, start, len, target: Some(target) },
            None => {
                let start = unpacked.len();
                unpacked.extend_from_slice(ptx.as_bytes());
                stored.push((start, ptx));
                PtxEntry { sm: b.arch.0, start, len: ptx.len(), target: None }
            }
        };
        // What the runtime will rebuild (src/gpu/image.rs `patch_target`).
        let text = &unpacked[entry.start..entry.start + entry.len];
        let rebuilt = match &entry.target {
            Some((s, e, line)) => [&text[..*s], line.as_bytes(), &text[*e..]].concat(),
            None => text.to_vec(),
        };
        if rebuilt != ptx.as_bytes() {
            return Err(format!("packing the PTX of sm_{}: the rebuilt text differs", b.arch.0));
        }
        entries.push(entry);
    }
    Ok((unpacked, entries))
}

/// The byte range of the `.target` line of `ptx` (without its line end).
fn target_range(ptx: &str) -> Option<(usize, usize)> {
    let mut at = 0;
    for line in ptx.split_inclusive('\n') {
        let text = line.trim_end_matches(['\n', '\r']);
        if text.starts_with(".target ") {
            return Some((at, at + text.len()));
        }
        at += line.len();
    }
    None
}

/// The `.target` line of `ptx`.
fn target_line(ptx: &str) -> Option<&str> {
    target_range(ptx).map(|(s, e)| &ptx[s..e])
}

/// Where `stored`'s `.target` line lies, if `ptx` is `stored` with only
/// that line changed.
fn differs_in_target_only(stored: &str, ptx: &str) -> Option<(usize, usize)> {
    let (s0, e0) = target_range(stored)?;
    let (s1, e1) = target_range(ptx)?;
    (stored[..s0] == ptx[..s1] && stored[e0..] == ptx[e1..]).then_some((s0, e0))
}

/// Packs `data` into one zstd frame at `level` (content size and checksum
/// in the header, a window spanning the whole input), checks that it
/// unpacks to `data`, and writes it to `file`. Returns its length.
fn pack_to(data: &[u8], level: i32, file: &Path) -> Result<usize, String> {
    use zstd::zstd_safe::{CParameter, DParameter};
    let err = |e: std::io::Error| format!("zstd, packing {}: {e}", file.display());
    // The smallest window that holds all of `data`: every earlier byte
    // (an earlier PTX text) may be matched.
    let window_log =
        (usize::BITS - data.len().max(1 << 10).saturating_sub(1).leading_zeros()).min(WINDOW_LOG_MAX);
    let mut c = zstd::bulk::Compressor::new(level).map_err(err)?;
    c.set_parameter(CParameter::WindowLog(window_log)).map_err(err)?;
    c.set_parameter(CParameter::EnableLongDistanceMatching(true)).map_err(err)?;
    c.set_parameter(CParameter::ChecksumFlag(true)).map_err(err)?;
    c.set_parameter(CParameter::ContentSizeFlag(true)).map_err(err)?;
    let packed = c.compress(data).map_err(err)?;
    let mut d = zstd::bulk::Decompressor::new().map_err(err)?;
    d.set_parameter(DParameter::WindowLogMax(WINDOW_LOG_MAX)).map_err(err)?;
    if d.decompress(&packed, data.len()).map_err(err)? != data {
        return Err(format!("zstd, packing {}: the frame does not unpack to its input", file.display()));
    }
    std::fs::write(file, &packed).map_err(|e| format!("{}: {e}", file.display()))?;
    Ok(packed.len())
}
