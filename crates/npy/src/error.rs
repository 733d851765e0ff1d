//! The one error type of the `.npy` reader and writer: what is wrong with
//! the input, and what to do about it, in one sentence.

/// Results of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the reader and writer refuse; no input makes them panic.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// Reading, writing or renaming a file failed.
    #[error("I/O error while {during} {}: {source}; check the path and its permissions", path.display())]
    Io {
        /// What was being done ("reading", "writing", ...).
        during: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },

    /// An array whose data is not as long as its shape says (building one
    /// with [`crate::NpyArray::matrix`], or writing one).
    #[error("{what} has {got} coefficients, expected {expected}")]
    LengthMismatch {
        /// Which array.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The length its shape needs.
        expected: usize,
    },

    /// The input does not start with the `.npy` magic string `\x93NUMPY`.
    #[error("{input} is not a .npy file (it does not start with \\x93NUMPY); save the array with numpy.save")]
    BadMagic {
        /// The file (or "in-memory .npy data").
        input: String,
    },

    /// A `.npy` format version other than 1.0, 2.0 and 3.0.
    #[error(
        "{input} is in .npy format version {major}.{minor}, which polymul does not read (it reads 1.0, \
         2.0 and 3.0); save the array again with numpy.save"
    )]
    Version {
        /// The file (or "in-memory .npy data").
        input: String,
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },

    /// The input ends inside the magic string, version, header length or
    /// header of a `.npy` file.
    #[error(
        "{input} is truncated: its {part} ends at byte {needed} but it has only {got} bytes; copy or \
         save it again"
    )]
    Truncated {
        /// The file (or "in-memory .npy data").
        input: String,
        /// The part cut short ("magic string", "format version", "header length", "header").
        part: &'static str,
        /// Bytes the part needs from the start of the input.
        needed: usize,
        /// Bytes in the input.
        got: usize,
    },

    /// A `.npy` header length over [`crate::MAX_HEADER_LEN`].
    #[error(
        "{input} declares a {len}-byte .npy header, more than the {max} bytes polymul reads; the file is \
         corrupt or not a plain array of integers"
    )]
    HeaderTooLong {
        /// The file (or "in-memory .npy data").
        input: String,
        /// The declared header length.
        len: u64,
        /// The largest accepted.
        max: usize,
    },

    /// The `.npy` header is not a Python dict of exactly `'descr'`,
    /// `'fortran_order'` (a bool) and `'shape'` (a tuple of non-negative ints).
    #[error("the header of {input} is not a valid .npy header: {why}; save the array again with numpy.save")]
    BadHeader {
        /// The file (or "in-memory .npy data").
        input: String,
        /// What is wrong, and where.
        why: String,
    },

    /// A `.npy` dtype polymul does not read.
    #[error(
        "{input} holds dtype {descr}, which polymul does not read (it reads '<u8', '<u4', '>u8', '>u4', \
         and '<i8', '<i4' without negative values); convert it with arr.astype(np.uint64) (or np.uint32) \
         and save it again"
    )]
    Dtype {
        /// The file (or "in-memory .npy data").
        input: String,
        /// The header's `descr` value as written there (shortened if long).
        descr: String,
    },

    /// A `.npy` array in Fortran (column-major) order.
    #[error(
        "{input} is stored in Fortran (column-major) order; save a C-order copy: \
         np.save(path, np.ascontiguousarray(arr))"
    )]
    FortranOrder {
        /// The file (or "in-memory .npy data").
        input: String,
    },

    /// A `.npy` array that is neither 1-D (one polynomial) nor 2-D (a batch).
    #[error(
        "{input} has shape {}: polymul's .npy arrays are 1-D (n,), one polynomial, or 2-D (batch, n), a \
         batch of polynomials; reshape it (NumPy: arr.reshape(-1, n))",
        crate::shape_repr(shape)
    )]
    Shape {
        /// The file (or "in-memory .npy data", or "the array to write").
        input: String,
        /// Its shape.
        shape: Vec<usize>,
    },

    /// A `.npy` shape whose size in bytes overflows the address space.
    #[error("the shape {shape} of {input} is larger than this machine can address; the header is corrupt")]
    ShapeOverflow {
        /// The file (or "in-memory .npy data", or "the array to write").
        input: String,
        /// The shape as written in the header (shortened if long).
        shape: String,
    },

    /// The `.npy` data is not exactly as long as the header's shape and dtype say.
    #[error(
        "{input} has {got} bytes of array data but its shape {} of {item_bytes}-byte items needs exactly \
         {expected}; the file is truncated or has trailing bytes, save it again",
        crate::shape_repr(shape)
    )]
    DataLength {
        /// The file (or "in-memory .npy data").
        input: String,
        /// The header's shape.
        shape: Vec<usize>,
        /// Bytes per item of the header's dtype.
        item_bytes: usize,
        /// Data bytes the header calls for.
        expected: usize,
        /// Data bytes present.
        got: usize,
    },

    /// A negative value in a signed `.npy` array.
    #[error(
        "{input}[{index}] = {value} is negative, and coefficients are read as unsigned words; reduce them \
         modulo q (arr % q) and convert with arr.astype(np.uint64)"
    )]
    Negative {
        /// The file (or "in-memory .npy data").
        input: String,
        /// Flat (C-order) index of the first negative value.
        index: usize,
        /// The value.
        value: i64,
    },

    /// A `.npy` value too large for the 32-bit words it is read into.
    #[error(
        "{input}[{index}] = {value} does not fit a 32-bit word; read the array as u64 or reduce its \
         values below 2^32"
    )]
    ValueTooWide {
        /// The file (or "in-memory .npy data").
        input: String,
        /// Flat (C-order) index of the first value that does not fit.
        index: usize,
        /// The value.
        value: u64,
    },
}
