//! Register fragments of MMA atoms and tiled MMAs: which element of a tile each register of each
//! thread holds, how an accumulator becomes the next GEMM's `A` operand without moving data
//! between threads, and how a thread and its lanes reduce the rows (or columns) they share.
//! These are the layout questions of attention kernels (FlashAttention-2/3 in CuTe): the masks
//! and predicates of the score tile `S`, `P = softmax(S)` fed to the second GEMM from
//! registers, and the running row maximum and sum.
//!
//! A *fragment* ([`FragmentLayout`]) is a thread-value layout over an atom's tile `[M_atom,
//! N_atom]` (index `m + M_atom n`, as an MMA atom's `CLayout` or a tiled MMA's
//! [`layout_c_tv`](super::TiledMmaLayouts::layout_c_tv)) repeated over a whole tile `[M, N]`.
//! Register `r` of a thread is CuTe's fragment order `(V, MMA_M, MMA_N)`, column-major: `r = v +
//! V (i + (M / M_atom) j)` holds element `atom(t, v) + (i M_atom, j N_atom)`, which is what
//! `partition_fragment_C` and, through the same partitions, `make_identity_tensor` give in CuTe.
//!
//! - [`FragmentLayout::coord`]: the `(m, n)` of a thread's register (folds to constants for a
//!   static fragment and a constant register);
//! - [`acc_to_operand`]: the register permutation that turns an accumulator into an `A` operand
//!   (FlashAttention's `convert_layout_acc_Aregs`, Triton's `invertAndCompose` where it needs no
//!   shuffle), or an error naming the lanes that would have to exchange data;
//! - [`reduction_plan`]: the register groups of a thread that share a row (or column), and the
//!   xor masks of the lanes that share it (a butterfly of `shfl.sync.bfly`), or an error naming
//!   the lanes or warps that would need shared memory.
//!
//! Each is a `const fn` over [`DynLayout`]s, as [`tiled_mma_layouts`](super::tiled_mma_layouts)
//! is; the typed front door ([`Fragment`], [`AccToOperand`], [`RowReduction`],
//! [`ColumnReduction`]) computes them as associated constants of static atoms and tiled MMAs,
//! where a failure is a compile error with the same message.
//!
//! ```
//! use const_layout::atom::fragment::{AccToOperand, FragmentC, RowReduction};
//! use const_layout::atom::{SM90_64xNx16_F32F16F16_RS, SM90_64xNx16_F32F16F16_SS};
//! // S = Q K^T is 64 x 128 in a warp group's accumulators; P = softmax(S) is the A operand
//! // (64 x K, K = 128) of P V from registers.
//! type S = FragmentC<SM90_64xNx16_F32F16F16_SS<128>, 64, 128>;
//! type P = AccToOperand<SM90_64xNx16_F32F16F16_SS<128>, SM90_64xNx16_F32F16F16_RS<64>, 64, 128>;
//! assert!(P::PERMUTATION.is_identity());
//! // Thread 5, register 3: row 5 / 4 + 8 = 9, column 2 (5 % 4) + 1 = 3.
//! assert_eq!(S::coord(5, 3), (9, 3));
//! // Each thread holds two rows, in 32 registers each; the four lanes that share a row
//! // (4 (t / 4) + 0..4) exchange over the xor masks 1 and 2.
//! let plan = RowReduction::<S>::PLAN;
//! assert_eq!((plan.groups(), plan.per_group()), (2, 32));
//! assert_eq!(plan.shuffle_masks(), &[1, 2]);
//! ```

use super::mma::MmaAtom;
use super::tiled_mma::{StaticPermutation, TiledMma};
use crate::algebra::computed::StaticLayout;
use crate::dyn_layout::DynLayout;
use crate::error::{LayoutError, Message};
use core::fmt;
use core::marker::PhantomData;

/// The most registers a thread's fragment has (the size of [`RegisterPermutation`]'s and
/// [`ReductionPlan`]'s arrays).
pub const MAX_REGISTERS: usize = 256;

/// The most threads a fragment has.
pub const MAX_THREADS: usize = 1024;

/// The most elements (`threads * registers`, and the tile's `M * N`) that [`acc_to_operand`] and
/// [`reduction_plan`] analyze: `2^15`, two warp groups' `64 x 256` accumulators.
pub const CAPACITY: usize = 1 << 15;

/// The most leaves (of extent above 1 and nonzero stride) a mode of a fragment's TV layout has.
const MAX_STEPS: usize = 16;

/// Why a fragment, a conversion or a reduction plan does not exist. Its [`message`](Self::message)
/// (also its `Display`) is one line with the numbers, and is the compile error of the typed front
/// door.
///
/// ```
/// use const_layout::atom::fragment::{FragmentError, FragmentLayout};
/// let tv = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))".parse().unwrap();
/// let e = FragmentLayout::new(&tv, [16, 8], [24, 8]).unwrap_err();
/// assert_eq!(e, FragmentError::NotMultiple { tile: [24, 8], atom: [16, 8] });
/// assert_eq!(e.to_string(), "fragment: the tile 24x8 is not a multiple of the atom's 16x8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FragmentError {
    /// The layout is not a `(thread, value)` layout: rank 2 with integer strides (`rank` is its
    /// rank, 0 for basis strides).
    NotTv {
        /// The layout's rank.
        rank: usize,
    },
    /// A stride of the TV layout is negative.
    NegativeStride {
        /// The stride.
        stride: isize,
    },
    /// The TV layout reaches `index`, outside the atom's `atom[0] x atom[1]` tile.
    OutsideTile {
        /// The largest index the TV layout reaches.
        index: usize,
        /// The atom's tile.
        atom: [usize; 2],
    },
    /// The tile is not a positive multiple of the atom's tile.
    NotMultiple {
        /// The tile.
        tile: [usize; 2],
        /// The atom's tile.
        atom: [usize; 2],
    },
    /// A thread holds more than [`MAX_REGISTERS`] registers.
    TooManyRegisters {
        /// The registers a thread holds.
        registers: usize,
    },
    /// A count past a capacity of this module: `what` is `value`, above `max`.
    TooLarge {
        /// What is counted.
        what: &'static str,
        /// The count.
        value: usize,
        /// The capacity.
        max: usize,
    },
    /// The algebra refused the TV layout.
    Layout(LayoutError),
    /// [`acc_to_operand`]: the two fragments have different numbers of threads.
    ThreadCount {
        /// The accumulator's threads.
        acc: usize,
        /// The operand's threads.
        operand: usize,
    },
    /// [`acc_to_operand`]: the operand's tile `M x K` is not the accumulator's `M x N`.
    TileMismatch {
        /// The accumulator's tile.
        acc: [usize; 2],
        /// The operand's tile.
        operand: [usize; 2],
    },
    /// [`acc_to_operand`]: the two fragments have different numbers of registers a thread.
    RegisterCount {
        /// The accumulator's registers.
        acc: usize,
        /// The operand's registers.
        operand: usize,
    },
    /// [`acc_to_operand`]: the accumulator holds element `(m, n)` twice.
    HeldTwice {
        /// The row.
        m: usize,
        /// The column.
        n: usize,
        /// The first holder's thread and register.
        first: [usize; 2],
        /// The second holder's thread and register.
        second: [usize; 2],
    },
    /// [`acc_to_operand`]: the operand's `register` of `thread`, element `(m, k)`, is held by
    /// another thread of the accumulator: the conversion needs a shuffle.
    Shuffle {
        /// Whether the fragments are one warp (the message then says "lane").
        in_warp: bool,
        /// The operand's thread.
        thread: usize,
        /// Its register.
        register: usize,
        /// The element's row.
        m: usize,
        /// The element's column (`k` of the operand, `n` of the accumulator).
        k: usize,
        /// The thread that holds it in the accumulator.
        holder: usize,
        /// Its register there.
        holder_register: usize,
    },
    /// [`acc_to_operand`]: no thread of the accumulator holds the operand's element `(m, k)`.
    NotHeld {
        /// The operand's thread.
        thread: usize,
        /// Its register.
        register: usize,
        /// The element's row.
        m: usize,
        /// The element's column.
        k: usize,
    },
    /// [`acc_to_operand`]: the permutation of `thread` differs from that of `first`.
    PermutationDiffers {
        /// The thread whose permutation is taken.
        first: usize,
        /// A thread whose permutation differs.
        thread: usize,
        /// The operand's register where they differ.
        register: usize,
        /// `first`'s source register.
        first_source: usize,
        /// `thread`'s source register.
        source: usize,
    },
    /// [`reduction_plan`]: a thread's registers do not group by row (or column) as thread 0's do.
    Grouping {
        /// The axis.
        axis: Axis,
        /// The thread.
        thread: usize,
        /// Two of its registers: in one group of thread 0 and not of this thread, or the other
        /// way round.
        registers: [usize; 2],
        /// Whether thread 0 has them in one group.
        together_in_first: bool,
    },
    /// [`reduction_plan`]: thread 0's groups have different sizes.
    UnevenGroups {
        /// The axis.
        axis: Axis,
        /// The registers of thread 0's first group.
        first: usize,
        /// A group of another size.
        group: usize,
        /// Its registers.
        size: usize,
    },
    /// [`reduction_plan`]: lanes that share a row (or column) are not an xor group of lanes:
    /// `lane` and `other` of `warp` hold row (column) `key`, but they do not exchange it by the
    /// butterfly over the lanes that share thread 0's first row.
    NotXorGroup {
        /// The axis.
        axis: Axis,
        /// The warp.
        warp: usize,
        /// The row (or column).
        key: usize,
        /// A lane holding it.
        lane: usize,
        /// Another lane holding it, or where the butterfly would pair it, not holding it.
        other: usize,
        /// Whether `other` holds it (else `other` is `lane`'s butterfly partner, which does not).
        other_holds: bool,
    },
    /// [`reduction_plan`]: row (or column) `key` is held by two warps.
    AcrossWarps {
        /// The axis.
        axis: Axis,
        /// The row (or column).
        key: usize,
        /// The warps.
        warps: [usize; 2],
    },
}

impl FragmentError {
    /// The message: one line, with the numbers (the compile error of the typed front door).
    ///
    /// ```
    /// use const_layout::atom::fragment::{Axis, FragmentError};
    /// let e = FragmentError::AcrossWarps { axis: Axis::Column, key: 3, warps: [0, 1] };
    /// assert_eq!(e.message().as_str(), "column reduction: column 3 is held by warps 0 and 1: it needs shared memory");
    /// ```
    pub const fn message(&self) -> Message {
        let m = Message::new();
        match *self {
            FragmentError::NotTv { rank } => m
                .text("fragment: a TV layout has two modes (thread, value) with integer strides, not rank ")
                .num(rank as isize),
            FragmentError::NegativeStride { stride } => {
                m.text("fragment: the TV layout has the negative stride ").num(stride)
            }
            FragmentError::OutsideTile { index, atom } => m
                .text("fragment: the TV layout reaches index ")
                .num(index as isize)
                .text(", outside the atom's ")
                .num(atom[0] as isize)
                .text("x")
                .num(atom[1] as isize)
                .text(" tile"),
            FragmentError::NotMultiple { tile, atom } => m
                .text("fragment: the tile ")
                .num(tile[0] as isize)
                .text("x")
                .num(tile[1] as isize)
                .text(" is not a multiple of the atom's ")
                .num(atom[0] as isize)
                .text("x")
                .num(atom[1] as isize),
            FragmentError::TooManyRegisters { registers } => {
                m.text("fragment: a thread holds ").num(registers as isize).text(" registers, more than 256")
            }
            FragmentError::TooLarge { what, value, max } => m
                .text("fragment: ")
                .text(what)
                .text(" ")
                .num(value as isize)
                .text(" is more than ")
                .num(max as isize),
            FragmentError::Layout(e) => m.text("fragment: ").text(e.message().as_str()),
            FragmentError::ThreadCount { acc, operand } => m
                .text("acc_to_operand: the accumulator has ")
                .num(acc as isize)
                .text(" threads, the operand ")
                .num(operand as isize),
            FragmentError::TileMismatch { acc, operand } => m
                .text("acc_to_operand: the accumulator's tile is ")
                .num(acc[0] as isize)
                .text("x")
                .num(acc[1] as isize)
                .text(", the operand's ")
                .num(operand[0] as isize)
                .text("x")
                .num(operand[1] as isize)
                .text(" (M x K with K = N)"),
            FragmentError::RegisterCount { acc, operand } => m
                .text("acc_to_operand: the accumulator has ")
                .num(acc as isize)
                .text(" registers a thread, the operand ")
                .num(operand as isize),
            FragmentError::HeldTwice { m: row, n, first, second } => m
                .text("acc_to_operand: the accumulator holds (m ")
                .num(row as isize)
                .text(", n ")
                .num(n as isize)
                .text(") twice: thread ")
                .num(first[0] as isize)
                .text("'s register ")
                .num(first[1] as isize)
                .text(" and thread ")
                .num(second[0] as isize)
                .text("'s register ")
                .num(second[1] as isize),
            FragmentError::Shuffle { in_warp, thread, register, m: row, k, holder, holder_register } => {
                let who = if in_warp { "lane " } else { "thread " };
                m.text("acc_to_operand: ")
                    .text(who)
                    .num(thread as isize)
                    .text("'s register ")
                    .num(register as isize)
                    .text(" (m ")
                    .num(row as isize)
                    .text(", k ")
                    .num(k as isize)
                    .text(") is held by ")
                    .text(who)
                    .num(holder as isize)
                    .text(" (its register ")
                    .num(holder_register as isize)
                    .text("): a shuffle is needed")
            }
            FragmentError::NotHeld { thread, register, m: row, k } => m
                .text("acc_to_operand: thread ")
                .num(thread as isize)
                .text("'s register ")
                .num(register as isize)
                .text(" (m ")
                .num(row as isize)
                .text(", k ")
                .num(k as isize)
                .text(") is held by no thread of the accumulator"),
            FragmentError::PermutationDiffers { first, thread, register, first_source, source } => m
                .text("acc_to_operand: the permutation differs between threads: register ")
                .num(register as isize)
                .text(" of thread ")
                .num(first as isize)
                .text(" comes from its register ")
                .num(first_source as isize)
                .text(", of thread ")
                .num(thread as isize)
                .text(" from its register ")
                .num(source as isize),
            FragmentError::Grouping { axis, thread, registers, together_in_first } => {
                let (a, b) = if together_in_first { ("", " not") } else { ("not ", "") };
                m.text(axis.operation())
                    .text(": thread 0's registers ")
                    .num(registers[0] as isize)
                    .text(" and ")
                    .num(registers[1] as isize)
                    .text(" are ")
                    .text(a)
                    .text("in one ")
                    .text(axis.noun())
                    .text(", thread ")
                    .num(thread as isize)
                    .text("'s are")
                    .text(b)
                    .text(": the grouping differs between threads")
            }
            FragmentError::UnevenGroups { axis, first, group, size } => m
                .text(axis.operation())
                .text(": thread 0 holds ")
                .num(first as isize)
                .text(" elements of its first ")
                .text(axis.noun())
                .text(" and ")
                .num(size as isize)
                .text(" of its ")
                .text(axis.noun())
                .text(" group ")
                .num(group as isize)
                .text(": groups of different sizes"),
            FragmentError::NotXorGroup { axis, warp, key, lane, other, other_holds } => {
                let m = m
                    .text(axis.operation())
                    .text(": lane ")
                    .num(lane as isize)
                    .text(" of warp ")
                    .num(warp as isize)
                    .text(" holds ")
                    .text(axis.noun())
                    .text(" ")
                    .num(key as isize);
                let m = if other_holds {
                    m.text(" and so does lane ").num(other as isize)
                } else {
                    m.text(" but its butterfly partner lane ").num(other as isize).text(" does not")
                };
                m.text(": the lanes sharing a ")
                    .text(axis.noun())
                    .text(" are not an xor group; it needs shared memory")
            }
            FragmentError::AcrossWarps { axis, key, warps } => m
                .text(axis.operation())
                .text(": ")
                .text(axis.noun())
                .text(" ")
                .num(key as isize)
                .text(" is held by warps ")
                .num(warps[0] as isize)
                .text(" and ")
                .num(warps[1] as isize)
                .text(": it needs shared memory"),
        }
    }
}

impl fmt::Display for FragmentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message().as_str())
    }
}

impl core::error::Error for FragmentError {}

/// `r`'s value, or a compile-time error with the message (the typed front door's constants).
const fn unwrap<T: Copy>(r: Result<T, FragmentError>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => {
            let m = e.message();
            panic!("{}", m.as_str())
        }
    }
}

/// One leaf of a mode: `(index / div) % modulo * stride` (no `% modulo` when it is 0: the last
/// leaf takes what is left, as in CuTe).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Step {
    div: u32,
    modulo: u32,
    stride: u32,
}

const NO_STEP: Step = Step { div: 1, modulo: 0, stride: 0 };

/// The steps of one mode of a TV layout, and its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Steps {
    len: u8,
    steps: [Step; MAX_STEPS],
}

impl Steps {
    const fn of(mode: &DynLayout) -> Result<(Steps, usize), FragmentError> {
        let shape = match mode.shape().flatten() {
            Ok(s) => s,
            Err(e) => return Err(FragmentError::Layout(e)),
        };
        let stride = match mode.stride().flatten() {
            Ok(s) => s,
            Err(e) => return Err(FragmentError::Layout(e)),
        };
        let leaves = shape.rank();
        let mut out = Steps { len: 0, steps: [NO_STEP; MAX_STEPS] };
        let mut div: usize = 1;
        let mut k = 0;
        while k < leaves {
            let (Some(s), Some(d)) = (shape.mode(k), stride.mode(k)) else {
                return Err(FragmentError::NotTv { rank: 0 });
            };
            let (Some(s), Some(d)) = (s.as_int(), d.as_int()) else {
                return Err(FragmentError::NotTv { rank: 0 });
            };
            let (s, d) = (s.value, d.value);
            if d < 0 {
                return Err(FragmentError::NegativeStride { stride: d });
            }
            if s > 1 && d != 0 {
                if out.len as usize == MAX_STEPS {
                    return Err(FragmentError::TooLarge {
                        what: "the leaves of a mode",
                        value: leaves,
                        max: MAX_STEPS,
                    });
                }
                out.steps[out.len as usize] = Step {
                    div: div as u32,
                    modulo: if k + 1 == leaves { 0 } else { s as u32 },
                    stride: d as u32,
                };
                out.len += 1;
            }
            div = div.saturating_mul(s as usize);
            k += 1;
        }
        Ok((out, div))
    }

    /// The offset of `index`.
    #[inline(always)]
    const fn offset(&self, index: usize) -> usize {
        let mut acc = 0;
        let mut k = 0;
        while k < self.len as usize {
            let s = self.steps[k];
            let c = index / s.div as usize;
            let c = if s.modulo == 0 { c } else { c % s.modulo as usize };
            acc += c * s.stride as usize;
            k += 1;
        }
        acc
    }

    /// The offsets of indices `0..n` (`n <= MAX_THREADS`), for the analyses.
    const fn table(&self, n: usize) -> [u32; MAX_THREADS] {
        let mut out = [0u32; MAX_THREADS];
        let mut i = 0;
        while i < n {
            out[i] = self.offset(i) as u32;
            i += 1;
        }
        out
    }
}

/// A register fragment: a thread-value layout over an atom's tile `[M_atom, N_atom]` (codomain
/// index `m + M_atom n`) repeated over a tile `[M, N]`, registers in CuTe's fragment order `(V,
/// MMA_M, MMA_N)` (the module's documentation). `const`: made at compile time from a static
/// atom's layouts by [`Fragment`], or from a tiled MMA's [`TiledMmaLayouts`](super::TiledMmaLayouts)
/// by [`FragmentLayout::new`].
///
/// ```
/// use const_layout::atom::fragment::FragmentLayout;
/// // SM80_16x8x16's accumulator (16 x 8) over a 32 x 16 tile: 4 values, 2 x 2 atoms.
/// let tv = "((_4,_8),(_2,_2)):((_32,_1),(_16,_8))".parse().unwrap();
/// let f = FragmentLayout::new(&tv, [16, 8], [32, 16]).unwrap();
/// assert_eq!((f.threads(), f.values(), f.registers()), (32, 4, 16));
/// // Lane 5: c0 is (1, 2); register 4 + 1 is c1 of the atom below: (17, 3); register 8 + 3 is
/// // c3 of the atom to the right: (1 + 8, 2 + 1 + 8).
/// assert_eq!(f.coord(5, 0), (1, 2));
/// assert_eq!(f.coord(5, 5), (17, 3));
/// assert_eq!(f.coord(5, 11), (9, 11));
/// assert_eq!(f.checked_coord(5, 16), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FragmentLayout {
    thr: Steps,
    val: Steps,
    threads: u32,
    values: u32,
    atom: [u32; 2],
    tile: [u32; 2],
    /// `M / M_atom`.
    reps_m: u32,
    registers: u32,
}

impl FragmentLayout {
    /// The fragment of TV layout `tv` (`(thread, value) -> m + atom[0] n`) over `tile`, a multiple
    /// of `atom`. An error if `tv` is not a `(thread, value)` layout into the atom's tile (rank 2,
    /// non-negative integer strides, every index below `atom[0] * atom[1]`), if `tile` is not a
    /// multiple of `atom`, or past the capacities ([`MAX_THREADS`], [`MAX_REGISTERS`]).
    ///
    /// A tiled MMA's layouts ([`tiled_mma_layouts`](super::tiled_mma_layouts)) give `tv` and
    /// `atom`: `layout_c_tv` over `[tile_m, tile_n]`, `layout_a_tv` over `[tile_m, tile_k]`.
    ///
    /// ```
    /// use const_layout::algebra::TileMode;
    /// use const_layout::atom::fragment::FragmentLayout;
    /// use const_layout::atom::tiled_mma_layouts;
    /// let p = |s: &str| s.parse().unwrap();
    /// // SM80_16x8x16 on 2 x 2 warps: a 32 x 16 tile of 128 threads, here over 64 x 32.
    /// let t = tiled_mma_layouts(
    ///     &p("_32:_1"),
    ///     &p("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))"),
    ///     &p("((_4,_8),(_2,_2)):((_16,_1),(_8,_64))"),
    ///     &p("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"),
    ///     [16, 8, 16],
    ///     &p("(_2,_2):(_1,_2)"),
    ///     &[TileMode::Keep; 3],
    /// )
    /// .unwrap();
    /// let f = FragmentLayout::new(&t.layout_c_tv, [32, 16], [64, 32]).unwrap();
    /// assert_eq!((f.threads(), f.registers()), (128, 16));
    /// // Thread 37 (warp 1: the second in M), register 0: (16 + 1, 2).
    /// assert_eq!(f.coord(37, 0), (17, 2));
    /// ```
    pub const fn new(
        tv: &DynLayout,
        atom: [usize; 2],
        tile: [usize; 2],
    ) -> Result<FragmentLayout, FragmentError> {
        if tv.has_basis() {
            return Err(FragmentError::NotTv { rank: 0 });
        }
        if tv.rank() != 2 || tv.shape().is_int() {
            return Err(FragmentError::NotTv { rank: tv.rank() });
        }
        if atom[0] == 0
            || atom[1] == 0
            || tile[0] == 0
            || tile[1] == 0
            || !tile[0].is_multiple_of(atom[0])
            || !tile[1].is_multiple_of(atom[1])
        {
            return Err(FragmentError::NotMultiple { tile, atom });
        }
        let (Some(thr), Some(val)) = (tv.mode(0), tv.mode(1)) else {
            return Err(FragmentError::NotTv { rank: tv.rank() });
        };
        let (thr, threads) = match Steps::of(&thr) {
            Ok(x) => x,
            Err(e) => return Err(e),
        };
        let (val, values) = match Steps::of(&val) {
            Ok(x) => x,
            Err(e) => return Err(e),
        };
        if threads > MAX_THREADS {
            return Err(FragmentError::TooLarge { what: "threads", value: threads, max: MAX_THREADS });
        }
        let atom_size = atom[0].saturating_mul(atom[1]);
        let last = (tv.cosize().value - 1) as usize;
        if last >= atom_size {
            return Err(FragmentError::OutsideTile { index: last, atom });
        }
        let (reps_m, reps_n) = (tile[0] / atom[0], tile[1] / atom[1]);
        let registers = values.saturating_mul(reps_m).saturating_mul(reps_n);
        if registers > MAX_REGISTERS {
            return Err(FragmentError::TooManyRegisters { registers });
        }
        if tile[0] > u32::MAX as usize || tile[1] > u32::MAX as usize {
            return Err(FragmentError::TooLarge {
                what: "the tile's extent",
                value: tile[0],
                max: u32::MAX as usize,
            });
        }
        Ok(FragmentLayout {
            thr,
            val,
            threads: threads as u32,
            values: values as u32,
            atom: [atom[0] as u32, atom[1] as u32],
            tile: [tile[0] as u32, tile[1] as u32],
            reps_m: reps_m as u32,
            registers: registers as u32,
        })
    }

    /// The number of threads.
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentC;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_SS;
    /// assert_eq!(FragmentC::<SM90_64xNx16_F32F16F16_SS<64>, 64, 64>::LAYOUT.threads(), 128);
    /// ```
    pub const fn threads(&self) -> usize {
        self.threads as usize
    }

    /// The values of the TV layout a thread holds in one atom's tile (CuTe's `V`).
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentC;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_SS;
    /// assert_eq!(FragmentC::<SM90_64xNx16_F32F16F16_SS<64>, 64, 128>::LAYOUT.values(), 32);
    /// ```
    pub const fn values(&self) -> usize {
        self.values as usize
    }

    /// The registers a thread holds: `V * (M / M_atom) * (N / N_atom)`.
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentC;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_SS;
    /// assert_eq!(FragmentC::<SM90_64xNx16_F32F16F16_SS<64>, 64, 128>::LAYOUT.registers(), 64);
    /// ```
    pub const fn registers(&self) -> usize {
        self.registers as usize
    }

    /// The atom's tile `[M_atom, N_atom]`.
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentA;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_RS;
    /// assert_eq!(FragmentA::<SM90_64xNx16_F32F16F16_RS<64>, 64, 128>::LAYOUT.atom_tile(), [64, 16]);
    /// ```
    pub const fn atom_tile(&self) -> [usize; 2] {
        [self.atom[0] as usize, self.atom[1] as usize]
    }

    /// The tile `[M, N]`.
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentA;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_RS;
    /// assert_eq!(FragmentA::<SM90_64xNx16_F32F16F16_RS<64>, 64, 128>::LAYOUT.tile(), [64, 128]);
    /// ```
    pub const fn tile(&self) -> [usize; 2] {
        [self.tile[0] as usize, self.tile[1] as usize]
    }

    /// The `(m, n)` of `thread`'s `register` (CuTe's identity tensor partitioned as the data):
    /// what masks and predicates compare. For a fragment in a constant and a constant register it
    /// folds to a few operations on `thread` (to a constant for a constant thread). Unchecked: a
    /// thread or register past the fragment's gives a coordinate of no element
    /// ([`checked_coord`](Self::checked_coord) checks).
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentC;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_SS;
    /// const F: const_layout::atom::fragment::FragmentLayout =
    ///     FragmentC::<SM90_64xNx16_F32F16F16_SS<64>, 64, 64>::LAYOUT;
    /// // Thread 37 (warp 1, lane 5), register 6: row 16 + 5 / 4 + 8, column 2 (5 % 4) + 8.
    /// assert_eq!(F.coord(37, 6), (25, 10));
    /// ```
    #[inline(always)]
    pub const fn coord(&self, thread: usize, register: usize) -> (usize, usize) {
        let values = self.values as usize;
        let (v, q) = (register % values, register / values);
        let (i, j) = (q % self.reps_m as usize, q / self.reps_m as usize);
        let idx = self.thr.offset(thread) + self.val.offset(v);
        let (am, an) = (self.atom[0] as usize, self.atom[1] as usize);
        (idx % am + i * am, idx / am + j * an)
    }

    /// [`coord`](Self::coord) for a thread and register of the fragment, else `None`.
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentC;
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN;
    /// const F: const_layout::atom::fragment::FragmentLayout = FragmentC::<SM80_16x8x16_F32F16F16F32_TN, 16, 16>::LAYOUT;
    /// assert_eq!(F.checked_coord(31, 7), Some((15, 15)));
    /// assert_eq!(F.checked_coord(32, 0), None);
    /// assert_eq!(F.checked_coord(0, 8), None);
    /// ```
    pub const fn checked_coord(&self, thread: usize, register: usize) -> Option<(usize, usize)> {
        if thread < self.threads as usize && register < self.registers as usize {
            Some(self.coord(thread, register))
        } else {
            None
        }
    }
}

/// The analyses' view of a fragment: the offsets of every thread and value in tables, so that an
/// element costs a few operations in const evaluation.
struct Tables {
    thr: [u32; MAX_THREADS],
    val: [u32; MAX_THREADS],
    values: usize,
    reps_m: usize,
    am: usize,
    an: usize,
}

impl Tables {
    const fn of(f: &FragmentLayout) -> Tables {
        Tables {
            thr: f.thr.table(f.threads as usize),
            val: f.val.table(f.values as usize),
            values: f.values as usize,
            reps_m: f.reps_m as usize,
            am: f.atom[0] as usize,
            an: f.atom[1] as usize,
        }
    }

    /// [`FragmentLayout::coord`].
    const fn coord(&self, t: usize, r: usize) -> (usize, usize) {
        let (v, q) = (r % self.values, r / self.values);
        let (i, j) = (q % self.reps_m, q / self.reps_m);
        let idx = (self.thr[t] + self.val[v]) as usize;
        (idx % self.am + i * self.am, idx / self.am + j * self.an)
    }
}

/// The registers' permutation of [`acc_to_operand`]: the operand's register `r` is the
/// accumulator's register [`source(r)`](Self::source), in every thread.
///
/// ```
/// use const_layout::atom::fragment::AccToOperand;
/// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
/// // A 32 x 16 accumulator (2 x 2 atoms of 16 x 8) into a 32 x 16 operand (2 x 1 atoms of 16 x 16).
/// const P: const_layout::atom::fragment::RegisterPermutation = AccToOperand::<Mma, Mma, 32, 16>::PERMUTATION;
/// assert_eq!(P.len(), 16);
/// assert!(!P.is_identity());
/// // Operand register 4 (k 8.., the first atom in M) is the accumulator's second atom in N: 8.
/// assert_eq!(P.source(4), 8);
/// let acc: [u32; 16] = core::array::from_fn(|r| r as u32);
/// assert_eq!(P.apply(&acc), [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RegisterPermutation {
    len: u16,
    src: [u16; MAX_REGISTERS],
}

impl RegisterPermutation {
    /// The number of registers.
    ///
    /// ```
    /// use const_layout::atom::fragment::AccToOperand;
    /// use const_layout::atom::{SM90_64xNx16_F32F16F16_RS as Rs, SM90_64xNx16_F32F16F16_SS as Ss};
    /// assert_eq!(AccToOperand::<Ss<64>, Rs<128>, 64, 64>::PERMUTATION.len(), 32);
    /// ```
    #[allow(clippy::len_without_is_empty)]
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// The accumulator's register that the operand's register `r` takes (`r` itself past
    /// [`len`](Self::len)).
    ///
    /// ```
    /// use const_layout::atom::fragment::AccToOperand;
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(AccToOperand::<Mma, Mma, 32, 16>::PERMUTATION.source(8), 4);
    /// ```
    pub const fn source(&self, r: usize) -> usize {
        if r < self.len as usize { self.src[r] as usize } else { r }
    }

    /// Whether every register stays where it is (then the conversion is a type conversion only).
    ///
    /// ```
    /// use const_layout::atom::fragment::AccToOperand;
    /// use const_layout::atom::{SM90_64xNx16_F32F16F16_RS as Rs, SM90_64xNx16_F32F16F16_SS as Ss};
    /// assert!(AccToOperand::<Ss<256>, Rs<64>, 64, 256>::PERMUTATION.is_identity());
    /// ```
    pub const fn is_identity(&self) -> bool {
        let mut r = 0;
        while r < self.len as usize {
            if self.src[r] as usize != r {
                return false;
            }
            r += 1;
        }
        true
    }

    /// The operand's registers from the accumulator's: `out[r] = acc[source(r)]`. Panics unless
    /// `R` is [`len`](Self::len) (the typed [`AccToOperand::convert`] checks that at compile
    /// time).
    ///
    /// ```
    /// use const_layout::atom::fragment::AccToOperand;
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// let acc: [f32; 8] = core::array::from_fn(|r| r as f32);
    /// assert_eq!(AccToOperand::<Mma, Mma, 16, 16>::PERMUTATION.apply(&acc), acc);
    /// ```
    #[inline(always)]
    pub fn apply<T: Copy, const R: usize>(&self, acc: &[T; R]) -> [T; R] {
        assert!(
            R == self.len as usize,
            "RegisterPermutation::apply: the array's length is not the permutation's"
        );
        core::array::from_fn(|r| acc[self.src[r] as usize])
    }
}

/// The permutation that makes the accumulator fragment `acc` (the first GEMM's `C` over `M x
/// N`) the operand fragment `operand` (the second GEMM's `A` over `M x K`, `K = N`) in every
/// thread, without moving data between threads (FlashAttention's `convert_layout_acc_Aregs`).
///
/// An error names what stands in the way: an operand element a thread needs that another thread
/// holds ([`FragmentError::Shuffle`]: a shuffle is needed), a permutation that differs between
/// threads, different tiles, threads or register counts, or more than [`CAPACITY`] elements.
///
/// ```
/// use const_layout::atom::fragment::{acc_to_operand, FragmentError, FragmentLayout};
/// let p = |s: &str| s.parse().unwrap();
/// let c = FragmentLayout::new(&p("((_4,_8),(_2,_2)):((_32,_1),(_16,_8))"), [16, 8], [16, 16]).unwrap();
/// let a = FragmentLayout::new(&p("((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))"), [16, 16], [16, 16]).unwrap();
/// assert!(acc_to_operand(&c, &a).unwrap().is_identity());
/// // The operand transposed (lane l's rows are 2 (l % 4) + 0, 1, 8, 9, its columns l / 4 + 0, 8):
/// // lane 0's register 1 is (1, 0), which the accumulator's lane 4 holds.
/// let at = FragmentLayout::new(&p("((_4,_8),(_2,_2,_2)):((_2,_16),(_1,_128,_8))"), [16, 16], [16, 16]).unwrap();
/// assert_eq!(
///     acc_to_operand(&c, &at).unwrap_err().to_string(),
///     "acc_to_operand: lane 0's register 1 (m 1, k 0) is held by lane 4 (its register 0): a shuffle is needed"
/// );
/// ```
pub const fn acc_to_operand(
    acc: &FragmentLayout,
    operand: &FragmentLayout,
) -> Result<RegisterPermutation, FragmentError> {
    if acc.threads != operand.threads {
        return Err(FragmentError::ThreadCount {
            acc: acc.threads as usize,
            operand: operand.threads as usize,
        });
    }
    if acc.tile[0] != operand.tile[0] || acc.tile[1] != operand.tile[1] {
        return Err(FragmentError::TileMismatch { acc: acc.tile(), operand: operand.tile() });
    }
    let (threads, registers) = (acc.threads as usize, acc.registers as usize);
    let mt = acc.tile[0] as usize;
    let elements = mt * acc.tile[1] as usize;
    if elements > CAPACITY || threads * registers > CAPACITY {
        let value = if elements > threads * registers { elements } else { threads * registers };
        return Err(FragmentError::TooLarge { what: "the elements", value, max: CAPACITY });
    }
    // The accumulator's holder of each element: (thread << 8 | register) + 1, 0 for none.
    let mut holder = [0u32; CAPACITY];
    let src = Tables::of(acc);
    let mut t = 0;
    while t < threads {
        let mut r = 0;
        while r < registers {
            let (m, n) = src.coord(t, r);
            let e = m + mt * n;
            if holder[e] != 0 {
                let h = (holder[e] - 1) as usize;
                return Err(FragmentError::HeldTwice { m, n, first: [h >> 8, h & 0xff], second: [t, r] });
            }
            holder[e] = ((t << 8 | r) + 1) as u32;
            r += 1;
        }
        t += 1;
    }
    let dst = Tables::of(operand);
    // The operand's registers are looked up first: an element in another thread is the better
    // message where the register counts differ too.
    let dst_registers = operand.registers as usize;
    let mut perm = RegisterPermutation { len: dst_registers as u16, src: [0; MAX_REGISTERS] };
    let mut t = 0;
    while t < threads {
        let mut r = 0;
        while r < dst_registers {
            let (m, k) = dst.coord(t, r);
            let h = holder[m + mt * k];
            if h == 0 {
                return Err(FragmentError::NotHeld { thread: t, register: r, m, k });
            }
            let (ht, hr) = (((h - 1) >> 8) as usize, ((h - 1) & 0xff) as usize);
            if ht != t {
                return Err(FragmentError::Shuffle {
                    in_warp: threads <= 32,
                    thread: t,
                    register: r,
                    m,
                    k,
                    holder: ht,
                    holder_register: hr,
                });
            }
            if t == 0 {
                perm.src[r] = hr as u16;
            } else if perm.src[r] as usize != hr {
                return Err(FragmentError::PermutationDiffers {
                    first: 0,
                    thread: t,
                    register: r,
                    first_source: perm.src[r] as usize,
                    source: hr,
                });
            }
            r += 1;
        }
        t += 1;
    }
    if dst_registers != registers {
        return Err(FragmentError::RegisterCount { acc: registers, operand: dst_registers });
    }
    Ok(perm)
}

/// Which coordinate a reduction keeps: [`Axis::Row`] reduces over `n` for each `m` (a row's
/// maximum or sum), [`Axis::Column`] over `m` for each `n`.
///
/// ```
/// use const_layout::atom::fragment::Axis;
/// assert_ne!(Axis::Row, Axis::Column);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Axis {
    /// One result a row: reduce over `n`.
    Row,
    /// One result a column: reduce over `m`.
    Column,
}

impl Axis {
    const fn operation(self) -> &'static str {
        match self {
            Axis::Row => "row reduction",
            Axis::Column => "column reduction",
        }
    }

    const fn noun(self) -> &'static str {
        match self {
            Axis::Row => "row",
            Axis::Column => "column",
        }
    }

    /// The coordinate a reduction along this axis keeps.
    const fn key(self, (m, n): (usize, usize)) -> usize {
        match self {
            Axis::Row => m,
            Axis::Column => n,
        }
    }
}

/// How a fragment reduces its rows (or columns): each thread combines the registers of each of
/// its [`groups`](Self::groups) (the same registers in every thread, each group one row), then a
/// butterfly of `shfl.sync.bfly` over the [`shuffle_masks`](Self::shuffle_masks) combines the
/// lanes that share the row (they are `lane ^ span(masks)`, within one warp). Made by
/// [`reduction_plan`], or as a constant by [`RowReduction`] and [`ColumnReduction`].
///
/// ```
/// use const_layout::atom::fragment::{FragmentC, RowReduction};
/// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
/// type S = FragmentC<Mma, 16, 32>;
/// let plan = RowReduction::<S>::PLAN;
/// // Lane l holds rows l / 4 and l / 4 + 8, each in 8 registers (c0, c1 of 4 atoms in N).
/// assert_eq!((plan.groups(), plan.per_group()), (2, 8));
/// assert_eq!(plan.group(0), &[0, 1, 4, 5, 8, 9, 12, 13]);
/// assert_eq!(plan.shuffle_masks(), &[1, 2]);
/// assert_eq!(RowReduction::<S>::key(9, 1), 10);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReductionPlan {
    axis: Axis,
    groups: u16,
    per_group: u16,
    registers: [u16; MAX_REGISTERS],
    shuffle_masks: [u32; 5],
    masks: u8,
}

impl ReductionPlan {
    /// The axis: which coordinate a group keeps.
    ///
    /// ```
    /// use const_layout::atom::fragment::{Axis, FragmentC, ColumnReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(ColumnReduction::<FragmentC<Mma, 16, 8>>::PLAN.axis(), Axis::Column);
    /// ```
    pub const fn axis(&self) -> Axis {
        self.axis
    }

    /// The number of groups (rows, or columns) a thread holds.
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, ColumnReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// // Columns 2 (l % 4) and + 1 of each of the 2 atoms in N.
    /// assert_eq!(ColumnReduction::<FragmentC<Mma, 16, 16>>::PLAN.groups(), 4);
    /// ```
    pub const fn groups(&self) -> usize {
        self.groups as usize
    }

    /// The registers in each group.
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, ColumnReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(ColumnReduction::<FragmentC<Mma, 32, 16>>::PLAN.per_group(), 4);
    /// ```
    pub const fn per_group(&self) -> usize {
        self.per_group as usize
    }

    /// The registers of every group, group by group (`groups * per_group` of them; each group's
    /// ascending, groups in the order of their first register).
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, RowReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(RowReduction::<FragmentC<Mma, 16, 8>>::PLAN.registers(), &[0, 1, 2, 3]);
    /// ```
    pub const fn registers(&self) -> &[u16] {
        self.registers.split_at(self.groups as usize * self.per_group as usize).0
    }

    /// The registers of group `g` (empty past the last group).
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, RowReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(RowReduction::<FragmentC<Mma, 16, 8>>::PLAN.group(1), &[2, 3]);
    /// ```
    pub const fn group(&self, g: usize) -> &[u16] {
        if g >= self.groups as usize {
            return &[];
        }
        let per = self.per_group as usize;
        self.registers.split_at(g * per).1.split_at(per).0
    }

    /// Register `k` of group `g`, as an index (for loops a compiler unrolls).
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, RowReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(RowReduction::<FragmentC<Mma, 16, 8>>::PLAN.register(1, 0), 2);
    /// ```
    #[inline(always)]
    pub const fn register(&self, g: usize, k: usize) -> usize {
        self.registers[g * self.per_group as usize + k] as usize
    }

    /// The xor masks of the butterfly (at most 5, a basis of the lanes that share a row, each
    /// mask's lowest bit set in no other).
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, ColumnReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(ColumnReduction::<FragmentC<Mma, 16, 8>>::PLAN.shuffle_masks(), &[4, 8, 16]);
    /// ```
    pub const fn shuffle_masks(&self) -> &[u32] {
        self.shuffle_masks.split_at(self.masks as usize).0
    }

    /// The number of masks.
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, RowReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(RowReduction::<FragmentC<Mma, 16, 8>>::PLAN.masks(), 2);
    /// ```
    pub const fn masks(&self) -> usize {
        self.masks as usize
    }

    /// Mask `k` (0 past the last: a shuffle with oneself).
    ///
    /// ```
    /// use const_layout::atom::fragment::{FragmentC, RowReduction};
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(RowReduction::<FragmentC<Mma, 16, 8>>::PLAN.mask(1), 2);
    /// ```
    #[inline(always)]
    pub const fn mask(&self, k: usize) -> u32 {
        if k < 5 { self.shuffle_masks[k] } else { 0 }
    }

    /// The row (or column) that `thread`'s group `g` holds in `fragment` (the fragment the plan
    /// was made for).
    ///
    /// ```
    /// use const_layout::atom::fragment::{reduction_plan, Axis, FragmentC};
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_SS as Ss;
    /// const F: const_layout::atom::fragment::FragmentLayout = FragmentC::<Ss<64>, 64, 64>::LAYOUT;
    /// let plan = reduction_plan(&F, Axis::Row).unwrap();
    /// assert_eq!((plan.key(&F, 37, 0), plan.key(&F, 37, 1)), (17, 25));
    /// ```
    #[inline(always)]
    pub const fn key(&self, fragment: &FragmentLayout, thread: usize, g: usize) -> usize {
        self.axis.key(fragment.coord(thread, self.register(g, 0)))
    }
}

/// The xor span of `basis` (masks by their lowest bit), reduced: whether `x` is in it.
const fn in_span(basis: &[u32; 5], mut x: u32) -> bool {
    let mut b = 0;
    while b < 5 {
        if x & (1 << b) != 0 && basis[b] != 0 {
            x ^= basis[b];
        }
        b += 1;
    }
    x == 0
}

/// The reduction plan of `fragment` along `axis`: thread 0's registers grouped by the row (or
/// column) they hold, which must group every thread's registers the same way, and the lanes
/// that share a row: `lane ^ span(masks)` within the lane's warp, for every thread and group.
///
/// An error names the lanes or warps where a butterfly of shuffles cannot reduce: a grouping
/// that differs between threads, groups of different sizes, lanes sharing a row that are not an
/// xor group ([`FragmentError::NotXorGroup`]), or a row held by two warps
/// ([`FragmentError::AcrossWarps`]: that needs shared memory); and more than [`CAPACITY`]
/// elements.
///
/// ```
/// use const_layout::atom::fragment::{reduction_plan, Axis, FragmentC};
/// use const_layout::atom::SM90_64xNx16_F32F16F16_SS as Ss;
/// const F: const_layout::atom::fragment::FragmentLayout = FragmentC::<Ss<64>, 64, 64>::LAYOUT;
/// let rows = reduction_plan(&F, Axis::Row).unwrap();
/// assert_eq!((rows.groups(), rows.shuffle_masks()), (2, &[1u32, 2][..]));
/// // A column of the warp group's accumulator lies in all four warps.
/// assert_eq!(
///     reduction_plan(&F, Axis::Column).unwrap_err().to_string(),
///     "column reduction: column 0 is held by warps 0 and 1: it needs shared memory"
/// );
/// ```
pub const fn reduction_plan(fragment: &FragmentLayout, axis: Axis) -> Result<ReductionPlan, FragmentError> {
    let (threads, registers) = (fragment.threads as usize, fragment.registers as usize);
    let keys_max = match axis {
        Axis::Row => fragment.tile[0] as usize,
        Axis::Column => fragment.tile[1] as usize,
    };
    if threads * registers > CAPACITY || keys_max > CAPACITY {
        let value = if keys_max > threads * registers { keys_max } else { threads * registers };
        return Err(FragmentError::TooLarge { what: "the elements", value, max: CAPACITY });
    }
    let tables = Tables::of(fragment);
    // Thread 0's groups, in the order of their first register.
    let mut group_of_key = [u16::MAX; CAPACITY];
    let mut group_of_reg = [0u16; MAX_REGISTERS];
    let mut sizes = [0u16; MAX_REGISTERS];
    let mut groups = 0usize;
    let mut r = 0;
    while r < registers {
        let k = axis.key(tables.coord(0, r));
        if group_of_key[k] == u16::MAX {
            group_of_key[k] = groups as u16;
            groups += 1;
        }
        let g = group_of_key[k] as usize;
        group_of_reg[r] = g as u16;
        sizes[g] += 1;
        r += 1;
    }
    let per_group = sizes[0] as usize;
    let mut g = 1;
    while g < groups {
        if sizes[g] as usize != per_group {
            return Err(FragmentError::UnevenGroups {
                axis,
                first: per_group,
                group: g,
                size: sizes[g] as usize,
            });
        }
        g += 1;
    }
    let mut plan = ReductionPlan {
        axis,
        groups: groups as u16,
        per_group: per_group as u16,
        registers: [0; MAX_REGISTERS],
        shuffle_masks: [0; 5],
        masks: 0,
    };
    let mut filled = [0u16; MAX_REGISTERS];
    let mut r = 0;
    while r < registers {
        let g = group_of_reg[r] as usize;
        plan.registers[g * per_group + filled[g] as usize] = r as u16;
        filled[g] += 1;
        r += 1;
    }
    // Every thread's key of each group: its registers all hold it, and no two groups share one
    // (stamped by thread: `stamp[key]` is the thread + 1 that last saw it, `seen[key]` its group).
    let mut keys = [0u16; CAPACITY];
    let mut stamp = [0u16; CAPACITY];
    let mut seen = [0u16; CAPACITY];
    let mut t = 0;
    while t < threads {
        let mut g = 0;
        while g < groups {
            let first = plan.registers[g * per_group] as usize;
            let k = axis.key(tables.coord(t, first));
            let mut x = 1;
            while x < per_group {
                let r = plan.registers[g * per_group + x] as usize;
                if axis.key(tables.coord(t, r)) != k {
                    return Err(FragmentError::Grouping {
                        axis,
                        thread: t,
                        registers: [first, r],
                        together_in_first: true,
                    });
                }
                x += 1;
            }
            if stamp[k] == (t + 1) as u16 {
                let other = plan.registers[seen[k] as usize * per_group] as usize;
                return Err(FragmentError::Grouping {
                    axis,
                    thread: t,
                    registers: [other, first],
                    together_in_first: false,
                });
            }
            stamp[k] = (t + 1) as u16;
            seen[k] = g as u16;
            keys[t * groups + g] = k as u16;
            g += 1;
        }
        t += 1;
    }
    // The lanes of warp 0 that hold thread 0's first key: the candidate subgroup.
    let key0 = keys[0];
    let lanes = if threads < 32 { threads } else { 32 };
    let mut basis = [0u32; 5];
    let mut lane = 0;
    while lane < lanes {
        let mut g = 0;
        while g < groups {
            if keys[lane * groups + g] == key0 {
                // Insert the lane into the basis, reduced by lowest bits.
                let mut x = lane as u32;
                let mut b = 0;
                while b < 5 && x != 0 {
                    if x & (1 << b) != 0 {
                        if basis[b] == 0 {
                            basis[b] = x;
                            x = 0;
                        } else {
                            x ^= basis[b];
                        }
                    }
                    b += 1;
                }
            }
            g += 1;
        }
        lane += 1;
    }
    // Reduce: no mask has another's lowest bit.
    let mut b = 0;
    while b < 5 {
        if basis[b] != 0 {
            let mut c = 0;
            while c < 5 {
                if c != b && basis[c] != 0 && basis[c] & (1 << b) != 0 {
                    basis[c] ^= basis[b];
                }
                c += 1;
            }
        }
        b += 1;
    }
    let mut rank = 0;
    let mut b = 0;
    while b < 5 {
        if basis[b] != 0 {
            plan.shuffle_masks[rank] = basis[b];
            rank += 1;
        }
        b += 1;
    }
    plan.masks = rank as u8;
    // Every thread's group g is its partners' group g, for each mask.
    let mut t = 0;
    while t < threads {
        let mut x = 0;
        while x < rank {
            let p = t ^ plan.shuffle_masks[x] as usize;
            let mut g = 0;
            while g < groups {
                if p >= threads || keys[p * groups + g] != keys[t * groups + g] {
                    return Err(FragmentError::NotXorGroup {
                        axis,
                        warp: t / 32,
                        key: keys[t * groups + g] as usize,
                        lane: t % 32,
                        other: p % 32,
                        other_holds: false,
                    });
                }
                g += 1;
            }
            x += 1;
        }
        t += 1;
    }
    // Each key is one warp's, held by exactly `2^rank` (thread, group)s: the subgroup's cosets.
    let mut warp_of = [0u16; CAPACITY];
    let mut count = [0u16; CAPACITY];
    let mut t = 0;
    while t < threads {
        let mut g = 0;
        while g < groups {
            let k = keys[t * groups + g] as usize;
            let w = (t / 32 + 1) as u16;
            if warp_of[k] == 0 {
                warp_of[k] = w;
            } else if warp_of[k] != w {
                return Err(FragmentError::AcrossWarps {
                    axis,
                    key: k,
                    warps: [warp_of[k] as usize - 1, t / 32],
                });
            }
            count[k] += 1;
            g += 1;
        }
        t += 1;
    }
    let expected = 1u16 << rank;
    let mut t = 0;
    while t < threads {
        let mut g = 0;
        while g < groups {
            let k = keys[t * groups + g] as usize;
            if count[k] != expected {
                // Another lane of the warp holds k outside t ^ span(masks).
                let mut u = t - t % 32;
                while u < threads && u < t - t % 32 + 32 {
                    let mut h = 0;
                    while h < groups {
                        if keys[u * groups + h] as usize == k && !in_span(&basis, (t ^ u) as u32) {
                            return Err(FragmentError::NotXorGroup {
                                axis,
                                warp: t / 32,
                                key: k,
                                lane: t % 32,
                                other: u % 32,
                                other_holds: true,
                            });
                        }
                        h += 1;
                    }
                    u += 1;
                }
            }
            g += 1;
        }
        t += 1;
    }
    Ok(plan)
}

/// An MMA atom or a tiled MMA whose thread-value layouts a fragment partitions: its tile and its
/// `(thread, value)` layouts of `A` (`m + M k`), `B` (`n + N k`) and `C` (`m + M n`).
///
/// ```
/// use const_layout::atom::fragment::MmaPartition;
/// use const_layout::atom::{make_tiled_mma, SM90_64xNx16_F32F16F16_SS, TiledMma};
/// use const_layout::algebra::computed::Keep;
/// use const_layout::layout_type;
/// type Two = TiledMma<SM90_64xNx16_F32F16F16_SS<64>, layout_type!((2, 1):(1, 0)), (Keep, Keep, Keep)>;
/// assert_eq!(<Two as MmaPartition>::TILE_MNK, [128, 64, 16]);
/// assert_eq!(<SM90_64xNx16_F32F16F16_SS<64> as MmaPartition>::TILE_MNK, [64, 64, 16]);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MMA atom or a tiled MMA",
    label = "a fragment partitions an MMA atom's or a tiled MMA's thread-value layouts",
    note = "use an atom of `const_layout::atom` (`SM80_*`, `SM90_*`) or a `TiledMma` from `make_tiled_mma`"
)]
pub trait MmaPartition {
    /// The tile `[M, N, K]` one step of the MMA computes.
    const TILE_MNK: [usize; 3];
    /// `(thread, value) -> m + M k`.
    const LAYOUT_A_TV: DynLayout;
    /// `(thread, value) -> n + N k`.
    const LAYOUT_B_TV: DynLayout;
    /// `(thread, value) -> m + M n`.
    const LAYOUT_C_TV: DynLayout;
}

impl<A: MmaAtom> MmaPartition for A {
    const TILE_MNK: [usize; 3] = A::SHAPE_MNK;
    const LAYOUT_A_TV: DynLayout = A::ALayout::LAYOUT;
    const LAYOUT_B_TV: DynLayout = A::BLayout::LAYOUT;
    const LAYOUT_C_TV: DynLayout = A::CLayout::LAYOUT;
}

impl<A: MmaAtom, T: StaticLayout, P: StaticPermutation> MmaPartition for TiledMma<A, T, P> {
    const TILE_MNK: [usize; 3] = {
        let t = Self::LAYOUTS.tile_mnk;
        [t[0] as usize, t[1] as usize, t[2] as usize]
    };
    const LAYOUT_A_TV: DynLayout = Self::LAYOUTS.layout_a_tv;
    const LAYOUT_B_TV: DynLayout = Self::LAYOUTS.layout_b_tv;
    const LAYOUT_C_TV: DynLayout = Self::LAYOUTS.layout_c_tv;
}

/// Which operand of an MMA a [`Fragment`] holds: [`Accumulator`] (`C`, over `M x N`),
/// [`OperandA`] (`M x K`) or [`OperandB`] (`N x K`).
///
/// ```
/// use const_layout::atom::fragment::{Accumulator, Operand};
/// assert_eq!(<Accumulator as Operand>::NAME, "C");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an operand of an MMA",
    note = "a fragment holds `Accumulator`, `OperandA` or `OperandB` (of `const_layout::atom::fragment`)"
)]
pub trait Operand {
    /// CuTe's name of the operand.
    const NAME: &'static str;
    /// The operand's TV layout of `M` and its tile (the two extents of `M`, `N`, `K` it spans).
    #[doc(hidden)]
    const WHICH: usize;
}

/// The accumulator `C` (CuTe's `partition_fragment_C`): `M x N`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Accumulator;

/// The operand `A` in registers (CuTe's `partition_fragment_A`): `M x K`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OperandA;

/// The operand `B` in registers (CuTe's `partition_fragment_B`): `N x K`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OperandB;

impl Operand for Accumulator {
    const NAME: &'static str = "C";
    const WHICH: usize = 2;
}
impl Operand for OperandA {
    const NAME: &'static str = "A";
    const WHICH: usize = 0;
}
impl Operand for OperandB {
    const NAME: &'static str = "B";
    const WHICH: usize = 1;
}

/// The fragment of `Op` of the atom or tiled MMA `Mma` over the tile `ROWS x COLS` (`M x N` for
/// the accumulator, `M x K` for `A`, `N x K` for `B`; multiples of `Mma`'s): CuTe's
/// `partition_fragment_C(mma, make_shape(M, N))` and the identity tensor partitioned with it.
/// Its [`LAYOUT`](Self::LAYOUT) is a constant: a compile error (in a full build) names what
/// does not fit.
///
/// ```
/// use const_layout::atom::fragment::FragmentC;
/// use const_layout::atom::SM90_64xNx16_F32F16F16_SS;
/// type S = FragmentC<SM90_64xNx16_F32F16F16_SS<128>, 64, 128>;
/// assert_eq!(S::REGISTERS, 64);
/// // A causal mask: which of thread 70's registers lie above the diagonal.
/// let masked = (0..S::REGISTERS).filter(|&r| { let (m, n) = S::coord(70, r); n > m }).count();
/// assert_eq!(S::coord(70, 0), (33, 4));
/// assert_eq!(masked, 64 - 18);
/// ```
pub struct Fragment<Mma, Op, const ROWS: usize, const COLS: usize>(PhantomData<fn() -> (Mma, Op)>);

/// The accumulator's fragment over `M x N` (CuTe's `partition_fragment_C`).
pub type FragmentC<Mma, const M: usize, const N: usize> = Fragment<Mma, Accumulator, M, N>;

/// The `A` operand's fragment over `M x K` (CuTe's `partition_fragment_A`).
pub type FragmentA<Mma, const M: usize, const K: usize> = Fragment<Mma, OperandA, M, K>;

/// The `B` operand's fragment over `N x K` (CuTe's `partition_fragment_B`).
pub type FragmentB<Mma, const N: usize, const K: usize> = Fragment<Mma, OperandB, N, K>;

impl<Mma: MmaPartition, Op: Operand, const ROWS: usize, const COLS: usize> Fragment<Mma, Op, ROWS, COLS> {
    /// The fragment, computed at compile time.
    pub const LAYOUT: FragmentLayout = {
        let [m, n, k] = Mma::TILE_MNK;
        let (tv, atom) = match Op::WHICH {
            0 => (Mma::LAYOUT_A_TV, [m, k]),
            1 => (Mma::LAYOUT_B_TV, [n, k]),
            _ => (Mma::LAYOUT_C_TV, [m, n]),
        };
        unwrap(FragmentLayout::new(&tv, atom, [ROWS, COLS]))
    };

    /// The registers a thread holds.
    pub const REGISTERS: usize = Self::LAYOUT.registers();

    /// The number of threads.
    pub const THREADS: usize = Self::LAYOUT.threads();

    /// [`FragmentLayout::coord`]: folds to a few operations on `thread` for a constant register.
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentA;
    /// use const_layout::atom::SM90_64xNx16_F32F16F16_RS;
    /// // A of the 64 x 16 atom over K = 64: register 8 + 5 is the second atom in K.
    /// assert_eq!(FragmentA::<SM90_64xNx16_F32F16F16_RS<64>, 64, 64>::coord(0, 13), (0, 16 + 9));
    /// ```
    #[inline(always)]
    pub const fn coord(thread: usize, register: usize) -> (usize, usize) {
        const { &Self::LAYOUT }.coord(thread, register)
    }

    /// [`FragmentLayout::checked_coord`].
    ///
    /// ```
    /// use const_layout::atom::fragment::FragmentC;
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// assert_eq!(FragmentC::<Mma, 16, 8>::checked_coord(0, 4), None);
    /// ```
    pub const fn checked_coord(thread: usize, register: usize) -> Option<(usize, usize)> {
        Self::LAYOUT.checked_coord(thread, register)
    }
}

/// A fragment known at compile time (a [`Fragment`]), which the reductions take.
///
/// ```
/// use const_layout::atom::fragment::{FragmentC, StaticFragment};
/// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
/// assert_eq!(<FragmentC<Mma, 16, 8> as StaticFragment>::LAYOUT.registers(), 4);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a static fragment",
    note = "use `const_layout::atom::fragment::Fragment` (`FragmentC<Mma, M, N>`, `FragmentA<Mma, M, K>`)"
)]
pub trait StaticFragment {
    /// The fragment.
    const LAYOUT: FragmentLayout;
}

impl<Mma: MmaPartition, Op: Operand, const ROWS: usize, const COLS: usize> StaticFragment
    for Fragment<Mma, Op, ROWS, COLS>
{
    const LAYOUT: FragmentLayout = Fragment::<Mma, Op, ROWS, COLS>::LAYOUT;
}

/// The accumulator of `Src` over `M x N` as the `A` operand of `Dst` over `M x K`, `K = N`
/// ([`acc_to_operand`] at compile time): [`PERMUTATION`](Self::PERMUTATION) is a constant, and a
/// conversion that needs a shuffle is a compile error (in a full build) naming the lanes.
///
/// ```
/// use const_layout::atom::fragment::AccToOperand;
/// use const_layout::atom::{make_tiled_mma, SM90_64xNx16_F32F16F16_RS, SM90_64xNx16_F32F16F16_SS, TiledMma};
/// use const_layout::algebra::computed::Keep;
/// use const_layout::layout_type;
/// // Two consumer warp groups along M (FlashAttention-3): S is 128 x 64.
/// type Two<A> = TiledMma<A, layout_type!((2, 1):(1, 0)), (Keep, Keep, Keep)>;
/// type P = AccToOperand<Two<SM90_64xNx16_F32F16F16_SS<64>>, Two<SM90_64xNx16_F32F16F16_RS<128>>, 128, 64>;
/// assert!(P::PERMUTATION.is_identity());
/// let acc: [f32; 32] = core::array::from_fn(|r| r as f32);
/// assert_eq!(P::convert(&acc), acc);
/// ```
pub struct AccToOperand<Src, Dst, const M: usize, const N: usize>(PhantomData<fn() -> (Src, Dst)>);

impl<Src: MmaPartition, Dst: MmaPartition, const M: usize, const N: usize> AccToOperand<Src, Dst, M, N> {
    /// The permutation, computed at compile time.
    pub const PERMUTATION: RegisterPermutation =
        unwrap(acc_to_operand(&FragmentC::<Src, M, N>::LAYOUT, &FragmentA::<Dst, M, N>::LAYOUT));

    /// The registers a thread holds (of each).
    pub const REGISTERS: usize = Self::PERMUTATION.len();

    /// The operand's registers from the accumulator's: `out[r] = acc[PERMUTATION.source(r)]`
    /// (convert the element type before or after). `R` must be
    /// [`REGISTERS`](Self::REGISTERS): a compile error otherwise.
    ///
    /// ```
    /// use const_layout::atom::fragment::AccToOperand;
    /// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
    /// let acc: [f32; 16] = core::array::from_fn(|r| r as f32);
    /// let a = AccToOperand::<Mma, Mma, 32, 16>::convert(&acc);
    /// assert_eq!(a[4..8], [8.0, 9.0, 10.0, 11.0]);
    /// ```
    #[inline(always)]
    pub fn convert<T: Copy, const R: usize>(acc: &[T; R]) -> [T; R] {
        const {
            assert!(
                R == Self::REGISTERS,
                "AccToOperand::convert: the array's length is not the fragment's registers"
            )
        };
        let p = const { &Self::PERMUTATION };
        core::array::from_fn(|r| acc[p.src[r] as usize])
    }
}

/// The row reduction plan of a static fragment ([`reduction_plan`] along [`Axis::Row`] at compile
/// time): a compile error (in a full build) names the lanes or warps where a butterfly of
/// shuffles cannot reduce.
///
/// ```
/// use const_layout::atom::fragment::{FragmentC, RowReduction};
/// use const_layout::atom::SM90_64xNx16_F32F16F16_SS as Ss;
/// type S = FragmentC<Ss<64>, 64, 64>;
/// const PLAN: const_layout::atom::fragment::ReductionPlan = RowReduction::<S>::PLAN;
/// // Registers with (r / 2) % 2 = 0 hold one row, = 1 the row 8 below.
/// assert_eq!(&PLAN.group(1)[..4], &[2, 3, 6, 7]);
/// assert_eq!(RowReduction::<S>::key(4, 1), 9);
/// ```
pub struct RowReduction<F>(PhantomData<fn() -> F>);

impl<F: StaticFragment> RowReduction<F> {
    /// The plan.
    pub const PLAN: ReductionPlan = unwrap(reduction_plan(&F::LAYOUT, Axis::Row));

    /// The row of `thread`'s group `g`.
    #[inline(always)]
    pub const fn key(thread: usize, g: usize) -> usize {
        const { &Self::PLAN }.key(const { &F::LAYOUT }, thread, g)
    }
}

/// The column reduction plan of a static fragment ([`reduction_plan`] along [`Axis::Column`]).
///
/// ```
/// use const_layout::atom::fragment::{ColumnReduction, FragmentC};
/// use const_layout::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
/// type S = FragmentC<Mma, 16, 8>;
/// assert_eq!(ColumnReduction::<S>::PLAN.registers(), &[0, 2, 1, 3]);
/// assert_eq!(ColumnReduction::<S>::key(5, 1), 3);
/// ```
pub struct ColumnReduction<F>(PhantomData<fn() -> F>);

impl<F: StaticFragment> ColumnReduction<F> {
    /// The plan.
    pub const PLAN: ReductionPlan = unwrap(reduction_plan(&F::LAYOUT, Axis::Column));

    /// The column of `thread`'s group `g`.
    #[inline(always)]
    pub const fn key(thread: usize, g: usize) -> usize {
        const { &Self::PLAN }.key(const { &F::LAYOUT }, thread, g)
    }
}
