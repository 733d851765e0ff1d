//! `.npy` reading and writing (`polymul_npy`): NumPy's own files, exact
//! writer output, every error, and deterministic mutation ("fuzz") of valid
//! files. The fixtures in `tests/data/npy/` were written by NumPy
//! (`make_fixtures.py` there regenerates them).

use polymul_npy::{Error, MAX_HEADER_LEN, NpyArray};
use std::path::{Path, PathBuf};

/// SplitMix64 (the generator of `polymul::random`), for reproducible inputs.
struct SplitMix64(u64);

impl SplitMix64 {
    fn new(seed: u64) -> Self {
        Self(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, bound)` for `bound > 0` (a small bias is harmless here).
    fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound
    }
}

macro_rules! fixture {
    ($name:literal) => {
        include_bytes!(concat!("data/npy/", $name)).as_slice()
    };
}

const U64_3X4: &[u8] = fixture!("u64_3x4.npy");
const U32_5: &[u8] = fixture!("u32_5.npy");
const U64_BE_2X3: &[u8] = fixture!("u64_be_2x3.npy");
const U32_BE_4: &[u8] = fixture!("u32_be_4.npy");
const I64_6: &[u8] = fixture!("i64_6.npy");
const I32_2X2: &[u8] = fixture!("i32_2x2.npy");
const U64_3X4_V2: &[u8] = fixture!("u64_3x4_v2.npy");
const U64_3X4_V3: &[u8] = fixture!("u64_3x4_v3.npy");
const U64_0: &[u8] = fixture!("u64_0.npy");
const U64_0X4: &[u8] = fixture!("u64_0x4.npy");
const I64_NEGATIVE: &[u8] = fixture!("i64_negative.npy");
const F64_3: &[u8] = fixture!("f64_3.npy");
const U64_FORTRAN_3X4: &[u8] = fixture!("u64_fortran_3x4.npy");
const U64_2X2X2: &[u8] = fixture!("u64_2x2x2.npy");
const U64_SCALAR: &[u8] = fixture!("u64_scalar.npy");
const STRUCTURED: &[u8] = fixture!("structured.npy");
const U16_3: &[u8] = fixture!("u16_3.npy");

/// Every fixture `from_bytes` accepts as u64 words.
const VALID: &[&[u8]] =
    &[U64_3X4, U32_5, U64_BE_2X3, U32_BE_4, I64_6, I32_2X2, U64_3X4_V2, U64_3X4_V3, U64_0, U64_0X4];

fn m3x4() -> Vec<u64> {
    (0..12u64).map(|i| i * 0x0102_0304_0506_0708).collect()
}

/// A `.npy` file of the given version with `header` as its header text
/// (taken as is: no padding added) followed by `data`.
fn npy(major: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&u16::try_from(header.len()).unwrap().to_le_bytes());
    } else {
        out.extend_from_slice(&u32::try_from(header.len()).unwrap().to_le_bytes());
    }
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

/// A v1.0 file with a header dict built from the three values.
fn npy_dict(descr: &str, fortran: &str, shape: &str, data: &[u8]) -> Vec<u8> {
    npy(1, &format!("{{'descr': {descr}, 'fortran_order': {fortran}, 'shape': {shape}, }}\n"), data)
}

fn u64_le(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

// ---------------------------------------------------------------------------
// NumPy's files and NumPy's bytes
// ---------------------------------------------------------------------------

#[test]
fn reads_numpy_fixtures() {
    for file in [U64_3X4, U64_3X4_V2, U64_3X4_V3] {
        let a = NpyArray::<u64>::from_bytes(file).unwrap();
        assert_eq!(a.shape, [3, 4]);
        assert_eq!((a.rows(), a.cols()), (3, 4));
        assert_eq!(a.data, m3x4());
        assert_eq!(a.row(2), Some(&m3x4()[8..]));
        assert_eq!(a.row(3), None);
    }
    let a = NpyArray::<u32>::from_bytes(U32_5).unwrap();
    assert_eq!((a.shape.as_slice(), a.rows(), a.cols()), (&[5][..], 1, 5));
    assert_eq!(a.data, [0, 1, 1 << 31, u32::MAX, 7]);
    // Widened to u64.
    assert_eq!(NpyArray::<u64>::from_bytes(U32_5).unwrap().data, [0, 1, 1 << 31, u64::from(u32::MAX), 7]);
    // Big-endian, converted.
    let a = NpyArray::<u64>::from_bytes(U64_BE_2X3).unwrap();
    assert_eq!(a.shape, [2, 3]);
    assert_eq!(a.data, (0..6).map(|i| (1u64 << 63) + i).collect::<Vec<_>>());
    assert_eq!(NpyArray::<u32>::from_bytes(U32_BE_4).unwrap().data, [1, 2, 3, u32::MAX - 1]);
    // Signed without negative values.
    let a = NpyArray::<u64>::from_bytes(I64_6).unwrap();
    assert_eq!(a.data, [0, 1, 2, 3, 1 << 62, i64::MAX as u64]);
    let a = NpyArray::<u32>::from_bytes(I32_2X2).unwrap();
    assert_eq!((a.shape.as_slice(), a.data.as_slice()), (&[2, 2][..], &[0, 1, 2, i32::MAX as u32][..]));
    assert_eq!(NpyArray::<u64>::from_bytes(I32_2X2).unwrap().data, [0, 1, 2, i32::MAX as u64]);
}

/// Empty dimensions are accepted (valid NumPy arrays that round-trip);
/// 0-d and 3-d arrays are refused.
#[test]
fn empty_dimensions_are_accepted_scalars_and_3d_are_not() {
    let a = NpyArray::<u64>::from_bytes(U64_0).unwrap();
    assert_eq!((a.shape.as_slice(), a.rows(), a.cols(), a.data.len()), (&[0][..], 1, 0, 0));
    assert_eq!(a.row(0), Some(&[][..]));
    let a = NpyArray::<u32>::from_bytes(U64_0X4).unwrap();
    assert_eq!((a.shape.as_slice(), a.rows(), a.cols(), a.data.len()), (&[0, 4][..], 0, 4, 0));
    assert_eq!(a.row(0), None);
    let a = NpyArray::<u64>::from_bytes(&npy_dict("'<u8'", "False", "(3, 0)", &[])).unwrap();
    assert_eq!((a.rows(), a.cols(), a.row(2)), (3, 0, Some(&[][..])));
    // (0, huge) holds no data; like NumPy, it is refused only if the other
    // dimensions would overflow the address space (shape_product_overflow).
    let a = NpyArray::<u64>::from_bytes(&npy_dict("'<u8'", "False", "(0, 576460752303423488)", &[])).unwrap();
    assert_eq!(a.shape, [0, 1 << 59]);

    assert!(matches!(
        NpyArray::<u64>::from_bytes(U64_SCALAR),
        Err(Error::Shape { ref shape, .. }) if shape.is_empty()
    ));
    let e = NpyArray::<u64>::from_bytes(U64_2X2X2).unwrap_err();
    assert!(matches!(e, Error::Shape { ref shape, .. } if shape == &[2, 2, 2]), "{e}");
    assert!(e.to_string().contains("has shape (2, 2, 2)"), "{e}");
}

/// Writer output is what `numpy.save` writes (NumPy 1.26 and 2.4 agree on
/// every fixture).
#[test]
fn writer_matches_numpy_byte_for_byte() {
    assert_eq!(NpyArray::matrix(3, 4, m3x4()).unwrap().to_bytes().unwrap(), U64_3X4);
    let u32s = vec![0u32, 1, 1 << 31, u32::MAX, 7];
    assert_eq!(NpyArray::vector(u32s).to_bytes().unwrap(), U32_5);
    assert_eq!(NpyArray::<u64>::vector(vec![]).to_bytes().unwrap(), U64_0);
    assert_eq!(NpyArray::<u64>::matrix(0, 4, vec![]).unwrap().to_bytes().unwrap(), U64_0X4);
    // Reading any accepted file as u64 and writing it back gives NumPy's
    // bytes for the uint64 version of that array (spot check: the header).
    let back = NpyArray::<u64>::from_bytes(U64_3X4_V3).unwrap().to_bytes().unwrap();
    assert_eq!(back, U64_3X4);
}

/// The same, spelled out from the header NumPy writes.
#[test]
fn writer_header_is_numpys_header_string() {
    let dict = "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4), }";
    let mut want = b"\x93NUMPY\x01\x00".to_vec();
    want.extend_from_slice(&118u16.to_le_bytes()); // 128 - 10
    want.extend_from_slice(dict.as_bytes());
    want.resize(127, b' ');
    want.push(b'\n');
    want.extend(u64_le(&m3x4()));
    assert_eq!(NpyArray::matrix(3, 4, m3x4()).unwrap().to_bytes().unwrap(), want);

    let bytes = NpyArray::vector(vec![9u32; 1000]).to_bytes().unwrap();
    let dict = "{'descr': '<u4', 'fortran_order': False, 'shape': (1000,), }";
    assert_eq!(&bytes[10..10 + dict.len()], dict.as_bytes());
    assert_eq!(bytes.len(), 128 + 4000);
    assert!(bytes[10 + dict.len()..127].iter().all(|&b| b == b' '));
    assert_eq!(bytes[127], b'\n');
}

#[test]
fn round_trips_both_words_and_shapes() {
    let mut rng = SplitMix64::new(7);
    for (rows, cols) in [(1, 1), (1, 5), (3, 7), (4, 1024), (0, 3), (2, 0)] {
        let w64: Vec<u64> = (0..rows * cols).map(|_| rng.next_u64()).collect();
        let w32: Vec<u32> = w64.iter().map(|&v| v as u32).collect();
        for a in [NpyArray::matrix(rows, cols, w64.clone()).unwrap(), NpyArray::vector(w64.clone())] {
            assert_eq!(NpyArray::<u64>::from_bytes(&a.to_bytes().unwrap()).unwrap(), a);
        }
        for a in [NpyArray::matrix(rows, cols, w32.clone()).unwrap(), NpyArray::vector(w32.clone())] {
            let bytes = a.to_bytes().unwrap();
            assert_eq!(bytes.len() % 64, a.data.len() * 4 % 64);
            assert_eq!(NpyArray::<u32>::from_bytes(&bytes).unwrap(), a);
            // u32 data read as u64 words: widened.
            let wide = NpyArray::<u64>::from_bytes(&bytes).unwrap();
            assert_eq!(wide.shape, a.shape);
            assert!(wide.data.iter().zip(&a.data).all(|(&w, &n)| w == u64::from(n)));
        }
        // u64 data whose values fit 32 bits read as u32 words.
        let small = NpyArray::matrix(rows, cols, w32.iter().map(|&v| u64::from(v)).collect()).unwrap();
        let narrow = NpyArray::<u32>::from_bytes(&small.to_bytes().unwrap()).unwrap();
        assert_eq!((narrow.shape, narrow.data), (small.shape.clone(), w32));
    }
}

#[test]
fn file_round_trip_and_atomic_write() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("npy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let leftovers = || {
        let mut names: Vec<String> =
            std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        names.sort();
        names
    };

    let path = dir.join("batch.npy");
    let a = NpyArray::matrix(3, 4, m3x4()).unwrap();
    a.write_file(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), U64_3X4);
    assert_eq!(NpyArray::<u64>::read_file(&path).unwrap(), a);
    // Overwriting replaces the file.
    let b = NpyArray::vector(vec![1u32, 2, 3]);
    b.write_file(&path).unwrap();
    assert_eq!(NpyArray::<u32>::read_file(&path).unwrap(), b);
    assert_eq!(leftovers(), ["batch.npy"]);
    // Larger than one write chunk (8192 words): the file is to_bytes().
    let mut rng = SplitMix64::new(11);
    for big in [
        NpyArray::matrix(3, 5000, (0..15_000).map(|_| rng.next_u64()).collect()).unwrap(),
        NpyArray::vector((0..20_000).map(|_| rng.next_u64()).collect()),
    ] {
        big.write_file(dir.join("big.npy")).unwrap();
        assert_eq!(std::fs::read(dir.join("big.npy")).unwrap(), big.to_bytes().unwrap());
        assert_eq!(NpyArray::<u64>::read_file(dir.join("big.npy")).unwrap(), big);
    }
    let small = NpyArray::vector((0..9000u32).collect());
    small.write_file(dir.join("big.npy")).unwrap();
    assert_eq!(NpyArray::<u32>::read_file(dir.join("big.npy")).unwrap(), small);
    std::fs::remove_file(dir.join("big.npy")).unwrap();

    // A bad array writes nothing and leaves the old file as it was.
    let bad = NpyArray { shape: vec![2, 2], data: vec![1u64, 2, 3] };
    assert!(matches!(bad.write_file(&path), Err(Error::LengthMismatch { got: 3, expected: 4, .. })));
    assert_eq!(NpyArray::<u32>::read_file(&path).unwrap(), b);
    assert_eq!(leftovers(), ["batch.npy"]);

    // Renaming onto a directory fails: the temporary file is removed.
    std::fs::create_dir(dir.join("taken.npy")).unwrap();
    let e = a.write_file(dir.join("taken.npy")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
    assert_eq!(leftovers(), ["batch.npy", "taken.npy"]);

    // A missing folder, a missing file, a path without a file name.
    let e = a.write_file(dir.join("no/such/dir.npy")).unwrap_err();
    assert!(
        matches!(e, Error::Io { ref source, .. } if source.kind() == std::io::ErrorKind::NotFound),
        "{e}"
    );
    assert!(a.write_file("/").is_err());
    let e = NpyArray::<u64>::read_file(dir.join("missing.npy")).unwrap_err();
    assert!(matches!(e, Error::Io { during: "reading", .. }), "{e}");
    assert!(e.to_string().contains("missing.npy"), "{e}");

    // Errors name the file.
    std::fs::write(dir.join("f64.npy"), F64_3).unwrap();
    let e = NpyArray::<u64>::read_file(dir.join("f64.npy")).unwrap_err();
    assert!(matches!(e, Error::Dtype { ref input, .. } if input.ends_with("f64.npy")), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

// ---------------------------------------------------------------------------
// Every error
// ---------------------------------------------------------------------------

#[test]
fn bad_magic() {
    for bytes in [&b"\x93NUMPZ\x01\x00"[..], b"\x89PNG\r\n\x1a\n", b"hello, world", b"x"] {
        let e = NpyArray::<u64>::from_bytes(bytes).unwrap_err();
        assert!(matches!(e, Error::BadMagic { .. }), "{e}");
        assert!(e.to_string().contains("not a .npy file"), "{e}");
    }
}

#[test]
fn unsupported_version() {
    for (major, minor) in [(0u8, 0u8), (1, 1), (4, 0), (255, 255)] {
        let mut f = U64_3X4.to_vec();
        f[6..8].copy_from_slice(&[major, minor]);
        let e = NpyArray::<u64>::from_bytes(&f).unwrap_err();
        assert!(matches!(e, Error::Version { major: m, minor: n, .. } if (m, n) == (major, minor)), "{e}");
    }
}

#[test]
fn truncated_preamble_and_header() {
    let cases: [(&[u8], &str); 6] = [
        (b"", "magic string"),
        (b"\x93NUM", "magic string"),
        (b"\x93NUMPY", "format version"),
        (b"\x93NUMPY\x01", "format version"),
        (b"\x93NUMPY\x01\x00\x76", "header length"),
        (b"\x93NUMPY\x02\x00\x76\x00\x00", "header length"),
    ];
    for (bytes, part) in cases {
        let e = NpyArray::<u64>::from_bytes(bytes).unwrap_err();
        assert!(matches!(e, Error::Truncated { part: p, got, .. } if p == part && got == bytes.len()), "{e}");
    }
    // The header cut anywhere.
    for len in 10..128 {
        let e = NpyArray::<u64>::from_bytes(&U64_3X4[..len]).unwrap_err();
        assert!(matches!(e, Error::Truncated { part: "header", needed: 128, .. }), "{len}: {e}");
    }
}

#[test]
fn header_length_too_big() {
    // Over the cap: refused before looking for the bytes.
    for len in [MAX_HEADER_LEN as u32 + 1, u32::MAX] {
        let mut f = b"\x93NUMPY\x02\x00".to_vec();
        f.extend_from_slice(&len.to_le_bytes());
        f.extend_from_slice(b"{}");
        let e = NpyArray::<u64>::from_bytes(&f).unwrap_err();
        assert!(matches!(e, Error::HeaderTooLong { len: l, .. } if l == u64::from(len)), "{e}");
    }
    // Under the cap but longer than the file.
    let mut f = U64_3X4_V2.to_vec();
    f[8..12].copy_from_slice(&(MAX_HEADER_LEN as u32).to_le_bytes());
    let e = NpyArray::<u64>::from_bytes(&f).unwrap_err();
    assert!(matches!(e, Error::Truncated { part: "header", .. }), "{e}");
    let mut f = U64_3X4.to_vec();
    f[8..10].copy_from_slice(&u16::MAX.to_le_bytes());
    assert!(matches!(NpyArray::<u64>::from_bytes(&f), Err(Error::Truncated { part: "header", .. })));
}

#[test]
fn bad_header_dict() {
    let cases = [
        "",
        "not a dict",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4), ",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4)}}",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3; 4)}",
        "{'descr': '<u8', 'fortran_order': False, 'shape': 12}",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (-3, 4)}",
        "{'descr': '<u8', 'fortran_order': 'no', 'shape': (3, 4)}",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4), 'extra': 1}",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4), 'shape': (3, 4)}",
        "{descr: '<u8', 'fortran_order': False, 'shape': (3, 4)}",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3, 4)}\0",
    ];
    for header in cases {
        let e = NpyArray::<u64>::from_bytes(&npy(1, header, &u64_le(&m3x4()))).unwrap_err();
        assert!(matches!(e, Error::BadHeader { .. }), "{header:?}: {e}");
        assert!(e.to_string().contains("numpy.save"), "{e}");
    }
    // Format 3.0 headers must be UTF-8.
    let mut f = npy(3, "{'descr': '<u8', 'fortran_order': False, 'shape': (0,), }  ", &[]);
    *f.last_mut().unwrap() = 0xff;
    let e = NpyArray::<u64>::from_bytes(&f).unwrap_err();
    assert!(matches!(e, Error::BadHeader { ref why, .. } if why.contains("UTF-8")), "{e}");
}

#[test]
fn missing_key() {
    for (header, key) in [
        ("{'fortran_order': False, 'shape': (3, 4), }", "descr"),
        ("{'descr': '<u8', 'shape': (3, 4), }", "fortran_order"),
        ("{'descr': '<u8', 'fortran_order': False, }", "shape"),
        ("{}", "descr"),
    ] {
        let e = NpyArray::<u64>::from_bytes(&npy(1, header, &u64_le(&m3x4()))).unwrap_err();
        assert!(
            matches!(e, Error::BadHeader { ref why, .. } if why.contains(&format!("missing key '{key}'"))),
            "{e}"
        );
    }
}

/// The header may be written by hand: any key order, whitespace, quotes,
/// no trailing comma, no padding, no alignment.
#[test]
fn tolerant_header_syntax() {
    let data = u64_le(&m3x4());
    for header in [
        "{'shape':(3,4),'descr':'<u8','fortran_order':False}",
        " {\"fortran_order\" : False ,\n \"shape\" : ( 3 , 4 , ) , \"descr\" : \"<u8\" , } \n\n",
        "{'descr': '<u8', 'fortran_order': False, 'shape': (3L, 4L), }\n",
    ] {
        for major in [1, 2, 3] {
            let a = NpyArray::<u64>::from_bytes(&npy(major, header, &data)).unwrap();
            assert_eq!(
                (a.shape.as_slice(), a.data.as_slice()),
                (&[3, 4][..], m3x4().as_slice()),
                "{header:?}"
            );
        }
    }
}

#[test]
fn unsupported_dtype() {
    for file in [F64_3, U16_3, STRUCTURED] {
        let e = NpyArray::<u64>::from_bytes(file).unwrap_err();
        assert!(matches!(e, Error::Dtype { .. }), "{e}");
        assert!(e.to_string().contains("arr.astype(np.uint64)"), "{e}");
    }
    assert!(matches!(
        NpyArray::<u64>::from_bytes(F64_3),
        Err(Error::Dtype { ref descr, .. }) if descr == "'<f8'"
    ));
    assert!(matches!(
        NpyArray::<u64>::from_bytes(STRUCTURED),
        Err(Error::Dtype { ref descr, .. }) if descr.starts_with("[('a', '<u8')")
    ));
    for descr in ["'>i8'", "'|u1'", "'=u8'", "'u8'", "'uint64'", "'<u16'", "'|O'", "''", "None", "8"] {
        let e = NpyArray::<u64>::from_bytes(&npy_dict(descr, "False", "(1,)", &[0; 8])).unwrap_err();
        assert!(matches!(e, Error::Dtype { .. }), "{descr}: {e}");
    }
}

#[test]
fn fortran_order() {
    let e = NpyArray::<u64>::from_bytes(U64_FORTRAN_3X4).unwrap_err();
    assert!(matches!(e, Error::FortranOrder { .. }), "{e}");
    assert!(e.to_string().contains("np.ascontiguousarray"), "{e}");
}

#[test]
fn negative_signed_values() {
    let e = NpyArray::<u64>::from_bytes(I64_NEGATIVE).unwrap_err();
    assert!(matches!(e, Error::Negative { index: 1, value: -3, .. }), "{e}");
    assert!(e.to_string().contains("[1] = -3"), "{e}");
    let f = npy_dict("'<i4'", "False", "(2, 2)", &[1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0x80]);
    let e = NpyArray::<u32>::from_bytes(&f).unwrap_err();
    assert!(matches!(e, Error::Negative { index: 3, value: v, .. } if v == i64::from(i32::MIN)), "{e}");
}

#[test]
fn u64_to_u32_overflow() {
    let e = NpyArray::<u32>::from_bytes(U64_BE_2X3).unwrap_err();
    assert!(matches!(e, Error::ValueTooWide { index: 0, value, .. } if value == 1 << 63), "{e}");
    let e = NpyArray::<u32>::from_bytes(I64_6).unwrap_err();
    assert!(matches!(e, Error::ValueTooWide { index: 4, value, .. } if value == 1 << 62), "{e}");
    let e = NpyArray::<u32>::from_bytes(U64_3X4).unwrap_err();
    assert!(matches!(e, Error::ValueTooWide { index: 1, .. }), "{e}");
    assert!(e.to_string().contains("32-bit"), "{e}");
}

#[test]
fn data_length_mismatch() {
    let short = &U64_3X4[..U64_3X4.len() - 1];
    let e = NpyArray::<u64>::from_bytes(short).unwrap_err();
    assert!(matches!(e, Error::DataLength { expected: 96, got: 95, item_bytes: 8, .. }), "{e}");
    assert!(e.to_string().contains("shape (3, 4)"), "{e}");
    let mut long = U64_3X4.to_vec();
    long.push(0);
    assert!(matches!(
        NpyArray::<u64>::from_bytes(&long),
        Err(Error::DataLength { expected: 96, got: 97, .. })
    ));
    // Every data length but the right one.
    for cut in 128..U64_3X4.len() {
        assert!(matches!(NpyArray::<u32>::from_bytes(&U64_3X4[..cut]), Err(Error::DataLength { .. })));
    }
    assert!(matches!(
        NpyArray::<u64>::from_bytes(&npy_dict("'<u8'", "False", "(0,)", &[0])),
        Err(Error::DataLength { .. })
    ));
}

/// A header claiming terabytes over a short file is refused by comparing
/// byte counts: nothing of the claimed size is allocated (this would abort).
#[test]
fn huge_shape_short_file_allocates_nothing() {
    for shape in ["(1099511627776,)", "(1048576, 1048576)", "(0, 576460752303423488)"] {
        let f = npy_dict("'<u8'", "False", shape, &[0; 64]);
        let e = NpyArray::<u64>::from_bytes(&f).unwrap_err();
        assert!(matches!(e, Error::DataLength { got: 64, .. }), "{shape}: {e}");
    }
}

#[test]
fn shape_product_overflow() {
    for shape in [
        "(4611686018427387904, 4)",
        "(1152921504606846976,)", // 2^60 items of 8 bytes: over isize::MAX bytes
        "(18446744073709551615, 18446744073709551615)",
        "(0, 1152921504606846976)", // empty, but NumPy too says "array is too big"
        "(18446744073709551616,)",  // over u64
        "(123456789012345678901234567890123456789012345678901234567890,)",
    ] {
        let e = NpyArray::<u64>::from_bytes(&npy_dict("'<u8'", "False", shape, &[])).unwrap_err();
        assert!(matches!(e, Error::ShapeOverflow { shape: ref s, .. } if s == shape), "{shape}: {e}");
    }
}

#[test]
fn writer_refuses_inconsistent_arrays() {
    let a = NpyArray { shape: vec![], data: vec![1u64] };
    assert!(matches!(a.to_bytes(), Err(Error::Shape { .. })));
    let a = NpyArray { shape: vec![1, 1, 1], data: vec![1u64] };
    assert!(matches!(a.to_bytes(), Err(Error::Shape { .. })));
    let a = NpyArray { shape: vec![usize::MAX, 2], data: vec![1u32] };
    assert!(matches!(a.to_bytes(), Err(Error::ShapeOverflow { .. })));
    // Empty, but refused by NumPy and the reader alike.
    let a = NpyArray::<u64> { shape: vec![0, usize::MAX], data: vec![] };
    assert!(matches!(a.to_bytes(), Err(Error::ShapeOverflow { .. })));
    let a = NpyArray { shape: vec![3], data: vec![1u32] };
    assert!(matches!(a.to_bytes(), Err(Error::LengthMismatch { got: 1, expected: 3, .. })));
    assert!(matches!(NpyArray::matrix(2, 3, vec![0u64; 5]), Err(Error::LengthMismatch { .. })));
    assert!(matches!(NpyArray::matrix(usize::MAX, 3, vec![0u64; 5]), Err(Error::LengthMismatch { .. })));
    // Inconsistent arrays answer rows/cols/row without panicking.
    let a = NpyArray { shape: vec![usize::MAX, usize::MAX, 0], data: vec![1u32] };
    assert_eq!((a.rows(), a.cols(), a.row(0)), (usize::MAX, 0, Some(&[][..])));
    let a = NpyArray { shape: vec![5, 5], data: vec![1u32] };
    assert_eq!(a.row(1), None);
    assert_eq!(NpyArray::<u8> { shape: vec![], data: vec![] }.cols(), 1);
}

// ---------------------------------------------------------------------------
// Mutation ("fuzz"): no input makes the reader panic
// ---------------------------------------------------------------------------

/// Reads `bytes` both ways; whatever is accepted must be self-consistent.
fn read_any(bytes: &[u8]) -> bool {
    let a = NpyArray::<u64>::from_bytes(bytes);
    let b = NpyArray::<u32>::from_bytes(bytes);
    for (shape, len) in
        [a.as_ref().map(|a| (&a.shape, a.data.len())), b.as_ref().map(|b| (&b.shape, b.data.len()))]
            .into_iter()
            .flatten()
    {
        assert!(matches!(shape.len(), 1 | 2));
        assert_eq!(shape.iter().product::<usize>(), len);
    }
    if let (Ok(a), Ok(b)) = (&a, &b) {
        assert!(a.data.iter().zip(&b.data).all(|(&w, &n)| w == u64::from(n)));
    }
    a.is_ok()
}

#[test]
fn fuzz_every_truncation() {
    for &file in VALID {
        assert!(read_any(file));
        for len in 0..file.len() {
            // A file cut short is never accepted (u64_0 and u64_0x4 have no
            // data, so their only valid length is the full one too).
            assert!(!read_any(&file[..len]), "accepted a {len}-byte prefix");
        }
        let mut longer = file.to_vec();
        for extra in 1..=16 {
            longer.push(extra);
            assert!(!read_any(&longer));
        }
    }
}

#[test]
fn fuzz_header_bytes() {
    const VALUES: &[u8] = b"\x00\xff\x80 \n\t'\"(),:{}[]019-+LuTFN.\\x";
    for &file in VALID {
        // The preamble, the header, and the first data bytes.
        let end = file.len().min(144);
        let mut f = file.to_vec();
        for i in 0..end {
            let orig = f[i];
            for &v in VALUES.iter().chain([orig ^ 1, orig ^ 0x80, orig.wrapping_add(1)].iter()) {
                f[i] = v;
                read_any(&f);
            }
            f[i] = orig;
        }
        // Removing or duplicating one header byte.
        for i in 0..end {
            let mut cut = file.to_vec();
            cut.remove(i);
            read_any(&cut);
            let mut dup = file.to_vec();
            dup.insert(i, file[i]);
            read_any(&dup);
        }
    }
}

#[test]
fn fuzz_random_mutations() {
    let mut rng = SplitMix64::new(0x6e70_7921);
    let mut accepted = 0;
    for round in 0..40_000 {
        let file = VALID[round % VALID.len()];
        let mut f = file.to_vec();
        for _ in 0..=rng.below(4) {
            match rng.below(4) {
                0 if !f.is_empty() => {
                    let i = rng.below(f.len() as u64) as usize;
                    f[i] = rng.next_u64() as u8;
                }
                1 => f.truncate(rng.below(f.len() as u64 + 1) as usize),
                2 => {
                    let i = rng.below(f.len() as u64 + 1) as usize;
                    f.insert(i, rng.next_u64() as u8);
                }
                _ if f.len() > 12 => {
                    // A random header length field.
                    let i = 8 + rng.below(4) as usize;
                    f[i] = rng.next_u64() as u8;
                }
                _ => {}
            }
        }
        accepted += usize::from(read_any(&f));
    }
    // Mutations of the data bytes or header padding keep files valid.
    assert!(accepted > 0);
    // Random bytes after a valid magic and version.
    for _ in 0..20_000 {
        let len = rng.below(200) as usize;
        let mut f = b"\x93NUMPY".to_vec();
        f.push(1 + rng.below(3) as u8);
        f.push(0);
        f.extend((0..len).map(|_| rng.next_u64() as u8));
        read_any(&f);
    }
}

// ---------------------------------------------------------------------------
// The file system (moved from polymul's tests/bad_input.rs with the crate)
// ---------------------------------------------------------------------------

fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("polymul-npy-files").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The names in `dir`, sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn npy_read_file_missing_or_a_folder() {
    let dir = fresh_dir("npy-read");
    for path in [dir.join("missing.npy"), dir.clone()] {
        assert!(matches!(
            NpyArray::<u64>::read_file(&path),
            Err(Error::Io { during: "reading", path: ref p, .. }) if *p == path
        ));
    }
}

#[test]
fn npy_write_file_unwritable_paths_leave_nothing() {
    let dir = fresh_dir("npy-write");
    std::fs::write(dir.join("file"), "x").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    let a = NpyArray::vector(vec![1u64, 2, 3, 4]);
    for path in [
        dir.join("missing").join("o.npy"),
        dir.join("file").join("o.npy"),
        dir.join("folder"),
        dir.join("..").join(""),
    ] {
        assert!(matches!(a.write_file(&path), Err(Error::Io { .. })), "{}", path.display());
    }
    assert_eq!(listing(&dir), ["file", "folder"]);
    assert!(listing(&dir.join("folder")).is_empty());
    // An inconsistent array is refused before anything is written.
    let bad = NpyArray { shape: vec![2, 3], data: vec![1u64; 5] };
    assert!(matches!(
        bad.write_file(dir.join("o.npy")),
        Err(Error::LengthMismatch { got: 5, expected: 6, .. })
    ));
    assert_eq!(listing(&dir), ["file", "folder"]);
}
