#!/usr/bin/env python3
"""CPU tests of bench.py and its helpers (no GPU, no PyTorch, no CuPy):

- the tensor parameters' bytes against words computed by hand from the Rust types (Rows, Row,
  Batch, BatchT: runtime integers only, shape's then stride's), the grids, ptx_bounds, the tables,
  ncu_report's CSV reading;
- with NumPy: a whole `bench.py` run (bench, --check, --once) against a NumPy stand-in for
  `torch` and a stand-in driver that runs the kernels in NumPy from their parameter bytes as the kernels read them (addresses, layout words, scalars), block by block
  over the launch's grid (a grid that does not cover the tensor leaves NaN; the transpose's grid
  past the batch traps as the Rust kernel does); kernels broken, trapping or missing on purpose (`FakeDriver.broken`,
  `.traps`, `.missing`): the checks, the failure handling (a trap: the rest in fresh processes),
  the tables, the JSON and the exit status.

The expected grids are softmax::grid and transpose::grid (examples/my-kernels/kernels/src) worked
by hand: softmax::ROWS_PER_BLOCK = 4, so ceil(rows / 4) blocks (at least one): 4096 rows -> 1024
blocks, 16384 -> 4096. The transpose: (n / 64, m / 64, batch), one matrix's tile
a block, any batch (m and n multiples of 64, all > 0).

usage: python3 test_bench.py   (python3 -m unittest test_bench)
"""
import contextlib
import ctypes
import io
import json
import os
import re
import struct
import sys
import tempfile
import types
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench  # noqa: E402
import ncu_report  # noqa: E402
import ptx_bounds  # noqa: E402
import sass_compare  # noqa: E402

bench.load_helper()
cl = bench.cl
BASE = 0x7F00_0000_0000

try:
    import numpy as np
except ImportError:  # the integration tests need NumPy
    np = None


def words(p):
    addr, length, *w = struct.unpack("<QQ12I", p)
    return addr, length, w


class Params(unittest.TestCase):
    def test_rows(self):  # Rows = (u32, C<4096>):(u32, C<1>): words [rows, ld]
        p = cl.tensor_param(bench.ROWS_T, BASE, 100 * 4100, (100, 4096), (4100, 1))
        self.assertEqual(words(p), (BASE, 100 * 4100, [100, 4100] + [0] * 10))

    def test_row(self):  # Row = (C<1>, C<4096>):(C<0>, C<1>): no words
        p = cl.tensor_param(bench.ROW_T, BASE + 16, 4096, (1, 4096), (0, 1))
        self.assertEqual(words(p), (BASE + 16, 4096, [0] * 12))

    def test_batch(self):  # Batch = (u32, u32, u32):(u32, u32, C<1>): [batch, m, n, sb, ld]
        p = cl.tensor_param(bench.BATCH_T, BASE, 8 * 64 * 128, (8, 64, 128), (64 * 128, 128, 1))
        self.assertEqual(words(p)[2], [8, 64, 128, 64 * 128, 128] + [0] * 7)

    def test_batch_t(self):  # BatchT = (u32, u32, u32):(u32, C<1>, u32): [batch, m, n, db, ld']
        p = cl.tensor_param(bench.BATCHT_T, BASE, 8 * 64 * 128, (8, 64, 128), (64 * 128, 1, 64))
        self.assertEqual(words(p)[2], [8, 64, 128, 64 * 128, 64] + [0] * 7)

    def test_plans(self):
        lens = {"x": 8 * 4096, "y": 8 * 4096, "g": 4096, "b": 4096}
        ptrs = {"x": BASE, "y": BASE + 0x100000, "g": BASE + 0x200000, "b": BASE + 0x300000}
        grid, block, params = bench.plan("layernorm", "ours", 8, ptrs, lens, 132)
        self.assertEqual((grid, block), ((2, 1, 1), (256, 1, 1)))
        self.assertEqual([words(p)[2][:2] for p in params[:4]], [[8, 4096], [0, 0], [0, 0], [8, 4096]])
        self.assertEqual(words(params[1])[0], BASE + 0x200000)
        self.assertAlmostEqual(params[4].value, 1e-5)
        grid, _, params = bench.plan("layernorm", "twin", 8, ptrs, lens, 132)
        self.assertEqual([p.value for p in params], [BASE, BASE + 0x200000, BASE + 0x300000, BASE + 0x100000, 8, 4096,
                                                     4096, params[7].value])
        grid, _, params = bench.plan("transpose", "twin", (64, 2048, 1024), {"src": BASE, "dst": BASE + 64}, {}, 132)
        self.assertEqual(grid, (1024 // 64, 2048 // 64, 64))  # (n/64, m/64, batch) = (16, 32, 64)
        self.assertEqual([p.value for p in params[2:]], [64, 2048, 1024, 2048 * 1024, 1024, 2048 * 1024, 2048])
        ptrs, lens = {"src": BASE, "dst": BASE + 0x100000}, {"src": 64 * 2048 * 1024, "dst": 64 * 2048 * 1024}
        grid, block, params = bench.plan("transpose", "ours", (64, 2048, 1024), ptrs, lens, 132)
        self.assertEqual((grid, block), ((16, 32, 64), (256, 1, 1)))
        self.assertEqual([words(p)[:2] for p in params], [(BASE, 64 * 2048 * 1024), (BASE + 0x100000,
                                                                                      64 * 2048 * 1024)])
        self.assertEqual([words(p)[2][:5] for p in params], [[64, 2048, 1024, 2048 * 1024, 1024],
                                                             [64, 2048, 1024, 2048 * 1024, 2048]])
        # One matrix a block: any batch (8, not a multiple of 16); m, n whole tiles only.
        self.assertEqual(bench.plan("transpose", "ours", (8, 64, 128), ptrs, lens, 132)[0], (2, 1, 8))
        with self.assertRaises(ValueError):
            bench.plan("transpose", "twin", (8, 64, 96), ptrs, lens, 132)

    def test_grids(self):  # softmax::grid: 4 rows a block
        self.assertEqual([bench.row_grid(r) for r in (0, 1, 4, 5, 4096, 16384, 65537)],
                         [(1, 1, 1), (1, 1, 1), (1, 1, 1), (2, 1, 1), (1024, 1, 1), (4096, 1, 1), (16385, 1, 1)])
        self.assertEqual(bench.row_grid(2**32 - 1)[0], 2**30)  # a u32 of rows: always below 2^31 blocks
        self.assertEqual([bench.blocks_per_sm(k) for k in ("softmax", "layernorm")], [4, 4])
        # transpose::grid: (n/64, m/64, batch), one matrix's tile a block; any batch > 0.
        self.assertEqual(bench.transpose_grid(64, 2048, 2048), (32, 32, 64))
        self.assertEqual(bench.transpose_grid(16, 64, 128), (2, 1, 16))
        self.assertEqual(bench.transpose_grid(8, 64, 128), (2, 1, 8))
        self.assertEqual(bench.transpose_grid(1, 64, 64), (1, 1, 1))
        self.assertEqual(bench.transpose_grid(6, 128, 64), (1, 2, 6))
        for bad in ((0, 64, 64), (16, 64, 96), (16, 32, 64), (16, 0, 64), (16, 64, 0), (1, 65, 64)):
            with self.assertRaises(ValueError):
                bench.transpose_grid(*bad)
        # The transpose's launch bounds: 6 blocks a multiprocessor (transpose::BLOCKS_PER_SM).
        self.assertEqual(bench.blocks_per_sm("transpose"), 6)

    def test_names(self):  # the three kernels, no variants
        self.assertEqual(bench.OURS_NAMES, {"softmax": "softmax_f32", "layernorm": "layernorm_f32",
                                            "transpose": "transpose_batched_f32"})
        self.assertEqual(bench.TWIN_NAMES, {"softmax": "softmax_twin", "layernorm": "layernorm_twin",
                                            "transpose": "transpose_twin"})

    def test_cases(self):  # each row kernel's sizes; the transpose alone
        def cases(*argv):
            return bench.cases(bench.parse(["--rows", "8,12", "--transpose", "16x64x128", *argv]), False)
        t = (16, 64, 128)
        self.assertEqual(cases(), [("softmax", 8), ("softmax", 12), ("layernorm", 8), ("layernorm", 12),
                                   ("transpose", t)])
        self.assertEqual(cases("--kernels", "transpose,layernorm"), [("transpose", t), ("layernorm", 8),
                                                                      ("layernorm", 12)])
        self.assertEqual(cases("--transpose", "8x64x128", "--kernels", "transpose"), [("transpose", (8, 64, 128))])
        # The former variants are no kernels, and --variants no option.
        for bad in (["--kernels", "softmax_pf"], ["--kernels", "layernorm_cp"], ["--kernels", "softmax_b6"],
                    ["--kernels", "transpose_pf"], ["--kernels", "transpose_b1"], ["--variants", "none"]):
            with self.assertRaises(SystemExit), contextlib.redirect_stderr(io.StringIO()):
                cases(*bad)

    def test_constants_are_the_rust_ones(self):  # read from the Rust sources, not copied
        src = os.path.join(HERE, "..", "kernels", "src")
        with open(os.path.join(src, "softmax.rs")) as f:
            softmax = f.read()
        with open(os.path.join(src, "transpose.rs")) as f:
            transpose = f.read()
        with open(os.path.join(src, "lib.rs")) as f:
            lib = f.read()
        self.assertIn(f"pub const BLOCKS_PER_SM: u32 = {bench.BLOCKS_PER_SM};", softmax)
        self.assertIn(f"pub const ROWS_PER_BLOCK: u32 = {bench.ROWS_PER_BLOCK};", softmax)
        self.assertIn("rows.div_ceil(ROWS_PER_BLOCK)", softmax)
        self.assertIn(f"pub const THREADS: usize = {bench.THREADS};", softmax)
        self.assertIn(f"pub const COLS: usize = {bench.COLS};", softmax)
        self.assertIn(f"pub const TILE: usize = {bench.TILE};", transpose)
        self.assertIn(f"pub const THREADS: usize = {bench.THREADS};", transpose)
        self.assertIn(f"pub const BLOCKS_PER_SM: usize = {bench.TRANSPOSE_BLOCKS_PER_SM};", transpose)
        # transpose::grid, one matrix a block: no matrices-a-block constant, no grid_for, no variants.
        self.assertIn("pub fn grid(batch: u32, m: u32, n: u32) -> Option<Dim3>", transpose)
        self.assertRegex(transpose, r"x: n / t,\s*y: m / t,\s*z: batch,?\s*\}")  # bench.transpose_grid's
        for gone in ("pub const BATCHES_PER_BLOCK", "pub fn grid_for", "pub const BLOCKS_PER_SM_PF",
                     "pub fn transpose_pf", "pub fn transpose_b1"):
            self.assertNotIn(gone, transpose)
        self.assertRegex(lib, r"#\[launch_bounds\(transpose::THREADS, transpose::BLOCKS_PER_SM\)\]\n"
                              r"    pub fn transpose_batched_f32\(src: In<Batch>, dst: Out<BatchT>\)")
        self.assertEqual(re.findall(r"pub fn (transpose\w*)\(", lib), ["transpose_batched_f32"])
        # softmax_f32 and layernorm_f32: the row kernels' bounds; the entry points, no variants.
        self.assertEqual(lib.count("#[launch_bounds(softmax::THREADS, softmax::BLOCKS_PER_SM)]"), 2)
        self.assertEqual(re.findall(r"pub fn (\w+)\(", lib), ["softmax_f32", "layernorm_f32", "transpose_batched_f32"])
        self.assertNotIn("variants", lib)
        with open(os.path.join(HERE, "..", "twins", "twins.cu")) as f:
            twins = f.read()
        self.assertIn(f"#define ROW_BOUNDS __launch_bounds__({bench.THREADS}, {bench.BLOCKS_PER_SM})", twins)
        for k in ("softmax", "layernorm"):
            self.assertIn(f"ROW_BOUNDS\n    {k}_twin(", twins)
        # The twins: the three kernels and the spin, no variants (nor their cp.async).
        self.assertEqual(re.findall(r"__global__ void (?:\w+(?:\([^)]*\))?\s+)?(\w+)\(", twins),
                         ["softmax_twin", "layernorm_twin", "transpose_twin", "spin_twin"])
        for gone in ("ROW_BOUNDS_B6", "_twin_pf", "_twin_cp", "_twin_b6", "cp.async", "variants"):
            self.assertNotIn(gone, twins)
        # The transpose twin: one matrix a block (blockIdx.z its matrix), no template, no variants.
        self.assertRegex(twins, r"__launch_bounds__\(256\)\n    transpose_twin\(const float\* __restrict__ src, ")
        self.assertIn("b = blockIdx.z;", twins)
        self.assertEqual(set(re.findall(r"\b(transpose_twin\w*)\(", twins)), {"transpose_twin"})
        self.assertNotIn("transpose_tiles", twins)


PTX = """.version 8.3
.target sm_90a
// const-layout: launch_bounds a 256 4
.visible .entry a(
	.param .u64 a_param_0
)                                       // @a
{
	ret;
}
.visible .entry b(
	.param .u64 b_param_0
)
{
	ret;
}
"""


class Bounds(unittest.TestCase):
    def test_apply(self):
        self.assertEqual(ptx_bounds.applied(PTX), {})
        text, added = ptx_bounds.apply(PTX)
        self.assertEqual(added, {"a": (256, 4)})
        self.assertIn(")                                       // @a\n.maxntid 256, 1, 1\n.minnctapersm 4\n{", text)
        self.assertEqual(ptx_bounds.apply(text), (text, {}))  # once only
        self.assertEqual(ptx_bounds.applied(text), {"a": (256, 4)})

    def test_the_real_ptx(self):  # const-layout-builder's PTX carries the bounds itself
        path = os.environ.get("MY_KERNELS_PTX", "/work/main/target/gpu/my_kernels.ptx")
        if not os.path.exists(path):
            self.skipTest(f"no {path} here")
        with open(path) as f:
            ptx = f.read()
        rows = {"softmax_f32": (bench.THREADS, bench.BLOCKS_PER_SM), "layernorm_f32": (bench.THREADS, bench.BLOCKS_PER_SM)}
        # The transpose's bounds where the PTX has them (one built before it has not): (256, 6). The
        # kernels' only: a PTX built before the variants' removal has theirs too.
        mine = lambda b: {k: v for k, v in b.items() if k in bench.OURS_NAMES.values()}
        declared = ptx_bounds.declared(ptx)
        if "transpose_batched_f32" in declared:
            rows["transpose_batched_f32"] = (bench.THREADS, bench.blocks_per_sm("transpose"))
        self.assertEqual(mine(declared), rows)
        self.assertEqual(mine(ptx_bounds.applied(ptx)), rows)
        self.assertEqual(ptx_bounds.apply(ptx), (ptx, {}))


class Tables(unittest.TestCase):
    def test_cells(self):
        r = {"kernel": "softmax", "size": "8x4096", "impls": {
            "ours": {"ok": True, "checked": True, "ms": 2.0, "gbps": 100.0},
            "twin": {"ok": True, "checked": True, "ms": 1.0, "gbps": 200.0},
            "torch": {"ok": False, "checked": True}},
            "memcpy": {"cuMemcpyDtoD_gbps": 400.0, "torch_copy_gbps": 300.0}}
        r2 = {"kernel": "transpose", "size": "16x64x64", "impls": {
            "ours": {"ok": False, "error": "x"}, "twin": {"ok": True, "checked": True}}}
        info = {"functions": {"ours:softmax_f32": {"registers": 40, "local_bytes": 0, "static_smem": 256,
                                                   "blocks_per_sm": 4}}}
        t = bench.tables([r, r2], info)
        self.assertIn("| softmax | 8x4096 | 2.0000 ms, 100 GB/s | 1.0000 ms, 200 GB/s | FAIL | 400 / 300 | 2.000 | - | 0.250 |",
                      t)
        self.assertIn("| transpose | 16x64x64 | error | ok | - | - / - | - | - | - |", t)
        self.assertIn("- ours: the Rust kernels' PTX", t)
        self.assertIn("`__launch_bounds__(256, 4)`", t)
        self.assertTrue(t.endswith("| ours:softmax_f32 | 40 | 0 | 256 | 4 |"))
        self.assertNotIn("_nb", t)
        self.assertNotIn("registers", bench.tables([r]))

    def test_transpose_legend(self):  # the transpose's grid, one matrix a block; no variants
        r = {"kernel": "transpose", "size": "64x2048x2048", "impls": {
            "ours": {"ok": True, "checked": True, "ms": 1.0, "gbps": 2000.0},
            "twin": {"ok": True, "checked": True, "ms": 1.0, "gbps": 2000.0},
            "torch": {"ok": True, "checked": True, "ms": 2.0, "gbps": 1000.0}},
            "memcpy": {"cuMemcpyDtoD_gbps": 4000.0, "torch_copy_gbps": 3000.0}}
        t = bench.tables([r])
        self.assertIn("| transpose | 64x2048x2048 | 1.0000 ms, 2000 GB/s | 1.0000 ms, 2000 GB/s | 2.0000 ms, 1000 GB/s "
                      "| 4000 / 3000 | 1.000 | 0.500 | 0.500 |", t)
        self.assertIn("the transpose (n/64, m/64, batch): one matrix's 64 x 64 tile a block", t)
        self.assertIn("the transpose's (256, 6)", t)
        self.assertIn("the transpose `__launch_bounds__(256)`", t)
        for gone in ("batch/16", "transpose_pf", "transpose_twin_pf", "b1"):
            self.assertNotIn(gone, t)


class NcuReport(unittest.TestCase):
    def test_units_and_noise(self):
        text = "\n".join([
            "==PROF== Connected", "bench: x", '"not the header"',
            '"ID","Kernel Name","launch__thread_count","smsp__sass_thread_inst_executed.sum","smsp__inst_executed.sum",'
            '"dram__bytes_read.sum","dram__bytes_write.sum"',
            '"","","","inst","inst","Mbyte","Kbyte"',
            '"0","softmax_f32","256","2,560","80","1.5","2"',
            '"1","softmax_twin(float const*)","256","2,048","64","1.5","2"'])
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write(text)
        rows = ncu_report.read([f.name])
        os.unlink(f.name)
        k = ncu_report.per_kernel(rows)
        self.assertEqual(sorted(k), ["softmax_f32", "softmax_twin"])
        fo = ncu_report.figures(k["softmax_f32"])
        self.assertEqual((fo["inst_per_thread"], fo["inst_per_warp"], fo["dram_read"], fo["dram_write"]),
                         (10.0, 10.0, 1.5e6, 2e3))
        table, missing = ncu_report.report(rows)
        self.assertIn("| softmax | 256 | 10.0 | 8.0 | 1.250 |", table)
        self.assertEqual(len(missing), 2)  # layernorm, transpose
        # The three kernels' pairs only: a former variant profiled is neither a row nor missing.
        self.assertEqual([p[0] for p in ncu_report.PAIRS], ["softmax", "layernorm", "transpose"])
        k["softmax_pf_f32"] = k["softmax_f32"]
        table, missing = ncu_report.report([dict(r, **{"Kernel Name": n}) for n, r in k.items()])
        self.assertEqual(len(missing), 2, missing)
        self.assertNotIn("softmax_pf", table)


class NcuScript(unittest.TestCase):
    """ncu.sh's kernel filter and launch count against bench.py's names and `--once` plan."""

    def script(self):
        with open(os.path.join(HERE, "ncu.sh")) as f:
            text = f.read()
        regex = re.search(r"^KERNELS='regex:(.*)'$", text, re.M).group(1)
        count = int(re.search(r' -c (\d+) ', text).group(1))
        return re.compile(regex), count

    def test_the_filter_takes_every_kernel(self):
        regex, _ = self.script()
        names = list(bench.OURS_NAMES.values()) + list(bench.TWIN_NAMES.values())
        self.assertEqual([n for n in names if not regex.match(n)], [])
        variants = [n for k in ("softmax", "layernorm") for v in ("pf", "cp", "b6") for n in (f"{k}_{v}_f32",
                                                                                            f"{k}_twin_{v}")]
        for other in ["spin_twin", "transpose_batched_pf_f32", "transpose_batched_b1_f32", "transpose_twin_pf",
                      "transpose_twin_b1", "softmax_b1_f32", "elementwise"] + variants:
            self.assertIsNone(regex.match(other), other)

    def test_the_count_is_the_once_launches(self):  # ours and twin of every case
        _, count = self.script()
        once = bench.cases(bench.parse(["--once"]), True)
        self.assertEqual(2 * len(once), count)
        # softmax, layernorm and the transpose: 3 cases, 6 launches.
        self.assertEqual(len(once), 3)
        self.assertEqual(count, 6)


class SassCompare(unittest.TestCase):
    @staticmethod
    def body(ops):
        return [(16 * i, "", op, f"{op} ;") for i, op in enumerate(ops)]

    def test_pairs(self):
        pairs = {p[0]: p[1:] for p in sass_compare.PAIRS}
        self.assertEqual(pairs["transpose"], ("transpose_batched_f32", "transpose_twin"))
        self.assertEqual(list(pairs), ["softmax", "layernorm", "transpose"])

    def test_tile_body(self):  # one matrix a block: the first global load through the last global store
        tile = ["LDG", "IMAD", "LDG", "STS", "STS", "BAR", "LDS", "LEA", "STG", "STG"]
        body = self.body(["S2R", "IMAD", "ISETP", "BRA"] + tile + ["EXIT", "BPT", "BRA"])
        for name in ("transpose_twin", "transpose_batched_f32"):
            part, others = sass_compare.hot(name, body)
            self.assertEqual([op for _, _, op, _ in part], tile, name)
            self.assertEqual(others, [])
        self.assertEqual(sass_compare.hot("transpose_twin", self.body(["S2R", "EXIT"])), ([], []))


# ------------------------------------------------------------------------------------------------
# A NumPy stand-in for the part of torch bench.py uses, with device addresses for data_ptr().

class FakeTensor:
    memory = {}  # address -> base array (flat, owning)
    next_addr = [0x7000_0000_0000]

    def __init__(self, a, base=None, addr=None):
        self.a = a
        if addr is None:
            addr = FakeTensor.next_addr[0]
            FakeTensor.next_addr[0] += (a.nbytes + 1023) // 512 * 512 + 512
            FakeTensor.memory[addr] = a
        self.addr = addr

    @staticmethod
    def wrap(a):
        return FakeTensor(np.ascontiguousarray(a))

    shape = property(lambda self: self.a.shape)

    def data_ptr(self):
        return self.addr

    def numel(self):
        return self.a.size

    def fill_(self, v):
        self.a.fill(v)
        return self

    def zero_(self):
        self.a.fill(0)
        return self

    def copy_(self, o):
        self.a[...] = o.a
        return self

    def add_(self, v):
        self.a += v
        return self

    def item(self):
        return self.a.item()

    def double(self):
        return FakeTensor.wrap(self.a.astype(np.float64))

    def abs(self):
        return FakeTensor.wrap(np.abs(self.a))

    def sum(self):
        return FakeTensor.wrap(np.array(self.a.sum()))

    def max(self):
        return FakeTensor.wrap(np.array(self.a.max()))

    def transpose(self, i, j):
        return FakeTensor(np.swapaxes(self.a, i, j), addr=-1)

    def contiguous(self):
        return FakeTensor.wrap(self.a)

    def __getitem__(self, s):
        return FakeTensor(self.a[s], addr=-1)

    def _o(self, o):
        return o.a if isinstance(o, FakeTensor) else o

    def __sub__(self, o):
        return FakeTensor.wrap(self.a - self._o(o))

    def __add__(self, o):
        return FakeTensor.wrap(self.a + self._o(o))

    __radd__ = __add__

    def __mul__(self, o):
        return FakeTensor.wrap(self.a * self._o(o))

    __rmul__ = __mul__

    def __iadd__(self, o):
        self.a += self._o(o)
        return self

    def __le__(self, o):
        return FakeTensor.wrap(self.a <= self._o(o))

    def __invert__(self):
        return FakeTensor.wrap(~self.a)


def fake_torch():
    t = types.ModuleType("torch")
    t.__version__ = "fake"
    t.uint8, t.float32 = np.uint8, np.float32
    rng = np.random.default_rng(0)
    t.manual_seed = lambda s: None
    t.randn = lambda *shape, device=None: FakeTensor.wrap(rng.standard_normal(shape).astype(np.float32))
    t.empty = lambda *shape, dtype=np.float32, device=None: FakeTensor.wrap(np.full(shape, 7, dtype=dtype))
    t.zeros = lambda *shape, device=None: FakeTensor.wrap(np.zeros(shape, np.float32))
    t.empty_like = lambda x: FakeTensor.wrap(np.empty_like(x.a))
    t.isnan = lambda x: FakeTensor.wrap(np.isnan(x.a))
    t.nan_to_num = lambda x, nan=0.0: FakeTensor.wrap(np.nan_to_num(x.a, nan=nan))
    t.equal = lambda a, b: a.a.shape == b.a.shape and bool(np.array_equal(a.a, b.a))
    t.no_grad = contextlib.nullcontext

    def softmax(x, dim, out=None):
        e = np.exp(x.a - x.a.max(axis=dim, keepdims=True))
        r = (e / e.sum(axis=dim, keepdims=True)).astype(x.a.dtype)
        if out is None:
            return FakeTensor.wrap(r)
        out.a[...] = r
        return out

    def layer_norm(x, shape, w, b, eps):
        m = x.a.mean(-1, keepdims=True)
        v = ((x.a - m) ** 2).mean(-1, keepdims=True)
        return FakeTensor.wrap(((x.a - m) / np.sqrt(v + eps) * w.a + b.a).astype(x.a.dtype))

    t.softmax = softmax
    t.nn = types.SimpleNamespace(functional=types.SimpleNamespace(layer_norm=layer_norm))

    class Event:
        clock = [0.0]

        def __init__(self, enable_timing=False):
            self.t = None

        def record(self):
            Event.clock[0] += 0.25
            self.t = Event.clock[0]

        def elapsed_time(self, other):
            return other.t - self.t

    t.cuda = types.SimpleNamespace(
        init=lambda: None, synchronize=lambda: None, empty_cache=lambda: None, _sleep=lambda c: None,
        get_device_properties=lambda i: types.SimpleNamespace(name="Fake H200", multi_processor_count=132),
        current_stream=lambda: types.SimpleNamespace(cuda_stream=0), Event=Event)
    return t


def view(addr, count, dtype=np.float32):
    """The device memory at addr: count elements of an allocation the fake torch made."""
    for base, a in FakeTensor.memory.items():
        if base <= addr < base + a.nbytes:
            flat = a.reshape(-1).view(dtype)
            start = (addr - base) // flat.itemsize
            assert start + count <= flat.size, "a kernel would read past its allocation"
            return flat[start:start + count]
    raise AssertionError(f"no allocation at {addr:#x}")


class Lost(Exception):
    """A device-side trap in the stand-ins: the fake CUDA context is unusable until reset."""


CONTEXT = {"lost": False}  # the fake CUDA context: a trap makes every later synchronize fail
LAUNCHES = []  # (function name, grid) of every launch the stand-ins ran


def synchronize():
    if CONTEXT["lost"]:
        raise RuntimeError("CUDA error: an illegal instruction was encountered")


def run_kernel(name, broken, grid, params):
    """The kernels in NumPy, reading their parameters as the
    kernels do, block by block over the grid (softmax::grid's grid-stride over the rows; the
    transpose's one matrix's tile a block, blockIdx.z its matrix, trapping past the batch as the Rust
    kernel's check does); each launch's (name, grid) in LAUNCHES."""
    def tensor(p):
        addr, length, w = words(bytes(p))
        return addr, length, w

    def scal(p):
        return p.value

    LAUNCHES.append((name, grid))
    kind, ours = name.split("_")[0], name.endswith("_f32")  # softmax_f32, softmax_twin, ...
    if kind in ("softmax", "layernorm"):
        if kind == "softmax" and ours:
            (xa, _, (rows, ldx, *_)), (ya, _, (_, ldy, *_)) = tensor(params[0]), tensor(params[1])
        elif ours:
            (xa, _, (rows, ldx, *_)), (ya, _, (_, ldy, *_)) = tensor(params[0]), tensor(params[3])
            ga, gl, _ = tensor(params[1])
            ba, _, _ = tensor(params[2])
            eps = scal(params[4])
        elif kind == "softmax":
            xa, ya, rows, ldx, ldy = map(scal, params)
        else:
            xa, ga, ba, ya, rows, ldx, ldy, eps = map(scal, params)
        assert grid[1:] == (1, 1) and grid[0] >= 1, grid
        x = view(xa, (rows - 1) * ldx + 4096)
        y = view(ya, (rows - 1) * ldy + 4096)
        for block in range(grid[0]):
            for r in range(block, rows, grid[0]):
                v = x[r * ldx:r * ldx + 4096].astype(np.float64)
                if kind == "softmax":
                    e = np.exp(v - v.max())
                    o = e / e.sum()
                else:
                    g, b = view(ga, 4096), view(ba, 4096)
                    o = (v - v.mean()) / np.sqrt(v.var() + eps) * g + b
                y[r * ldy:r * ldy + 4096] = o + (1.0 if broken else 0.0)
        return
    if ours:  # transpose_batched_f32
        (sa, _, (batch, m, n, sb, lds, *_)), (da, _, (_, _, _, db, ldd, *_)) = tensor(params[0]), tensor(params[1])
    else:
        sa, da, batch, m, n, sb, lds, db, ldd = map(scal, params)
    src = view(sa, (batch - 1) * sb + (m - 1) * lds + n)
    dst = view(da, (batch - 1) * db + (n - 1) * ldd + m)
    i, j = np.meshgrid(np.arange(64), np.arange(64), indexing="ij")
    for b in range(grid[2]):  # blockIdx.z: the block's matrix
        if b >= batch:
            if ours:  # the Rust kernel's check: a trap
                raise Lost(f"{name}: the grid is not the shape's")
            raise AssertionError(f"{name} would read past the batch")
        for by in range(grid[1]):
            for bx in range(grid[0]):
                i0, j0 = 64 * by, 64 * bx
                assert i0 + 64 <= m and j0 + 64 <= n, f"{name}: block ({bx}, {by}, {b}) past the matrix"
                dst[b * db + (i0 + i) + (j0 + j) * ldd] = src[b * sb + (i0 + i) * lds + (j0 + j)] + \
                    (1.0 if broken else 0.0)


class FakeDriver:
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
    functions = {}  # handle -> (module basename, name)
    broken = set()  # (module basename, function name): wrong results
    traps = set()  # (module basename, function name): a device-side trap
    missing = set()  # (module basename, function name): not in the module

    def __init__(self):
        outer = self

        class Cuda:
            launches = 0

            def cuLaunchKernel(self, f, *rest):
                Cuda.launches += 1
                assert f.value in outer.functions
                return 719 if CONTEXT["lost"] else 0  # CUDA_ERROR_LAUNCH_FAILED

        self.cuda = Cuda()

    def check(self, r, what):
        if r != 0:
            raise RuntimeError(f"{what}: CUresult {r}")

    def load(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if b"BROKEN" in data:
            raise RuntimeError(f"loading {path}: CUDA_ERROR_INVALID_IMAGE")
        return path

    def function(self, mod, name):
        if (os.path.basename(mod), name) in FakeDriver.missing:
            raise RuntimeError(f"function {name}: CUDA_ERROR_NOT_FOUND")
        h = 0x1000 + len(FakeDriver.functions)
        FakeDriver.functions[h] = (os.path.basename(mod), name)
        return h

    def attribute(self, func, attr):
        return 32

    def occupancy(self, func, threads, smem=0):
        return 4

    def clock_khz(self):
        return 1_980_000

    def memcpy_dtod(self, dst, src, nbytes, stream):
        view(dst, nbytes, np.uint8)[:] = view(src, nbytes, np.uint8)


def fake_launch(function, grid, block, smem, params, stream=None, kernel="kernel"):
    key = FakeDriver.functions[function]
    assert tuple(block) == (256, 1, 1) and stream == 0
    if CONTEXT["lost"]:
        raise RuntimeError(f"launching {kernel}: CUDA_ERROR_LAUNCH_FAILED")
    if key in FakeDriver.interrupts:
        raise bench.Interrupted("signal 15")
    try:
        if key in FakeDriver.traps:
            raise Lost(f"{key[1]}: trap")
        run_kernel(key[1], key in FakeDriver.broken, tuple(grid), params)
    except Lost:
        CONTEXT["lost"] = True  # as a trap: the launch returns, the next synchronize fails


FakeDriver.interrupts = set()  # (module basename, function name): SIGTERM (run.sh's timeout) at its launch

# The builder's PTX: the launch bounds declared and carried (what const-layout-builder writes).
BUILT_PTX = """.version 8.3
.target sm_90a
// const-layout: launch_bounds softmax_f32 256 4
// const-layout: launch_bounds layernorm_f32 256 4
.visible .entry layernorm_f32(
	.param .align 8 .b8 layernorm_f32_param_0[64]
)
.maxntid 256, 1, 1
.minnctapersm 4
{
	ret;
}
.visible .entry softmax_f32(
	.param .align 8 .b8 softmax_f32_param_0[64]
)
.maxntid 256, 1, 1
.minnctapersm 4
{
	ret;
}
.visible .entry transpose_batched_f32(
	.param .align 8 .b8 transpose_batched_f32_param_0[64]
)
{
	ret;
}
"""


@unittest.skipIf(np is None, "NumPy is needed for the stand-ins")
class WholeRun(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.ptx = os.path.join(self.dir, "my_kernels.ptx")
        with open(self.ptx, "w") as f:
            f.write(BUILT_PTX)
        with open(os.path.join(self.dir, "twins.cubin"), "wb") as f:
            f.write(b"cubin")
        self.saved = (sys.modules.get("torch"), sys.modules.get("cupy"), bench.Driver, cl.launch, os.environ.get("OUT"),
                      bench.run_child)
        sys.modules["torch"] = fake_torch()
        sys.modules["torch"].cuda.synchronize = synchronize
        sys.modules["cupy"] = None  # import fails: the driver loader
        bench.Driver = FakeDriver
        cl.launch = fake_launch
        os.environ["OUT"] = os.path.join(self.dir, "out")
        FakeTensor.memory.clear()
        LAUNCHES.clear()
        CONTEXT["lost"] = False
        FakeDriver.broken, FakeDriver.traps, FakeDriver.missing, FakeDriver.interrupts = set(), set(), set(), set()
        self.children = []

        def run_child(argv, timeout):  # a fresh process: a fresh context, the same stand-ins
            self.children.append(argv)
            CONTEXT["lost"] = False
            return bench.main(argv)
        bench.run_child = run_child
        self.once = (bench.ONCE_ROWS, bench.TRANSPOSE_SIZE)

    def tearDown(self):
        torch, cupy, bench.Driver, cl.launch, out, bench.run_child = self.saved
        for k, v in (("torch", torch), ("cupy", cupy)):
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        if out is None:
            os.environ.pop("OUT", None)
        else:
            os.environ["OUT"] = out
        CONTEXT["lost"] = False

    def run_bench(self, *extra):
        """bench.main on the stand-ins."""
        argv = ["--ptx", self.ptx, "--twins", os.path.join(self.dir, "twins.cubin"), "--rows", "8,12", "--transpose", "16x64x128", "--warmup", "1", "--reps", "3", *extra]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            rc = bench.main(argv)
        return rc, out.getvalue()

    def results(self, mode="bench"):
        with open(os.path.join(self.dir, "out", f"{mode}.json")) as f:
            return json.load(f)

    def test_bench(self):
        FakeDriver.broken = {("twins.cubin", "layernorm_twin")}  # wrong on purpose: one FAIL, the rest go on
        rc, out = self.run_bench()
        self.assertEqual(rc, 1, out)
        self.assertIn("the PTX's launch bounds: layernorm_f32 .maxntid 256 .minnctapersm 4, softmax_f32 .maxntid 256 "
                      ".minnctapersm 4", out)
        self.assertNotIn("WARNING", out)
        self.assertIn("layernorm 8x4096 twin: check FAILED", out)
        self.assertIn("layernorm 12x4096 twin: check FAILED", out)
        for k in ("softmax 8x4096", "softmax 12x4096", "layernorm 8x4096", "layernorm 12x4096", "transpose 16x64x128"):
            for impl in ("ours", "twin", "torch"):
                if not (k.startswith("layernorm") and impl == "twin"):
                    self.assertIn(f"{k} {impl}: check ok", out)
        data = self.results()
        self.assertEqual([r["size"] for r in data["results"]], ["8x4096", "12x4096"] * 2 + ["16x64x128"])
        self.assertEqual([sorted(r["impls"]) for r in data["results"]], [["ours", "torch", "twin"]] * 5)
        r = data["results"][0]
        self.assertEqual(r["bytes"], 2 * 8 * 4096 * 4)
        self.assertEqual(r["impls"]["ours"]["grid"], [2, 1, 1])  # softmax::grid(8): 4 rows a block
        self.assertEqual(data["results"][4]["impls"]["twin"]["grid"], [2, 1, 16])  # (128/64, 64/64, 16)
        self.assertEqual(r["impls"]["ours"]["ms"], 0.25)  # the fake events: 0.25 ms apart
        self.assertEqual(len(r["impls"]["ours"]["all_ms"]), 3)
        self.assertAlmostEqual(r["memcpy"]["cuMemcpyDtoD_gbps"], r["bytes"] / 0.25e-3 / 1e9)
        self.assertEqual(data["info"]["ptx_bounds"], {"softmax_f32": [256, 4], "layernorm_f32": [256, 4]})
        with open(os.path.join(self.dir, "out", "bench.md")) as f:
            md = f.read()
        self.assertIn("| softmax | 8x4096 | 0.2500 ms,", md)
        self.assertIn("| layernorm | 8x4096 | 0.2500 ms, 1 GB/s | FAIL |", md)
        self.assertNotIn("_nb", out)
        # The table is the last thing printed (then the failure line).
        tail = out.rstrip().split("\n")
        self.assertEqual(tail[-1], "bench: SOME CHECKS OR RUNS FAILED (see above)")
        self.assertEqual(tail[-3], "| twin:transpose_twin | 32 | 32 | 32 | 4 |")
        self.assertEqual(self.children, [])

    def test_the_transpose_takes_any_batch(self):  # one matrix a block: the grid's z is the batch
        rc, out = self.run_bench("--check", "--kernels", "transpose", "--transpose", "6x128x64")
        self.assertEqual(rc, 0, out)
        self.assertEqual(LAUNCHES, [("transpose_batched_f32", (1, 2, 6)), ("transpose_twin", (1, 2, 6))])
        for impl in ("ours", "twin", "torch"):
            self.assertIn(f"transpose 6x128x64 {impl}: check ok", out)
        self.assertEqual([r["kernel"] for r in self.results("check")["results"]], ["transpose"])
        rc, out = self.run_bench("--check", "--kernels", "transpose", "--transpose", "6x128x96", "--impls", "ours,twin")
        self.assertEqual(rc, 1, out)
        for impl in ("ours", "twin"):
            self.assertIn(f"transpose 6x128x96 {impl}: ERROR ValueError: transpose: 6 x 128 x 96 is not whole tiles "
                          f"(m, n multiples of 64, all > 0)", out)
        with self.assertRaises(SystemExit):  # the former variants are no kernels
            self.run_bench("--check", "--kernels", "transpose_b1")

    def test_once_launches_what_ncu_counts(self):  # ncu.sh's -c and -k: every launch of `--once`
        bench.ONCE_ROWS, bench.TRANSPOSE_SIZE = 16, (16, 128, 64)
        try:
            argv = ["--ptx", self.ptx, "--twins", os.path.join(self.dir, "twins.cubin"), "--once"]
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
                rc = bench.main(argv)
            out = buf.getvalue()
        finally:
            bench.ONCE_ROWS, bench.TRANSPOSE_SIZE = self.once
        self.assertEqual(rc, 0, out)
        regex, count = NcuScript().script()
        self.assertEqual(len(LAUNCHES), count, LAUNCHES)
        self.assertEqual(len({n for n, _ in LAUNCHES}), count)  # each function once
        self.assertEqual([n for n, _ in LAUNCHES if not regex.match(n)], [])
        self.assertIn(("transpose_twin", (1, 2, 16)), LAUNCHES)  # 16 x 128 x 64: a matrix a block
        self.assertIn(("transpose_batched_f32", (1, 2, 16)), LAUNCHES)

    def test_no_variants(self):  # the row kernels' former variants: no kernels, no --variants
        for extra in (["--kernels", "softmax_pf"], ["--kernels", "layernorm_b6"], ["--variants", "pf"]):
            with self.assertRaises(SystemExit):
                self.run_bench("--check", *extra)

    def test_an_older_ptx_gets_its_declared_bounds(self):
        with open(self.ptx, "w") as f:
            f.write(PTX.replace(" a 256 4", " softmax_f32 256 4").replace("entry a(", "entry softmax_f32("))
        rc, out = self.run_bench("--check", "--kernels", "softmax", "--rows", "8")
        self.assertIn("WARNING: the PTX declares launch bounds it does not carry", out)
        self.assertIn("added {'softmax_f32': (256, 4)}", out)
        self.assertTrue(os.path.exists(os.path.join(self.dir, "out", "my_kernels.bounds.ptx")))
        self.assertIn("softmax 8x4096 ours: check ok", out)
        self.assertEqual(rc, 0, out)

    def test_check_and_once(self):
        rc, out = self.run_bench("--check")
        self.assertEqual(rc, 0, out)
        self.assertNotIn(" ms,", out.split("## my-kernels")[1])
        self.assertTrue(os.path.exists(os.path.join(self.dir, "out", "check.json")))
        bench.ONCE_ROWS, bench.TRANSPOSE_SIZE = 16, (16, 128, 64)  # the once sizes, smaller
        try:
            argv = ["--ptx", self.ptx, "--twins", os.path.join(self.dir, "twins.cubin"), "--once"]
            buf = io.StringIO()
            with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
                rc = bench.main(argv)
            out = buf.getvalue()
        finally:
            bench.ONCE_ROWS, bench.TRANSPOSE_SIZE = self.once
        self.assertEqual(rc, 0, out)
        self.assertIn("softmax 16x4096 ours: check ok", out)
        self.assertIn("transpose 16x128x64 twin: check ok", out)
        self.assertNotIn("torch: check", out)
        self.assertEqual(out.count(": check ok"), 6)
        self.assertEqual(sys.modules["torch"].cuda.Event.clock[0] % 1, 0)  # nothing timed: no memcpy either
        self.assertNotIn("bench: memcpy", out)

    def test_a_trap_loses_only_its_launch(self):
        FakeDriver.traps = {("my_kernels.ptx", "softmax_f32")}
        rc, out = self.run_bench("--check")
        self.assertEqual(rc, 1, out)
        self.assertIn("the CUDA context is lost", out)
        data = self.results("check")
        cells = {(r["kernel"], r["size"], i): ("ok" if e.get("ok") else "error" if "error" in e else "FAIL")
                 for r in data["results"] for i, e in r["impls"].items()}
        for size in ("8x4096", "12x4096"):
            self.assertEqual(cells.pop(("softmax", size, "ours")), "error")
        self.assertEqual(set(cells.values()), {"ok"}, out)
        self.assertEqual(len(cells), 3 * 5 - 2)
        self.assertIn("| softmax | 8x4096 | error | ok | ok |", out)
        # softmax 8: twin and torch in a fresh process; softmax 12: the whole case, then (after
        # its trap) twin and torch in another; then the other cases one process each.
        self.assertEqual([c[c.index("--impls") + 1] for c in self.children],
                         ["twin,torch", "ours,twin,torch", "twin,torch"] + ["ours,twin,torch"] * 3)

    def test_a_trap_of_the_transpose_grid(self):  # a grid past the batch: the Rust kernel traps
        saved = bench.transpose_grid
        bench.transpose_grid = lambda b, m, n: (n // 64, m // 64, b + 1)
        try:
            rc, out = self.run_bench("--check", "--kernels", "transpose", "--impls", "ours")
        finally:
            bench.transpose_grid = saved
        self.assertEqual(rc, 1, out)
        self.assertIn("transpose 16x64x128 ours: ERROR RuntimeError: CUDA error", out)

    def test_sigterm_prints_what_was_measured(self):
        FakeDriver.interrupts = {("twins.cubin", "layernorm_twin")}
        rc, out = self.run_bench()
        self.assertEqual(rc, 1, out)
        self.assertIn("bench: interrupted (signal 15)", out)
        data = self.results()
        self.assertEqual([r["size"] for r in data["results"]], ["8x4096", "12x4096"])
        self.assertIn("| softmax | 12x4096 | 0.2500 ms,", out.split("## my-kernels")[1])

    def test_a_module_that_does_not_load(self):
        with open(os.path.join(self.dir, "twins.cubin"), "wb") as f:
            f.write(b"BROKEN")
        rc, out = self.run_bench("--check", "--kernels", "softmax", "--rows", "8")
        self.assertEqual(rc, 1)
        self.assertIn("could not load twin", out)
        self.assertIn("softmax 8x4096 ours: check ok", out)
        self.assertIn("softmax 8x4096 twin: ERROR RuntimeError: not loaded", out)

    def test_a_missing_function_fails_its_kernel_only(self):
        FakeDriver.missing = {("twins.cubin", "transpose_twin")}
        rc, out = self.run_bench("--check")
        self.assertEqual(rc, 1)
        self.assertIn("no function transpose_twin", out)
        self.assertIn("transpose 16x64x128 twin: ERROR RuntimeError: not loaded: RuntimeError: function transpose_twin",
                      out)
        self.assertIn("layernorm 12x4096 twin: check ok", out)
        self.assertIn("transpose 16x64x128 ours: check ok", out)

    def test_no_files(self):
        rc, out = self.run_bench("--check", "--ptx", os.path.join(self.dir, "none.ptx"), "--twins",
                                 os.path.join(self.dir, "none.cubin"), "--kernels", "softmax", "--rows", "8")
        self.assertEqual(rc, 1)
        self.assertIn("cannot read the PTX", out)
        self.assertIn("softmax 8x4096 torch: check ok", out)
        self.assertIn("| softmax | 8x4096 | error | error | ok |", out)


if __name__ == "__main__":
    unittest.main()
