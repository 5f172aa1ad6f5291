#!/usr/bin/env python3
"""Generate the CuTe wgmma shared-memory atom and descriptor vectors, tests/data/cute_gmma.txt.

Usage:  python3 tools/oracle/gen_gmma_vectors.py [--out FILE]

The oracle is the CuTe C++ headers of nvidia-cutlass 4.2.0.0 compiled on the host with g++
(tools/oracle/setup.sh). For elements of 8, 16 and 32 bits, both majors and the four swizzles,
it prints, tab-separated:

  gmma_atom  BITS  MAJOR  TYPE  ATOM
  gmma_desc  BITS  MAJOR  TYPE  MN,K  BM,BK,MI,KI  TILE  BLOCK  OFFSET  DESCRIPTOR

ATOM is GMMA::Layout_<MAJOR>_<TYPE>_Atom<T> as CuTe prints it; TILE is
tile_to_shape(ATOM, (MN,K)) (MN one or two blocks, K one or two wgmma k blocks, at least the
atom's); BLOCK is the layout of the block local_tile(tile, (BM,BK), (MI,KI)) for every block of
the tile (BM = 64, wgmma's M, or the atom's MN extent where that is more; BK = 256/BITS, one
wgmma k step), OFFSET its offset in elements, and DESCRIPTOR make_gmma_desc<MAJOR>(block) in hex. On the
host CuTe cannot take a shared-memory address (it prints an error and uses 0), so the
descriptors' start addresses are 0 and tests/typed/atoms.rs checks the offset separately.
Deterministic, about 30 s.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gen_vectors as gv  # noqa: E402  (oracle setup)

OUT_FILE = os.path.join(gv.DATA_DIR, "cute_gmma.txt")

PRELUDE = r"""
#include <cute/tensor.hpp>
#include <cute/atom/mma_traits_sm90_gmma.hpp>
#include <cstdio>
using namespace cute;
template <class T, GMMA::Major Mj, class Atom, int BM, int MN, int K>
void tile(const char* bits, const char* major, const char* type) {
  auto sl = tile_to_shape(Atom{}, make_shape(Int<MN>{}, Int<K>{}));
  T* base = nullptr;
  auto t = make_tensor(make_smem_ptr(base), sl);
  constexpr int BK = 256 / int(sizeof_bits<T>::value);
  for (int mi = 0; mi < MN / BM; ++mi) {
    for (int ki = 0; ki < K / BK; ++ki) {
      auto blk = local_tile(t, make_shape(Int<BM>{}, Int<BK>{}), make_coord(mi, ki));
      auto d = GMMA::make_gmma_desc<Mj>(blk);
      std::printf("gmma_desc\t%s\t%s\t%s\t%d,%d\t%d,%d,%d,%d\t", bits, major, type, MN, K, BM, BK, mi, ki);
      print(sl.layout_b()); std::printf("\t"); print(blk.layout());
      std::printf("\t%ld\t0x%016llx\n", long(raw_pointer_cast(blk.data()) - base), (unsigned long long)d.desc_);
    }
  }
}
template <class T, GMMA::Major Mj, class Atom>
void atom(const char* bits, const char* major, const char* type) {
  std::printf("gmma_atom\t%s\t%s\t%s\t", bits, major, type); print(Atom{}.layout_b()); std::printf("\t");
  print(Atom{}.layout_a()); std::printf("\n");
  constexpr int AK = size<1>(Atom{}) > 256 / int(sizeof_bits<T>::value) ? size<1>(Atom{}) : 256 / int(sizeof_bits<T>::value);
  // Blocks of 64 along MN (wgmma's M), or the atom's width where that is more (an MN-major
  // atom is one descriptor's unit).
  constexpr int BM = size<0>(Atom{}) > 64 ? size<0>(Atom{}) : 64;
  tile<T, Mj, Atom, BM, BM, AK>(bits, major, type);
  tile<T, Mj, Atom, BM, 2 * BM, 2 * AK>(bits, major, type);
}
template <class T> void all(const char* bits) {
  using namespace GMMA;
  atom<T, Major::K, Layout_K_INTER_Atom<T>>(bits, "K", "INTER");
  atom<T, Major::K, Layout_K_SW32_Atom<T>>(bits, "K", "SW32");
  atom<T, Major::K, Layout_K_SW64_Atom<T>>(bits, "K", "SW64");
  atom<T, Major::K, Layout_K_SW128_Atom<T>>(bits, "K", "SW128");
  atom<T, Major::MN, Layout_MN_INTER_Atom<T>>(bits, "MN", "INTER");
  atom<T, Major::MN, Layout_MN_SW32_Atom<T>>(bits, "MN", "SW32");
  atom<T, Major::MN, Layout_MN_SW64_Atom<T>>(bits, "MN", "SW64");
  atom<T, Major::MN, Layout_MN_SW128_Atom<T>>(bits, "MN", "SW128");
}
int main() {
  all<uint8_t>("8");
  all<half_t>("16");
  all<float>("32");
}
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=OUT_FILE)
    args = ap.parse_args()
    inc, _ = gv.oracle_env()
    out = gv.compile_and_run(PRELUDE, inc, "gmma")
    # CuTe's host-side "cast_smem_ptr_to_uint not supported" lines are not data.
    text = "".join(l + "\n" for l in out.splitlines() if l.startswith("gmma_"))
    header = ("# CuTe %s wgmma shared-memory atoms and descriptors (tools/oracle/gen_gmma_vectors.py).\n"
              "# Tab-separated; see the generator for the columns.\n" % gv.CUTLASS_VERSION)
    gv.write_vectors(args.out, header, text)


if __name__ == "__main__":
    main()
