//! MMA and copy atoms (`const_layout::atom`) against CuTe C++'s `MMA_Traits`, `Copy_Traits` and
//! `TiledMMA` (`tests/data/cute_atoms.txt`, from `tools/oracle/gen_atom_vectors.py`), and against
//! the PTX ISA's fragment figures, computed here from the ISA's formulas.

use const_layout::algebra::TileMode;
use const_layout::algebra::computed::{Keep, StaticLayout};
use const_layout::atom::*;
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::{C, layout_type};

const VECTORS: &str = include_str!("../data/cute_atoms.txt");
const GMMA: &str = include_str!("../data/cute_gmma.txt");

fn rows(kind: &str) -> impl Iterator<Item = Vec<&'static str>> + '_ {
    rows_of(VECTORS, kind)
}

fn rows_of<'a>(file: &'static str, kind: &'a str) -> impl Iterator<Item = Vec<&'static str>> + 'a {
    file.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(move |f| f[0] == kind)
}

/// An MMA atom as CuTe prints its traits: `M,N,K`, ThrID, A, B, C.
fn mma_text<A: MmaAtom>() -> [String; 5] {
    let [m, n, k] = A::SHAPE_MNK;
    [
        format!("{m},{n},{k}"),
        A::ThrID::LAYOUT.to_string(),
        A::ALayout::LAYOUT.to_string(),
        A::BLayout::LAYOUT.to_string(),
        A::CLayout::LAYOUT.to_string(),
    ]
}

fn copy_text<A: CopyAtom>() -> [String; 4] {
    [
        A::ThrID::LAYOUT.to_string(),
        A::SrcLayout::LAYOUT.to_string(),
        A::DstLayout::LAYOUT.to_string(),
        A::RefLayout::LAYOUT.to_string(),
    ]
}

macro_rules! by_name {
    ($name:expr, $f:ident; $($t:ty),+ $(,)?) => {{
        let mut found = None;
        $(if $name == stringify!($t).replace(' ', "") { found = Some($f::<$t>()); })+
        found
    }};
}

fn mma_by_name(name: &str) -> Option<[String; 5]> {
    by_name!(name, mma_text;
        SM80_16x8x8_F32F16F16F32_TN, SM80_16x8x8_F16F16F16F16_TN, SM80_16x8x8_F32BF16BF16F32_TN,
        SM80_16x8x16_F32F16F16F32_TN, SM80_16x8x16_F16F16F16F16_TN, SM80_16x8x16_F32BF16BF16F32_TN,
        SM90_64xNx16_F32F16F16_SS<8>, SM90_64xNx16_F32F16F16_SS<32>, SM90_64xNx16_F32F16F16_SS<96>, SM90_64xNx16_F32F16F16_SS<256>,
        SM90_64xNx16_F32F16F16_RS<8>, SM90_64xNx16_F32F16F16_RS<32>, SM90_64xNx16_F32F16F16_RS<96>, SM90_64xNx16_F32F16F16_RS<256>,
        SM90_64xNx16_F16F16F16_SS<8>, SM90_64xNx16_F16F16F16_SS<32>, SM90_64xNx16_F16F16F16_SS<96>, SM90_64xNx16_F16F16F16_SS<256>,
        SM90_64xNx16_F16F16F16_RS<8>, SM90_64xNx16_F16F16F16_RS<32>, SM90_64xNx16_F16F16F16_RS<96>, SM90_64xNx16_F16F16F16_RS<256>,
        SM90_64xNx16_F32BF16BF16_SS<8>, SM90_64xNx16_F32BF16BF16_SS<32>, SM90_64xNx16_F32BF16BF16_SS<96>, SM90_64xNx16_F32BF16BF16_SS<256>,
        SM90_64xNx16_F32BF16BF16_RS<8>, SM90_64xNx16_F32BF16BF16_RS<32>, SM90_64xNx16_F32BF16BF16_RS<96>, SM90_64xNx16_F32BF16BF16_RS<256>,
    )
}

fn copy_by_name(name: &str) -> Option<[String; 4]> {
    by_name!(name, copy_text;
        SM75_U32x1_LDSM_N, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T,
        SM80_CP_ASYNC_CACHEALWAYS<u128>, SM80_CP_ASYNC_CACHEALWAYS<u64>, SM80_CP_ASYNC_CACHEALWAYS<u32>,
        SM80_CP_ASYNC_CACHEGLOBAL<u128>, UniversalCopy<u16>, UniversalCopy<u32>, UniversalCopy<u128>,
    )
}

/// CuTe's names for the element types in the vectors' copy atoms.
fn rust_name(cute: &str) -> String {
    cute.replace("uint128_t", "u128")
        .replace("uint64_t", "u64")
        .replace("uint32_t", "u32")
        .replace("uint16_t", "u16")
}

#[test]
fn mma_atoms_are_cutes() {
    let mut n = 0;
    for f in rows("mma") {
        let ours = mma_by_name(f[1]).unwrap_or_else(|| panic!("no atom {}", f[1]));
        assert_eq!(ours.iter().map(String::as_str).collect::<Vec<_>>(), f[2..7], "{}", f[1]);
        n += 1;
    }
    assert_eq!(n, 6 + 6 * 4);
}

#[test]
fn copy_atoms_are_cutes() {
    let mut n = 0;
    for f in rows("copy") {
        let ours = copy_by_name(&rust_name(f[1])).unwrap_or_else(|| panic!("no atom {}", f[1]));
        assert_eq!(ours.iter().map(String::as_str).collect::<Vec<_>>(), f[2..6], "{}", f[1]);
        n += 1;
    }
    assert_eq!(n, 13);
}

/// The atoms the tilings use, as values: ThrID, A, B, C, shape.
fn atom_layouts(name: &str) -> ([DynLayout; 4], [isize; 3]) {
    fn of<A: MmaAtom>() -> ([DynLayout; 4], [isize; 3]) {
        let s = A::SHAPE_MNK;
        (
            [A::ThrID::LAYOUT, A::ALayout::LAYOUT, A::BLayout::LAYOUT, A::CLayout::LAYOUT],
            [s[0] as isize, s[1] as isize, s[2] as isize],
        )
    }
    match name {
        "SM80_16x8x16_F32F16F16F32_TN" => of::<SM80_16x8x16_F32F16F16F32_TN>(),
        "SM80_16x8x8_F16F16F16F16_TN" => of::<SM80_16x8x8_F16F16F16F16_TN>(),
        "SM90_64x64x16_F32F16F16_SS" => of::<SM90_64xNx16_F32F16F16_SS<64>>(),
        "SM90_64x32x16_F16F16F16_RS" => of::<SM90_64xNx16_F16F16F16_RS<32>>(),
        _ => panic!("no atom {name}"),
    }
}

fn perm_item(text: &str) -> TileMode {
    if text == "_" {
        TileMode::Keep
    } else if text.contains(':') {
        TileMode::Layout(text.parse().unwrap())
    } else {
        TileMode::Shape(text.parse::<DynIntTuple>().unwrap())
    }
}

/// Every tiling CuTe computed, through `tiled_mma_layouts`: the thread layout, the tile and the
/// three thread-value layouts, text for text.
#[test]
fn tiled_mmas_are_cutes() {
    let mut n = 0;
    for f in rows("tiled_mma") {
        let ([thr, a, b, c], shape) = atom_layouts(f[1]);
        let thr_layout: DynLayout = f[2].parse().unwrap();
        let p: Vec<TileMode> = f[3].split('|').map(perm_item).collect();
        let t = tiled_mma_layouts(&thr, &a, &b, &c, shape, &thr_layout, &[p[0], p[1], p[2]])
            .unwrap_or_else(|e| panic!("{} {} {}: {e}", f[1], f[2], f[3]));
        let tile = format!("{},{},{}", t.tile_mnk[0], t.tile_mnk[1], t.tile_mnk[2]);
        let ours = [
            t.thr_layout_vmnk.to_string(),
            tile,
            t.layout_a_tv.to_string(),
            t.layout_b_tv.to_string(),
            t.layout_c_tv.to_string(),
        ];
        assert_eq!(
            ours.iter().map(String::as_str).collect::<Vec<_>>(),
            f[4..9],
            "{} {} {}",
            f[1],
            f[2],
            f[3]
        );
        n += 1;
    }
    assert!(n >= 120, "{n} tilings");
}

/// The tilings of CUTLASS's examples through the static `make_tiled_mma`: constants and
/// zero-sized layouts equal to CuTe's.
#[test]
fn static_tiled_mmas_are_cutes() {
    let row = |atom: &str, thr: &str, perm: &str| -> Vec<&'static str> {
        rows("tiled_mma")
            .find(|f| f[1] == atom && f[2] == thr && f[3] == perm)
            .expect("the generator's fixed tilings")
    };
    let check = |f: Vec<&str>, vmnk: String, tile: [usize; 3], a: String, b: String, c: String| {
        assert_eq!([vmnk.as_str(), &format!("{},{},{}", tile[0], tile[1], tile[2]), &a, &b, &c], f[4..9]);
    };

    let hgemm = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!((2, 2):(1, 2))>::default(),
        (C::<32>, C::<32>, C::<16>),
    );
    let f = row("SM80_16x8x16_F32F16F16F32_TN", "(_2,_2):(_1,_2)", "_32|_32|_16");
    check(
        f,
        hgemm.thr_layout_vmnk().to_string(),
        hgemm.tile_mnk(),
        hgemm.layout_a_tv().to_string(),
        hgemm.layout_b_tv().to_string(),
        hgemm.layout_c_tv().to_string(),
    );
    assert_eq!(hgemm.size(), 128);
    assert_eq!(core::mem::size_of_val(&hgemm.layout_c_tv()), 0);

    let plain = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!((2, 2, 1):(1, 2, 0))>::default(),
        (Keep, Keep, Keep),
    );
    let f = row("SM80_16x8x16_F32F16F16F32_TN", "(_2,_2,_1):(_1,_2,_0)", "_|_|_");
    check(
        f,
        plain.thr_layout_vmnk().to_string(),
        plain.tile_mnk(),
        plain.layout_a_tv().to_string(),
        plain.layout_b_tv().to_string(),
        plain.layout_c_tv().to_string(),
    );

    let wg = make_tiled_mma(
        SM90_64xNx16_F32F16F16_SS::<64>::default(),
        <layout_type!((2, 1, 1):(1, 0, 0))>::default(),
        (Keep, Keep, Keep),
    );
    let f = row("SM90_64x64x16_F32F16F16_SS", "(_2,_1,_1):(_1,_0,_0)", "_|_|_");
    check(
        f,
        wg.thr_layout_vmnk().to_string(),
        wg.tile_mnk(),
        wg.layout_a_tv().to_string(),
        wg.layout_b_tv().to_string(),
        wg.layout_c_tv().to_string(),
    );
    assert_eq!(wg.size(), 256);
}

/// `mma.m16n8k16` (f16 inputs) and `m16n8k8`: the PTX ISA's fragment figures ("Matrix Fragments for
/// mma.m16n8k16 with floating point type"), with `groupID = lane / 4` and
/// `threadID_in_group = lane % 4`.
#[test]
fn sm80_fragments_follow_the_ptx_isa() {
    fn check<A: MmaAtom>(k: usize) {
        let a = A::ALayout::LAYOUT;
        let b = A::BLayout::LAYOUT;
        let c = A::CLayout::LAYOUT;
        for lane in 0..32 {
            let (group, tig) = (lane / 4, lane % 4);
            for i in 0..k / 2 {
                // a_i: row groupID (+8 for a2, a3, a6, a7), column 2 tig + i%2 (+8 from a4 on).
                let (row, col) = (group + 8 * (i / 2 % 2), 2 * tig + i % 2 + 8 * (i / 4));
                assert_eq!(
                    a.offset((lane + 32 * i) as isize),
                    (row + 16 * col) as isize,
                    "{} A lane {lane} a{i}",
                    A::NAME
                );
            }
            for i in 0..k / 4 {
                // b_i: row (k) 2 tig + i%2 (+8 for b2, b3), column (n) groupID.
                let (row, col) = (2 * tig + i % 2 + 8 * (i / 2), group);
                assert_eq!(
                    b.offset((lane + 32 * i) as isize),
                    (col + 8 * row) as isize,
                    "{} B lane {lane} b{i}",
                    A::NAME
                );
            }
            for i in 0..4 {
                // c_i: row groupID (+8 for c2, c3), column 2 tig + i%2.
                let (row, col) = (group + 8 * (i / 2), 2 * tig + i % 2);
                assert_eq!(
                    c.offset((lane + 32 * i) as isize),
                    (row + 16 * col) as isize,
                    "{} C lane {lane} c{i}",
                    A::NAME
                );
            }
        }
    }
    check::<SM80_16x8x16_F32F16F16F32_TN>(16);
    check::<SM80_16x8x16_F16F16F16F16_TN>(16);
    check::<SM80_16x8x16_F32BF16BF16F32_TN>(16);
    check::<SM80_16x8x8_F32F16F16F32_TN>(8);
    check::<SM80_16x8x8_F16F16F16F16_TN>(8);
}

/// `wgmma .m64nNk16` accumulators (the ISA's "WGMMA .m64nNk16 register fragment layout for
/// accumulator matrix D"): thread `t` of warp `w` holds `d_i` at row `16 w + t/4` (+8 for
/// `i % 4 >= 2`), column `8 (i / 4) + 2 (t % 4) + i % 2`; and `A` from registers, the same rows
/// with `k` for columns.
#[test]
fn sm90_fragments_follow_the_ptx_isa() {
    fn check<A: MmaAtom>() {
        let [m, n, _] = A::SHAPE_MNK;
        let c = A::CLayout::LAYOUT;
        for t in 0..128 {
            let (w, lane) = (t / 32, t % 32);
            for i in 0..n / 2 {
                let row = 16 * w + lane / 4 + 8 * (i % 4 / 2);
                let col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
                assert_eq!(
                    c.offset((t + 128 * i) as isize),
                    (row + m * col) as isize,
                    "{} D t{t} d{i}",
                    A::NAME
                );
            }
        }
    }
    check::<SM90_64xNx16_F32F16F16_SS<8>>();
    check::<SM90_64xNx16_F32F16F16_SS<64>>();
    check::<SM90_64xNx16_F16F16F16_RS<256>>();
    let a = <SM90_64xNx16_F32F16F16_RS<64> as MmaAtom>::ALayout::LAYOUT;
    for t in 0..128 {
        let (w, lane) = (t / 32, t % 32);
        for i in 0..8 {
            let row = 16 * w + lane / 4 + 8 * (i % 4 / 2);
            let col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
            assert_eq!(a.offset((t + 128 * i) as isize), (row + 64 * col) as isize, "A t{t} a{i}");
        }
    }
}

/// `ldmatrix` (the ISA's "Fragment layout for .m8n8"): without `.trans` thread `t` receives the
/// 32 bits of row `t / 4` at column pair `t % 4` of each matrix; with `.trans`, the elements at
/// rows `2 (t % 4)` and `2 (t % 4) + 1` of column `t / 4`. Threads `8 j .. 8 j + 7` give the rows
/// of matrix `j`.
#[test]
fn ldmatrix_follows_the_ptx_isa() {
    fn plain<A: CopyAtom>(matrices: usize) {
        let (src, dst) = (A::SrcLayout::LAYOUT, A::DstLayout::LAYOUT);
        for t in 0..32 {
            for r in 0..matrices {
                for bit in 0..32 {
                    let want = 1024 * r + 128 * (t / 4) + 32 * (t % 4) + bit;
                    assert_eq!(
                        dst.offset((t + 32 * (bit + 32 * r)) as isize),
                        want as isize,
                        "{} t{t} r{r}",
                        A::NAME
                    );
                }
            }
            if t < 8 * matrices {
                // The address thread t gives: row t (of 128 bits) of the stacked matrices.
                assert_eq!(src.offset(t as isize), 128 * t as isize, "{} t{t}", A::NAME);
            }
        }
    }
    fn trans<A: CopyAtom>(matrices: usize) {
        let dst = A::DstLayout::LAYOUT;
        for t in 0..32 {
            for r in 0..matrices {
                for e in 0..2 {
                    for bit in 0..16 {
                        let row = 2 * (t % 4) + e;
                        let want = 1024 * r + 128 * row + 16 * (t / 4) + bit;
                        let v = bit + 16 * (e + 2 * r);
                        assert_eq!(
                            dst.offset((t + 32 * v) as isize),
                            want as isize,
                            "{} t{t} r{r} e{e}",
                            A::NAME
                        );
                    }
                }
            }
        }
    }
    plain::<SM75_U32x1_LDSM_N>(1);
    plain::<SM75_U32x2_LDSM_N>(2);
    plain::<SM75_U32x4_LDSM_N>(4);
    trans::<SM75_U16x2_LDSM_T>(1);
    trans::<SM75_U16x4_LDSM_T>(2);
    trans::<SM75_U16x8_LDSM_T>(4);
}

/// What a tiled MMA must be, whatever CuTe prints: `C`'s thread-value layout is a bijection onto
/// the `M x N` tile; `A`'s covers the `M x K` tile once for every thread column in `N` (those
/// threads read the same `A`), `B`'s once for every thread row in `M`; an operand a `wgmma` reads
/// from shared memory is seen whole by each of the warp group's 128 threads. (Tilings with threads
/// along `K` are left out: there CuTe's `get_layoutC_TV`, which ours reproduces text for text
/// above, sends the threads past the first `K` group beyond the tile.)
#[test]
fn tiled_mmas_cover_their_tiles() {
    let mut checked = 0;
    for f in rows("tiled_mma") {
        let ([thr, a, b, c], shape) = atom_layouts(f[1]);
        let p: Vec<TileMode> = f[3].split('|').map(perm_item).collect();
        let t =
            tiled_mma_layouts(&thr, &a, &b, &c, shape, &f[2].parse().unwrap(), &[p[0], p[1], p[2]]).unwrap();
        let vmnk = t.thr_layout_vmnk;
        let thr_in = |i: usize| vmnk.mode(i).unwrap().size().value as usize;
        if thr_in(3) > 1 {
            continue;
        }
        checked += 1;
        let [tm, tn, tk] = t.tile_mnk.map(|x| x as usize);
        let covers = |l: &DynLayout, cells: usize, times: usize, what: &str| {
            let mut seen = vec![0usize; cells];
            for i in 0..l.size().value {
                let o = l.offset(i);
                assert!((0..cells as isize).contains(&o), "{what} {}: offset {o} outside the tile", f[2]);
                seen[o as usize] += 1;
            }
            assert!(seen.iter().all(|&n| n == times), "{what} {} {}: not {times} times each", f[1], f[2]);
        };
        let shared = |l: &DynLayout| if l.to_string().starts_with("(_128,") { 128 } else { 1 };
        covers(&t.layout_c_tv, tm * tn, 1, "C");
        covers(&t.layout_a_tv, tm * tk, thr_in(2) * shared(&a), "A");
        covers(&t.layout_b_tv, tn * tk, thr_in(1) * shared(&b), "B");
    }
    assert!(checked >= 60, "{checked} tilings");
}

#[test]
fn a_tile_the_atoms_do_not_divide_is_an_error() {
    let ([thr, a, b, c], shape) = atom_layouts("SM80_16x8x16_F32F16F16F32_TN");
    let one: DynLayout = "(_2,_1):(_1,_0)".parse().unwrap();
    let perm = [TileMode::Shape("_48".parse().unwrap()), TileMode::Keep, TileMode::Keep];
    let e = tiled_mma_layouts(&thr, &a, &b, &c, shape, &one, &perm).unwrap_err();
    assert_eq!(e.to_string(), "make_tiled_mma: the tile of M (48) is not a multiple of the atoms' M (32)");
    let four: DynLayout = "(_1,_1,_1,_2):(_0,_0,_0,_1)".parse().unwrap();
    assert!(tiled_mma_layouts(&thr, &a, &b, &c, shape, &four, &[TileMode::Keep; 3]).is_err());
}

fn copy_layouts<A: CopyAtom>() -> [DynLayout; 4] {
    [A::ThrID::LAYOUT, A::SrcLayout::LAYOUT, A::DstLayout::LAYOUT, A::RefLayout::LAYOUT]
}

fn copy_atom_by_name(name: &str) -> [DynLayout; 4] {
    by_name!(name, copy_layouts;
        SM75_U32x4_LDSM_N, SM75_U32x2_LDSM_N, SM75_U16x8_LDSM_T,
        SM80_CP_ASYNC_CACHEALWAYS<u128>, SM80_CP_ASYNC_CACHEALWAYS<u64>, SM80_CP_ASYNC_CACHEGLOBAL<u128>,
        UniversalCopy<u32>, UniversalCopy<u128>, UniversalCopy<f32>,
    )
    .unwrap_or_else(|| panic!("no copy atom {name}"))
}

fn element_bits(name: &str) -> isize {
    match name {
        "F16" => 16,
        "f32" => 32,
        "u8" => 8,
        _ => panic!("no element {name}"),
    }
}

/// `(thread, value)` covers the tile once: a tiled copy moves every element exactly once.
fn bijective(l: &DynLayout, cells: isize, what: &str) {
    let mut seen = vec![false; cells as usize];
    assert_eq!(l.size().value, cells, "{what}: size");
    for i in 0..cells {
        let o = l.offset(i);
        assert!((0..cells).contains(&o) && !seen[o as usize], "{what}: offset {o} twice or outside");
        seen[o as usize] = true;
    }
}

/// Every generated `make_tiled_copy` CuTe computed, through `make_tiled_copy_layouts` and
/// `tiled_copy_layouts`, text for text, and each a bijection onto its tile.
#[test]
fn tiled_copies_are_cutes() {
    let mut n = 0;
    for f in rows("tiled_copy") {
        let [_, src, dst, refl] = copy_atom_by_name(f[1]);
        let (tv, tiler) = make_tiled_copy_layouts(&f[3].parse().unwrap(), &f[4].parse().unwrap()).unwrap();
        let t = tiled_copy_layouts(&src, &dst, &refl, element_bits(f[2]), &tv, &tiler)
            .unwrap_or_else(|e| panic!("{} {} {}: {e}", f[1], f[3], f[4]));
        let ours = [
            t.tiler_mn.to_string(),
            t.layout_tv.to_string(),
            t.layout_s_tv.to_string(),
            t.layout_d_tv.to_string(),
        ];
        assert_eq!(
            ours.iter().map(String::as_str).collect::<Vec<_>>(),
            f[5..9],
            "{} {} {}",
            f[1],
            f[3],
            f[4]
        );
        let cells = DynLayout::compact(t.tiler_mn, true).unwrap().size().value;
        bijective(&t.layout_s_tv, cells, f[1]);
        bijective(&t.layout_d_tv, cells, f[1]);
        n += 1;
    }
    assert!(n >= 60, "{n} tiled copies");
}

/// The static `make_tiled_copy` and `make_tiled_copy_A`/`_B`/`_C` against CuTe's rows.
#[test]
fn static_tiled_copies_are_cutes() {
    fn text<Op: CopyAtom, T: Element, S: TiledCopySource>(c: TiledCopy<Op, T, S>) -> [String; 4] {
        [
            c.tiler_mn().to_string(),
            c.layout_tv().to_string(),
            c.layout_s_tv().to_string(),
            c.layout_d_tv().to_string(),
        ]
    }
    let row = |kind: &str, atom: &str, tail: &str| -> Vec<&'static str> {
        rows(kind).find(|f| f[1] == atom && f[3] == tail).unwrap_or_else(|| panic!("{kind} {atom} {tail}"))
    };
    let cp = make_tiled_copy(
        Copy_Atom::<SM80_CP_ASYNC_CACHEALWAYS<u128>, F16>::default(),
        <layout_type!((16, 8):(8, 1))>::default(),
        <layout_type!((1, 8))>::default(),
    );
    assert_eq!(text(cp), row("tiled_copy", "SM80_CP_ASYNC_CACHEALWAYS<u128>", "(_16,_8):(_8,_1)")[5..9]);

    let hgemm = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!((2, 2):(1, 2))>::default(),
        (C::<32>, C::<32>, C::<16>),
    );
    let plain = make_tiled_mma(
        SM80_16x8x16_F32F16F16F32_TN,
        <layout_type!((2, 2, 1):(1, 2, 0))>::default(),
        (Keep, Keep, Keep),
    );
    let ldsm_a = Copy_Atom::<SM75_U32x4_LDSM_N, F16>::default();
    let ldsm_b = Copy_Atom::<SM75_U32x2_LDSM_N, F16>::default();
    let ldsm_t = Copy_Atom::<SM75_U16x8_LDSM_T, F16>::default();
    let c = Copy_Atom::<UniversalCopy<f32>, f32>::default();
    assert_eq!(
        text(make_tiled_copy_A(ldsm_a, hgemm)),
        row("tiled_copy_A", "SM75_U32x4_LDSM_N", "hgemm")[4..8]
    );
    assert_eq!(
        text(make_tiled_copy_B(ldsm_b, hgemm)),
        row("tiled_copy_B", "SM75_U32x2_LDSM_N", "hgemm")[4..8]
    );
    assert_eq!(
        text(make_tiled_copy_A(ldsm_t, hgemm)),
        row("tiled_copy_A", "SM75_U16x8_LDSM_T", "hgemm")[4..8]
    );
    assert_eq!(text(make_tiled_copy_C(c, hgemm)), row("tiled_copy_C", "UniversalCopy<f32>", "hgemm")[4..8]);
    assert_eq!(
        text(make_tiled_copy_A(ldsm_a, plain)),
        row("tiled_copy_A", "SM75_U32x4_LDSM_N", "plain")[4..8]
    );
    assert_eq!(
        text(make_tiled_copy_B(ldsm_b, plain)),
        row("tiled_copy_B", "SM75_U32x2_LDSM_N", "plain")[4..8]
    );
    assert_eq!(
        text(make_tiled_copy_A(ldsm_t, plain)),
        row("tiled_copy_A", "SM75_U16x8_LDSM_T", "plain")[4..8]
    );
    assert_eq!(text(make_tiled_copy_C(c, plain)), row("tiled_copy_C", "UniversalCopy<f32>", "plain")[4..8]);
}

#[test]
fn a_copy_the_atom_does_not_fit_is_an_error() {
    // 8 halves per cp.async of 16 bytes, but each thread has 4: CuTe's static assertion.
    let [_, src, dst, refl] = copy_atom_by_name("SM80_CP_ASYNC_CACHEALWAYS<u128>");
    let (tv, tiler) =
        make_tiled_copy_layouts(&"(_32,_4):(_4,_1)".parse().unwrap(), &"(_1,_4):(_0,_1)".parse().unwrap())
            .unwrap();
    let e = tiled_copy_layouts(&src, &dst, &refl, 16, &tv, &tiler).unwrap_err();
    assert_eq!(e, const_layout::LayoutError::NotDivisible { a: 4, b: 8 });
}

fn gmma_major(s: &str) -> gmma::Major {
    if s == "K" { gmma::Major::K } else { gmma::Major::MN }
}

fn gmma_type(s: &str) -> gmma::LayoutType {
    match s {
        "INTER" => gmma::LayoutType::Interleave,
        "SW32" => gmma::LayoutType::B32,
        "SW64" => gmma::LayoutType::B64,
        _ => gmma::LayoutType::B128,
    }
}

fn pair(s: &str) -> Vec<isize> {
    s.split(',').map(|x| x.parse().unwrap()).collect()
}

/// CuTe's `GMMA::Layout_*_Atom<T>` for 8-, 16- and 32-bit elements: the same inner layout, and
/// CuTe's `Swizzle<B,4,3>` on bytes as `Swizzle<B, 4 - log2(bytes), 3>` on elements.
#[test]
fn gmma_atoms_are_cutes() {
    let mut n = 0;
    for f in rows_of(GMMA, "gmma_atom") {
        let bits: usize = f[1].parse().unwrap();
        let a = gmma::layout_atom(gmma_major(f[2]), gmma_type(f[3]), bits).unwrap();
        assert_eq!(a.inner().to_string(), f[4], "{f:?}");
        let b: u32 = f[5][3..4].parse().unwrap();
        let want = const_layout::swizzle::Swizzle::new(b, 7 - bits.trailing_zeros(), 3).unwrap();
        assert_eq!(*a.outer(), const_layout::swizzle::Outer::Swizzle(want), "{f:?}");
        n += 1;
    }
    assert_eq!(n, 24);
}

/// Every block of every tile CuTe built from those atoms: `tile_to_shape`, `local_tile` and
/// `make_gmma_desc` give CuTe's layouts, offsets and descriptors (CuTe's start addresses are 0 on
/// the host; ours is the block's offset in 16-byte units).
#[test]
fn gmma_descriptors_are_cutes() {
    use const_layout::algebra::{Tiler, local_tile, tile_to_shape};
    use const_layout::swizzle::ComposedLayout;
    let mut n = 0;
    for f in rows_of(GMMA, "gmma_desc") {
        let bits: usize = f[1].parse().unwrap();
        let (major, ty) = (gmma_major(f[2]), gmma_type(f[3]));
        let (tile, block) = (pair(f[4]), pair(f[5]));
        let atom = gmma::layout_atom(major, ty, bits).unwrap();
        let shape: DynIntTuple = format!("(_{},_{})", tile[0], tile[1]).parse().unwrap();
        let t = tile_to_shape(atom.inner(), &shape, None).unwrap();
        assert_eq!(t.to_string(), f[6], "{f:?}");
        let tiler: Tiler = format!("(_{},_{})", block[0], block[1]).parse().unwrap();
        let coord: DynIntTuple = format!("({},{})", block[2], block[3]).parse().unwrap();
        let p = local_tile(&t, &tiler, &coord).unwrap();
        assert_eq!((p.layout.to_string().as_str(), p.offset.to_string().as_str()), (f[7], f[8]), "{f:?}");
        let blk = ComposedLayout::with_offset(*atom.outer(), DynInt::new_static(p.offset), p.layout);
        let d = gmma::make_gmma_desc(major, &blk, bits, 0).unwrap_or_else(|e| panic!("{f:?}: {e}"));
        let cute = u64::from_str_radix(&f[9][2..], 16).unwrap();
        assert_eq!(d.0 & !0x3fff, cute & !0x3fff, "{f:?}: {d:x?}");
        assert_eq!(d.start_address() as isize, (p.offset * bits as isize / 8 / 16) & 0x3fff, "{f:?}");
        n += 1;
    }
    assert_eq!(n, 180);
}

#[test]
fn a_non_canonical_gmma_block_is_an_error() {
    use const_layout::swizzle::ComposedLayout;
    let atom = gmma::layout_atom(gmma::Major::K, gmma::LayoutType::B128, 16).unwrap();
    // Rows 2 apart: not the 8 consecutive 128-byte rows a 128-byte swizzled K-major block has.
    let spread = ComposedLayout::with_offset(
        *atom.outer(),
        DynInt::new_static(0),
        "((_8,_8),_16):((_128,_1024),_1)".parse().unwrap(),
    );
    let e = gmma::make_gmma_desc(gmma::Major::K, &spread, 16, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "make_gmma_desc (K-major): not a canonical layout: the stride of the 8 rows in 16-byte units (the swizzle's width W) is 16"
    );
    // A swizzle for other elements: Sw<3,3,3> is 128-byte for halves, not for floats.
    let e = gmma::make_gmma_desc(gmma::Major::K, &atom, 32, 0).unwrap_err();
    assert!(e.to_string().contains("the swizzle's base"), "{e}");
}
