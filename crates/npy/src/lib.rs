//! NumPy `.npy` files of coefficient arrays: the format HE users exchange from
//! Python (`numpy.save` / `numpy.load`). polymul's command-line tool reads
//! and writes them; the library itself does not depend on this crate.
//!
//! An [`NpyArray`] is one polynomial (shape `(n,)`) or a batch of polynomials
//! (shape `(batch, n)`, C order: row `i` is polynomial `i`), with `u32` or
//! `u64` coefficient words ([`NpyWord`]).
//!
//! **Reading** ([`NpyArray::from_bytes`], [`NpyArray::read_file`]) takes format
//! versions 1.0, 2.0 and 3.0 and these dtypes:
//!
//! | dtype            | NumPy              | read as `u64`          | read as `u32`               |
//! |------------------|--------------------|------------------------|-----------------------------|
//! | `'<u8'`, `'>u8'` | `uint64`           | as is                  | every value must be `< 2^32` |
//! | `'<u4'`, `'>u4'` | `uint32`           | widened                | as is                       |
//! | `'<i8'`, `'<i4'` | `int64`, `int32`   | every value must be `>= 0` | `>= 0` and `< 2^32`     |
//!
//! Anything else (floats, other integer widths, object or structured dtypes,
//! Fortran order, 0-d or 3-d+ arrays) is refused with a typed [`Error`] that
//! says how to convert the array in NumPy. Arrays with a zero-length
//! dimension (`(0,)`, `(0, n)`, `(batch, 0)`) are accepted and written: they
//! are valid NumPy arrays and round-trip exactly; whatever consumes them
//! checks N. A 0-d array (shape `()`, a NumPy scalar) is refused: it is not a
//! polynomial.
//!
//! The reader is meant for untrusted input: no input bytes make it panic,
//! the header is parsed by a small hand-written parser of the Python literal
//! (keys in any order, any whitespace, trailing commas, no padding or
//! alignment required; nesting at most 32 deep, at most [`MAX_HEADER_LEN`]
//! bytes), and the data size the header
//! claims is checked against the bytes actually present before anything is
//! allocated, so a forged shape cannot make it reserve memory.
//!
//! **Writing** ([`NpyArray::to_bytes`], [`NpyArray::write_file`]) produces
//! exactly the bytes `numpy.save` (NumPy 1.x and 2.x) writes for the same
//! array: format 1.0, `'<u8'` or `'<u4'`, `fortran_order: False`, the header
//! padded with spaces to put the data at a multiple of 64 bytes.
//! [`NpyArray::write_file`] writes a temporary file beside the target and
//! renames it, so an error never leaves a partial file behind.
//!
//! ```
//! use polymul_npy::NpyArray;
//!
//! // A batch of 2 polynomials of 4 coefficients.
//! let batch = NpyArray::matrix(2, 4, vec![1u64, 2, 3, 4, 5, 6, 7, 8])?;
//! let bytes = batch.to_bytes()?; // what np.save writes for this array
//! assert_eq!(&bytes[..6], b"\x93NUMPY");
//! assert_eq!(bytes.len(), 128 + 8 * 8); // 128-byte header, then the data
//!
//! let back = NpyArray::<u64>::from_bytes(&bytes)?;
//! assert_eq!(back, batch);
//! assert_eq!((back.rows(), back.cols()), (2, 4));
//! assert_eq!(back.row(1), Some(&[5, 6, 7, 8][..]));
//!
//! // The values fit 32 bits, so they can also be read as u32 words.
//! let narrow = NpyArray::<u32>::from_bytes(&bytes)?;
//! assert_eq!(narrow.data, [1, 2, 3, 4, 5, 6, 7, 8]);
//! # Ok::<(), polymul_npy::Error>(())
//! ```

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

mod error;
pub use error::{Error, Result};

/// The largest header (the Python dict after the length field) the reader
/// accepts, in bytes. NumPy writes 118 bytes or fewer for any 1-D or 2-D
/// array; a longer one is refused with [`Error::HeaderTooLong`] before it
/// is parsed.
pub const MAX_HEADER_LEN: usize = 1 << 20;

/// The `.npy` magic string.
const MAGIC: &[u8; 6] = b"\x93NUMPY";
/// NumPy aligns the start of the data to this many bytes.
const ALIGN: usize = 64;
/// NumPy leaves room for the first axis to grow to this many digits
/// (`GROWTH_AXIS_MAX_DIGITS` in `numpy/lib/_format_impl.py`).
const GROWTH_AXIS_MAX_DIGITS: usize = 21;
/// Deepest nesting of tuples and lists the header parser follows.
const MAX_DEPTH: usize = 32;
/// Longest excerpt of the header quoted in an error message, in characters.
const MAX_QUOTE: usize = 80;
/// How errors name the input of [`NpyArray::from_bytes`].
const IN_MEMORY: &str = "in-memory .npy data";
/// How errors name the array [`NpyArray::to_bytes`] is given.
const TO_WRITE: &str = "the array to write";

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// A coefficient word `.npy` arrays are read into and written from: `u32` or
/// `u64` (sealed).
pub trait NpyWord: Copy + sealed::Sealed {
    /// Bytes per word (4 or 8).
    const SIZE: usize;
    /// The dtype the writer records: `<u4` or `<u8`.
    const DESCR: &'static str;
    /// The word holding `value`, or `None` if it does not fit.
    fn from_u64(value: u64) -> Option<Self>;
    /// The word's value, widened to 64 bits.
    fn to_u64(self) -> u64;
}

impl NpyWord for u32 {
    const SIZE: usize = 4;
    const DESCR: &'static str = "<u4";
    fn from_u64(value: u64) -> Option<Self> {
        u32::try_from(value).ok()
    }
    fn to_u64(self) -> u64 {
        u64::from(self)
    }
}

impl NpyWord for u64 {
    const SIZE: usize = 8;
    const DESCR: &'static str = "<u8";
    fn from_u64(value: u64) -> Option<Self> {
        Some(value)
    }
    fn to_u64(self) -> u64 {
        self
    }
}

/// A 1-D `(n,)` or 2-D `(batch, n)` array of coefficient words in C order,
/// as read from or written to a `.npy` file.
///
/// The fields are public; [`NpyArray::to_bytes`] checks that they agree
/// (`shape` has one or two entries whose product is `data.len()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NpyArray<W> {
    /// `[n]` for one polynomial, `[batch, n]` for a batch.
    pub shape: Vec<usize>,
    /// The coefficients, row after row (`rows() * cols()` words).
    pub data: Vec<W>,
}

impl<W> NpyArray<W> {
    /// One polynomial: a 1-D array of shape `(data.len(),)`.
    pub fn vector(data: Vec<W>) -> Self {
        Self { shape: vec![data.len()], data }
    }

    /// A batch of `rows` polynomials of `cols` coefficients each: a 2-D array
    /// of shape `(rows, cols)`, row after row in `data`.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] if `data.len() != rows * cols`.
    pub fn matrix(rows: usize, cols: usize, data: Vec<W>) -> Result<Self> {
        // rows * cols overflowing cannot equal a length: saturating is enough.
        let expected = rows.saturating_mul(cols);
        if data.len() != expected {
            return Err(Error::LengthMismatch { what: "NpyArray::matrix data", got: data.len(), expected });
        }
        Ok(Self { shape: vec![rows, cols], data })
    }

    /// Polynomials in the array: 1 for a 1-D array, `shape[0]` for a 2-D one
    /// (in general the product of every dimension but the last).
    pub fn rows(&self) -> usize {
        let leading = self.shape.split_last().map_or(&[][..], |(_, rest)| rest);
        leading.iter().fold(1usize, |acc, &d| acc.saturating_mul(d))
    }

    /// Coefficients per polynomial: the last dimension (1 for a 0-d shape).
    pub fn cols(&self) -> usize {
        self.shape.last().copied().unwrap_or(1)
    }

    /// Polynomial `i` (row `i`), or `None` if there is no such row or the
    /// shape does not match the data.
    pub fn row(&self, i: usize) -> Option<&[W]> {
        if i >= self.rows() {
            return None;
        }
        let cols = self.cols();
        let start = i.checked_mul(cols)?;
        self.data.get(start..start.checked_add(cols)?)
    }
}

impl<W: NpyWord> NpyArray<W> {
    /// Parses a whole `.npy` file held in memory.
    ///
    /// # Errors
    /// Every way the bytes can fail to be a 1-D or 2-D array of a supported
    /// dtype whose values fit `W`: [`Error::BadMagic`],
    /// [`Error::Version`], [`Error::Truncated`],
    /// [`Error::HeaderTooLong`], [`Error::BadHeader`],
    /// [`Error::Dtype`], [`Error::FortranOrder`], [`Error::Shape`],
    /// [`Error::ShapeOverflow`], [`Error::DataLength`],
    /// [`Error::Negative`], [`Error::ValueTooWide`]. Never panics.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        Self::decode(bytes, IN_MEMORY)
    }

    /// Reads a `.npy` file.
    ///
    /// # Errors
    /// [`Error::Io`] if the file cannot be read, otherwise those of
    /// [`NpyArray::from_bytes`], naming the file.
    pub fn read_file(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            during: "reading",
            path: path.to_path_buf(),
            source,
        })?;
        Self::decode(&bytes, &path.display().to_string())
    }

    /// The `.npy` file of this array, byte for byte what `numpy.save` writes
    /// for it (format 1.0; 2.0 only for a header over 64 KiB, which no 1-D or
    /// 2-D shape reaches).
    ///
    /// # Errors
    /// [`Error::Shape`] unless `shape` has one or two entries,
    /// [`Error::ShapeOverflow`] if their product overflows, and
    /// [`Error::LengthMismatch`] if it is not `data.len()`.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.encode(TO_WRITE)
    }

    /// Writes the array to `path` as [`NpyArray::to_bytes`] does, replacing
    /// any file there. The bytes go to a temporary file in the same folder
    /// which is then renamed onto `path`: on error, `path` is left as it was
    /// and the temporary file is removed.
    ///
    /// # Errors
    /// Those of [`NpyArray::to_bytes`] (before anything is written), and
    /// [`Error::Io`] if the file cannot be created, written or renamed.
    pub fn write_file(&self, path: impl AsRef<Path>) -> Result<()> {
        self.write_file_nd(path, 2)
    }

    /// Reads a `.npy` file of 1 to `max_dims` dimensions (big-integer
    /// limbs: `(N, L)` or `(batch, N, L)` with `max_dims = 3`); otherwise
    /// as [`NpyArray::read_file`].
    ///
    /// # Errors
    /// As [`NpyArray::read_file`].
    pub fn read_file_nd(path: impl AsRef<Path>, max_dims: usize) -> Result<Self> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| Error::Io {
            during: "reading",
            path: path.to_path_buf(),
            source,
        })?;
        Self::decode_nd(&bytes, &path.display().to_string(), max_dims)
    }

    /// Parses a whole `.npy` file held in memory, of 1 to `max_dims`
    /// dimensions; otherwise as [`NpyArray::from_bytes`] (what
    /// [`NpyArray::read_file_nd`] does with a file's bytes).
    ///
    /// # Errors
    /// As [`NpyArray::from_bytes`]. Never panics.
    pub fn from_bytes_nd(bytes: &[u8], max_dims: usize) -> Result<Self> {
        Self::decode_nd(bytes, IN_MEMORY, max_dims)
    }

    /// Writes an array of 1 to `max_dims` dimensions as
    /// [`NpyArray::write_file`] does.
    ///
    /// # Errors
    /// As [`NpyArray::write_file`].
    pub fn write_file_nd(&self, path: impl AsRef<Path>, max_dims: usize) -> Result<()> {
        let path = path.as_ref();
        let header = self.header_nd(&path.display().to_string(), max_dims)?;
        // Streamed through a small buffer: no second copy of a large batch.
        write_atomically(path, |file| {
            file.write_all(&header)?;
            let mut buf = Vec::with_capacity(WRITE_CHUNK * W::SIZE);
            for chunk in self.data.chunks(WRITE_CHUNK) {
                buf.clear();
                put_words(chunk, &mut buf);
                file.write_all(&buf)?;
            }
            Ok(())
        })
    }

    fn decode(bytes: &[u8], input: &str) -> Result<Self> {
        Self::decode_nd(bytes, input, 2)
    }

    fn decode_nd(bytes: &[u8], input: &str, max_dims: usize) -> Result<Self> {
        let header = parse_file(bytes, input, max_dims)?;
        let data = bytes.get(header.data_start..).unwrap_or_default();
        if data.len() != header.data_bytes {
            return Err(Error::DataLength {
                input: input.to_owned(),
                shape: header.shape,
                item_bytes: header.dtype.size(),
                expected: header.data_bytes,
                got: data.len(),
            });
        }
        let data = convert::<W>(header.dtype, data, input)?;
        Ok(Self { shape: header.shape, data })
    }

    fn encode(&self, what: &str) -> Result<Vec<u8>> {
        let header = self.header(what)?;
        // The words are in memory, so their byte count fits a usize.
        let mut out = Vec::with_capacity(header.len() + self.data.len() * W::SIZE);
        out.extend_from_slice(&header);
        put_words(&self.data, &mut out);
        Ok(out)
    }

    /// Checks that shape and data agree; the file's header.
    fn header(&self, what: &str) -> Result<Vec<u8>> {
        self.header_nd(what, 2)
    }

    fn header_nd(&self, what: &str, max_dims: usize) -> Result<Vec<u8>> {
        if !(1..=max_dims).contains(&self.shape.len()) {
            return Err(Error::Shape { input: what.to_owned(), shape: self.shape.clone() });
        }
        // The reader's limit too, so that whatever is written can be read.
        let Some(bytes) = array_bytes(&self.shape, W::SIZE) else {
            return Err(Error::ShapeOverflow { input: what.to_owned(), shape: shape_repr(&self.shape) });
        };
        let expected = bytes / W::SIZE;
        if self.data.len() != expected {
            return Err(Error::LengthMismatch { what: "NpyArray::data", got: self.data.len(), expected });
        }
        Ok(header_bytes(W::DESCR, &self.shape))
    }
}

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/// The dtypes the reader takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dtype {
    U4Le,
    U8Le,
    U4Be,
    U8Be,
    I4Le,
    I8Le,
}

impl Dtype {
    fn from_descr(descr: &[u8]) -> Option<Self> {
        Some(match descr {
            b"<u4" => Dtype::U4Le,
            b"<u8" => Dtype::U8Le,
            b">u4" => Dtype::U4Be,
            b">u8" => Dtype::U8Be,
            b"<i4" => Dtype::I4Le,
            b"<i8" => Dtype::I8Le,
            _ => return None,
        })
    }

    fn size(self) -> usize {
        match self {
            Dtype::U4Le | Dtype::U4Be | Dtype::I4Le => 4,
            Dtype::U8Le | Dtype::U8Be | Dtype::I8Le => 8,
        }
    }
}

/// What the preamble and header of a file say.
#[derive(Debug)]
struct Header {
    dtype: Dtype,
    shape: Vec<usize>,
    /// Offset of the first data byte (within the input).
    data_start: usize,
    /// Bytes of data the shape and dtype call for.
    data_bytes: usize,
}

/// Checks the magic, version and header length, and parses the header. Does
/// not look at the data.
fn parse_file(bytes: &[u8], input: &str, max_dims: usize) -> Result<Header> {
    let truncated =
        |part, needed| Error::Truncated { input: input.to_owned(), part, needed, got: bytes.len() };
    if !bytes.starts_with(MAGIC) {
        // A prefix of the magic (the empty file included) is a truncated file.
        return Err(if MAGIC.starts_with(bytes) {
            truncated("magic string", MAGIC.len())
        } else {
            Error::BadMagic { input: input.to_owned() }
        });
    }
    let (Some(&major), Some(&minor)) = (bytes.get(6), bytes.get(7)) else {
        return Err(truncated("format version", 8));
    };
    let len_bytes = match (major, minor) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        _ => return Err(Error::Version { input: input.to_owned(), major, minor }),
    };
    let prefix = 8 + len_bytes;
    let Some(len_field) = bytes.get(8..prefix) else {
        return Err(truncated("header length", prefix));
    };
    let header_len = len_field.iter().rev().fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
    let header_len = match usize::try_from(header_len) {
        Ok(len) if len <= MAX_HEADER_LEN => len,
        _ => {
            return Err(Error::HeaderTooLong {
                input: input.to_owned(),
                len: header_len,
                max: MAX_HEADER_LEN,
            });
        }
    };
    let data_start = prefix + header_len;
    let Some(text) = bytes.get(prefix..data_start) else {
        return Err(truncated("header", data_start));
    };
    let bad = |why: String| Error::BadHeader { input: input.to_owned(), why };
    // Format 3.0 exists for UTF-8 headers; 1.0 and 2.0 are Latin-1, where any
    // byte is a character. Only ASCII matters to the parser either way.
    if major == 3 && std::str::from_utf8(text).is_err() {
        return Err(bad("a format 3.0 header must be UTF-8".into()));
    }
    let fields = HeaderFields::parse(text).map_err(bad)?;

    let dtype = match &fields.descr.0 {
        Lit::Str(s) => Dtype::from_descr(s),
        _ => None,
    };
    let Some(dtype) = dtype else {
        return Err(Error::Dtype { input: input.to_owned(), descr: quote(text, &fields.descr.1) });
    };
    if fields.fortran_order {
        return Err(Error::FortranOrder { input: input.to_owned() });
    }
    let overflow =
        || Error::ShapeOverflow { input: input.to_owned(), shape: quote(text, &fields.shape_span) };
    let shape = fields
        .shape
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| overflow()))
        .collect::<Result<Vec<usize>>>()?;
    if !(1..=max_dims).contains(&shape.len()) {
        return Err(Error::Shape { input: input.to_owned(), shape });
    }
    let Some(data_bytes) = array_bytes(&shape, dtype.size()) else {
        return Err(overflow());
    };
    Ok(Header { dtype, shape, data_start, data_bytes })
}

/// Bytes of a C-order array of `shape` with `item`-byte items, or `None` if
/// the bytes of its nonzero dimensions exceed `isize::MAX` (what Rust can
/// allocate). Like NumPy ("array is too big"), an empty array is judged by
/// its other dimensions, in any order: `(0, 2^60)` of 8-byte items is refused.
fn array_bytes(shape: &[usize], item: usize) -> Option<usize> {
    let nonzero = shape.iter().filter(|&&d| d != 0).try_fold(item, |acc, &d| acc.checked_mul(d))?;
    isize::try_from(nonzero).ok()?;
    Some(if shape.contains(&0) { 0 } else { nonzero })
}

/// Converts the data (exactly `count * dtype.size()` bytes) into words.
fn convert<W: NpyWord>(dtype: Dtype, data: &[u8], input: &str) -> Result<Vec<W>> {
    let size = dtype.size();
    // At most data.len() / 4 words: bounded by the input, never by the header.
    let mut out = Vec::with_capacity(data.len() / size);
    for (index, chunk) in data.chunks_exact(size).enumerate() {
        // chunks_exact gives `size` bytes, so the conversions cannot fail.
        let b4 = || <[u8; 4]>::try_from(chunk).unwrap_or_default();
        let b8 = || <[u8; 8]>::try_from(chunk).unwrap_or_default();
        let signed = |value: i64| {
            u64::try_from(value).map_err(|_| Error::Negative { input: input.to_owned(), index, value })
        };
        let value = match dtype {
            Dtype::U4Le => u64::from(u32::from_le_bytes(b4())),
            Dtype::U8Le => u64::from_le_bytes(b8()),
            Dtype::U4Be => u64::from(u32::from_be_bytes(b4())),
            Dtype::U8Be => u64::from_be_bytes(b8()),
            Dtype::I4Le => signed(i64::from(i32::from_le_bytes(b4())))?,
            Dtype::I8Le => signed(i64::from_le_bytes(b8()))?,
        };
        let word = W::from_u64(value).ok_or_else(|| Error::ValueTooWide {
            input: input.to_owned(),
            index,
            value,
        })?;
        out.push(word);
    }
    Ok(out)
}

/// The three entries of a header dict, checked for type.
#[derive(Debug)]
struct HeaderFields {
    /// The `descr` value and where it is in the header.
    descr: (Lit, Range<usize>),
    fortran_order: bool,
    /// The dimensions (non-negative; `u128` keeps every literal that fits
    /// `i128`, so that too-large ones are reported as an overflow).
    shape: Vec<u128>,
    shape_span: Range<usize>,
}

impl HeaderFields {
    /// Parses the header dict and checks it as NumPy does: exactly the keys
    /// `descr`, `fortran_order` (a bool) and `shape` (a tuple of
    /// non-negative ints). Errors are the reason, for [`Error::BadHeader`].
    fn parse(text: &[u8]) -> Result<Self, String> {
        let entries = Parser { s: text, pos: 0 }.dict()?;
        let (mut descr, mut fortran, mut shape) = (None, None, None);
        for (key, value, span) in entries {
            let slot = match key.as_slice() {
                b"descr" => &mut descr,
                b"fortran_order" => &mut fortran,
                b"shape" => &mut shape,
                _ => {
                    return Err(format!(
                        "unexpected key '{}' (a .npy header has exactly 'descr', 'fortran_order' and 'shape')",
                        short(&String::from_utf8_lossy(&key))
                    ));
                }
            };
            if slot.replace((value, span)).is_some() {
                return Err(format!("key '{}' appears twice", String::from_utf8_lossy(&key)));
            }
        }
        let missing = |key: &str| format!("missing key '{key}'");
        let descr = descr.ok_or_else(|| missing("descr"))?;
        let fortran_order = match fortran.ok_or_else(|| missing("fortran_order"))?.0 {
            Lit::Bool(b) => b,
            _ => return Err("'fortran_order' must be True or False".into()),
        };
        let (shape, shape_span) = shape.ok_or_else(|| missing("shape"))?;
        let Lit::Tuple(items) = shape else {
            return Err("'shape' must be a tuple of integers such as (5,) or (3, 4)".into());
        };
        let shape = items
            .into_iter()
            .map(|item| match item {
                Lit::Int(Some(v)) if v >= 0 => Ok(v.unsigned_abs()),
                Lit::Int(None) => Ok(u128::MAX),
                Lit::Int(Some(_)) => Err("'shape' has a negative dimension".to_owned()),
                _ => Err("'shape' must be a tuple of integers such as (5,) or (3, 4)".to_owned()),
            })
            .collect::<Result<Vec<u128>, String>>()?;
        Ok(Self { descr, fortran_order, shape, shape_span })
    }
}

/// A Python literal of the header.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Lit {
    /// A string's bytes (escapes taken literally: `\x` is `x`).
    Str(Vec<u8>),
    /// An integer; `None` if it does not fit an `i128`.
    Int(Option<i128>),
    Bool(bool),
    None,
    Tuple(Vec<Lit>),
    List(Vec<Lit>),
}

/// A dict entry: key, value, and where the value is in the header.
type Entry = (Vec<u8>, Lit, Range<usize>);

/// A recursive-descent parser of the Python literals a `.npy` header holds:
/// a dict of string keys whose values are strings, integers, `True`, `False`,
/// `None`, tuples and lists. Every error is a message with the byte offset.
struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn skip_ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            self.pos += 1;
        }
    }

    fn fail<T>(&self, expected: &str) -> Result<T, String> {
        let found = match self.peek() {
            Some(c) if c.is_ascii_graphic() || c == b' ' => format!("'{}'", char::from(c)),
            Some(c) => format!("byte 0x{c:02x}"),
            None => "the end of the header".to_owned(),
        };
        Err(format!("expected {expected} at byte {} of the header, found {found}", self.pos))
    }

    /// The whole header: one dict, then only whitespace.
    fn dict(mut self) -> Result<Vec<Entry>, String> {
        self.skip_ws();
        if self.peek() != Some(b'{') {
            return self.fail("a dict '{'");
        }
        self.pos += 1;
        let mut entries = Vec::new();
        loop {
            self.skip_ws();
            if self.peek() == Some(b'}') {
                self.pos += 1;
                break;
            }
            let Lit::Str(key) = self.value(1)? else {
                return Err(format!("a dict key before byte {} of the header is not a string", self.pos));
            };
            self.skip_ws();
            if self.peek() != Some(b':') {
                return self.fail("':'");
            }
            self.pos += 1;
            self.skip_ws();
            let start = self.pos;
            let value = self.value(1)?;
            entries.push((key, value, start..self.pos));
            self.skip_ws();
            match self.peek() {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    break;
                }
                _ => return self.fail("',' or '}'"),
            }
        }
        self.skip_ws();
        if self.pos != self.s.len() {
            return self.fail("only spaces after the dict");
        }
        Ok(entries)
    }

    fn value(&mut self, depth: usize) -> Result<Lit, String> {
        if depth > MAX_DEPTH {
            return Err(format!("the header nests more than {MAX_DEPTH} levels deep"));
        }
        match self.peek() {
            Some(b'\'' | b'"') => self.string(),
            // Python 2's unicode literals (u'<u8').
            Some(b'u' | b'U') if matches!(self.s.get(self.pos + 1), Some(b'\'' | b'"')) => {
                self.pos += 1;
                self.string()
            }
            Some(b'0'..=b'9' | b'-' | b'+') => self.int(),
            Some(b'(') => {
                let (items, comma) = self.seq(b')', depth)?;
                // (x) is x in parentheses; (x,) and (), (x, y) are tuples.
                match <[Lit; 1]>::try_from(items) {
                    Ok([item]) if !comma => Ok(item),
                    Ok(one) => Ok(Lit::Tuple(one.into())),
                    Err(items) => Ok(Lit::Tuple(items)),
                }
            }
            Some(b'[') => Ok(Lit::List(self.seq(b']', depth)?.0)),
            Some(c) if c.is_ascii_alphabetic() || c == b'_' => {
                let start = self.pos;
                while matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'_') {
                    self.pos += 1;
                }
                match &self.s[start..self.pos] {
                    b"True" => Ok(Lit::Bool(true)),
                    b"False" => Ok(Lit::Bool(false)),
                    b"None" => Ok(Lit::None),
                    name => Err(format!(
                        "unknown name '{}' at byte {start} of the header",
                        short(&String::from_utf8_lossy(name))
                    )),
                }
            }
            _ => self.fail("a value"),
        }
    }

    /// A quoted string (the opening quote at `pos`).
    fn string(&mut self) -> Result<Lit, String> {
        let start = self.pos;
        let quote = self.peek();
        self.pos += 1;
        let mut out = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => {
                    return Err(format!("the string at byte {start} of the header is not closed"));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    match self.peek() {
                        None => {
                            return Err(format!("the string at byte {start} of the header is not closed"));
                        }
                        Some(c) => out.push(c),
                    }
                }
                Some(c) if Some(c) == quote => {
                    self.pos += 1;
                    return Ok(Lit::Str(out));
                }
                Some(c) => out.push(c),
            }
            self.pos += 1;
        }
    }

    /// A decimal integer with an optional sign (and Python 2's `L` suffix).
    fn int(&mut self) -> Result<Lit, String> {
        let negative = match self.peek() {
            Some(b'-') => {
                self.pos += 1;
                true
            }
            Some(b'+') => {
                self.pos += 1;
                false
            }
            _ => false,
        };
        let digits = self.pos;
        let mut value = Some(0i128);
        while let Some(d @ b'0'..=b'9') = self.peek() {
            value = value.and_then(|v| v.checked_mul(10)).and_then(|v| v.checked_add(i128::from(d - b'0')));
            self.pos += 1;
        }
        if self.pos == digits {
            return self.fail("digits");
        }
        if matches!(self.peek(), Some(b'L' | b'l')) {
            self.pos += 1;
        }
        if matches!(self.peek(), Some(c) if c.is_ascii_alphanumeric() || c == b'.' || c == b'_') {
            return self.fail("a decimal integer");
        }
        Ok(Lit::Int(if negative { value.map(|v| -v) } else { value }))
    }

    /// Comma-separated values up to `close` (the opening bracket at `pos`);
    /// also whether there was a comma.
    fn seq(&mut self, close: u8, depth: usize) -> Result<(Vec<Lit>, bool), String> {
        self.pos += 1;
        let mut items = Vec::new();
        let mut comma = false;
        loop {
            self.skip_ws();
            if self.peek() == Some(close) {
                self.pos += 1;
                return Ok((items, comma));
            }
            items.push(self.value(depth + 1)?);
            self.skip_ws();
            match self.peek() {
                Some(b',') => {
                    self.pos += 1;
                    comma = true;
                }
                Some(c) if c == close => {
                    self.pos += 1;
                    return Ok((items, comma));
                }
                _ => return self.fail(if close == b')' { "',' or ')'" } else { "',' or ']'" }),
            }
        }
    }
}

/// The header text at `span`, shortened for an error message.
fn quote(text: &[u8], span: &Range<usize>) -> String {
    short(&String::from_utf8_lossy(text.get(span.clone()).unwrap_or_default()))
}

/// `s`, cut to [`MAX_QUOTE`] characters.
fn short(s: &str) -> String {
    match s.char_indices().nth(MAX_QUOTE) {
        Some((cut, _)) => format!("{}...", &s[..cut]),
        None => s.to_owned(),
    }
}

// ---------------------------------------------------------------------------
// Writing
// ---------------------------------------------------------------------------

/// A shape as Python writes a tuple: `()`, `(5,)`, `(3, 4)`.
pub(crate) fn shape_repr(shape: &[usize]) -> String {
    match shape {
        [d] => format!("({d},)"),
        _ => format!("({})", shape.iter().map(usize::to_string).collect::<Vec<_>>().join(", ")),
    }
}

/// Magic, version, header length and header of a C-order array of `descr`
/// and `shape`, as `numpy.lib.format.write_array` makes them: the dict with
/// sorted keys, room for the first axis to grow to 21 digits, then spaces
/// and `\n` up to a multiple of 64 bytes; format 1.0 unless the header is too
/// long for its 16-bit length field, then 2.0.
fn header_bytes(descr: &str, shape: &[usize]) -> Vec<u8> {
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {}, }}", shape_repr(shape));
    if let Some(first) = shape.first() {
        let digits = first.to_string().len();
        dict.extend(std::iter::repeat_n(' ', GROWTH_AXIS_MAX_DIGITS.saturating_sub(digits)));
    }
    // NumPy: hlen = len(header) + 1 (the '\n'); padlen = 64 - (prefix + hlen) % 64.
    let hlen = dict.len() + 1;
    let padded = |prefix: usize| hlen + ALIGN - (prefix + hlen) % ALIGN;
    let (version, field): (u8, Vec<u8>) = match u16::try_from(padded(10)) {
        Ok(len) => (1, len.to_le_bytes().into()),
        // Headers over 4 GiB would need format 2.0's u32 to overflow: shapes
        // of 1-2 entries are ~100 bytes, so saturating is never reached.
        Err(_) => (2, u32::try_from(padded(12)).unwrap_or(u32::MAX).to_le_bytes().into()),
    };
    let prefix = 8 + field.len();
    let total = prefix + padded(prefix);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[version, 0]);
    out.extend_from_slice(&field);
    out.extend_from_slice(dict.as_bytes());
    out.resize(total - 1, b' ');
    out.push(b'\n');
    out
}

/// Words per write of [`NpyArray::write_file`] (64 KiB of u64).
const WRITE_CHUNK: usize = 8192;

/// Appends the words' little-endian bytes.
fn put_words<W: NpyWord>(words: &[W], out: &mut Vec<u8>) {
    for &w in words {
        // The low SIZE bytes of the little-endian u64 are the word's own.
        out.extend(w.to_u64().to_le_bytes().iter().take(W::SIZE));
    }
}

/// Has `write` fill a new temporary file beside `path`, then renames it onto
/// `path`; removes the temporary file on any error.
fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut std::fs::File) -> std::io::Result<()>,
) -> Result<()> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let io = |during, path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { during, path, source }
    };
    let Some(name) = path.file_name() else {
        let source = std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path does not name a file");
        return Err(io("writing", path)(source));
    };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".{}.{}.tmp", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed)));
    let tmp: PathBuf = dir.join(tmp_name);

    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&tmp)
        .map_err(io("creating a temporary file beside", path))?;
    let written = write(&mut file).and_then(|()| file.sync_all());
    drop(file);
    let result = written
        .map_err(io("writing a temporary file beside", path))
        .and_then(|()| std::fs::rename(&tmp, path).map_err(io("renaming a temporary file onto", path)));
    if result.is_err() {
        // Best effort: the error being reported is the one that matters.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HeaderFields, String> {
        HeaderFields::parse(text.as_bytes())
    }

    #[test]
    fn parser_accepts_numpy_and_hand_written_headers() {
        let f = parse("{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4), }          \n").unwrap();
        assert_eq!(f.descr.0, Lit::Str(b"<u8".to_vec()));
        assert!(!f.fortran_order);
        assert_eq!(f.shape, [3, 4]);
        // Any key order, double quotes, no trailing comma, odd whitespace,
        // Python 2's u'' strings and L suffixes, a trailing comma in the tuple.
        let f = parse("\t{ \"shape\" :(5L ,) ,\n'fortran_order':True,'descr':u'>u4'}").unwrap();
        assert_eq!(f.descr.0, Lit::Str(b">u4".to_vec()));
        assert!(f.fortran_order);
        assert_eq!(f.shape, [5]);
        assert_eq!(parse("{'descr':'<u8','fortran_order':False,'shape':()}").unwrap().shape, [0u128; 0]);
        assert_eq!(parse("{'descr':'<u8','fortran_order':False,'shape':(2,3,4,)}").unwrap().shape, [2, 3, 4]);
        // A structured descr parses (and is refused later as a dtype).
        let f = parse("{'descr': [('a', '<u8'), ('b', '<f4')], 'fortran_order': False, 'shape': (2,), }")
            .unwrap();
        assert!(matches!(f.descr.0, Lit::List(ref l) if l.len() == 2));
    }

    #[test]
    fn parser_refuses_what_numpy_refuses() {
        let cases = [
            ("", "expected a dict"),
            ("[]", "expected a dict"),
            ("{'descr': '<u8', 'fortran_order': False}", "missing key 'shape'"),
            ("{'descr': '<u8', 'shape': (1,)}", "missing key 'fortran_order'"),
            ("{'fortran_order': False, 'shape': (1,)}", "missing key 'descr'"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (1,), 'x': 1}", "unexpected key 'x'"),
            ("{'descr': '<u8', 'descr': '<u8', 'fortran_order': False, 'shape': (1,)}", "appears twice"),
            ("{'descr': '<u8', 'fortran_order': 0, 'shape': (1,)}", "True or False"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (5)}", "must be a tuple"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': [5]}", "must be a tuple"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (5, '6')}", "must be a tuple"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (-5,)}", "negative dimension"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (1.5,)}", "decimal integer"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (0x10,)}", "decimal integer"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (,)}", "expected a value"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (1,)} x", "only spaces after"),
            ("{'descr': '<u8' 'fortran_order': False, 'shape': (1,)}", "expected ',' or '}'"),
            ("{'descr' '<u8'}", "expected ':'"),
            ("{1: 2}", "not a string"),
            ("{'descr': '<u8, 'fortran_order': False, 'shape': (1,)}", "expected ',' or '}'"),
            ("{'descr': '<u8", "not closed"),
            ("{'descr': '<u8', 'fortran_order': false, 'shape': (1,)}", "unknown name 'false'"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (1,", "expected a value"),
            ("{'descr': '<u8', 'fortran_order': False, 'shape': (1 2)}", "expected ',' or ')'"),
        ];
        for (text, want) in cases {
            match parse(text) {
                Err(why) => assert!(why.contains(want), "{text:?}: {why:?} lacks {want:?}"),
                Ok(f) => panic!("{text:?} parsed: {f:?}"),
            }
        }
    }

    #[test]
    fn parser_bounds_nesting_and_big_integers() {
        let deep = format!("{{'descr': {}1{}}}", "(".repeat(100_000), ")".repeat(100_000));
        assert!(parse(&deep).unwrap_err().contains("nests more than 32"));
        let ok = format!(
            "{{'descr': {}1,{}, 'fortran_order': False, 'shape': (1,)}}",
            "(".repeat(31),
            ")".repeat(31)
        );
        assert!(parse(&ok).is_ok());
        let big =
            "{'descr': '<u8', 'fortran_order': False, 'shape': (1234567890123456789012345678901234567890,)}";
        assert_eq!(parse(big).unwrap().shape, [u128::MAX]);
    }

    #[test]
    fn shape_repr_is_python_tuple_repr() {
        assert_eq!(shape_repr(&[]), "()");
        assert_eq!(shape_repr(&[5]), "(5,)");
        assert_eq!(shape_repr(&[3, 4]), "(3, 4)");
        assert_eq!(shape_repr(&[1, 2, 3]), "(1, 2, 3)");
    }

    #[test]
    fn header_is_aligned_and_numpy_shaped() {
        let h = header_bytes("<u8", &[3, 4]);
        let mut want = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
        want.extend_from_slice(b"{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4), }");
        want.resize(127, b' ');
        want.push(b'\n');
        assert_eq!(h, want);
        for shape in [vec![0], vec![7], vec![0, 0], vec![1 << 20, 3], vec![usize::MAX, usize::MAX], vec![]] {
            for descr in ["<u4", "<u8"] {
                let h = header_bytes(descr, &shape);
                assert_eq!(h.len() % ALIGN, 0, "{shape:?}");
                assert_eq!(usize::from(u16::from_le_bytes([h[8], h[9]])), h.len() - 10);
                assert_eq!(h.last(), Some(&b'\n'));
                let f = HeaderFields::parse(&h[10..]).unwrap();
                assert_eq!(f.shape, shape.iter().map(|&d| d as u128).collect::<Vec<_>>());
            }
        }
    }

    /// Format 2.0 for a header over 64 KiB, as NumPy (only reachable with
    /// shapes of thousands of entries, which the public writer refuses).
    #[test]
    fn long_header_switches_to_format_2() {
        let shape = vec![1usize; 30_000];
        let h = header_bytes("<u8", &shape);
        assert_eq!(&h[..8], b"\x93NUMPY\x02\x00");
        assert_eq!(h.len() % ALIGN, 0);
        let len = u32::from_le_bytes([h[8], h[9], h[10], h[11]]) as usize;
        assert_eq!(len, h.len() - 12);
        assert_eq!(HeaderFields::parse(&h[12..]).unwrap().shape.len(), 30_000);
        // The lengths NumPy 2.4.6 writes for these shapes (v2: 90112 bytes).
        assert_eq!(h.len(), 90_112);
        let dict = format!("{{'descr': '<u8', 'fortran_order': False, 'shape': {}, }}", shape_repr(&shape));
        assert_eq!(&h[12..12 + dict.len()], dict.as_bytes());
        assert!(h[12 + dict.len()..h.len() - 1].iter().all(|&b| b == b' '));
        let h = header_bytes("<u8", &[1usize; 100]);
        assert_eq!((&h[6..8], h.len()), (&b"\x01\x00"[..], 448));
    }
}
