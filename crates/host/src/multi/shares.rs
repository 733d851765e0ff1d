//! How a multi-device plan cuts one call's words among its plans, as data:
//! the [`Share`]s of a [`Layout`], which words each share holds, and the
//! host copies that gather a share's words into a buffer of its own and
//! scatter them back. No device is touched here.
//!
//! A buffer is tower-major (tower 0's `batch` polynomials, then tower 1's,
//! …). A share is a range of towers and a range of polynomials:
//!
//! - **By batch**, every plan has every tower, and share `i` holds
//!   polynomials `polys_i` of every tower. With one tower its words are
//!   one contiguous run; with several they are one run per tower, so a
//!   host call gathers them into a buffer of the share's own (and a
//!   device buffer holds them in that gathered, tower-major order).
//! - **By towers**, plan `i` has towers `towers_i` (the plans' moduli,
//!   concatenated, are the multi-device plan's), and share `i` holds all
//!   polynomials of those towers: one contiguous run.

use crate::Layout;
use std::ops::Range;

/// How a multi-device plan splits its work ([`crate::MultiPlan::split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Split {
    /// Every plan has every tower; a call's polynomials are split among
    /// them ([`crate::MultiPlan::by_batch`]).
    Batch,
    /// Each plan has some of the towers; a call's towers are split among
    /// them ([`crate::MultiPlan::by_towers`]).
    Towers,
}

/// The words one plan of a multi-device plan computes in one call:
/// polynomials `polys` of towers `towers`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Share {
    /// The plan (its index in the multi-device plan).
    pub plan: usize,
    /// Towers of the whole buffer.
    pub towers: Range<usize>,
    /// Polynomials (of each of those towers).
    pub polys: Range<usize>,
}

impl Share {
    /// The layout of the share's own words.
    pub fn layout(&self, whole: Layout) -> Layout {
        Layout { n: whole.n, towers: self.towers.len(), batch: self.polys.len() }
    }

    /// The runs of words of the whole buffer (of layout `whole`) the share
    /// holds, in its own tower-major order.
    pub fn runs(&self, whole: Layout) -> impl Iterator<Item = Range<usize>> + '_ {
        let row = move |t: usize| {
            let start = (t * whole.batch + self.polys.start) * whole.n;
            start..start + self.polys.len() * whole.n
        };
        self.towers.clone().map(row)
    }

    /// Whether the share's words are one run of the whole buffer.
    pub fn contiguous(&self, whole: Layout) -> bool {
        self.towers.len() == 1 || self.polys.len() == whole.batch
    }
}

/// Cuts `batch` polynomials among `parts` plans as evenly as can be (the
/// first `batch mod parts` get one more), in order.
pub(crate) fn by_batch(whole: Layout, parts: usize) -> Vec<Share> {
    let parts = parts.clamp(1, whole.batch.max(1));
    let (each, extra) = (whole.batch / parts, whole.batch % parts);
    let mut start = 0;
    (0..parts)
        .map(|plan| {
            let len = each + usize::from(plan < extra);
            let share = Share { plan, towers: 0..whole.towers, polys: start..start + len };
            start += len;
            share
        })
        .collect()
}

/// One share per plan, plan `i` holding towers `towers[i]` of every
/// polynomial.
pub(crate) fn by_towers(whole: Layout, towers: &[Range<usize>]) -> Vec<Share> {
    towers
        .iter()
        .enumerate()
        .map(|(plan, t)| Share { plan, towers: t.clone(), polys: 0..whole.batch })
        .collect()
}

/// Whether every share is one run of the whole buffer, in order (so the
/// whole buffer splits into the shares' words with `split_at`).
pub(crate) fn all_contiguous(shares: &[Share], whole: Layout) -> bool {
    shares.iter().all(|s| s.contiguous(whole))
}

/// Where each share's words lie in a buffer whose shares are all
/// contiguous ([`all_contiguous`]): `(gap, len)`, the words to skip after
/// the previous share's and the share's own count, in order.
fn spans(shares: &[Share], whole: Layout) -> Vec<(usize, usize)> {
    let mut offset = 0;
    shares
        .iter()
        .map(|s| {
            let start = s.runs(whole).next().map_or(offset, |r| r.start);
            let len = s.layout(whole).words();
            let gap = start - offset;
            offset = start + len;
            (gap, len)
        })
        .collect()
}

/// The shares' words of a buffer whose shares are all contiguous
/// ([`all_contiguous`]), as disjoint slices in order.
pub(crate) fn cut<'a, T>(shares: &[Share], whole: Layout, mut words: &'a [T]) -> Vec<&'a [T]> {
    let mut out = Vec::with_capacity(shares.len());
    for (gap, len) in spans(shares, whole) {
        let (mine, rest) = words[gap..].split_at(len);
        out.push(mine);
        words = rest;
    }
    out
}

/// [`cut`] for writing.
pub(crate) fn cut_mut<'a, T>(shares: &[Share], whole: Layout, mut words: &'a mut [T]) -> Vec<&'a mut [T]> {
    let mut out = Vec::with_capacity(shares.len());
    for (gap, len) in spans(shares, whole) {
        let (mine, rest) = std::mem::take(&mut words)[gap..].split_at_mut(len);
        out.push(mine);
        words = rest;
    }
    out
}

/// A share's words of the whole buffer, copied into one buffer of its own
/// (tower-major).
pub(crate) fn gather<T: Copy>(share: &Share, whole: Layout, words: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(share.layout(whole).words());
    for run in share.runs(whole) {
        out.extend_from_slice(&words[run]);
    }
    out
}

/// Writes a share's own words (tower-major, as [`gather`] made them) back
/// into the whole buffer.
pub(crate) fn scatter<T: Copy>(share: &Share, whole: Layout, own: &[T], words: &mut [T]) {
    let mut from = 0;
    for run in share.runs(whole) {
        let len = run.len();
        words[run].copy_from_slice(&own[from..from + len]);
        from += len;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(towers: usize, batch: usize) -> Layout {
        Layout { n: 4, towers, batch }
    }

    #[test]
    fn batch_shares_cover_every_polynomial_once() {
        for (batch, parts) in [(1, 1), (1, 3), (5, 2), (7, 3), (8, 4), (3, 8)] {
            let s = by_batch(layout(2, batch), parts);
            assert_eq!(s.len(), parts.min(batch));
            assert_eq!(s[0].polys.start, 0);
            assert_eq!(s.last().unwrap().polys.end, batch);
            for w in s.windows(2) {
                assert_eq!(w[0].polys.end, w[1].polys.start);
                assert!(w[0].polys.len() >= w[1].polys.len() && w[0].polys.len() <= w[1].polys.len() + 1);
            }
        }
    }

    #[test]
    fn gather_then_scatter_restores_every_word() {
        for (towers, batch, parts) in [(1, 5, 2), (3, 5, 2), (3, 7, 3), (2, 2, 2)] {
            let whole = layout(towers, batch);
            let words: Vec<u32> = (0..whole.words() as u32).collect();
            let shares = by_batch(whole, parts);
            let mut back = vec![u32::MAX; words.len()];
            let mut seen = 0;
            for s in &shares {
                let own = gather(s, whole, &words);
                assert_eq!(own.len(), s.layout(whole).words());
                // Tower-major: the first polynomial of the share's tower 0.
                assert_eq!(own[0] as usize, s.polys.start * whole.n);
                seen += own.len();
                scatter(s, whole, &own, &mut back);
            }
            assert_eq!(seen, words.len());
            assert_eq!(back, words);
        }
    }

    #[test]
    fn contiguous_cuts_match_the_gathered_words() {
        let whole = layout(1, 7);
        let words: Vec<u32> = (0..whole.words() as u32).collect();
        let shares = by_batch(whole, 3);
        assert!(all_contiguous(&shares, whole));
        for (s, part) in shares.iter().zip(cut(&shares, whole, &words)) {
            assert_eq!(part, &gather(s, whole, &words)[..]);
        }
        let whole = layout(5, 3);
        let shares = by_towers(whole, &[0..2, 2..3, 3..5]);
        assert!(all_contiguous(&shares, whole));
        let mut words: Vec<u32> = (0..whole.words() as u32).collect();
        let expected: Vec<Vec<u32>> = shares.iter().map(|s| gather(s, whole, &words)).collect();
        for (part, e) in cut_mut(&shares, whole, &mut words).into_iter().zip(&expected) {
            assert_eq!(&part[..], &e[..]);
        }
        assert!(!all_contiguous(&by_batch(whole, 2), whole));
    }
}
