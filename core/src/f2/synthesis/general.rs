//! The general F2 swizzle: the best shared-memory layout among all bijective linear maps from the
//! tile's elements to offsets (Triton's `GenericSwizzling`, which every `Sw<B,M,S> o tile` is one
//! of), by construction rather than search.
//!
//! Offsets split by bit position into the vector (the low bits, which must hold the vector's
//! elements in order), the bank bits (a bank word and the banks of one wavefront) and the line
//! bits above. A phase of an access touches the words spanned by its lanes and its vector; its
//! busiest bank holds `2^d` of them, `d` the dimension of that span's intersection with the line
//! bits (given the sub-word bits). So a layout is built as a basis of the elements, one vector per
//! offset bit:
//!
//! 1. the vector bits: for every pair of vector widths the two accesses allow, the wider access's
//!    vector elements, which the narrower's must begin with, and each access's other inputs kept
//!    off them (alignment); a pair that cannot be met is skipped;
//! 2. the sub-word bits: lanes' elements first (lanes that share a word share its wavefront);
//! 3. the line bits, one at a time: an element outside both accesses' spans (lanes, vector,
//!    sub-word and line bits so far) while there is one, then outside one of them. Over F2 two
//!    proper subspaces never cover a space, so one of two basis vectors, or their sum, always
//!    does; each step then adds a wavefront to a phase only when that phase's span already holds
//!    every remaining element, which no choice avoids;
//! 4. the bank bits: the rest of the basis.
//!
//! Every candidate is scored exactly ([`super::evaluate_linear`]) against the best `Sw<B,M,S>`
//! ([`super::best_swizzle`]), which wins ties, so the result is never worse than CuTe's family and
//! is a swizzle whenever a swizzle is as good. The tests check the result against an exhaustive
//! search over every bijective map on small tiles and bank models.

use super::{Access, best_swizzle, evaluate_linear};
use crate::error::LayoutError;
use crate::f2::bank::{BankModel, Conflicts};
use crate::f2::linear::{LinearLayout, Span};
use crate::swizzle::Swizzle;

/// A shared-memory layout (any bijective linear map) and what it gives both accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinearChoice {
    /// Tile element to shared-memory offset, in elements.
    pub smem: LinearLayout,
    /// The `Sw<B,M,S>` with `smem = Sw o tile`, when the best layout is one of CuTe's swizzles.
    pub swizzle: Option<Swizzle>,
    /// The write's vector width, in elements.
    pub write_vec: u32,
    /// The read's.
    pub read_vec: u32,
    /// The write's wavefronts, over the whole tile.
    pub write: Conflicts,
    /// The read's.
    pub read: Conflicts,
}

impl LinearChoice {
    /// Both accesses' extra wavefronts.
    pub const fn conflicts(&self) -> u32 {
        self.write.extra() + self.read.extra()
    }

    /// The score's order of [`super::Choice`]: the narrower vector, their sum, fewer conflicts.
    const fn better(&self, other: &LinearChoice) -> bool {
        super::beats(
            (self.write_vec, self.read_vec, self.conflicts()),
            (other.write_vec, other.read_vec, other.conflicts()),
        )
    }
}

/// The best shared-memory layout for a `write` and a `read` of a tile of `element_bytes`
/// elements, among all bijective linear maps from the tile's elements to offsets: wider vectors
/// first (the narrower of the two, then their sum), then fewer extra wavefronts. `tile` (element
/// to offset) is the plain layout whose `Sw<B,M,S>` the search starts from ([`best_swizzle`]);
/// the result is `Sw o tile` when no general map is strictly better.
///
/// A query on a tile of more than 31 bits, or with accesses whose elements are not the tile's,
/// is an error.
///
/// ```
/// use const_layout::bank::{AccessKind, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::synthesis::{best_linear, best_swizzle, Access};
/// // A 16 x 64 tile of halves, row-major (element bits: 3 in a 16-byte chunk, 3 of chunk, 4 of
/// // row), and two ldmatrix-like accesses of 16-byte rows: the write's phases read rows 0..7 (lane
/// // bits 0..2 to row bits 0..2), the read's the even or odd rows (row bits 1..3). Sw<3,3,3> mixes
/// // row bits 0..2 into the chunk, Sw<3,3,4> bits 1..3: no Sw<B,M,S> serves both at full width,
/// // a general F2 map does.
/// let tile = LinearLayout::identity(10);
/// let write = Access { kind: AccessKind::Store, tv: LinearLayout::new(&[64, 128, 256, 8, 16, 512, 1, 2, 4, 32], 10).unwrap(), thread_bits: 6, vec: 8 };
/// let read = Access { kind: AccessKind::Load, tv: LinearLayout::new(&[128, 256, 512, 8, 16, 64, 1, 2, 4, 32], 10).unwrap(), thread_bits: 6, vec: 8 };
/// let sw = best_swizzle(&NVIDIA, &tile, 2, &write, &read).unwrap();
/// let general = best_linear(&NVIDIA, &tile, 2, &write, &read).unwrap();
/// assert_eq!((sw.write_vec, sw.read_vec), (8, 8));
/// assert!(sw.conflicts() > 0);
/// assert_eq!((general.write_vec, general.read_vec, general.conflicts()), (8, 8, 0));
/// assert!(general.swizzle.is_none() && general.smem.is_injective());
/// ```
pub const fn best_linear(
    model: &BankModel,
    tile: &LinearLayout,
    element_bytes: u32,
    write: &Access,
    read: &Access,
) -> Result<LinearChoice, LayoutError> {
    let sw = match best_swizzle(model, tile, element_bytes, write, read) {
        Ok(c) => c,
        Err(e) => return Err(e),
    };
    let smem = match LinearLayout::from_swizzle(sw.swizzle, tile.out_bits()).compose(tile) {
        Ok(s) => s,
        Err(e) => return Err(e),
    };
    let mut best = LinearChoice {
        smem,
        swizzle: Some(sw.swizzle),
        write_vec: sw.write_vec,
        read_vec: sw.read_vec,
        write: sw.write,
        read: sw.read,
    };
    let n = tile.in_bits();
    if n > 31 || write.tv.out_bits() > n || read.tv.out_bits() > n {
        return Err(LayoutError::NotCanonical {
            op: "best_linear",
            what: "the tile's element bits (at most 31, and reaching both accesses' elements)",
            value: n as isize,
        });
    }
    let (cap_w, cap_r) = (vector_cap(write, element_bytes), vector_cap(read, element_bytes));
    let coords = Coordinates::of(tile);
    // Widest first: a narrower pair's layout can reach the same widths, less carefully built.
    let mut kw = cap_w + 1;
    while kw > 0 {
        kw -= 1;
        let mut kr = cap_r + 1;
        while kr > 0 {
            kr -= 1;
            // A pair that cannot beat the best so far even without conflicts is not built (the
            // swizzle often already has the widest vectors and none).
            let reach = (1u32 << kw, 1u32 << kr, 0);
            if !super::beats(reach, (best.write_vec, best.read_vec, best.conflicts())) {
                continue;
            }
            if let Some(smem) = construct(model, &coords, element_bytes, write, read, kw, kr) {
                let (wv, wc) = match evaluate_linear(model, &smem, element_bytes, write) {
                    Ok(x) => x,
                    Err(e) => return Err(e),
                };
                let (rv, rc) = match evaluate_linear(model, &smem, element_bytes, read) {
                    Ok(x) => x,
                    Err(e) => return Err(e),
                };
                let c =
                    LinearChoice { smem, swizzle: None, write_vec: wv, read_vec: rv, write: wc, read: rc };
                if c.better(&best) {
                    best = c;
                }
            }
        }
    }
    Ok(best)
}

/// [`super::within_budget`] for [`best_linear`]: the static result, or a compile error (in a
/// `const`, a full build) naming the query's error, or the best layout's extra wavefronts over
/// `budget`, with the numbers.
///
/// ```
/// use const_layout::bank::{AccessKind, NVIDIA};
/// use const_layout::linear::LinearLayout;
/// use const_layout::synthesis::{best_linear, linear_within_budget, Access, LinearChoice};
/// const fn tv(b: &[u32]) -> LinearLayout {
///     match LinearLayout::new(b, 10) { Ok(l) => l, Err(_) => panic!("bases") }
/// }
/// // The module's example: no Sw<B,M,S> meets a budget of 0, a linear layout does.
/// const WRITE: Access = Access { kind: AccessKind::Store, tv: tv(&[64, 128, 256, 8, 16, 512, 1, 2, 4, 32]), thread_bits: 6, vec: 8 };
/// const READ: Access = Access { kind: AccessKind::Load, tv: tv(&[128, 256, 512, 8, 16, 64, 1, 2, 4, 32]), thread_bits: 6, vec: 8 };
/// const SMEM: LinearChoice = linear_within_budget(best_linear(&NVIDIA, &LinearLayout::identity(10), 2, &WRITE, &READ), 0);
/// assert_eq!(SMEM.smem.apply(64), 96); // row 1 flips chunk 4
/// ```
pub const fn linear_within_budget(query: Result<LinearChoice, LayoutError>, budget: u32) -> LinearChoice {
    use crate::error::Message;
    match query {
        Ok(c) if c.conflicts() <= budget => c,
        Ok(c) => {
            let m = Message::new()
                .text("best_linear: the best linear layout over F2 takes ")
                .num(c.conflicts() as isize)
                .text(" extra wavefronts (vectors of ")
                .num(c.write_vec as isize)
                .text(" and ")
                .num(c.read_vec as isize)
                .text("), over the budget of ")
                .num(budget as isize);
            panic!("{}", m.as_str())
        }
        Err(e) => {
            let m = Message::new().text("best_linear: ").text(e.message().as_str());
            panic!("{}", m.as_str())
        }
    }
}

/// The tile's offsets of the elements and back: the tile and its inverse, or the identity both
/// ways if the tile is not a bijection. Computed once a query; the construction orders its
/// candidates and writes its result in these coordinates.
struct Coordinates {
    to_tile: LinearLayout,
    from_tile: LinearLayout,
}

impl Coordinates {
    const fn of(tile: &LinearLayout) -> Coordinates {
        match tile.invert() {
            Ok(from_tile) => Coordinates { to_tile: *tile, from_tile },
            Err(_) => {
                let id = LinearLayout::identity(tile.in_bits());
                Coordinates { to_tile: id, from_tile: id }
            }
        }
    }
}

/// The most vector bits an access can have: its wanted width (at most 16 bytes), within its value
/// bits, while the values' elements are independent.
const fn vector_cap(a: &Access, element_bytes: u32) -> u32 {
    let most = 16 / element_bytes;
    let want = if a.vec < most { a.vec } else { most };
    let mut span = Span::EMPTY;
    let mut k = 0;
    while a.thread_bits + k < a.tv.in_bits()
        && (2u32 << k) <= want
        && span.insert(a.tv.basis(a.thread_bits + k))
    {
        k += 1;
    }
    k
}

/// The span of an access's inputs other than its vector (`thread_bits .. thread_bits + k`).
const fn others(a: &Access, k: u32) -> Span {
    let mut s = Span::EMPTY;
    let mut i = 0;
    while i < a.tv.in_bits() {
        if i < a.thread_bits || i >= a.thread_bits + k {
            s.insert(a.tv.basis(i));
        }
        i += 1;
    }
    s
}

/// The elements one phase of an access touches, as a span: its phase's lanes and its `k`-bit
/// vector.
const fn phase_span(model: &BankModel, a: &Access, element_bytes: u32, k: u32) -> Span {
    let mut s = phase_lanes(model, a, element_bytes, k);
    let mut j = 0;
    while j < k {
        s.insert(a.tv.basis(a.thread_bits + j));
        j += 1;
    }
    s
}

/// The elements of one phase's lanes (at the first value) of an access with `k`-bit vectors.
const fn phase_lanes(model: &BankModel, a: &Access, element_bytes: u32, k: u32) -> Span {
    // Loads pair when the quads' lanes read at most two vectors (the shared map is a bijection,
    // so the addresses are as distinct as the elements).
    let width = element_bytes << k;
    let (b0, b1) = (
        if a.thread_bits > 0 { a.tv.basis(0) } else { 0 },
        if a.thread_bits > 1 { a.tv.basis(1) } else { 0 },
    );
    let kind = a.kind.for_bytes(width);
    let paired = kind.may_pair(model, width) && (b0 == 0 || b1 == 0 || b0 == b1);
    let lanes = kind.phase_lanes(model, width, paired).trailing_zeros();
    let warp = kind.lanes(model).trailing_zeros();
    let mut bits = if lanes < warp { lanes } else { warp };
    if bits > a.thread_bits {
        bits = a.thread_bits;
    }
    let mut s = Span::EMPTY;
    let mut i = 0;
    while i < bits {
        s.insert(a.tv.basis(i));
        i += 1;
    }
    s
}

/// Whether an offset bit (its position in bytes) falls below a bank word, in the bank bits, or in
/// the line bits above a wavefront of banks.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    Sub,
    Bank,
    Line,
}

const fn place(model: &BankModel, element_bytes: u32, bit: u32) -> Place {
    let byte = bit + element_bytes.trailing_zeros();
    if byte < model.bank_bytes.trailing_zeros() {
        Place::Sub
    } else if byte >= (model.banks * model.bank_bytes).trailing_zeros() {
        Place::Line
    } else {
        Place::Bank
    }
}

/// The state of the construction: the vectors the sub-word and line bits hold so far (`m`) and
/// the spans that say which further vectors keep both accesses aligned.
struct State {
    /// The vector bits' elements, `V`.
    v: Span,
    /// `M` plus the wider access's other inputs (`LO`), and plus the narrower's and the wider's
    /// extra vector bits (`Z`): `M` must stay where `M + LO` misses `V` and `M + Z` misses `V_s`.
    m_lo: Span,
    m_lo_v: Span,
    m_z: Span,
    m_z_vs: Span,
    /// The most dimensions `M + LO` and `M + Z` may reach: the bits above each access's vector.
    room_lo: u32,
    room_z: u32,
    /// The tile's offsets of the elements (the identity if the tile is not a bijection).
    coords: LinearLayout,
    /// `M` itself, and with the vector's sub-word elements.
    m: Span,
    /// The phases' spans (lanes, vector) with the sub-word and line bits so far.
    aw: Span,
    ar: Span,
}

impl State {
    /// Whether `x` can join `M`: independent, and alignment still possible (`M + LO` misses `V`
    /// and fits the `room_lo` bits above the vector; `M + Z` misses `V_s` and fits `room_z`).
    const fn allows(&self, x: u32) -> bool {
        if self.m.contains(x) {
            return false;
        }
        let lo_ok = if self.m_lo.contains(x) {
            true
        } else {
            !self.m_lo_v.contains(x) && self.m_lo.dim() < self.room_lo
        };
        let z_ok = if self.m_z.contains(x) {
            true
        } else {
            !self.m_z_vs.contains(x) && self.m_z.dim() < self.room_z
        };
        lo_ok && z_ok
    }

    const fn add(&mut self, x: u32) {
        self.m.insert(x);
        self.m_lo.insert(x);
        self.m_lo_v.insert(x);
        self.m_z.insert(x);
        self.m_z_vs.insert(x);
        self.aw.insert(x);
        self.ar.insert(x);
    }

    /// How well `x` serves as the next sub-word (`line == false`) or line (`line == true`) bit,
    /// lower better: first by the phases (a line bit should stay outside both phases' spans, as
    /// each one it joins doubles that phase's wavefronts; a sub-word bit inside them, as lanes
    /// sharing a word share its wavefront), then by the room it takes from the alignment's
    /// spans (a vector inside them takes none and leaves more choice to the next bits).
    const fn rank(&self, x: u32, line: bool, bit: u32) -> u32 {
        let (w, r) = (self.aw.contains(x), self.ar.contains(x));
        let (w, r) = if line { (!w, !r) } else { (w, r) };
        let tier = match (w, r) {
            (true, true) => 0,
            (true, false) => 1,
            (false, true) => 2,
            (false, false) => 3,
        };
        let room = !self.m_lo.contains(x) as u32 + !self.m_z.contains(x) as u32;
        // Last, whether the tile's element of this offset bit leads `x` (in the tile's offsets).
        let y = self.coords.apply(x);
        let led = y != 0 && 31 - y.leading_zeros() == bit;
        (tier * 4 + room) * 2 + !led as u32
    }

    /// Offset bit `pos` (a sub-word or a line bit): the best vector ([`Self::pick`]) joins `M`
    /// there; false if none is allowed.
    const fn fill(
        &mut self,
        c: &mut [u32; 32],
        pos: usize,
        lists: &[[u32; 32]; 3],
        n: &[usize; 3],
        line: bool,
    ) -> bool {
        match self.pick(lists, n, line, pos as u32) {
            Some(x) => {
                self.add(x);
                c[pos] = x;
                true
            }
            None => false,
        }
    }

    /// The best allowed vector among sums of one to three of the first `n` of each list, or
    /// `None`. Ties keep the first found: by list, then by the list's vector `i` that leads the
    /// sum, then sums of fewer vectors (`i` alone, `i` and one after it, `i` and two after it).
    /// Line bits take the tile's list from its top (the tile's own line bits lead), so that a
    /// line bit is the tile's line bit plus what the swizzle mixes in.
    const fn pick(&self, lists: &[[u32; 32]; 3], n: &[usize; 3], line: bool, bit: u32) -> Option<u32> {
        // Sums of one or two vectors first; three only when those leave the phases worse off
        // (the cost of a constant grows with the cube of the bits otherwise).
        let two = self.pick_up_to(lists, n, line, bit, 2);
        match two {
            Some((r, x)) if r < 8 => Some(x),
            _ => match self.pick_up_to(lists, n, line, bit, 3) {
                Some((_, x)) => Some(x),
                None => None,
            },
        }
    }

    /// [`Self::pick`] over sums of at most `most` vectors: the rank and the vector.
    const fn pick_up_to(
        &self,
        lists: &[[u32; 32]; 3],
        n: &[usize; 3],
        line: bool,
        bit: u32,
        most: u32,
    ) -> Option<(u32, u32)> {
        let mut best: Option<(u32, u32)> = None;
        let mut l = 0;
        while l < 3 {
            let (mut list, n) = (lists[l], n[l]);
            if line && l == 0 {
                reverse(&mut list, 0, n);
            }
            let mut i = 0;
            while i < n {
                let mut weight = 1;
                while weight <= most {
                    let mut j = i + 1;
                    let mut k = i + 2;
                    loop {
                        let x = match weight {
                            1 => list[i],
                            2 if j < n => list[i] ^ list[j],
                            3 if k < n => list[i] ^ list[j] ^ list[k],
                            _ => break,
                        };
                        if x != 0 && self.allows(x) {
                            let r = self.rank(x, line, bit);
                            let better = match best {
                                Some((br, _)) => r < br,
                                None => true,
                            };
                            if better {
                                best = Some((r, x));
                                if r == 0 {
                                    return best;
                                }
                            }
                        }
                        // The next sum of this weight.
                        match weight {
                            1 => break,
                            2 => j += 1,
                            _ => {
                                k += 1;
                                if k >= n {
                                    j += 1;
                                    k = j + 1;
                                }
                            }
                        }
                    }
                    weight += 1;
                }
                i += 1;
            }
            l += 1;
        }
        best
    }
}

/// The basis of a span, in the order of its leading bits, and its size.
const fn basis_of(s: &Span) -> ([u32; 32], usize) {
    let mut out = [0u32; 32];
    let mut n = 0;
    let mut b = 0;
    while b < 32 {
        if s.lead(b) != 0 {
            out[n] = s.lead(b);
            n += 1;
        }
        b += 1;
    }
    (out, n)
}

/// The layout of the module's construction for vector widths `2^kw` (write) and `2^kr` (read), or
/// `None` if the accesses cannot have them together.
const fn construct(
    model: &BankModel,
    tile: &Coordinates,
    element_bytes: u32,
    write: &Access,
    read: &Access,
    kw: u32,
    kr: u32,
) -> Option<LinearLayout> {
    let n = tile.to_tile.in_bits() as usize;
    let (long, short, kl, ks) = if kw >= kr { (write, read, kw, kr) } else { (read, write, kr, kw) };
    // Offset bit j holds element c[j]. The vector bits: the wider access's values, which the
    // narrower's must begin with.
    let mut c = [0u32; 32];
    let (mut v, mut vs) = (Span::EMPTY, Span::EMPTY);
    let mut j = 0;
    while j < kl {
        let x = long.tv.basis(long.thread_bits + j);
        if j < ks && short.tv.basis(short.thread_bits + j) != x || !v.insert(x) {
            return None;
        }
        if j < ks {
            vs.insert(x);
        }
        c[j as usize] = x;
        j += 1;
    }
    // Alignment: the wider access's other inputs (LO) lie in the span D of the bits above the
    // vector, a complement of V; the narrower's, with the wider's extra vector bits, in U + D.
    let lo = others(long, kl);
    let mut z = others(short, ks);
    z.join(&lo);
    let mut k = ks;
    while k < kl {
        z.insert(c[k as usize]);
        k += 1;
    }
    let mut lo_v = lo;
    lo_v.join(&v);
    let mut z_vs = z;
    z_vs.join(&vs);
    if lo_v.dim() != v.dim() + lo.dim() || z_vs.dim() != vs.dim() + z.dim() {
        return None;
    }
    let mut st = State {
        v,
        m_lo: lo,
        m_lo_v: lo_v,
        m_z: z,
        m_z_vs: z_vs,
        room_lo: n as u32 - kl,
        room_z: n as u32 - ks,
        coords: tile.to_tile,
        m: Span::EMPTY,
        aw: phase_span(model, write, element_bytes, kw),
        ar: phase_span(model, read, element_bytes, kr),
    };
    let mut j = 0;
    while j < kl {
        if matches!(place(model, element_bytes, j), Place::Sub) {
            st.aw.insert(c[j as usize]);
            st.ar.insert(c[j as usize]);
        }
        j += 1;
    }
    // Candidates in the tile's own order (the element at offset 2^j first), so that ties keep the
    // tile's arrangement.
    let mut cand = [0u32; 32];
    let mut i = 0;
    while i < n {
        cand[i] = tile.from_tile.basis(i as u32);
        i += 1;
    }
    // Candidates: sums of the tile's, LO's and Z's basis vectors.
    let (lo_b, lo_n) = basis_of(&lo);
    let (z_b, z_n) = basis_of(&z);
    let lists = [cand, lo_b, z_b];
    let counts = [n, lo_n, z_n];
    // Sub-word bits past the vector, then the line bits.
    let mut pos = kl as usize;
    while pos < n && matches!(place(model, element_bytes, pos as u32), Place::Sub) {
        if !st.fill(&mut c, pos, &lists, &counts, false) {
            return None;
        }
        pos += 1;
    }
    let mut line = pos;
    while line < n && !matches!(place(model, element_bytes, line as u32), Place::Line) {
        line += 1;
    }
    let mut l = line;
    while l < n {
        if !st.fill(&mut c, l, &lists, &counts, true) {
            return None;
        }
        l += 1;
    }
    // Bank bits: complete M to D, a complement of V with LO + M in it and U + D = D2, where D2 is
    // Z + M extended by tile vectors to a complement of V_s (V = V_s + U). Every vector below
    // lies in D2 and joins when independent of D + V so far, so D + U spans D2. The tile's own
    // vectors come first, so that a tile bit keeps its offset where it can.
    let mut ext = [0u32; 32];
    let mut ext_n = 0;
    let mut grow = st.m_z_vs;
    let mut i = 0;
    while i < n {
        if grow.insert(cand[i]) {
            ext[ext_n] = cand[i];
            ext_n += 1;
        }
        i += 1;
    }
    let (lo_leads, lo_leads_n) = basis_of(&st.m_lo);
    let (z_leads, z_leads_n) = basis_of(&st.m_z);
    let mut d = st.m;
    d.join(&st.v);
    let mut pass = 0;
    while pass < 5 {
        let (list, len) = match pass {
            0 | 2 => (&cand, n),
            1 => (&lo_leads, lo_leads_n),
            3 => (&z_leads, z_leads_n),
            _ => (&ext, ext_n),
        };
        let mut i = 0;
        while i < len && pos < line {
            let x = list[i];
            let inside = match pass {
                0 => st.m_lo.contains(x),
                2 => st.m_z.contains(x),
                _ => true,
            };
            if inside && d.insert(x) {
                c[pos] = x;
                pos += 1;
            }
            i += 1;
        }
        pass += 1;
    }
    if pos != line {
        return None;
    }
    canonical(&mut c, kl as usize, line, n, model, element_bytes, tile);
    let (basis, _) = c.split_at(n);
    match LinearLayout::new(basis, n as u32) {
        Ok(inv) => match inv.invert() {
            Ok(smem) => Some(smem),
            Err(_) => None,
        },
        Err(_) => None,
    }
}

/// Rewrites each class of offset bits past the vector (sub-word, bank, line) in reduced echelon
/// form in the tile's coordinates, leading bits ascending: the same subspaces (sub-word and line
/// bits, and their sum with the bank bits), so the same score, but each offset bit holds the
/// tile's element of that bit plus what the swizzle mixes in, as `Sw<B,M,S> o tile` reads. Bank
/// vectors drop their parts in the sub-word and line bits' span first.
const fn canonical(
    c: &mut [u32; 32],
    kl: usize,
    line: usize,
    n: usize,
    model: &BankModel,
    element_bytes: u32,
    tile: &Coordinates,
) {
    let mut sub_end = kl;
    while sub_end < line && matches!(place(model, element_bytes, sub_end as u32), Place::Sub) {
        sub_end += 1;
    }
    // Every vector in tile coordinates, and the sub-word and line bits' span reduced.
    let mut y = [0u32; 32];
    let mut reduced = [0u32; 32];
    let mut i = kl;
    while i < n {
        y[i] = tile.to_tile.apply(c[i]);
        if i < sub_end || i >= line {
            reduced[i] = y[i];
        }
        i += 1;
    }
    reduce_rows(&mut reduced, kl, n);
    // Bank vectors modulo the sub-word and line bits.
    let mut i = sub_end;
    while i < line {
        let mut j = kl;
        while j < n {
            if (j < sub_end || j >= line) && reduced[j] != 0 {
                let lead = 31 - reduced[j].leading_zeros();
                if y[i] >> lead & 1 == 1 {
                    y[i] ^= reduced[j];
                }
            }
            j += 1;
        }
        i += 1;
    }
    reduce_rows(&mut y, kl, sub_end);
    reduce_rows(&mut y, sub_end, line);
    reduce_rows(&mut y, line, n);
    let mut i = kl;
    while i < n {
        c[i] = tile.from_tile.apply(y[i]);
        i += 1;
    }
}

/// Puts `rows[from..to]` (independent) in reduced row echelon form, sorted by leading bit
/// ascending.
const fn reduce_rows(rows: &mut [u32; 32], from: usize, to: usize) {
    // Gauss-Jordan: each row's leading bit cleared from every other row.
    let mut i = from;
    while i < to {
        // The row with the highest leading bit among i.. goes to i.
        let mut best = i;
        let mut j = i + 1;
        while j < to {
            if rows[j].leading_zeros() < rows[best].leading_zeros() {
                best = j;
            }
            j += 1;
        }
        let t = rows[i];
        rows[i] = rows[best];
        rows[best] = t;
        if rows[i] != 0 {
            let lead = 31 - rows[i].leading_zeros();
            let mut k = from;
            while k < to {
                if k != i && rows[k] >> lead & 1 == 1 {
                    rows[k] ^= rows[i];
                }
                k += 1;
            }
        }
        i += 1;
    }
    // Highest lead first above; ascending wanted.
    reverse(rows, from, to);
}

/// Reverses `v[from..to]`.
const fn reverse(v: &mut [u32; 32], from: usize, to: usize) {
    let (mut a, mut b) = (from, to);
    while a + 1 < b {
        b -= 1;
        let t = v[a];
        v[a] = v[b];
        v[b] = t;
        a += 1;
    }
}
