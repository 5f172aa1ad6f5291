//! Register fragments (`const_layout::atom::fragment`): every thread's every register against the
//! layouts decoded directly and against the PTX ISA's fragment figures; the accumulator-to-operand
//! permutation checked element by element; reduction plans checked by simulating the butterfly
//! over all lanes; the errors and their messages.

use const_layout::algebra::TileMode;
use const_layout::algebra::computed::Keep;
use const_layout::atom::fragment::{
    AccToOperand, Axis, ColumnReduction, FragmentA, FragmentC, FragmentError, FragmentLayout, MmaPartition,
    ReductionPlan, RowReduction, acc_to_operand, reduction_plan,
};
use const_layout::atom::{
    MmaAtom, SM80_16x8x8_F32F16F16F32_TN, SM80_16x8x16_F32F16F16F32_TN, SM90_64xNx16_F32F16F16_RS,
    SM90_64xNx16_F32F16F16_SS, TiledMma, tiled_mma_layouts,
};
use const_layout::dyn_layout::{DynIntTuple, DynLayout};
use const_layout::layout_type;
use std::collections::{BTreeSet, HashMap};

type Sm80 = SM80_16x8x16_F32F16F16F32_TN;
type Ss<const N: usize> = SM90_64xNx16_F32F16F16_SS<N>;
type Rs<const N: usize> = SM90_64xNx16_F32F16F16_RS<N>;
type TwoWarpGroups<A> = TiledMma<A, layout_type!((2, 1):(1, 0)), (Keep, Keep, Keep)>;

fn p(s: &str) -> DynLayout {
    s.parse().unwrap()
}

/// `tv(t, v)` decoded from the layout as a function of the coordinate `(t, v)`, independent of
/// the fragment's plan.
fn decode(tv: &DynLayout, t: usize, v: usize) -> usize {
    let c: DynIntTuple = format!("({t},{v})").parse().unwrap();
    tv.crd2idx(&c).unwrap().value as usize
}

/// Every register of every thread of `f` against the TV layout decoded, over `tile` of `atom`s;
/// and, for an accumulator, every element of the tile held exactly once.
fn check_fragment(f: &FragmentLayout, tv: &DynLayout, atom: [usize; 2], tile: [usize; 2], once: bool) {
    let threads = tv.mode(0).unwrap().size().value as usize;
    let values = tv.mode(1).unwrap().size().value as usize;
    let (rm, rn) = (tile[0] / atom[0], tile[1] / atom[1]);
    assert_eq!((f.threads(), f.values(), f.registers()), (threads, values, values * rm * rn));
    let mut seen = BTreeSet::new();
    for t in 0..threads {
        for j in 0..rn {
            for i in 0..rm {
                for v in 0..values {
                    let r = v + values * (i + rm * j);
                    let idx = decode(tv, t, v);
                    let want = (idx % atom[0] + i * atom[0], idx / atom[0] + j * atom[1]);
                    assert_eq!(f.coord(t, r), want, "thread {t} register {r}");
                    assert_eq!(f.checked_coord(t, r), Some(want));
                    seen.insert(want);
                }
            }
        }
        assert_eq!(f.checked_coord(t, f.registers()), None);
    }
    assert_eq!(f.checked_coord(threads, 0), None);
    if once {
        assert_eq!(seen.len(), tile[0] * tile[1], "every element held");
        assert_eq!(seen.len(), threads * f.registers(), "each once");
    }
}

#[test]
fn atoms_against_their_layouts() {
    fn check<A: MmaAtom>(m: usize, n: usize, k: usize) {
        let [am, an, ak] = A::SHAPE_MNK;
        let c = FragmentLayout::new(&<A as MmaPartition>::LAYOUT_C_TV, [am, an], [m, n]).unwrap();
        check_fragment(&c, &<A as MmaPartition>::LAYOUT_C_TV, [am, an], [m, n], true);
        let a = FragmentLayout::new(&<A as MmaPartition>::LAYOUT_A_TV, [am, ak], [m, k]).unwrap();
        check_fragment(&a, &<A as MmaPartition>::LAYOUT_A_TV, [am, ak], [m, k], true);
    }
    for (m, n, k) in [(16, 8, 16), (16, 16, 16), (32, 16, 32), (64, 64, 64), (48, 24, 16)] {
        check::<Sm80>(m, n, k);
        check::<SM80_16x8x8_F32F16F16F32_TN>(m, n, k / 2);
    }
    check::<Rs<64>>(64, 64, 64);
    check::<Rs<128>>(128, 128, 32);
    check::<Rs<256>>(64, 256, 256);
    check::<Rs<8>>(64, 8, 16);
}

#[test]
fn the_ptx_isa_figures() {
    // mma.m16n8k16 (f32 accumulators): c_i of lane l is (l / 4 + 8 (i / 2), 2 (l % 4) + i % 2);
    // a_i is (l / 4 + 8 ((i / 2) % 2), 2 (l % 4) + i % 2 + 8 (i / 4)).
    for l in 0..32 {
        for r in 0..16 {
            let (v, q) = (r % 4, r / 4);
            let (i, j) = (q % 2, q / 2);
            let want = (l / 4 + 8 * (v / 2) + 16 * i, 2 * (l % 4) + v % 2 + 8 * j);
            assert_eq!(FragmentC::<Sm80, 32, 16>::coord(l, r), want);
        }
        for r in 0..8 {
            let want = (l / 4 + 8 * ((r / 2) % 2), 2 * (l % 4) + r % 2 + 8 * (r / 4));
            assert_eq!(FragmentA::<Sm80, 16, 16>::coord(l, r), want);
        }
    }
    // wgmma m64nNk16: thread t (warp w, lane l) holds d_r at (16 w + l / 4 + 8 ((r / 2) % 2),
    // 2 (l % 4) + r % 2 + 8 (r / 4)); the A fragment in registers likewise, with k for n.
    fn wgmma<const N: usize>() {
        for t in 0..128 {
            let (w, l) = (t / 32, t % 32);
            let frag = FragmentC::<Ss<N>, 64, N>::LAYOUT;
            for r in 0..N / 2 {
                let want = (16 * w + l / 4 + 8 * ((r / 2) % 2), 2 * (l % 4) + r % 2 + 8 * (r / 4));
                assert_eq!(frag.coord(t, r), want, "N = {N}, thread {t}, register {r}");
                assert_eq!(FragmentA::<Rs<64>, 64, N>::coord(t, r), want, "A over 64 x {N}");
            }
        }
    }
    wgmma::<64>();
    wgmma::<128>();
    wgmma::<256>();
}

/// A small deterministic generator for the random cases.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

/// The tiled MMA layouts of `A` on `thr`.
fn tiled<A: MmaAtom>(thr: &str) -> const_layout::atom::TiledMmaLayouts {
    use const_layout::algebra::computed::StaticLayout;
    let [m, n, k] = A::SHAPE_MNK;
    tiled_mma_layouts(
        &A::ThrID::LAYOUT,
        &A::ALayout::LAYOUT,
        &A::BLayout::LAYOUT,
        &A::CLayout::LAYOUT,
        [m as isize, n as isize, k as isize],
        &p(thr),
        &[TileMode::Keep; 3],
    )
    .unwrap()
}

/// `acc_to_operand` checked element by element: the operand's every register is the accumulator's
/// register the permutation names, in the same thread; or the error's claim holds.
fn check_conversion(c: &FragmentLayout, a: &FragmentLayout) -> Result<(), FragmentError> {
    let holders: HashMap<(usize, usize), (usize, usize)> = (0..c.threads())
        .flat_map(|t| (0..c.registers()).map(move |r| (t, r)))
        .map(|(t, r)| (c.coord(t, r), (t, r)))
        .collect();
    match acc_to_operand(c, a) {
        Ok(perm) => {
            assert_eq!(perm.len(), a.registers());
            let mut sources: Vec<usize> = (0..perm.len()).map(|r| perm.source(r)).collect();
            sources.sort_unstable();
            assert_eq!(sources, (0..perm.len()).collect::<Vec<_>>(), "a permutation");
            for t in 0..a.threads() {
                for r in 0..a.registers() {
                    assert_eq!(a.coord(t, r), c.coord(t, perm.source(r)), "thread {t} register {r}");
                }
            }
            Ok(())
        }
        Err(e) => {
            if let FragmentError::Shuffle { thread, register, m, k, holder, holder_register, .. } = e {
                assert_eq!(a.coord(thread, register), (m, k));
                assert_eq!(holders[&(m, k)], (holder, holder_register));
                assert_ne!(holder, thread);
            }
            Err(e)
        }
    }
}

#[test]
fn wgmma_accumulator_to_operand_is_the_identity() {
    fn check<const N: usize>() {
        let perm = AccToOperand::<Ss<N>, Rs<64>, 64, N>::PERMUTATION;
        assert!(perm.is_identity(), "N = {N}");
        assert_eq!(perm.len(), N / 2);
        check_conversion(&FragmentC::<Ss<N>, 64, N>::LAYOUT, &FragmentA::<Rs<64>, 64, N>::LAYOUT).unwrap();
        let acc: [u32; 32] = core::array::from_fn(|r| r as u32 * 3);
        if N == 64 {
            assert_eq!(perm.apply(&acc), acc);
        }
    }
    check::<64>();
    check::<128>();
    check::<256>();
    // Two warp groups along M (FlashAttention-3's consumers), 128 x 256: 32,768 elements.
    type P = AccToOperand<TwoWarpGroups<Ss<256>>, TwoWarpGroups<Rs<128>>, 128, 256>;
    assert!(P::PERMUTATION.is_identity());
    check_conversion(
        &FragmentC::<TwoWarpGroups<Ss<256>>, 128, 256>::LAYOUT,
        &FragmentA::<TwoWarpGroups<Rs<128>>, 128, 256>::LAYOUT,
    )
    .unwrap();
    assert_eq!(FragmentC::<TwoWarpGroups<Ss<64>>, 128, 64>::THREADS, 256);
}

#[test]
fn sm80_accumulator_to_operand() {
    // 16 x 16: the identity (FlashAttention-2's convert_layout_acc_Aregs is a reshape).
    assert!(AccToOperand::<Sm80, Sm80, 16, 16>::PERMUTATION.is_identity());
    // 32 x 16 and 64 x 64: the atoms' order differs (C: 16 x 8 atoms, A: 16 x 16).
    let perm = AccToOperand::<Sm80, Sm80, 32, 16>::PERMUTATION;
    assert!(!perm.is_identity());
    let want = [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15];
    assert_eq!((0..16).map(|r| perm.source(r)).collect::<Vec<_>>(), want);
    for (m, n) in [(16, 16), (32, 16), (64, 64), (16, 64), (48, 32)] {
        let c = FragmentLayout::new(&<Sm80 as MmaPartition>::LAYOUT_C_TV, [16, 8], [m, n]).unwrap();
        let a = FragmentLayout::new(&<Sm80 as MmaPartition>::LAYOUT_A_TV, [16, 16], [m, n]).unwrap();
        check_conversion(&c, &a).unwrap();
        // The 16x8x8 atom's A (16 x 8) too.
        let a8 =
            FragmentLayout::new(&<SM80_16x8x8_F32F16F16F32_TN as MmaPartition>::LAYOUT_A_TV, [16, 8], [m, n])
                .unwrap();
        check_conversion(&c, &a8).unwrap();
    }
    let acc: [f32; 16] = core::array::from_fn(|r| r as f32);
    let a = AccToOperand::<Sm80, Sm80, 32, 16>::convert(&acc);
    for r in 0..16 {
        assert_eq!(a[r], acc[perm.source(r)]);
    }
}

#[test]
fn random_tiled_mmas() {
    let mut rng = Lcg(35);
    let shapes = [
        "(_1,_1):(_0,_0)",
        "(_2,_1):(_1,_0)",
        "(_1,_2):(_0,_1)",
        "(_2,_2):(_1,_2)",
        "(_2,_2):(_2,_1)",
        "(_4,_1):(_1,_0)",
        "(_1,_4):(_0,_1)",
        "(_4,_2):(_2,_1)",
    ];
    let mut conversions = 0;
    for _ in 0..24 {
        let wgmma = rng.below(3) == 0;
        let thr = shapes[rng.below(if wgmma { 5 } else { shapes.len() })];
        let (t_c, t_a) = if wgmma {
            (tiled::<Ss<64>>(thr), tiled::<Rs<64>>(thr))
        } else {
            (tiled::<Sm80>(thr), tiled::<Sm80>(thr))
        };
        let [tm, tn, tk] = t_c.tile_mnk.map(|x| x as usize);
        let limit = if wgmma { 1 } else { 2 };
        let (m, n) = (tm * (1 + rng.below(limit)), tn * (1 + rng.below(2)));
        let c = FragmentLayout::new(&t_c.layout_c_tv, [tm, tn], [m, n]).unwrap();
        check_fragment(&c, &t_c.layout_c_tv, [tm, tn], [m, n], true);
        let ak = t_a.tile_mnk[2] as usize;
        assert_eq!(ak, tk);
        if n % ak == 0 {
            let a = FragmentLayout::new(&t_a.layout_a_tv, [tm, ak], [m, n]).unwrap();
            check_fragment(&a, &t_a.layout_a_tv, [tm, ak], [m, n], false);
            // Atoms along N split C's columns between threads that all need A's: a shuffle (or
            // shared memory) then; along M alone, none.
            let along_n = t_c.thr_layout_vmnk.mode(2).unwrap().size().value > 1;
            let r = check_conversion(&c, &a);
            assert_eq!(r.is_err(), along_n, "{thr}, {m} x {n}: {r:?}");
            conversions += r.is_ok() as usize;
        }
    }
    assert!(conversions > 4);
}

#[test]
fn conversion_errors() {
    // The operand transposed: lane 0's register 1 is (1, 0), which the accumulator's lane 4 holds.
    let c = FragmentC::<Sm80, 16, 16>::LAYOUT;
    let at =
        FragmentLayout::new(&p("((_4,_8),(_2,_2,_2)):((_2,_16),(_1,_128,_8))"), [16, 16], [16, 16]).unwrap();
    let e = check_conversion(&c, &at).unwrap_err();
    assert_eq!(
        e.to_string(),
        "acc_to_operand: lane 0's register 1 (m 1, k 0) is held by lane 4 (its register 0): a shuffle is needed"
    );
    // Two warps along N: warp 1 holds C's columns 8.., but A's every column.
    let (tc, ta) = (tiled::<Sm80>("(_1,_2):(_0,_1)"), tiled::<Sm80>("(_1,_2):(_0,_1)"));
    let c = FragmentLayout::new(&tc.layout_c_tv, [16, 16], [16, 16]).unwrap();
    let a = FragmentLayout::new(&ta.layout_a_tv, [16, 16], [16, 16]).unwrap();
    assert_eq!(
        check_conversion(&c, &a).unwrap_err().to_string(),
        "acc_to_operand: thread 0's register 4 (m 0, k 8) is held by thread 32 (its register 0): a shuffle is needed"
    );
    // Tiles, threads, registers.
    let c64 = FragmentC::<Ss<64>, 64, 64>::LAYOUT;
    assert_eq!(
        acc_to_operand(&c64, &FragmentA::<Rs<64>, 64, 128>::LAYOUT).unwrap_err().to_string(),
        "acc_to_operand: the accumulator's tile is 64x64, the operand's 64x128 (M x K with K = N)"
    );
    assert_eq!(
        acc_to_operand(&FragmentC::<Sm80, 64, 16>::LAYOUT, &FragmentA::<Rs<64>, 64, 16>::LAYOUT).unwrap_err(),
        FragmentError::ThreadCount { acc: 32, operand: 128 }
    );
    // Half the accumulator's values (c0, c1 of each atom): every element in its thread, but fewer.
    let two_values = FragmentLayout::new(&p("((_4,_8),_2):((_32,_1),_16)"), [16, 8], [16, 16]).unwrap();
    assert_eq!(
        acc_to_operand(&FragmentC::<Sm80, 16, 16>::LAYOUT, &two_values).unwrap_err(),
        FragmentError::RegisterCount { acc: 8, operand: 4 }
    );
    // An accumulator that holds an element twice.
    let twice = FragmentLayout::new(&p("(_32,_4):(_1,_0)"), [16, 8], [16, 16]).unwrap();
    assert_eq!(
        acc_to_operand(&twice, &FragmentA::<Sm80, 16, 16>::LAYOUT).unwrap_err().to_string(),
        "acc_to_operand: the accumulator holds (m 0, n 0) twice: thread 0's register 0 and thread 0's register 1"
    );
    // The messages of the rarer errors.
    let e =
        FragmentError::PermutationDiffers { first: 0, thread: 5, register: 2, first_source: 1, source: 3 };
    assert_eq!(
        e.to_string(),
        "acc_to_operand: the permutation differs between threads: register 2 of thread 0 comes from its register 1, of thread 5 from its register 3"
    );
    let e = FragmentError::NotHeld { thread: 1, register: 0, m: 0, k: 2 };
    assert_eq!(
        e.to_string(),
        "acc_to_operand: thread 1's register 0 (m 0, k 2) is held by no thread of the accumulator"
    );
}

#[test]
fn fragment_errors() {
    let sm80_c = <Sm80 as MmaPartition>::LAYOUT_C_TV;
    let e = |tv: &DynLayout, atom, tile| FragmentLayout::new(tv, atom, tile).unwrap_err().to_string();
    assert_eq!(
        e(&sm80_c, [16, 8], [16, 12]),
        "fragment: the tile 16x12 is not a multiple of the atom's 16x8"
    );
    assert_eq!(
        e(&sm80_c, [8, 8], [16, 16]),
        "fragment: the TV layout reaches index 127, outside the atom's 8x8 tile"
    );
    assert_eq!(
        e(&p("(_32,_4):(_1,-1)"), [16, 8], [16, 8]),
        "fragment: the TV layout has the negative stride -1"
    );
    assert_eq!(
        e(&p("_32:_1"), [32, 1], [32, 1]),
        "fragment: a TV layout has two modes (thread, value) with integer strides, not rank 1"
    );
    assert!(FragmentLayout::new(&sm80_c, [16, 8], [16 * 8, 8 * 8]).is_ok());
    assert_eq!(
        e(&sm80_c, [16, 8], [16 * 8, 8 * 16]),
        "fragment: a thread holds 512 registers, more than 256"
    );
}

/// Simulates `plan` over every lane: each thread's groups reduced to the set of elements, then a
/// butterfly over the masks (union as the operation); every thread must end with its group's
/// whole row (column).
fn simulate(f: &FragmentLayout, plan: &ReductionPlan) {
    let axis = plan.axis();
    let key = |c: (usize, usize)| if axis == Axis::Row { c.0 } else { c.1 };
    let threads = f.threads();
    let mut all: HashMap<usize, BTreeSet<(usize, usize)>> = HashMap::new();
    for t in 0..threads {
        for r in 0..f.registers() {
            all.entry(key(f.coord(t, r))).or_default().insert(f.coord(t, r));
        }
    }
    // Each register in one group.
    let mut regs: Vec<usize> = plan.registers().iter().map(|&r| r as usize).collect();
    regs.sort_unstable();
    assert_eq!(regs, (0..f.registers()).collect::<Vec<_>>());
    let mut state: Vec<Vec<BTreeSet<(usize, usize)>>> = (0..threads)
        .map(|t| {
            (0..plan.groups())
                .map(|g| {
                    let set: BTreeSet<_> = plan.group(g).iter().map(|&r| f.coord(t, r as usize)).collect();
                    assert_eq!(
                        set.iter().map(|&c| key(c)).collect::<BTreeSet<_>>().len(),
                        1,
                        "one key a group"
                    );
                    assert_eq!(key(*set.first().unwrap()), plan.key(f, t, g));
                    set
                })
                .collect()
        })
        .collect();
    for &mask in plan.shuffle_masks() {
        assert!(mask != 0 && mask < 32);
        let before = state.clone();
        for (t, groups) in state.iter_mut().enumerate() {
            let partner = t ^ mask as usize;
            assert_eq!(t / 32, partner / 32, "within a warp");
            for (g, set) in groups.iter_mut().enumerate() {
                set.extend(before[partner][g].iter().copied());
            }
        }
    }
    for (t, groups) in state.iter().enumerate() {
        for (g, set) in groups.iter().enumerate() {
            assert_eq!(*set, all[&plan.key(f, t, g)], "thread {t} group {g}");
        }
    }
}

#[test]
fn reduction_plans() {
    // wgmma's accumulator: rows from registers with (r / 2) % 2 = 0 and = 1; lanes xor 1 and 2.
    fn wgmma<const N: usize>() {
        let f = FragmentC::<Ss<N>, 64, N>::LAYOUT;
        let plan = RowReduction::<FragmentC<Ss<N>, 64, N>>::PLAN;
        assert_eq!((plan.groups(), plan.per_group(), plan.shuffle_masks()), (2, N / 4, &[1u32, 2][..]));
        for g in 0..2 {
            assert!(plan.group(g).iter().all(|&r| (r as usize / 2) % 2 == g));
        }
        simulate(&f, &plan);
        for t in 0..128 {
            assert_eq!(RowReduction::<FragmentC<Ss<N>, 64, N>>::key(t, 1), 16 * (t / 32) + (t % 32) / 4 + 8);
        }
    }
    wgmma::<64>();
    wgmma::<128>();
    wgmma::<256>();
    let plan = RowReduction::<FragmentC<TwoWarpGroups<Ss<256>>, 128, 256>>::PLAN;
    simulate(&FragmentC::<TwoWarpGroups<Ss<256>>, 128, 256>::LAYOUT, &plan);
    // sm80: rows over lanes xor 1, 2; columns over 4, 8, 16.
    for (m, n) in [(16, 8), (32, 16), (64, 64)] {
        let f = FragmentLayout::new(&<Sm80 as MmaPartition>::LAYOUT_C_TV, [16, 8], [m, n]).unwrap();
        let rows = reduction_plan(&f, Axis::Row).unwrap();
        assert_eq!(rows.shuffle_masks(), &[1, 2]);
        simulate(&f, &rows);
        let cols = reduction_plan(&f, Axis::Column).unwrap();
        assert_eq!(cols.shuffle_masks(), &[4, 8, 16]);
        simulate(&f, &cols);
    }
    assert_eq!(ColumnReduction::<FragmentC<Sm80, 16, 16>>::PLAN.groups(), 4);
    // A's fragments reduce too: rows of the 16 x 16 A (lanes xor 1, 2).
    let a = FragmentA::<Sm80, 32, 32>::LAYOUT;
    simulate(&a, &reduction_plan(&a, Axis::Row).unwrap());
    // A general (not single-bit) mask: lanes 0 and 3 share row 0, 1 and 2 row 1 (m = (b0 + 5 b1) % 2).
    let f = FragmentLayout::new(&p("((_2,_2,_8),_1):((_1,_5,_8),_0)"), [2, 32], [2, 32]).unwrap();
    let plan = reduction_plan(&f, Axis::Row).unwrap();
    assert_eq!(plan.shuffle_masks(), &[3, 4, 8, 16]);
    simulate(&f, &plan);
    // Random tiled MMAs: rows across warps are an error, else the butterfly reduces.
    let mut rng = Lcg(7);
    let shapes = [
        "(_1,_1):(_0,_0)",
        "(_2,_1):(_1,_0)",
        "(_1,_2):(_0,_1)",
        "(_2,_2):(_1,_2)",
        "(_2,_2):(_2,_1)",
        "(_4,_1):(_1,_0)",
    ];
    for _ in 0..16 {
        let thr = shapes[rng.below(shapes.len())];
        let t = if rng.below(3) == 0 { tiled::<Ss<64>>(thr) } else { tiled::<Sm80>(thr) };
        let [tm, tn, _] = t.tile_mnk.map(|x| x as usize);
        let f = FragmentLayout::new(&t.layout_c_tv, [tm, tn], [tm * (1 + rng.below(2)), tn]).unwrap();
        for axis in [Axis::Row, Axis::Column] {
            match reduction_plan(&f, axis) {
                Ok(plan) => simulate(&f, &plan),
                Err(FragmentError::AcrossWarps { key, warps, .. }) => {
                    let holders: BTreeSet<usize> = (0..f.threads())
                        .filter(|&th| {
                            (0..f.registers()).any(|r| {
                                let c = f.coord(th, r);
                                (if axis == Axis::Row { c.0 } else { c.1 }) == key
                            })
                        })
                        .map(|th| th / 32)
                        .collect();
                    assert!(
                        holders.contains(&warps[0]) && holders.contains(&warps[1]) && warps[0] != warps[1]
                    );
                }
                Err(e) => panic!("{thr} {axis:?}: {e}"),
            }
        }
    }
}

#[test]
fn reduction_errors() {
    let f = FragmentC::<Ss<64>, 64, 64>::LAYOUT;
    assert_eq!(
        reduction_plan(&f, Axis::Column).unwrap_err().to_string(),
        "column reduction: column 0 is held by warps 0 and 1: it needs shared memory"
    );
    // Lanes 0, 1, 2 share row 0 (lane 3 holds row 1): not an xor group (24 threads).
    let f = FragmentLayout::new(&p("(_32,_1):(_1,_0)"), [32, 1], [32, 1]).unwrap();
    assert_eq!(reduction_plan(&f, Axis::Row).unwrap().masks(), 0);
    let f3 = FragmentLayout::new(&p("((_3,_8),_2):((_8,_1),_24)"), [8, 6], [8, 6]);
    let f3 = f3.unwrap();
    assert_eq!(
        reduction_plan(&f3, Axis::Row).unwrap_err().to_string(),
        "row reduction: lane 1 of warp 0 holds row 0 but its butterfly partner lane 3 does not: the lanes sharing a row are not an xor group; it needs shared memory"
    );
    // Rows v % 3 of four values: two registers in the first row, one in each other.
    let g = FragmentLayout::new(&p("(_32,_4):(_12,_1)"), [3, 128], [3, 128]).unwrap();
    assert_eq!(
        reduction_plan(&g, Axis::Row).unwrap_err().to_string(),
        "row reduction: thread 0 holds 2 elements of its first row and 1 of its row group 1: groups of different sizes"
    );
    // Layouts group every thread's registers alike (a row's difference is a value's stride
    // modulo M); the message of the grouping error.
    let e =
        FragmentError::Grouping { axis: Axis::Row, thread: 1, registers: [0, 1], together_in_first: true };
    assert_eq!(
        e.to_string(),
        "row reduction: thread 0's registers 0 and 1 are in one row, thread 1's are not: the grouping differs between threads"
    );
}
