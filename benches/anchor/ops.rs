//! The typed runtime algebra on the operations of CuTe's anchor
//! `cute_dyn_algebra.cpp`, each as the anchor's loop body: build the operands
//! from the runtime extents of entry `i & 1023`, operate, read one offset and the size. Shared by
//! `benches/algebra.rs` (time) and `examples/algebra_counts.rs` (instruction counts), so that
//! both measure the same code.

use const_layout::algebra::{self, TileMode, Tiler};
use const_layout::algebra::{tiling, typed};
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::{C, make_layout};

/// The anchor's runtime extents `(m, n)`, in an array of 1024 so that `[i & 1023]` needs no bounds
/// check (the anchor's `std::vector` has none).
pub type Extents = [(i32, i32); 1024];

/// m, n in {2, 4, 8, 16} from a fixed sequence, as the anchor's.
pub fn extents() -> Box<Extents> {
    let mut x = 7u64;
    Box::new(core::array::from_fn(|_| {
        x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (2 << ((x >> 33) % 4), 2 << ((x >> 40) % 4))
    }))
}

/// `composition((m*4, n*4):(1, m*4), (4,2):(2,8))`.
#[inline(always)]
pub fn composition(mn: &Extents, i: usize) -> isize {
    let (m, n) = mn[i & 1023];
    let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
    let b = make_layout((4i32, 2i32), (2i32, 8i32)).expect("valid");
    let r = typed::composition(&a, &b).expect("admissible");
    r.crd2idx(3i32) + r.size()
}

/// `logical_divide((m*4, n*4):(1, m*4), <2, 2>)`, the tile runtime as the anchor's.
#[inline(always)]
pub fn logical_divide(mn: &Extents, i: usize) -> isize {
    let (m, n) = mn[i & 1023];
    let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
    let r = tiling::logical_divide(&a, (2i32, 2i32)).expect("divides");
    r.crd2idx(5i32) + r.size() as isize
}

/// The same with a static tile `<_2, _2>`.
#[inline(always)]
pub fn logical_divide_static(mn: &Extents, i: usize) -> isize {
    let (m, n) = mn[i & 1023];
    let a = make_layout((m * 4, n * 4), (1i32, m * 4)).expect("valid");
    let r = tiling::logical_divide(&a, (C::<2>, C::<2>)).expect("divides");
    r.crd2idx(5i32) + r.size() as isize
}

/// `complement((_4, m):(_1, _16), 4096)`.
#[inline(always)]
pub fn complement(mn: &Extents, i: usize) -> isize {
    let (m, _) = mn[i & 1023];
    let a = make_layout((C::<4>, m), (C::<1>, C::<16>)).expect("valid");
    let r = typed::complement(&a, 4096i32).expect("admissible");
    r.crd2idx(1i32) + r.size()
}

fn rt(v: isize) -> DynIntTuple {
    DynIntTuple::int(DynInt::new_runtime(v))
}

fn pair(a: DynIntTuple, b: DynIntTuple) -> DynIntTuple {
    DynIntTuple::tuple(&[a, b]).expect("two modes")
}

/// `composition` on runtime-structured layouts (`algebra` on `DynLayout`): the structure is data.
#[inline(always)]
pub fn dyn_composition(mn: &Extents, i: usize) -> isize {
    let (m, n) = (mn[i & 1023].0 as isize, mn[i & 1023].1 as isize);
    let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
    let t = DynLayout::new(pair(rt(4), rt(2)), pair(rt(2), rt(8))).expect("valid");
    let r = algebra::composition(&a, &t).expect("admissible");
    r.offset(3) + r.size().value
}

/// `logical_divide` on a runtime-structured layout, by the tile `<2:_1, 2:_1>`.
#[inline(always)]
pub fn dyn_logical_divide(mn: &Extents, i: usize) -> isize {
    let (m, n) = (mn[i & 1023].0 as isize, mn[i & 1023].1 as isize);
    let a = DynLayout::new(pair(rt(m * 4), rt(n * 4)), pair(rt(1), rt(m * 4))).expect("valid");
    let two = DynLayout::new(rt(2), DynIntTuple::int(DynInt::new_static(1))).expect("valid");
    let t = Tiler::by_mode(&[TileMode::Layout(two), TileMode::Layout(two)]).expect("two modes");
    let r = algebra::logical_divide(&a, &t).expect("admissible");
    r.offset(5) + r.size().value
}

/// `complement`'s operand `(_4,m):(_1,_16)` as a runtime-structured layout.
#[inline(always)]
fn dyn_complement_layout(m: isize) -> DynLayout {
    DynLayout::new(
        pair(DynIntTuple::int(DynInt::new_static(4)), rt(m)),
        pair(DynIntTuple::int(DynInt::new_static(1)), DynIntTuple::int(DynInt::new_static(16))),
    )
    .expect("valid")
}

/// `complement` of a runtime-structured layout.
#[inline(always)]
pub fn dyn_complement(mn: &Extents, i: usize) -> isize {
    let a = dyn_complement_layout(mn[i & 1023].0 as isize);
    let r = algebra::complement_to(&a, &rt(4096)).expect("admissible");
    r.offset(1) + r.size().value
}

/// What [`dyn_complement`] spends before the algebra: its operand built and read (one offset
/// and the size), no complement. A floor for the runtime-structured rows.
#[inline(always)]
pub fn dyn_complement_operand(mn: &Extents, i: usize) -> isize {
    let a = dyn_complement_layout(mn[i & 1023].0 as isize);
    a.offset(1) + a.size().value
}

/// The least any runtime-structured `complement` can cost, as a yardstick for the
/// runtime-structured rows (not a product path): the anchor's operation on the simplest possible
/// runtime structure, at most 8 flat modes in arrays, with CuTe's static flags and the checks
/// every path needs (positive extents, overflow, admissibility), and none of what the library's
/// layouts also carry (nesting, basis strides, 64 nodes). Its functions are calls, as a library's
/// algebra is to its user (inlined into the loop, the compiler would fold the literal operand's
/// structure, which is what the typed algebra does by design).
pub mod floor {
    /// An integer and CuTe's static flag.
    #[derive(Clone, Copy)]
    pub struct Int {
        v: isize,
        s: bool,
    }

    const ONE: Int = Int { v: 1, s: true };

    /// Up to 8 flat modes and the size.
    #[derive(Clone, Copy)]
    pub struct Flat {
        n: usize,
        shape: [Int; 8],
        stride: [Int; 8],
        size: isize,
    }

    /// Checked arithmetic gives `None` on overflow, a bad extent or an inadmissible operand.
    #[inline(never)]
    pub fn new(shape: &[Int], stride: &[Int]) -> Option<Flat> {
        if shape.len() != stride.len() || shape.len() > 8 {
            return None;
        }
        let mut f = Flat { n: shape.len(), shape: [ONE; 8], stride: [ONE; 8], size: 1 };
        let mut cosize: isize = 1;
        for k in 0..shape.len() {
            if shape[k].v <= 0 {
                return None;
            }
            f.size = f.size.checked_mul(shape[k].v)?;
            cosize = cosize.checked_add((shape[k].v - 1).checked_mul(stride[k].v.checked_abs()?)?)?;
            (f.shape[k], f.stride[k]) = (shape[k], stride[k]);
        }
        Some(f)
    }

    /// CuTe's `complement(a, cotarget)`: filter, sort by stride, fold, coalesce.
    #[inline(never)]
    pub fn complement(a: &Flat, cotarget: Int) -> Option<Flat> {
        let mut modes = [(ONE, ONE); 8];
        let mut n = 0;
        for k in 0..a.n {
            if a.shape[k].v != 1 && a.stride[k].v != 0 {
                modes[n] = (a.shape[k], a.stride[k]);
                n += 1;
            }
        }
        for i in 1..n {
            let mut j = i;
            while j > 0 && modes[j - 1].1.v > modes[j].1.v {
                modes.swap(j - 1, j);
                j -= 1;
            }
        }
        let mut r = Flat { n: 0, shape: [ONE; 8], stride: [ONE; 8], size: 1 };
        let mut push = |s: Int, d: Int| {
            r.size = r.size.checked_mul(s.v)?;
            if s.v == 1 {
                return Some(());
            }
            let last = r.n.wrapping_sub(1);
            if r.n > 0 && r.shape[last].v.checked_mul(r.stride[last].v)? == d.v {
                r.shape[last] = Int { v: r.shape[last].v * s.v, s: r.shape[last].s && s.s };
            } else {
                (r.shape[r.n], r.stride[r.n]) = (s, d);
                r.n += 1;
            }
            Some(())
        };
        let mut current = ONE;
        for &(s, d) in &modes[..n] {
            if d.v % current.v != 0 {
                return None;
            }
            push(Int { v: d.v / current.v, s: d.s && current.s }, current)?;
            current = Int { v: s.v.checked_mul(d.v)?, s: s.s && d.s };
        }
        let rest = (cotarget.v.checked_add(current.v - 1)?) / current.v;
        push(Int { v: rest, s: cotarget.s && current.s }, current)?;
        Some(r)
    }

    /// The offset of index `i`.
    #[inline(never)]
    pub fn offset(a: &Flat, mut i: isize) -> isize {
        let mut r = 0;
        for k in 0..a.n {
            r += (i % a.shape[k].v) * a.stride[k].v;
            i /= a.shape[k].v;
        }
        r
    }

    /// The anchor's loop body: `complement((_4, m):(_1, _16), 4096)`, one offset and the size.
    #[inline(always)]
    pub fn complement_op(mn: &super::Extents, i: usize) -> isize {
        let m = mn[i & 1023].0 as isize;
        let st = |v| Int { v, s: true };
        let a = new(&[st(4), Int { v: m, s: false }], &[st(1), st(16)]).expect("valid");
        let r = complement(&a, Int { v: 4096, s: false }).expect("admissible");
        offset(&r, 1) + r.size
    }
}
