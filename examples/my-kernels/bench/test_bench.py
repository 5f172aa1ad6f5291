#!/usr/bin/env python3
"""CPU tests of bench.py and its helpers (no GPU, no PyTorch, no CuPy):

- the tensor parameters' bytes against words computed by hand from the Rust types (Rows, Row,
  Batch, BatchT: runtime integers only, shape's then stride's), the grids, ptx_bounds, the tables,
  ncu_report's CSV reading;
- with NumPy: a whole `bench.py` run (bench, --check, --once) against a NumPy stand-in for
  `torch` and a stand-in driver that runs the six kernels in NumPy from their parameter bytes as
  the kernels read them (addresses, layout words, scalars), one kernel variant broken on purpose:
  the checks, the failure handling, the tables, the JSON and the exit status.

usage: python3 test_bench.py   (python3 -m unittest test_bench)
"""
import contextlib
import ctypes
import io
import json
import os
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
        self.assertEqual((grid, block), ((8, 1, 1), (256, 1, 1)))
        self.assertEqual([words(p)[2][:2] for p in params[:4]], [[8, 4096], [0, 0], [0, 0], [8, 4096]])
        self.assertEqual(words(params[1])[0], BASE + 0x200000)
        self.assertAlmostEqual(params[4].value, 1e-5)
        grid, _, params = bench.plan("layernorm", "twin", 8, ptrs, lens, 132)
        self.assertEqual([p.value for p in params], [BASE, BASE + 0x200000, BASE + 0x300000, BASE + 0x100000, 8, 4096,
                                                     4096, params[7].value])
        grid, _, params = bench.plan("transpose", "twin", (64, 2048, 1024), {"src": BASE, "dst": BASE + 64}, {}, 132)
        self.assertEqual(grid, (16, 32, 16))
        self.assertEqual([p.value for p in params[2:]], [64, 2048, 1024, 2048 * 1024, 1024, 2048 * 1024, 2048])

    def test_grids(self):  # softmax::grid on 132 multiprocessors
        self.assertEqual([bench.row_grid(r, 132)[0] for r in (1, 4096, 16384, 65536)], [1, 1024, 1024, 1041])
        self.assertEqual(bench.row_grid(10, 0)[0], 5)  # sms.max(1): at most 8 blocks; 2 rows a block
        with self.assertRaises(ValueError):
            bench.transpose_grid(6, 64, 64)


PTX = """.version 8.3
.target sm_90a
// const-layout: launch_bounds a 256 8
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
        text, added = ptx_bounds.apply(PTX)
        self.assertEqual(added, {"a": (256, 8)})
        self.assertIn(")                                       // @a\n.maxntid 256, 1, 1\n.minnctapersm 8\n{", text)
        self.assertEqual(ptx_bounds.apply(text), (text, {}))  # once only

    def test_the_real_ptx(self):
        path = "/work/main/target/ptx-examples/nvptx64-nvidia-cuda/release/my_kernels.ptx"
        if not os.path.exists(path):
            self.skipTest("no my_kernels.ptx here")
        with open(path) as f:
            text, added = ptx_bounds.apply(f.read())
        self.assertEqual(added, {"softmax_f32": (256, 8), "layernorm_f32": (256, 8)})
        self.assertEqual(text.count(".minnctapersm 8"), 2)


class Tables(unittest.TestCase):
    def test_cells(self):
        r = {"kernel": "softmax", "size": "8x4096", "impls": {
            "ours": {"ok": True, "checked": True, "ms": 2.0, "gbps": 100.0},
            "twin": {"ok": True, "checked": True, "ms": 1.0, "gbps": 200.0},
            "torch": {"ok": False, "checked": True},
            "ours_nb": {"ok": False, "error": "x"}},
            "memcpy": {"cuMemcpyDtoD_gbps": 400.0, "torch_copy_gbps": 300.0}}
        t = bench.tables([r])
        self.assertIn("| softmax | 8x4096 | 2.0000 ms, 100 GB/s | 1.0000 ms, 200 GB/s | FAIL | 400 / 300 | 2.000 | - | 0.250 |",
                      t)
        self.assertIn("| softmax | 8x4096 | 2.0000 ms, 100 GB/s | error | 1.0000 ms, 200 GB/s | - |", t)


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
        self.assertEqual(len(missing), 2)


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


def run_kernel(name, broken, grid, params):
    """The six kernels in NumPy, reading their parameters as the kernels do."""
    def tensor(p):
        addr, length, w = words(bytes(p))
        return addr, length, w

    def scal(p):
        return p.value

    if name in ("softmax_f32", "layernorm_f32", "softmax_twin", "layernorm_twin"):
        if name == "softmax_f32":
            (xa, _, (rows, ldx, *_)), (ya, _, (_, ldy, *_)) = tensor(params[0]), tensor(params[1])
        elif name == "layernorm_f32":
            (xa, _, (rows, ldx, *_)), (ya, _, (_, ldy, *_)) = tensor(params[0]), tensor(params[3])
            ga, gl, _ = tensor(params[1])
            ba, _, _ = tensor(params[2])
            eps = scal(params[4])
        elif name == "softmax_twin":
            xa, ya, rows, ldx, ldy = map(scal, params)
        else:
            xa, ga, ba, ya, rows, ldx, ldy, eps = map(scal, params)
        x = view(xa, (rows - 1) * ldx + 4096)
        y = view(ya, (rows - 1) * ldy + 4096)
        for r in range(rows):
            v = x[r * ldx:r * ldx + 4096].astype(np.float64)
            if name.startswith("softmax"):
                e = np.exp(v - v.max())
                o = e / e.sum()
            else:
                g, b = view(ga, 4096), view(ba, 4096)
                o = (v - v.mean()) / np.sqrt(v.var() + eps) * g + b
            y[r * ldy:r * ldy + 4096] = o + (1.0 if broken else 0.0)
        return
    if name == "transpose_batched_f32":
        (sa, _, (batch, m, n, sb, lds, *_)), (da, _, (_, _, _, db, ldd, *_)) = tensor(params[0]), tensor(params[1])
    else:
        sa, da, batch, m, n, sb, lds, db, ldd = map(scal, params)
    assert grid == (n // 64, m // 64, batch // 4)
    src = view(sa, (batch - 1) * sb + (m - 1) * lds + n)
    dst = view(da, (batch - 1) * db + (n - 1) * ldd + m)
    for b in range(batch):
        for i in range(m):
            dst[b * db + i + np.arange(n) * ldd] = src[b * sb + i * lds:b * sb + i * lds + n]


class FakeDriver:
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
    functions = {}  # handle -> (name, broken)

    def __init__(self):
        outer = self

        class Cuda:
            launches = 0

            def cuLaunchKernel(self, f, *rest):
                Cuda.launches += 1
                assert f.value in outer.functions
                return 0

        self.cuda = Cuda()

    def check(self, r, what):
        assert r == 0, what

    def load(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if b"BROKEN" in data:
            raise RuntimeError(f"loading {path}: CUDA_ERROR_INVALID_IMAGE")
        return path

    def function(self, mod, name):
        h = 0x1000 + len(FakeDriver.functions)
        FakeDriver.functions[h] = (name, "nb" in os.path.basename(mod) and name == "layernorm_twin")
        return h

    def attribute(self, func, attr):
        return 32

    def occupancy(self, func, threads, smem=0):
        return 8

    def clock_khz(self):
        return 1_980_000

    def memcpy_dtod(self, dst, src, nbytes, stream):
        view(dst, nbytes, np.uint8)[:] = view(src, nbytes, np.uint8)


def fake_launch(function, grid, block, smem, params, stream=None, kernel="kernel"):
    name, broken = FakeDriver.functions[function]
    assert tuple(block) == (256, 1, 1) and stream == 0
    run_kernel(name, broken, tuple(grid), params)


@unittest.skipIf(np is None, "NumPy is needed for the stand-ins")
class WholeRun(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()
        ptx = os.path.join(self.dir, "my_kernels.ptx")
        with open(ptx, "w") as f:
            f.write(PTX.replace(" a 256 8", " softmax_f32 256 8").replace("entry a(", "entry softmax_f32("))
        for n in ("twins.cubin", "twins_nb.cubin"):
            with open(os.path.join(self.dir, n), "wb") as f:
                f.write(b"cubin")
        self.saved = (sys.modules.get("torch"), sys.modules.get("cupy"), bench.Driver, cl.launch, os.environ.get("OUT"))
        sys.modules["torch"] = fake_torch()
        sys.modules["cupy"] = None  # import fails: the driver loader
        bench.Driver = FakeDriver
        cl.launch = fake_launch
        os.environ["OUT"] = os.path.join(self.dir, "out")
        FakeTensor.memory.clear()
        self.once = (bench.ONCE_ROWS, bench.TRANSPOSE_SIZE)

    def tearDown(self):
        torch, cupy, bench.Driver, cl.launch, out = self.saved
        for k, v in (("torch", torch), ("cupy", cupy)):
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
        if out is None:
            os.environ.pop("OUT", None)
        else:
            os.environ["OUT"] = out

    def run_bench(self, *extra):
        argv = ["--ptx", os.path.join(self.dir, "my_kernels.ptx"), "--twins", os.path.join(self.dir, "twins.cubin"),
                "--rows", "8,12", "--transpose", "8x64x128", "--warmup", "1", "--reps", "3", *extra]
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
            rc = bench.main(argv)
        return rc, out.getvalue()

    def test_bench(self):
        rc, out = self.run_bench()
        self.assertEqual(rc, 1, out)  # twins_nb.cubin's layernorm_twin is broken on purpose
        self.assertIn("layernorm 8x4096 twin_nb: check FAILED", out)
        for k in ("softmax 8x4096", "softmax 12x4096", "layernorm 12x4096", "transpose 8x64x128"):
            for impl in ("ours", "twin", "torch"):
                self.assertIn(f"{k} {impl}: check ok", out)
        self.assertIn("softmax 8x4096 ours_nb: check ok", out)
        self.assertIn("added {'softmax_f32': (256, 8)}", out)
        with open(os.path.join(self.dir, "out", "bench.json")) as f:
            data = json.load(f)
        self.assertEqual([r["size"] for r in data["results"]], ["8x4096", "12x4096"] * 2 + ["8x64x128"])
        r = data["results"][0]
        self.assertEqual(r["bytes"], 2 * 8 * 4096 * 4)
        self.assertEqual(r["impls"]["ours"]["ms"], 0.25)  # the fake events: 0.25 ms apart
        self.assertEqual(len(r["impls"]["ours"]["all_ms"]), 3)
        self.assertAlmostEqual(r["memcpy"]["cuMemcpyDtoD_gbps"], r["bytes"] / 0.25e-3 / 1e9)
        with open(os.path.join(self.dir, "out", "bench.md")) as f:
            self.assertIn("| softmax | 8x4096 | 0.2500 ms,", f.read())
        self.assertIn("Launch-bounds variants", out)
        self.assertIn("FAIL", out)

    def test_check_and_once(self):
        rc, out = self.run_bench("--check", "--no-variants")
        self.assertEqual(rc, 0, out)
        self.assertNotIn(" ms,", out.split("## my-kernels")[1])
        self.assertTrue(os.path.exists(os.path.join(self.dir, "out", "check.json")))
        bench.ONCE_ROWS, bench.TRANSPOSE_SIZE = 16, (4, 128, 64)  # the once sizes, smaller
        try:
            rc, out = self.run_bench("--once")
        finally:
            bench.ONCE_ROWS, bench.TRANSPOSE_SIZE = self.once
        self.assertEqual(rc, 0, out)
        self.assertIn("softmax 16x4096 ours: check ok", out)
        self.assertIn("transpose 4x128x64 twin: check ok", out)
        self.assertNotIn("torch: check", out)
        self.assertEqual(out.count(": check ok"), 6)

    def test_a_module_that_does_not_load(self):
        with open(os.path.join(self.dir, "twins.cubin"), "wb") as f:
            f.write(b"BROKEN")
        rc, out = self.run_bench("--check", "--kernels", "softmax", "--rows", "8")
        self.assertEqual(rc, 1)
        self.assertIn("could not load twin", out)
        self.assertIn("softmax 8x4096 ours: check ok", out)
        self.assertIn("softmax 8x4096 twin: ERROR RuntimeError: not loaded", out)


if __name__ == "__main__":
    unittest.main()
