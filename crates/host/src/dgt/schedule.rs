//! A DGT operation as data: the launches of a forward transform, an inverse
//! or a polymul, decided once at plan creation. The GPU plan
//! ([`super::DgtPlan`]) queues them; the CPU emulation ([`super::cpu`]) runs
//! the same list block by block, so the CPU tests check the very sequence
//! the GPU runs.
//!
//! Two pipelines:
//! - **Fused** (the default): the weights `ξ^j` are applied as the first
//!   forward pass loads the coefficients, the inverse weights `ξ^−j / M` as
//!   the last inverse pass stores them, and a polymul's last forward pass,
//!   pointwise product and first inverse pass are one launch over both
//!   operands (`Op::Polymul`). A transform is one launch per pass; a
//!   polymul is one launch when the transform is one pass (N ≤ 2^11) and
//!   three when it is two (both operands' first pass, the product pass,
//!   the last inverse pass).
//! - **Coala**: the paper's pipeline: an encoding kernel (weights and the
//!   packing of Algorithm 1, so that the first pass loads contiguous
//!   blocks), the passes, a pointwise kernel, the inverse passes and a
//!   decoding kernel: three launches per transform of two passes, ten per
//!   polymul.
//!
//! Both compute the same words (the same products in the same order on
//! every element).

use super::tables::DgtTables;
use crate::Coeff;
use polymul_kernels::args::{ArgsError, Buf as KBuf, TowerGrid};
use polymul_kernels::dgt::layout::PassGeometry;
use polymul_kernels::dgt::pass::{DgtArgs, DgtStep, DgtTables as KTables, Op, Order};

/// How a DGT plan arranges its kernels (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum DgtPipeline {
    /// Encoding and decoding folded into the passes, the product into a
    /// polymul pass: one launch per pass.
    #[default]
    Fused,
    /// Coala's separate encoding, pointwise and decoding kernels around
    /// the passes.
    Coala,
}

/// The buffers of an operation: its operands and the plan's scratch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Buf {
    /// The (first) operand, which holds the result.
    A,
    /// The second operand of a polymul.
    B,
    /// Coala's packed intermediate (the encoding's output, the decoding's
    /// input).
    Scratch,
}

/// One launch of a DGT pass kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PassStep {
    /// Index of the pass (its geometry and tables).
    pub pass: usize,
    /// What the launch does.
    pub op: Op,
    /// Where it reads.
    pub load: Order,
    /// Where it writes.
    pub store: Order,
    /// Its input.
    pub from: Buf,
    /// Its output.
    pub to: Buf,
    /// The second operand ([`Op::Polymul`]; or [`Op::Forward`] over two
    /// operands, transformed in place).
    pub second: Option<Buf>,
}

/// One launch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Coala's encoding (weights, packing for the first pass), `from → to`.
    Encode { from: Buf, to: Buf },
    /// Coala's decoding (unpacking, inverse weights), `from → to`.
    Decode { from: Buf, to: Buf },
    /// `A ← A · B`, element by element.
    Pointwise,
    /// A pass kernel launch.
    Pass(PassStep),
}

impl Step {
    /// Whether the launch reads or writes the scratch buffer.
    pub(crate) fn uses_scratch(&self) -> bool {
        match *self {
            Step::Encode { from, to } | Step::Decode { from, to } => [from, to].contains(&Buf::Scratch),
            Step::Pass(p) => [p.from, p.to].contains(&Buf::Scratch),
            Step::Pointwise => false,
        }
    }
}

/// The launches of each operation of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// Forward transform of `A` (in place).
    pub forward: Vec<Step>,
    /// Inverse transform of `A` (in place, `1/M` included).
    pub inverse: Vec<Step>,
    /// `A ← A ⊗ B`; `B` is left as scratch.
    pub polymul: Vec<Step>,
}

impl Schedule {
    /// The schedule of `pipeline` over `passes` (one or two).
    /// `polymul_fits(pass)`: whether a block of the [`Op::Polymul`] launch
    /// on that pass (two operands' tiles) fits the GPU's shared memory;
    /// if not, the fused pipeline's polymul transforms both operands, runs
    /// the pointwise kernel and the inverse instead.
    pub(crate) fn new(
        pipeline: DgtPipeline,
        passes: &[PassGeometry],
        polymul_fits: impl Fn(&PassGeometry) -> bool,
    ) -> Self {
        let last = passes.len() - 1;
        let pass = |pass, op, (load, store), (from, to), second| {
            Step::Pass(PassStep { pass, op, load, store, from, to, second })
        };
        let (n, w, p) = (Order::Natural, Order::Weighted, Order::Packed);
        // Passes after the first read and write the natural order, in place.
        let middle = |op, x: Buf, second| (1..passes.len()).map(move |i| pass(i, op, (n, n), (x, x), second));
        match pipeline {
            DgtPipeline::Fused => {
                let first = |second| pass(0, Op::Forward, (w, n), (Buf::A, Buf::A), second);
                let forward: Vec<Step> =
                    std::iter::once(first(None)).chain(middle(Op::Forward, Buf::A, None)).collect();
                let mut inverse: Vec<Step> = middle(Op::Inverse, Buf::A, None).rev().collect();
                inverse.push(pass(0, Op::Inverse, (n, w), (Buf::A, Buf::A), None));
                let polymul = if !polymul_fits(&passes[last]) {
                    let mut v = vec![first(Some(Buf::B))];
                    v.extend(middle(Op::Forward, Buf::A, Some(Buf::B)));
                    v.push(Step::Pointwise);
                    v.extend(inverse.iter().copied());
                    v
                } else if last == 0 {
                    vec![pass(0, Op::Polymul, (w, w), (Buf::A, Buf::A), Some(Buf::B))]
                } else {
                    vec![
                        first(Some(Buf::B)),
                        pass(1, Op::Polymul, (n, n), (Buf::A, Buf::A), Some(Buf::B)),
                        pass(0, Op::Inverse, (n, w), (Buf::A, Buf::A), None),
                    ]
                };
                Schedule { forward, inverse, polymul }
            }
            DgtPipeline::Coala => {
                let forward_of = |x: Buf| {
                    let mut v = vec![
                        Step::Encode { from: x, to: Buf::Scratch },
                        pass(0, Op::Forward, (p, n), (Buf::Scratch, x), None),
                    ];
                    v.extend(middle(Op::Forward, x, None));
                    v
                };
                let forward = forward_of(Buf::A);
                let mut inverse: Vec<Step> = middle(Op::Inverse, Buf::A, None).rev().collect();
                inverse.push(pass(0, Op::Inverse, (n, p), (Buf::A, Buf::Scratch), None));
                inverse.push(Step::Decode { from: Buf::Scratch, to: Buf::A });
                let mut polymul = forward_of(Buf::A);
                polymul.extend(forward_of(Buf::B));
                polymul.push(Step::Pointwise);
                polymul.extend(inverse.iter().copied());
                Schedule { forward, inverse, polymul }
            }
        }
    }

    /// Whether any launch uses the scratch buffer.
    pub(crate) fn needs_scratch(&self) -> bool {
        self.forward.iter().chain(&self.inverse).chain(&self.polymul).any(Step::uses_scratch)
    }

    /// The pass launches of every operation.
    pub(crate) fn pass_steps(&self) -> impl Iterator<Item = &PassStep> {
        self.forward.iter().chain(&self.inverse).chain(&self.polymul).filter_map(|s| match s {
            Step::Pass(p) => Some(p),
            _ => None,
        })
    }
}

/// Where one launch's buffers and tables are, for [`pass_args`].
pub(crate) struct ArgsContext<'a, W: Coeff> {
    /// Each tower's tables, back to back (`tw_words` apart), starting here.
    pub tables: *const W,
    /// Words from `tables` to the end of the last tower's tables.
    pub tables_len: usize,
    /// The layout of one tower's tables.
    pub layout: &'a DgtTables<W>,
    /// The passes the launches run: `layout.passes`, or the same stage
    /// split with another configuration's clusters and units (a plan's
    /// batched passes, `DgtPlan::with_batched`).
    pub passes: &'a [PassGeometry],
    /// Polynomials per operand and tower.
    pub batch: u32,
    /// The towers: constants table, data and table strides, checked by
    /// `TowerGrid::new`.
    pub grid: TowerGrid<W>,
    /// Tower 0's prime and Algorithm 4's `(µ, m)` for it.
    pub scalars: (W, W, u32),
}

/// The kernel arguments of pass launch `s`, its buffers (first word and
/// words) given by `buf`, built and checked by `DgtArgs::new`.
pub(crate) fn pass_args<W: Coeff>(
    s: &PassStep,
    c: &ArgsContext<'_, W>,
    buf: impl Fn(Buf) -> KBuf<W>,
) -> Result<DgtArgs<W>, ArgsError> {
    let t = |offset: usize| KBuf::new(c.tables.wrapping_add(offset), c.tables_len.saturating_sub(offset));
    let tables = KTables {
        tw: t(c.layout.fwd[s.pass]),
        tw_inv: t(c.layout.inv[s.pass]),
        weights: t(c.layout.weights),
        inv_weights: t(c.layout.inv_weights),
    };
    let step = DgtStep { geo: c.passes[s.pass], op: s.op, load: s.load, store: s.store, batch: c.batch };
    let b = s.second.map_or(KBuf::none(), &buf);
    DgtArgs::new((buf(s.from), buf(s.to), b), &tables, &c.grid, step, c.scalars)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn passes(log_m: u32, stages1: u32) -> Vec<PassGeometry> {
        crate::dgt::DgtConfig { stages1, log_cluster1: 0, log_cluster2: 0, log_unit: 0 }
            .passes(log_m)
            .unwrap()
    }

    #[test]
    fn fused_schedules_launch_once_per_pass_and_once_per_product() {
        let one = Schedule::new(DgtPipeline::Fused, &passes(9, 9), |_| true);
        assert_eq!((one.forward.len(), one.inverse.len(), one.polymul.len()), (1, 1, 1));
        assert!(!one.needs_scratch());
        let two = Schedule::new(DgtPipeline::Fused, &passes(15, 7), |_| true);
        assert_eq!((two.forward.len(), two.inverse.len(), two.polymul.len()), (2, 2, 3));
        // Without room for two tiles: both forwards in one launch per
        // pass, the pointwise kernel, the inverse.
        let tight = Schedule::new(DgtPipeline::Fused, &passes(15, 7), |_| false);
        assert_eq!(tight.polymul.len(), 5);
        assert!(tight.polymul.contains(&Step::Pointwise));
    }

    #[test]
    fn coala_schedules_are_the_papers() {
        let s = Schedule::new(DgtPipeline::Coala, &passes(15, 7), |_| true);
        assert_eq!((s.forward.len(), s.inverse.len(), s.polymul.len()), (3, 3, 10));
        assert!(s.needs_scratch());
        assert!(matches!(s.forward[0], Step::Encode { .. }));
        assert!(matches!(s.inverse.last(), Some(Step::Decode { .. })));
    }
}
