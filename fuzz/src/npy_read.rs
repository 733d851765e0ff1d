//! Target `npy_read`: arbitrary bytes into the `.npy` reader.
//!
//! The bytes are read as a file of `u64` words and as one of `u32` words
//! (every dtype the reader supports is converted to one of these). Each
//! read must return `Ok` or one of the reader's typed errors (whose message
//! formats without panicking), and:
//!
//! * an accepted array has one or two dimensions whose product is the
//!   number of words;
//! * read as `u32` ⇒ also read as `u64`, with the same shape and values;
//!   read as `u64` ⇒ read as `u32` exactly when every value is below 2^32;
//! * round trip: the writer accepts the array, the reader reads its bytes
//!   back to the same array (as `u64` and as `u32` where it fits), and
//!   writing that again gives the same bytes.

use polymul_npy::Error;
use polymul_npy::{NpyArray, NpyWord};

/// Runs the checks on one input.
pub fn check(data: &[u8]) {
    let wide = NpyArray::<u64>::from_bytes(data);
    let narrow = NpyArray::<u32>::from_bytes(data);
    for e in [wide.as_ref().err(), narrow.as_ref().err()].into_iter().flatten() {
        assert_typed(e);
    }
    if let Ok(a) = &wide {
        consistent(a);
        round_trip(a);
    }
    if let Ok(a) = &narrow {
        consistent(a);
        round_trip(a);
    }
    match (&wide, &narrow) {
        (Ok(w), Ok(n)) => {
            assert_eq!(w.shape, n.shape);
            assert!(w.data.iter().zip(&n.data).all(|(&x, &y)| x == u64::from(y)));
        }
        (Ok(w), Err(e)) => {
            assert!(
                w.data.iter().any(|&x| x > u64::from(u32::MAX)),
                "u64 read fits u32 but u32 read failed: {e}"
            )
        }
        (Err(e), Ok(_)) => panic!("read as u32 but not as u64: {e}"),
        (Err(_), Err(_)) => {}
    }
}

/// The reader's own error kinds only, and a message that formats.
fn assert_typed(e: &Error) {
    assert!(
        matches!(
            e,
            Error::BadMagic { .. }
                | Error::Version { .. }
                | Error::Truncated { .. }
                | Error::HeaderTooLong { .. }
                | Error::BadHeader { .. }
                | Error::Dtype { .. }
                | Error::FortranOrder { .. }
                | Error::Shape { .. }
                | Error::ShapeOverflow { .. }
                | Error::DataLength { .. }
                | Error::Negative { .. }
                | Error::ValueTooWide { .. }
        ),
        "unexpected error kind: {e:?}"
    );
    assert!(!e.to_string().is_empty());
}

fn consistent<W: NpyWord>(a: &NpyArray<W>) {
    assert!(matches!(a.shape.len(), 1 | 2), "shape {:?}", a.shape);
    let product = a.shape.iter().try_fold(1usize, |acc, &d| acc.checked_mul(d));
    assert_eq!(product, Some(a.data.len()), "shape {:?}", a.shape);
    assert_eq!(a.rows().saturating_mul(a.cols()), a.data.len());
    if a.rows() > 0 {
        assert_eq!(a.row(a.rows() - 1).map(<[W]>::len), Some(a.cols()));
    }
    assert!(a.row(a.rows()).is_none());
}

fn round_trip<W: NpyWord + PartialEq + std::fmt::Debug>(a: &NpyArray<W>) {
    let bytes = a.to_bytes().expect("the writer refused an array the reader accepted");
    let back = NpyArray::<W>::from_bytes(&bytes).expect("the reader refused the writer's bytes");
    assert_eq!(&back, a);
    assert_eq!(back.to_bytes().expect("second write"), bytes);
    // Written words read back at the other width: widened, or narrowed where they fit.
    let wide = NpyArray::<u64>::from_bytes(&bytes).expect("written words read as u64");
    assert_eq!(wide.shape, a.shape);
    assert!(wide.data.iter().zip(&a.data).all(|(&x, &y)| x == y.to_u64()));
    let fits = a.data.iter().all(|&x| x.to_u64() <= u64::from(u32::MAX));
    assert_eq!(NpyArray::<u32>::from_bytes(&bytes).is_ok(), fits);
}
