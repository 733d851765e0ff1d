//! `.npy` input and output, and the choice of coefficient word.
//!
//! Inputs are read with [`polymul_npy::NpyArray`] as `u64` (which accepts
//! every dtype the library reads: `<u8`, `<u4`, `>u8`, `>u4`, and `<i8`,
//! `<i4` without negative values) and then narrowed to the word the
//! computation runs on ([`Word`]): `--word 32|64`, or by default the width
//! of the file's dtype. Results are written with
//! [`NpyArray::write_file`](polymul_npy::NpyArray::write_file), which writes
//! a temporary file and renames it: a failed run leaves no partial output.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use polymul_npy::{NpyArray, NpyWord};

use crate::error::{CliError, Result};

/// The coefficient word a computation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Word {
    /// `u32` words: moduli up to 30 bits.
    #[value(name = "32")]
    W32,
    /// `u64` words: moduli up to 62 bits.
    #[value(name = "64")]
    W64,
}

impl Word {
    /// The word of `bits` bits (4-byte dtypes give 32, anything else 64).
    pub fn from_bits(bits: u32) -> Self {
        if bits == 32 { Word::W32 } else { Word::W64 }
    }
}

/// An input file, read as `u64` words.
#[derive(Debug, Clone)]
pub struct Input {
    /// The file.
    pub path: PathBuf,
    /// `[n]` or `[rows, n]`.
    pub shape: Vec<usize>,
    /// The coefficients, row after row.
    pub data: Vec<u64>,
    /// Bits per item of the file's dtype: 32 or 64.
    pub file_bits: u32,
}

impl Input {
    /// Reads a `.npy` file of a 1-D or 2-D array of unsigned coefficients.
    ///
    /// # Errors
    /// The library's typed errors (missing file, not a `.npy` file,
    /// truncated, unsupported dtype or shape, negative values), exit code 2.
    pub fn read(path: &Path) -> Result<Self> {
        let array = NpyArray::<u64>::read_file(path)?;
        let file_bits = item_bits(path, array.data.len());
        Ok(Self { path: path.to_path_buf(), shape: array.shape, data: array.data, file_bits })
    }

    /// Polynomials (rows): 1 for a 1-D array.
    pub fn rows(&self) -> usize {
        if self.shape.len() == 2 { self.shape[0] } else { 1 }
    }

    /// Coefficients per polynomial, N: the last dimension.
    pub fn cols(&self) -> usize {
        self.shape.last().copied().unwrap_or(0)
    }

    /// The shape as NumPy prints it: `(8,)` or `(2, 8)`.
    pub fn shape_str(&self) -> String {
        shape_str(&self.shape)
    }

    /// Moves the coefficients out (leaving `data` empty) as words `W`.
    ///
    /// # Errors
    /// Exit code 2, naming the file and the flat index, if a value does not
    /// fit `W` (a `u64` file read with `--word 32`).
    pub fn take_words<W: NpyWord>(&mut self) -> Result<Vec<W>> {
        let path = &self.path;
        std::mem::take(&mut self.data)
            .into_iter()
            .enumerate()
            .map(|(index, value)| {
                W::from_u64(value).ok_or_else(|| {
                    CliError::usage(format!(
                        "{}[{index}] = {value} does not fit a 32-bit word; leave out --word 32 (or pass \
                         --word 64), or reduce the values below 2^32",
                        path.display()
                    ))
                })
            })
            .collect()
    }
}

/// NumPy's way to print a shape.
pub fn shape_str(shape: &[usize]) -> String {
    match shape {
        [n] => format!("({n},)"),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// Bits per item of a `.npy` file that has just been read successfully with
/// `count` items: its data bytes (after the preamble and header) over
/// `count`. 64 when it cannot be told (an empty array).
fn item_bits(path: &Path, count: usize) -> u32 {
    let inner = || -> std::io::Result<Option<u64>> {
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata()?.len();
        let mut pre = [0u8; 12];
        file.read_exact(&mut pre)?;
        // Magic (6 bytes), version (2), header length: 2 bytes little-endian
        // in format 1.0, 4 bytes in 2.0 and 3.0.
        let data_start = if pre[6] == 1 {
            10 + u64::from(u16::from_le_bytes([pre[8], pre[9]]))
        } else {
            12 + u64::from(u32::from_le_bytes([pre[8], pre[9], pre[10], pre[11]]))
        };
        Ok(len.checked_sub(data_start).and_then(|bytes| bytes.checked_div(count as u64)))
    };
    match inner() {
        Ok(Some(4)) => 32,
        _ => 64,
    }
}

/// Writes the result: a `.npy` file of `shape` (the input's) holding `data`,
/// atomically.
///
/// # Errors
/// The writer's [`polymul_npy::Error::Io`] (exit code 1) if the file cannot be
/// written; nothing is left at `path` then.
pub fn write<W: NpyWord>(path: &Path, shape: &[usize], data: Vec<W>) -> Result<()> {
    NpyArray { shape: shape.to_vec(), data }.write_file(path)?;
    Ok(())
}

/// Writes `text` to `path` through a temporary file beside it and a rename,
/// so that an error leaves no partial file.
///
/// # Errors
/// Exit code 1, naming the file, if it cannot be written.
pub fn write_text_atomically(path: &Path, text: &str) -> Result<()> {
    let fail = |e: std::io::Error| {
        CliError::runtime(format!("cannot write {}: {e}; check the path and its permissions", path.display()))
    };
    let Some(name) = path.file_name().filter(|_| !path.is_dir()) else {
        return Err(CliError::runtime(format!(
            "cannot write {}: it is a folder, or does not name a file; give a file name",
            path.display()
        )));
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = std::fs::File::create(&tmp)
        .and_then(|mut f| f.write_all(text.as_bytes()).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&tmp, path));
    if result.is_err() {
        // Best effort: the error being reported is the one that matters.
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(fail)
}

/// Checks, before any work, that a file can be written at `path` later (by
/// a writer that creates missing folders): `path` is not a folder, its
/// nearest existing ancestor is a folder, and a file can be created there
/// (a temporary one, removed at once). Nothing is left behind.
///
/// # Errors
/// Exit code 1, naming the path and the reason.
pub fn check_writable_file(path: &Path) -> Result<()> {
    if path.is_dir() {
        return Err(cannot_write(path, "it is a folder; give a file name"));
    }
    let parent = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    can_create_in(parent).map_err(|why| cannot_write(path, &why))
}

/// Checks, before any work, that files can be written into the folder `dir`
/// later (it, or the missing part of its path, can be created): its
/// nearest existing ancestor is a folder in which a file can be created (a
/// temporary one, removed at once). Nothing is left behind.
///
/// # Errors
/// Exit code 1, naming the folder and the reason.
pub fn check_writable_dir(dir: &Path) -> Result<()> {
    can_create_in(dir).map_err(|why| cannot_write(dir, &why))
}

/// Whether a file can be created in `dir` or, where `dir` does not exist
/// yet, in its nearest existing ancestor; else why not.
fn can_create_in(dir: &Path) -> std::result::Result<(), String> {
    let mut existing = dir;
    while !existing.exists() {
        existing = existing.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        if existing == Path::new(".") {
            break;
        }
    }
    if !existing.is_dir() {
        return Err(format!("{} is not a folder", existing.display()));
    }
    let probe = existing.join(format!(".polymul-write-probe.{}", std::process::id()));
    let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&probe);
    file.map(|f| {
        drop(f);
        let _ = std::fs::remove_file(&probe);
    })
    .map_err(|e| e.to_string())
}

fn cannot_write(path: &Path, why: &str) -> CliError {
    CliError::runtime(format!("cannot write {}: {why}; check the path and its permissions", path.display()))
}

/// Prints `text` on stdout; a closed stdout (`polymul params | head -1`) is
/// not an error worth a message, and never a panic.
pub fn print_stdout(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
