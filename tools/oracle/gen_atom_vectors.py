#!/usr/bin/env python3
"""Generate the CuTe MMA and copy atom vectors, tests/data/cute_atoms.txt.

Usage:  python3 tools/oracle/gen_atom_vectors.py [--out FILE] [--cases N]

The oracle is the CuTe C++ headers of nvidia-cutlass 4.2.0.0, compiled on the host with g++ (set
up by tools/oracle/setup.sh). One program prints, tab-separated, one line per

  mma        NAME  M,N,K  ThrID  ALayout  BLayout  CLayout          (CuTe's MMA_Traits)
  copy       NAME  ThrID  SrcLayout  DstLayout  RefLayout            (CuTe's Copy_Traits, in bits)
  tiled_mma  ATOM  AtomLayoutMNK  P0|P1|P2  ThrLayoutVMNK  TM,TN,TK  LayoutA_TV  LayoutB_TV  LayoutC_TV
  tiled_copy ATOM  ELEMENT  ThrLayout  ValLayout  Tiler_MN  TiledLayout_TV  LayoutS_TV  LayoutD_TV
  tiled_copy_A|B|C  ATOM  ELEMENT  MMA  Tiler_MN  TiledLayout_TV  LayoutS_TV  LayoutD_TV

for every atom const_layout::atom defines (the sm90 ones at several N), and for --cases generated
tilings (make_tiled_mma(atom, thr_layout, permutations)): an atom, a thread layout of rank 1 to 3
with extents 1, 2 or 4, column- or row-major, and per mode of M, N, K either `_`, a static
integer (the atom's extent times the threads times 1 or 2), or a bijective permutation layout
`(a,b):(b,_1)` of that size. tests/typed/atoms.rs checks the static atoms text for text, and
every tiling through const_layout::atom::tiled_mma_layouts (and some through make_tiled_mma);
and --cases/2 generated tiled copies make_tiled_copy(Copy_Atom<atom, element>, thr, val) (cp.async
and plain copies of 1 to 16 elements, 2-D thread and value layouts, column- or row-major), with the
ldmatrix and plain copies of two sm80 tiled MMAs' operands (make_tiled_copy_A/_B/_C; MMA "hgemm"
is 2x2 warps with Tile<_32,_32,_16>, "plain" 2x2x1 without permutation).
Deterministic (a fixed seed). Takes about 20 s.
"""

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_vectors as gv  # noqa: E402  (oracle setup)

OUT_FILE = os.path.join(gv.DATA_DIR, "cute_atoms.txt")
SEED = 20261127

SM80 = [
    ("SM80_16x8x8_F32F16F16F32_TN", (16, 8, 8)),
    ("SM80_16x8x8_F16F16F16F16_TN", (16, 8, 8)),
    ("SM80_16x8x8_F32BF16BF16F32_TN", (16, 8, 8)),
    ("SM80_16x8x16_F32F16F16F32_TN", (16, 8, 16)),
    ("SM80_16x8x16_F16F16F16F16_TN", (16, 8, 16)),
    ("SM80_16x8x16_F32BF16BF16F32_TN", (16, 8, 16)),
]
SM90_KINDS = ["F32F16F16_SS", "F32F16F16_RS", "F16F16F16_SS", "F16F16F16_RS", "F32BF16BF16_SS", "F32BF16BF16_RS"]
SM90_N = [8, 32, 96, 256]
COPY = [
    "SM75_U32x1_LDSM_N", "SM75_U32x2_LDSM_N", "SM75_U32x4_LDSM_N",
    "SM75_U16x2_LDSM_T", "SM75_U16x4_LDSM_T", "SM75_U16x8_LDSM_T",
    "SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "SM80_CP_ASYNC_CACHEALWAYS<uint64_t>",
    "SM80_CP_ASYNC_CACHEALWAYS<uint32_t>", "SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>",
    "UniversalCopy<uint16_t>", "UniversalCopy<uint32_t>", "UniversalCopy<uint128_t>",
]
# Atoms the tilings use: (name as printed, C++ type, M, N, K).
TILED_ATOMS = [
    ("SM80_16x8x16_F32F16F16F32_TN", "SM80_16x8x16_F32F16F16F32_TN", 16, 8, 16),
    ("SM80_16x8x8_F16F16F16F16_TN", "SM80_16x8x8_F16F16F16F16_TN", 16, 8, 8),
    ("SM90_64x64x16_F32F16F16_SS", "SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>", 64, 64, 16),
    ("SM90_64x32x16_F16F16F16_RS", "SM90_64x32x16_F16F16F16_RS<GMMA::Major::K,GMMA::Major::K>", 64, 32, 16),
]

PRELUDE = r"""
#include <cute/tensor.hpp>
#include <cute/atom/mma_atom.hpp>
#include <cute/atom/copy_atom.hpp>
#include <cute/atom/mma_traits_sm80.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cute/atom/copy_traits_sm75.hpp>
#include <cute/atom/copy_traits_sm80.hpp>
#include <cstdio>
using namespace cute;
static void tab() { std::printf("\t"); }
template <class T> void mma(const char* n) {
  using Tr = MMA_Traits<T>;
  std::printf("mma\t%s\t%d,%d,%d", n, int(size<0>(typename Tr::Shape_MNK{})), int(size<1>(typename Tr::Shape_MNK{})),
              int(size<2>(typename Tr::Shape_MNK{})));
  tab(); print(typename Tr::ThrID{}); tab(); print(typename Tr::ALayout{}); tab(); print(typename Tr::BLayout{});
  tab(); print(typename Tr::CLayout{}); std::printf("\n");
}
template <class T> void cp(const char* n) {
  using Tr = Copy_Traits<T>;
  std::printf("copy\t%s", n);
  tab(); print(typename Tr::ThrID{}); tab(); print(typename Tr::SrcLayout{}); tab(); print(typename Tr::DstLayout{});
  tab(); print(typename Tr::RefLayout{}); std::printf("\n");
}
template <class Atom, class Thr, class Perm> void tiled(const char* n, Thr thr, Perm perm, const char* ptext) {
  auto t = make_tiled_mma(Atom{}, thr, perm);
  std::printf("tiled_mma\t%s\t", n); print(thr); std::printf("\t%s\t", ptext);
  print(t.get_thr_layout_vmnk());
  std::printf("\t%d,%d,%d\t", int(tile_size<0>(t)), int(tile_size<1>(t)), int(tile_size<2>(t)));
  print(t.get_layoutA_TV()); tab(); print(t.get_layoutB_TV()); tab(); print(t.get_layoutC_TV()); std::printf("\n");
}
template <class Atom, class Thr, class Val> void tcopy(const char* n, const char* e, Thr thr, Val val) {
  auto t = make_tiled_copy(Atom{}, thr, val);
  using T = decltype(t);
  std::printf("tiled_copy\t%s\t%s\t", n, e); print(thr); tab(); print(val); tab(); print(typename T::Tiler_MN{});
  tab(); print(typename T::TiledLayout_TV{}); tab(); print(t.get_layoutS_TV()); tab(); print(t.get_layoutD_TV());
  std::printf("\n");
}
template <class T> void tcopy_row(const char* w, const char* n, const char* e, const char* mtext, T t) {
  std::printf("tiled_copy_%s\t%s\t%s\t%s\t", w, n, e, mtext); print(typename T::Tiler_MN{});
  tab(); print(typename T::TiledLayout_TV{}); tab(); print(t.get_layoutS_TV()); tab(); print(t.get_layoutD_TV());
  std::printf("\n");
}
template <class Atom, class Mma> void tcopy_a(const char* n, const char* e, Mma mma, const char* mtext) {
  tcopy_row("A", n, e, mtext, make_tiled_copy_A(Atom{}, mma));
}
template <class Atom, class Mma> void tcopy_b(const char* n, const char* e, Mma mma, const char* mtext) {
  tcopy_row("B", n, e, mtext, make_tiled_copy_B(Atom{}, mma));
}
template <class Atom, class Mma> void tcopy_c(const char* n, const char* e, Mma mma, const char* mtext) {
  tcopy_row("C", n, e, mtext, make_tiled_copy_C(Atom{}, mma));
}
int main() {
"""


def perm_item(rng, extent):
    """One permutation item for a mode whose natural extent is `extent`: (C++ text, our text)."""
    r = rng.random()
    if r < 0.5:
        return "_", "_"
    n = extent * rng.choice([1, 2])
    if r < 0.8:
        return "Int<%d>{}" % n, "_%d" % n
    divisors = [a for a in range(2, n) if n % a == 0]
    if not divisors:
        return "Int<%d>{}" % n, "_%d" % n
    a = rng.choice(divisors)
    b = n // a
    return ("Layout<Shape<_%d,_%d>,Stride<_%d,_1>>{}" % (a, b, b), "(_%d,_%d):(_%d,_1)" % (a, b, b))


# Tilings of CUTLASS's examples, first (tests/typed/atoms.rs builds these with make_tiled_mma):
# sgemm_sm80.cu's HGEMM (2x2 warps, 32x32x16), a 2x2x1 one without permutation, and a wgmma
# warp group pair along M.
FIXED = [
    '  tiled<SM80_16x8x16_F32F16F16F32_TN>("SM80_16x8x16_F32F16F16F32_TN", Layout<Shape<_2,_2>>{}, Tile<_32,_32,_16>{}, "_32|_32|_16");',
    '  tiled<SM80_16x8x16_F32F16F16F32_TN>("SM80_16x8x16_F32F16F16F32_TN", Layout<Shape<_2,_2,_1>>{}, Tile<Underscore,Underscore,Underscore>{}, "_|_|_");',
    '  tiled<SM90_64x64x16_F32F16F16_SS<GMMA::Major::K,GMMA::Major::K>>("SM90_64x64x16_F32F16F16_SS", Layout<Shape<_2,_1,_1>>{}, Tile<Underscore,Underscore,Underscore>{}, "_|_|_");',
]


def tilings(rng, cases):
    out = list(FIXED)
    for _ in range(cases):
        name, cpp, m, n, k = rng.choice(TILED_ATOMS)
        rank = rng.choice([1, 2, 3])
        ext = [rng.choice([1, 2, 4]) for _ in range(rank)]
        # Keep the thread count sane for a warp group.
        major = rng.choice(["LayoutLeft", "LayoutRight"])
        shape = "make_shape(%s)" % ",".join("Int<%d>{}" % e for e in ext)
        thr = "make_layout(%s, %s{})" % (shape, major)
        full = ext + [1] * (3 - rank)
        items = [perm_item(rng, e * t) for e, t in zip((m, n, k), full)]
        perm = "make_tile(%s)" % ",".join(c for c, _ in items)
        ptext = "|".join(t for _, t in items)
        out.append('  tiled<%s>("%s", %s, %s, "%s");' % (cpp, name, thr, perm, ptext))
    return out


# Copy atoms of the tiled copies, with an element type: (C++ atom, C++ element, our atom, our
# element, values per atom).
COPY_ATOMS = [
    ("SM80_CP_ASYNC_CACHEALWAYS<uint128_t>", "half_t", "SM80_CP_ASYNC_CACHEALWAYS<u128>", "F16", 8),
    ("SM80_CP_ASYNC_CACHEALWAYS<uint64_t>", "float", "SM80_CP_ASYNC_CACHEALWAYS<u64>", "f32", 2),
    ("UniversalCopy<uint32_t>", "float", "UniversalCopy<u32>", "f32", 1),
    ("UniversalCopy<uint128_t>", "float", "UniversalCopy<u128>", "f32", 4),
    ("SM80_CP_ASYNC_CACHEGLOBAL<uint128_t>", "uint8_t", "SM80_CP_ASYNC_CACHEGLOBAL<u128>", "u8", 16),
]


def major_layout(rng, a, b):
    """A 2-D layout (a,b), column- or row-major: (C++ text, CuTe's print of it)."""
    if rng.random() < 0.5:
        return ("Layout<Shape<_%d,_%d>,Stride<_1,_%d>>{}" % (a, b, a), "(_%d,_%d):(_1,_%d)" % (a, b, a))
    return ("Layout<Shape<_%d,_%d>,Stride<_%d,_1>>{}" % (a, b, b), "(_%d,_%d):(_%d,_1)" % (a, b, b))


def tiled_copies(rng, cases):
    out = ['  tcopy<Copy_Atom<SM80_CP_ASYNC_CACHEALWAYS<uint128_t>, half_t>>("SM80_CP_ASYNC_CACHEALWAYS<u128>", "F16", '
           'Layout<Shape<_16,_8>,Stride<_8,_1>>{}, Layout<Shape<_1,_8>>{});']
    pow2 = [1, 2, 4, 8, 16, 32]
    for _ in range(cases):
        catom, celem, atom, elem, vals = rng.choice(COPY_ATOMS)
        a = rng.choice(pow2)
        b = rng.choice([x for x in pow2 if a * x <= 256])
        thr, _ = major_layout(rng, a, b)
        n = vals * rng.choice([1, 2])
        c = rng.choice([x for x in [1, 2, 4, 8, 16, 32] if n % x == 0])
        val, _ = major_layout(rng, c, n // c)
        out.append('  tcopy<Copy_Atom<%s, %s>>("%s", "%s", %s, %s);' % (catom, celem, atom, elem, thr, val))
    # Copies of the fixed tiled MMAs' operands (the first two FIXED tilings are sm80's).
    mmas = [("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2>>{}, Tile<_32,_32,_16>{})", "hgemm"),
            ("make_tiled_mma(SM80_16x8x16_F32F16F16F32_TN{}, Layout<Shape<_2,_2,_1>>{})", "plain")]
    for m, name in mmas:
        out.append('  tcopy_a<Copy_Atom<SM75_U32x4_LDSM_N, half_t>>("SM75_U32x4_LDSM_N", "F16", %s, "%s");' % (m, name))
        out.append('  tcopy_b<Copy_Atom<SM75_U32x2_LDSM_N, half_t>>("SM75_U32x2_LDSM_N", "F16", %s, "%s");' % (m, name))
        out.append('  tcopy_a<Copy_Atom<SM75_U16x8_LDSM_T, half_t>>("SM75_U16x8_LDSM_T", "F16", %s, "%s");' % (m, name))
        out.append('  tcopy_c<Copy_Atom<UniversalCopy<float>, float>>("UniversalCopy<f32>", "f32", %s, "%s");' % (m, name))
    return out


def program(cases):
    lines = [PRELUDE]
    for name, _ in SM80:
        lines.append('  mma<%s>("%s");' % (name, name))
    for kind in SM90_KINDS:
        for n in SM90_N:
            lines.append('  mma<SM90_64x%dx16_%s<GMMA::Major::K,GMMA::Major::K>>("SM90_64xNx16_%s<%d>");'
                         % (n, kind, kind, n))
    for c in COPY:
        lines.append('  cp<%s>("%s");' % (c, c))
    rng = random.Random(SEED)
    lines += tilings(rng, cases)
    lines += tiled_copies(rng, cases // 2)
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=OUT_FILE)
    ap.add_argument("--cases", type=int, default=120)
    args = ap.parse_args()
    inc, _ = gv.oracle_env()
    text = gv.compile_and_run(program(args.cases), inc, "atoms")
    header = ("# CuTe %s MMA and copy atoms and tiled MMAs (tools/oracle/gen_atom_vectors.py, seed %d).\n"
              "# Tab-separated; see the generator for the columns.\n" % (gv.CUTLASS_VERSION, SEED))
    gv.write_vectors(args.out, header, text)


if __name__ == "__main__":
    main()
