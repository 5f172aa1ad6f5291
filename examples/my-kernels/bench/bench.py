#!/usr/bin/env python3
"""Benchmark of the my-kernels kernels on the GPU: ours (the Rust PTX), their CUDA C++ twins
(examples/my-kernels/twins) and PyTorch, with the device-to-device copy bandwidth as the anchor.

    python3 bench.py [--ptx my_kernels.ptx] [--twins twins.cubin]
    python3 bench.py --check      every output checked, nothing timed
    python3 bench.py --once       each of ours and the twins launched exactly once (16384 rows,
                                  64 x 2048 x 2048) and checked: what ncu.sh profiles
    python3 bench.py --dry        no GPU: the launch plan (grids, parameter words) and the table
                                  code on made-up numbers

Kernels and sizes: softmax and LayerNorm over rows of 4096 f32 (rows 4096 ... 65536; grid
softmax::grid, 4 rows a block), a batched transpose 64 x 2048 x 2048 f32 (grid
(n/64, m/64, batch): one matrix's 64 x 64 tile a block). Implementations:
  ours   the Rust kernels' PTX as const-layout-builder writes it: the kernels carry their launch
         bounds, .maxntid 256 / .minnctapersm 4 (the transpose's 6; an older PTX with only the
         `// const-layout: launch_bounds` comments gets them applied here, see ptx_bounds.py);
  twin   twins.cubin, the same design in CUDA C++ (nvcc -O3), __launch_bounds__(256, 4) on the
         row kernels as the Rust declares, __launch_bounds__(256) on the transpose;
  torch  torch.softmax, F.layer_norm, x.transpose(1, 2).contiguous().

Each implementation's output is poisoned with NaN, computed once and checked against PyTorch in
float64 before it is timed (softmax: torch.softmax; layernorm: F.layer_norm, eps 1e-5; transpose:
exact). Timing: CUDA events around the launch alone, 3 warm-ups, the median of 20; before each
timed launch the L2 is flushed (a 256 MiB memset, --no-flush) and a sleep kernel is queued
(torch.cuda._sleep) so that the host's launch overhead is not timed. GB/s count the bytes the
kernel reads plus writes. The anchor: cuMemcpyDtoDAsync and torch's copy_ of half those bytes
(read + write = the kernel's bytes), timed the same way.

Output: one markdown table with its legend and the functions' registers (the last thing printed),
written with a JSON of every number to $OUT (or ./bench-out): bench.md, bench.json. A failure in
one row is printed and the rest go on; a device-side trap (which ends the CUDA context) moves the
remaining work to fresh processes (`--child-json`), so it loses only the launch that trapped;
SIGTERM (run.sh's timeout) prints and writes what was measured. The exit status is 1 if any check
failed (or anything could not run).
"""
import argparse
import ctypes
import json
import math
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import ptx_bounds  # noqa: E402

COLS = 4096
BLOCKS_PER_SM = 4  # softmax::BLOCKS_PER_SM (the row kernels' launch bounds' minimum)
ROWS_PER_BLOCK = 4  # softmax::ROWS_PER_BLOCK
THREADS = 256  # softmax::THREADS, transpose::THREADS
TILE = 64  # transpose::TILE
TRANSPOSE_BLOCKS_PER_SM = 6  # transpose::BLOCKS_PER_SM (its launch bounds' minimum)
EPS = 1e-5
ROW_SIZES = [4096, 8192, 16384, 32768, 65536]
TRANSPOSE_SIZE = (64, 2048, 2048)
ONCE_ROWS = 16384

# The entry points' tensor types (examples/my-kernels/kernels/src/lib.rs), in the helper's notation.
ROWS_T = "(u32,_4096):(u32,_1)"       # Rows
ROW_T = "(_1,_4096):(_0,_1)"          # Row
BATCH_T = "(u32,u32,u32):(u32,u32,_1)"  # Batch
BATCHT_T = "(u32,u32,u32):(u32,_1,u32)"  # BatchT

OURS_NAMES = {"softmax": "softmax_f32", "layernorm": "layernorm_f32", "transpose": "transpose_batched_f32"}
TWIN_NAMES = {"softmax": "softmax_twin", "layernorm": "layernorm_twin", "transpose": "transpose_twin"}
ROW_KERNELS = ("softmax", "layernorm")
IMPLS = ("ours", "twin", "torch")

cl = None  # const_layout_launch, imported by load_helper


def load_helper(path=None):
    """Imports const_layout_launch from `path` (a file or its folder), else the repository's
    gpu/launch/python."""
    global cl
    candidates = []
    if path:
        candidates.append(os.path.dirname(os.path.abspath(path)) if path.endswith(".py") else os.path.abspath(path))
    candidates.append(os.path.join(ROOT, "gpu", "launch", "python"))
    for c in candidates:
        if os.path.isfile(os.path.join(c, "const_layout_launch.py")):
            sys.path.insert(0, c)
            import const_layout_launch
            cl = const_layout_launch
            return c
    raise ImportError(f"const_layout_launch.py not found in {candidates}")


# ----------------------------------------------------------------------------------------------
# Launch plans: pure Python (the grids of softmax::grid and transpose::grid, the parameters).

def blocks_per_sm(kernel):
    """The launch bounds' minimum of blocks a multiprocessor: a row kernel's 4, its grid's; the
    transpose's 6 (its grid is the shape's)."""
    return TRANSPOSE_BLOCKS_PER_SM if kernel == "transpose" else BLOCKS_PER_SM


def row_grid(rows):
    """softmax::grid: ROWS_PER_BLOCK rows a block (at least one block)."""
    return (max(-(-rows // ROWS_PER_BLOCK), 1), 1, 1)


def transpose_grid(batch, m, n):
    """transpose::grid: one matrix's tile a block, (n/64, m/64, batch); ValueError unless it covers
    the matrices exactly (m, n multiples of 64, all of them > 0)."""
    if not (m % TILE == 0 and n % TILE == 0 and batch > 0 and m > 0 and n > 0):
        raise ValueError(f"transpose: {batch} x {m} x {n} is not whole tiles (m, n multiples of {TILE}, all > 0)")
    return (n // TILE, m // TILE, batch)


def kernel_bytes(kernel, size):
    """Bytes the kernel reads plus writes."""
    if kernel == "transpose":
        b, m, n = size
        return 2 * b * m * n * 4
    rows = size
    extra = 2 * COLS * 4 if kernel == "layernorm" else 0  # gamma and beta
    return 2 * rows * COLS * 4 + extra


def size_label(kernel, size):
    return "x".join(map(str, size)) if kernel == "transpose" else f"{size}x{COLS}"


def plan(kernel, impl, size, ptrs, lens, sms):
    """(grid, block, params) of one launch. `ptrs`/`lens`: addresses and lengths (elements) of the
    buffers by name: x, y (and g, b) for the row kernels, src, dst for the transpose."""
    u32, u64, f32 = cl.u32, cl.u64, cl.f32
    if kernel in ROW_KERNELS:
        rows, ld = size, COLS
        grid = row_grid(rows)
        if impl.startswith("ours"):
            x = cl.tensor_param(ROWS_T, ptrs["x"], lens["x"], (rows, COLS), (ld, 1))
            y = cl.tensor_param(ROWS_T, ptrs["y"], lens["y"], (rows, COLS), (ld, 1))
            if kernel == "softmax":
                params = [x, y]
            else:
                g = cl.tensor_param(ROW_T, ptrs["g"], lens["g"], (1, COLS), (0, 1))
                b = cl.tensor_param(ROW_T, ptrs["b"], lens["b"], (1, COLS), (0, 1))
                params = [x, g, b, y, f32(EPS)]
        elif kernel == "softmax":
            params = [u64(ptrs["x"]), u64(ptrs["y"]), u32(rows), u32(ld), u32(ld)]
        else:
            params = [u64(ptrs["x"]), u64(ptrs["g"]), u64(ptrs["b"]), u64(ptrs["y"]), u32(rows), u32(ld), u32(ld),
                      f32(EPS)]
        return grid, (THREADS, 1, 1), params
    batch, m, n = size
    grid = transpose_grid(batch, m, n)
    sb, lds, db, ldd = m * n, n, m * n, m
    if impl.startswith("ours"):
        params = [cl.tensor_param(BATCH_T, ptrs["src"], lens["src"], (batch, m, n), (sb, lds, 1)),
                  cl.tensor_param(BATCHT_T, ptrs["dst"], lens["dst"], (batch, m, n), (db, 1, ldd))]
    else:
        params = [u64(ptrs["src"]), u64(ptrs["dst"]), u32(batch), u32(m), u32(n), u32(sb), u32(lds), u32(db),
                  u32(ldd)]
    return grid, (THREADS, 1, 1), params


def describe_params(params):
    """One line a parameter: a tensor's address, length and nonzero layout words; a scalar's value."""
    out = []
    for p in params:
        if isinstance(p, (bytes, bytearray)):
            import struct
            addr, length, *words = struct.unpack("<QQ12I", p)
            while words and words[-1] == 0:
                words.pop()
            out.append(f"tensor(addr={addr:#x}, len={length}, words={words})")
        else:
            out.append(f"{type(p).__name__}({p.value})")
    return out


# ----------------------------------------------------------------------------------------------
# The tables.

def fmt_ms(v):
    return "-" if v is None else f"{v:.4f}"


def fmt_gbps(v):
    return "-" if v is None else f"{v:.0f}"


def ratio(a, b, digits=3):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.{digits}f}"


def cell(r, impl):
    e = r["impls"].get(impl)
    if not e:
        return "-"
    if "error" in e:
        return "error"
    if not e.get("ok"):
        return "FAIL" if e.get("checked") else "error"
    if e.get("ms") is None:
        return "ok"
    return f"{e['ms']:.4f} ms, {e['gbps']:.0f} GB/s"


def ms_of(r, impl):
    e = r["impls"].get(impl)
    return e.get("ms") if e and e.get("ok") else None


def gbps_of(r, impl):
    e = r["impls"].get(impl)
    return e.get("gbps") if e and e.get("ok") else None


def anchor_gbps(r):
    m = r.get("memcpy") or {}
    vals = [v for v in (m.get("cuMemcpyDtoD_gbps"), m.get("torch_copy_gbps")) if v]
    return max(vals) if vals else None


LEGEND = """\
- ours: the Rust kernels' PTX (const-layout-builder; softmax_f32 and layernorm_f32 with `.maxntid 256`,
  `.minnctapersm 4`, i.e. launch bounds (256, 4); the transpose's (256, 6)), launched with their
  64-byte tensor parameters.
- twin: twins.cubin, the same design in CUDA C++ (nvcc -O3 -arch=sm_90a; the row kernels
  `__launch_bounds__(256, 4)`, the transpose `__launch_bounds__(256)`), launched with raw pointers and
  integers.
- torch: torch.softmax(x, -1), F.layer_norm(x, (4096,), g, b, 1e-5), x.transpose(1, 2).contiguous().
- Grids: softmax::grid (4 rows a block, each block striding over the rows by the grid) for ours
  and the twins; the transpose (n/64, m/64, batch): one matrix's 64 x 64 tile a block. Cells: median of the
  timed launches (L2 flushed before each), GB/s = bytes read + written / time. memcpy:
  cuMemcpyDtoDAsync / torch copy_ of half the bytes (read + write counted); the last column divides
  by the better of the two.
- FAIL: the output differs from PyTorch's in float64; error: it could not run (see the log)."""


def functions_table(info):
    """The loaded functions' registers, spills and blocks a multiprocessor (bench.py's `info`)."""
    funcs = (info or {}).get("functions") or {}
    if not funcs:
        return ""
    lines = ["| function | registers | local (spill) bytes | static shared bytes | blocks/SM (256 threads) |",
             "|---|---|---|---|---|"]
    for name, f in sorted(funcs.items()):
        lines.append(f"| {name} | {f.get('registers')} | {f.get('local_bytes')} | {f.get('static_smem')} | "
                     f"{f.get('blocks_per_sm')} |")
    return "\n".join(lines)


def tables(results, info=None):
    """The markdown table, its legend, and the functions' table when `info` has them."""
    lines = ["| kernel | size | ours | twin | torch | memcpy GB/s (cuMemcpyDtoD / torch copy_) | ours/twin time | "
             "ours/torch time | ours GB/s / memcpy GB/s |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        m = r.get("memcpy") or {}
        mem = f"{fmt_gbps(m.get('cuMemcpyDtoD_gbps'))} / {fmt_gbps(m.get('torch_copy_gbps'))}"
        lines.append(f"| {r['kernel']} | {r['size']} | {cell(r, 'ours')} | {cell(r, 'twin')} | {cell(r, 'torch')} | "
                     f"{mem} | {ratio(ms_of(r, 'ours'), ms_of(r, 'twin'))} | "
                     f"{ratio(ms_of(r, 'ours'), ms_of(r, 'torch'))} | "
                     f"{ratio(gbps_of(r, 'ours'), anchor_gbps(r))} |")
    lines += ["", LEGEND]
    funcs = functions_table(info)
    if funcs:
        lines += ["", funcs]
    return "\n".join(lines)


def write_outputs(out_dir, table_text, payload, prefix="bench"):
    try:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, f"{prefix}.md"), "w") as f:
            f.write(table_text + "\n")
        with open(os.path.join(out_dir, f"{prefix}.json"), "w") as f:
            json.dump(payload, f, indent=1, default=str)
        print(f"bench: wrote {os.path.join(out_dir, prefix + '.md')} and {prefix}.json")
    except OSError as e:
        print(f"bench: could not write to {out_dir}: {e}")


# ----------------------------------------------------------------------------------------------
# The driver (ctypes): modules, launches, attributes, copies.

class Driver:
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3
    CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13

    def __init__(self):
        self.cuda = ctypes.CDLL("libcuda.so.1")
        self.modules = []  # kept alive

    def check(self, r, what):
        if r != 0:
            name = ctypes.c_char_p()
            self.cuda.cuGetErrorName(r, ctypes.byref(name))
            raise RuntimeError(f"{what}: {name.value.decode() if name.value else r}")

    def load(self, path):
        """A module from a PTX or cubin file (cuModuleLoadData); PTX is JIT-compiled by the driver."""
        with open(path, "rb") as f:
            data = f.read()
        if path.endswith(".ptx"):
            data += b"\0"
        buf = ctypes.create_string_buffer(data, len(data))
        mod = ctypes.c_void_p()
        self.check(self.cuda.cuModuleLoadData(ctypes.byref(mod), buf), f"loading {path}")
        self.modules.append((mod, buf))
        return mod

    def function(self, mod, name):
        f = ctypes.c_void_p()
        self.check(self.cuda.cuModuleGetFunction(ctypes.byref(f), mod, name.encode()), f"function {name}")
        return f.value

    def attribute(self, func, attr):
        v = ctypes.c_int()
        self.check(self.cuda.cuFuncGetAttribute(ctypes.byref(v), attr, ctypes.c_void_p(func)), "attribute")
        return v.value

    def occupancy(self, func, threads, smem=0):
        n = ctypes.c_int()
        self.check(self.cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(n), ctypes.c_void_p(func),
                                                                          ctypes.c_int(threads), ctypes.c_size_t(smem)),
                   "occupancy")
        return n.value

    def clock_khz(self):
        dev, v = ctypes.c_int(), ctypes.c_int()
        self.check(self.cuda.cuCtxGetDevice(ctypes.byref(dev)), "device")
        self.check(self.cuda.cuDeviceGetAttribute(ctypes.byref(v), self.CU_DEVICE_ATTRIBUTE_CLOCK_RATE, dev), "clock")
        return v.value

    def memcpy_dtod(self, dst, src, nbytes, stream):
        self.check(self.cuda.cuMemcpyDtoDAsync_v2(ctypes.c_uint64(dst), ctypes.c_uint64(src), ctypes.c_size_t(nbytes),
                                                  ctypes.c_void_p(stream)), "cuMemcpyDtoDAsync")


class Launcher:
    """One kernel launch with fixed parameters: the first call goes through the helper's checked
    `launch` (parameter sizes and offsets against the function's), the next ones straight to
    cuLaunchKernel with the same arguments."""

    def __init__(self, drv, func, grid, block, params, stream, name):
        self.drv, self.func, self.grid, self.block, self.params = drv, func, grid, block, params
        self.stream, self.name, self.checked = stream, name, False
        self.values = []
        for p in params:
            if isinstance(p, (bytes, bytearray)):
                self.values.append((ctypes.c_uint64 * (len(p) // 8)).from_buffer_copy(p))
            else:
                self.values.append(p)
        self.pointers = (ctypes.c_void_p * max(1, len(self.values)))(*[ctypes.addressof(v) for v in self.values])

    def __call__(self):
        if not self.checked:
            cl.launch(self.func, self.grid, self.block, 0, self.params, stream=self.stream, kernel=self.name)
            self.checked = True
            return
        g, b = self.grid, self.block
        r = self.drv.cuda.cuLaunchKernel(ctypes.c_void_p(self.func), ctypes.c_uint(g[0]), ctypes.c_uint(g[1]),
                                         ctypes.c_uint(g[2]), ctypes.c_uint(b[0]), ctypes.c_uint(b[1]),
                                         ctypes.c_uint(b[2]), ctypes.c_uint(0), ctypes.c_void_p(self.stream),
                                         self.pointers, None)
        self.drv.check(r, f"launching {self.name}")


# ----------------------------------------------------------------------------------------------
# The GPU run.

class Bench:
    def __init__(self, args):
        import torch
        self.torch = torch
        self.args = args
        torch.cuda.init()
        torch.zeros(1, device="cuda")  # the primary context, current on this thread
        self.dev = torch.cuda.get_device_properties(0)
        self.sms = self.dev.multi_processor_count
        self.stream = torch.cuda.current_stream().cuda_stream
        self.drv = Driver()
        self.functions = {}  # impl -> kernel -> handle
        self.load_errors = {}
        self.info = {"device": self.dev.name, "sms": self.sms, "torch": torch.__version__, "stream": self.stream}
        try:
            self.clock_khz = self.drv.clock_khz()
        except Exception:  # noqa: BLE001
            self.clock_khz = 1_980_000
        timing = not (args.check or args.once)
        self.flush_buf = None if args.no_flush or not timing else torch.empty(256 << 20, dtype=torch.uint8,
                                                                                  device="cuda")
        self.failed = False

    # -- modules
    def load_modules(self):
        """Loads ours (the PTX) and the twins, each function on its own (one missing function fails
        its kernel only); prints the launch bounds the PTX carries and each function's registers."""
        a = self.args
        self.info["ptx"] = os.path.abspath(a.ptx)
        sources = {}
        try:
            with open(a.ptx) as f:
                text = f.read()
            bounds = ptx_bounds.applied(text)
            self.info["ptx_bounds"] = {k: list(v) for k, v in bounds.items()}
            print("bench: the PTX's launch bounds: " + (", ".join(
                f"{k} .maxntid {t} .minnctapersm {b}" for k, (t, b) in sorted(bounds.items())) or "none"))
            fixed, added = ptx_bounds.apply(text)
            self.info["bounds_added"] = {k: list(v) for k, v in added.items()}
            if added:  # an older PTX: the bounds only in comments
                out = os.path.join(self.out_dir(), "my_kernels.bounds.ptx")
                os.makedirs(self.out_dir(), exist_ok=True)
                with open(out, "w") as f:
                    f.write(fixed)
                sources["ours"] = out
                print(f"bench: WARNING: the PTX declares launch bounds it does not carry (built without "
                      f"const-layout-builder?); added {added} for `ours` ({out})")
            else:
                sources["ours"] = a.ptx
        except OSError as e:
            self.load_errors["ours"] = f"{type(e).__name__}: {e}"
            print(f"bench: cannot read the PTX: {e}")
            self.failed = True
        sources["twin"] = a.twins
        needed = {k for k, _ in cases(a, a.once)}
        for impl, path in sources.items():
            names = {k: n for k, n in (OURS_NAMES if impl == "ours" else TWIN_NAMES).items() if k in needed}
            if not names:
                continue
            try:
                self.functions[impl] = self.load_functions(path, names, impl)
            except Exception as e:  # noqa: BLE001
                self.load_errors[impl] = f"{type(e).__name__}: {e}"
                print(f"bench: could not load {impl} from {path}: {e}")
                self.failed = True
                continue
            for k, f in self.functions[impl].items():
                try:
                    regs = self.drv.attribute(f, Driver.CU_FUNC_ATTRIBUTE_NUM_REGS)
                    local = self.drv.attribute(f, Driver.CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES)
                    smem = self.drv.attribute(f, Driver.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES)
                    occ = self.drv.occupancy(f, THREADS)
                    self.info.setdefault("functions", {})[f"{impl}:{names[k]}"] = {
                        "registers": regs, "local_bytes": local, "static_smem": smem, "blocks_per_sm": occ}
                    print(f"bench: {impl:5s} {names[k]:24s} {regs:3d} registers, {local:4d} B local (spills), "
                          f"{smem:6d} B shared, {occ} blocks/SM")
                except Exception as e:  # noqa: BLE001
                    print(f"bench: {impl} {names[k]}: could not read the function's attributes: {e}")

    def function(self, impl, kernel):
        """The loaded CUfunction, or RuntimeError saying why there is none."""
        f = self.functions.get(impl, {}).get(kernel)
        if f is None:
            why = self.load_errors.get(f"{impl}:{kernel}") or self.load_errors.get(impl, "no module")
            raise RuntimeError(f"not loaded: {why}")
        return f

    def load_functions(self, path, names, impl=None):
        """{kernel: CUfunction} from `path`: through cupy.RawModule (--loader cupy, the default), or the
        driver directly (--loader driver, or when CuPy is missing or cannot load the module). A
        function the module lacks is left out (its error in load_errors); the module failing to
        load raises."""
        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such file: {path}")
        get = None
        if self.args.loader == "cupy":
            try:
                import cupy as cp
                mod = cp.RawModule(path=path)
                self.info.setdefault("cupy", cp.__version__)

                def get(n):
                    f = mod.get_function(n)
                    h = getattr(f, "ptr", None)
                    if h is None:
                        h = getattr(getattr(f, "kernel", None), "ptr", None)
                    if h is None:
                        raise RuntimeError(f"no CUfunction handle on {type(f).__name__}")
                    return int(h)
                get(next(iter(names.values())))  # loads the module now: a bad image falls back below
                self._keep = getattr(self, "_keep", []) + [mod]
            except Exception as e:  # noqa: BLE001
                get = None
                print(f"bench: cupy.RawModule({path}) failed ({type(e).__name__}: {e}); loading through the driver")
        if get is None:
            mod = self.drv.load(path)

            def get(n):
                return self.drv.function(mod, n)
        out = {}
        for k, n in names.items():
            try:
                out[k] = get(n)
            except Exception as e:  # noqa: BLE001
                impl = impl or ("ours" if names is OURS_NAMES else "twin")
                self.load_errors[f"{impl}:{k}"] = f"{type(e).__name__}: {e}"
                print(f"bench: {path}: no function {n}: {type(e).__name__}: {e}")
                self.failed = True
        return out

    def out_dir(self):
        return os.environ.get("OUT") or os.path.join(os.getcwd(), "bench-out")

    # -- timing
    def sleep(self):
        cycles = int(self.args.sleep_us * self.clock_khz / 1000)
        if cycles <= 0:
            return
        if not hasattr(self.torch.cuda, "_sleep"):
            if not getattr(self, "_warned_sleep", False):
                print("bench: torch.cuda._sleep is missing: timed launches start on an idle GPU (host overhead timed)")
                self._warned_sleep = True
                self.info["sleep"] = "missing"
            return
        self.torch.cuda._sleep(cycles)

    def time(self, fn):
        """(median ms, every ms) of fn over the reps, after the warm-ups."""
        torch = self.torch
        for _ in range(self.args.warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(self.args.reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(self.args.reps)]
        for s, e in zip(starts, ends):
            if self.flush_buf is not None:
                self.flush_buf.zero_()
            self.sleep()
            s.record()
            fn()
            e.record()
        torch.cuda.synchronize()
        ms = [s.elapsed_time(e) for s, e in zip(starts, ends)]
        return statistics.median(ms), ms

    # -- checks
    def check_rows(self, kernel, y, x, g=None, b=None):
        """(ok, max abs error, NaN count, message) of y against PyTorch in float64, by chunks of rows."""
        torch = self.torch
        F = torch.nn.functional
        rows = x.shape[0]
        worst, nans, bad = 0.0, 0, 0
        atol, rtol = (1e-7, 1e-4) if kernel == "softmax" else (1e-4, 1e-4)
        for r0 in range(0, rows, 4096):
            xs = x[r0:r0 + 4096].double()
            if kernel == "softmax":
                ref = torch.softmax(xs, -1)
            else:
                ref = F.layer_norm(xs, (COLS,), g.double(), b.double(), EPS)
            ys = y[r0:r0 + 4096]
            nans += int(torch.isnan(ys).sum().item())
            d = (ys.double() - ref).abs()
            worst = max(worst, float(torch.nan_to_num(d, nan=float("inf")).max().item()))
            bad += int((~(d <= atol + rtol * ref.abs())).sum().item())
        ok = nans == 0 and bad == 0
        return ok, worst, nans, f"{bad} elements past atol {atol} + rtol {rtol} |ref|, {nans} NaN, max |err| {worst:.3g}"

    def check_transpose(self, y, x):
        torch = self.torch
        nans = int(torch.isnan(y).sum().item())
        ok = bool(torch.equal(y, x.transpose(1, 2)))
        return ok, 0.0 if ok else float("nan"), nans, "exact" if ok else f"not equal ({nans} NaN)"

    # -- one kernel at one size
    def run_case(self, kernel, size, impls, timing):
        """The result of `impls` (ours, twin, torch) of one kernel at one size: each checked, then
        timed (with `timing`), the memcpy anchor first. One implementation failing is recorded and
        the next goes on; if the CUDA context is lost (a trap), ContextLost is raised with the
        partial result (`.result`) and the implementations not run (`.remaining`)."""
        torch = self.torch
        r = {"kernel": kernel, "size": size_label(kernel, size), "bytes": kernel_bytes(kernel, size), "impls": {}}
        if timing:
            try:
                r["memcpy"] = self.memcpy_anchor(r["bytes"])
            except ContextLost as lost:
                lost.result, lost.remaining = r, list(impls)
                raise
        torch.manual_seed(1234 + (size if isinstance(size, int) else sum(size)))
        if kernel == "transpose":
            batch, m, n = size
            x = torch.randn(batch, m, n, device="cuda")
            bufs = {"src": x}
            outs = {impl: torch.empty(batch, n, m, device="cuda") for impl in impls if impl != "torch"}
        else:
            rows = size
            x = torch.randn(rows, COLS, device="cuda") * (1.0 if kernel == "softmax" else 2.0)
            if kernel == "layernorm":
                x += 0.5
            bufs = {"x": x}
            if kernel == "layernorm":
                bufs["g"] = 1.0 + 0.1 * torch.randn(COLS, device="cuda")
                bufs["b"] = 0.1 * torch.randn(COLS, device="cuda")
            outs = {impl: torch.empty(rows, COLS, device="cuda") for impl in impls if impl != "torch"}
        for idx, impl in enumerate(impls):
            e = r["impls"][impl] = {"ok": False, "checked": False}
            try:
                if impl == "torch":
                    fn, y = self.torch_op(kernel, bufs)
                    if y is not None:
                        y.fill_(float("nan"))
                    y = fn()
                else:
                    func = self.function(impl, kernel)
                    y = outs[impl]
                    ptrs = {k: v.data_ptr() for k, v in bufs.items()}
                    lens = {k: v.numel() for k, v in bufs.items()}
                    out_key = "dst" if kernel == "transpose" else "y"
                    ptrs[out_key], lens[out_key] = y.data_ptr(), y.numel()
                    grid, block, params = plan(kernel, impl, size, ptrs, lens, self.sms)
                    e["grid"], e["block"] = list(grid), list(block)
                    name = (OURS_NAMES if impl == "ours" else TWIN_NAMES)[kernel]
                    fn = Launcher(self.drv, func, grid, block, params, self.stream, f"{impl}:{name}")
                    y.fill_(float("nan"))
                    fn()  # the checked launch
                torch.cuda.synchronize()
                if kernel == "transpose":
                    ok, err, nans, msg = self.check_transpose(y, x)
                else:
                    ok, err, nans, msg = self.check_rows(kernel, y, x, bufs.get("g"), bufs.get("b"))
                e.update(checked=True, ok=ok, max_abs_err=err, nans=nans, check=msg)
                status = "ok" if ok else "FAILED"
                print(f"bench: {kernel} {r['size']} {impl}: check {status}: {msg}")
                if not ok:
                    self.failed = True
                    continue
                if timing:
                    ms, all_ms = self.time(fn)
                    e.update(ms=ms, all_ms=all_ms, gbps=r["bytes"] / (ms * 1e-3) / 1e9)
                    print(f"bench: {kernel} {r['size']} {impl}: {ms:.4f} ms, {e['gbps']:.0f} GB/s")
            except Exception as ex:  # noqa: BLE001
                self.failed = True
                e["ok"] = False
                e["error"] = f"{type(ex).__name__}: {ex}"
                print(f"bench: {kernel} {r['size']} {impl}: ERROR {e['error']}")
                traceback.print_exc(limit=3)
                try:
                    self.sticky_check()
                except ContextLost as lost:
                    e["error"] += " (the CUDA context is lost)"
                    lost.result, lost.remaining = r, list(impls[idx + 1:])
                    raise
        del outs
        return r

    def torch_op(self, kernel, bufs):
        """(a function computing PyTorch's result, a preallocated output or None)."""
        torch = self.torch
        F = torch.nn.functional
        x = bufs.get("x", bufs.get("src"))
        if kernel == "softmax":
            y = torch.empty_like(x)
            try:
                torch.softmax(x, -1, out=y)

                def fn():
                    return torch.softmax(x, -1, out=y)
                return fn, y
            except (TypeError, RuntimeError):
                return (lambda: torch.softmax(x, -1)), None
        if kernel == "layernorm":
            g, b = bufs["g"], bufs["b"]

            def fn():
                with torch.no_grad():
                    return F.layer_norm(x, (COLS,), g, b, EPS)
            return fn, None
        return (lambda: x.transpose(1, 2).contiguous()), None

    def memcpy_anchor(self, total_bytes):
        """Device-to-device copies of total_bytes / 2 (read + write = total_bytes): GB/s counting both."""
        torch = self.torch
        out = {"bytes": total_bytes}
        try:
            n = (total_bytes // 2 + 15) // 16 * 16
            src = torch.empty(n, dtype=torch.uint8, device="cuda").fill_(1)
            dst = torch.empty(n, dtype=torch.uint8, device="cuda")
            ms, _ = self.time(lambda: self.drv.memcpy_dtod(dst.data_ptr(), src.data_ptr(), n, self.stream))
            out["cuMemcpyDtoD_ms"], out["cuMemcpyDtoD_gbps"] = ms, 2 * n / (ms * 1e-3) / 1e9
            ms, _ = self.time(lambda: dst.copy_(src))
            out["torch_copy_ms"], out["torch_copy_gbps"] = ms, 2 * n / (ms * 1e-3) / 1e9
            print(f"bench: memcpy {total_bytes} B: cuMemcpyDtoD {out['cuMemcpyDtoD_gbps']:.0f} GB/s, "
                  f"torch copy_ {out['torch_copy_gbps']:.0f} GB/s")
            del src, dst
        except Exception as ex:  # noqa: BLE001
            out["error"] = f"{type(ex).__name__}: {ex}"
            print(f"bench: memcpy anchor: ERROR {out['error']}")
            self.failed = True
            self.sticky_check()
        return out

    def sticky_check(self):
        """Raises ContextLost if the CUDA context is gone (a trap or a fault is sticky)."""
        try:
            self.torch.cuda.synchronize()
            self.torch.zeros(1, device="cuda").add_(1).item()
        except Exception as ex:  # noqa: BLE001
            raise ContextLost(f"{type(ex).__name__}: {ex}") from None


class ContextLost(RuntimeError):
    """The CUDA context is unusable (a device-side trap or fault): nothing more can run in this
    process. `result`: the case's partial result; `remaining`: its implementations not run."""
    result = None
    remaining = ()


class Interrupted(BaseException):
    """SIGTERM (run.sh's timeout): stop, print and write what was measured."""


def on_sigterm(signum, frame):
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second one ends the process
    raise Interrupted(f"signal {signum}")


def cases(args, once):
    """[(kernel, size)]: --rows and --transpose when given, else the full sizes (the --once sizes
    with --once)."""
    kernels = [k.strip() for k in args.kernels.split(",") if k.strip()]
    if args.rows:
        rows = [int(v) for v in args.rows.split(",") if v.strip()]
    else:
        rows = [ONCE_ROWS] if once else list(ROW_SIZES)
    tsize = tuple(int(v) for v in args.transpose.split("x")) if args.transpose else TRANSPOSE_SIZE
    out = []
    for k in kernels:
        if k in ROW_KERNELS:
            out += [(k, r) for r in rows]
        elif k == "transpose":
            out.append((k, tsize))
        else:
            raise SystemExit(f"bench: unknown kernel {k!r} (softmax, layernorm, transpose)")
    return out


def dry(args):
    """No GPU: the launch plan with made-up addresses, then the tables on made-up numbers."""
    base = 0x7F00_0000_0000
    sms = args.sms
    print(f"bench --dry: {sms} multiprocessors (--sms), helper {cl.__file__}")
    try:
        with open(args.ptx) as f:
            text = f.read()
        bounds = ptx_bounds.applied(text)
        _, added = ptx_bounds.apply(text)
        print(f"bench --dry: {args.ptx}: launch bounds " + (", ".join(
            f"{k} .maxntid {t} .minnctapersm {b}" for k, (t, b) in sorted(bounds.items())) or "none") +
            (f"; WARNING: declared but not carried, would be added: {added}" if added else ""))
    except OSError as e:
        print(f"bench --dry: cannot read the PTX: {e}")
    print(f"bench --dry: twins {args.twins}: {'present' if os.path.isfile(args.twins) else 'MISSING'}")
    results = []
    for kernel, size in cases(args, args.once):
        if kernel == "transpose":
            b, m, n = size
            lens = {"src": b * m * n, "dst": b * m * n}
            ptrs = {"src": base, "dst": base + 4 * b * m * n}
        else:
            lens = {"x": size * COLS, "y": size * COLS, "g": COLS, "b": COLS}
            ptrs = {"x": base, "y": base + 4 * size * COLS, "g": base + 8 * size * COLS,
                    "b": base + 8 * size * COLS + 4 * COLS}
        r = {"kernel": kernel, "size": size_label(kernel, size), "bytes": kernel_bytes(kernel, size), "impls": {}}
        for impl in ("ours", "twin"):
            grid, block, params = plan(kernel, impl, size, ptrs, lens, sms)
            name = (OURS_NAMES if impl == "ours" else TWIN_NAMES)[kernel]
            print(f"  {kernel} {r['size']} {impl} {name}<<<{grid}, {block}>>>: {', '.join(describe_params(params))}")
            ms = r["bytes"] / 3.0e12 * 1e3 * (1.1 if impl == "ours" else 1.0)
            r["impls"][impl] = {"ok": True, "checked": True, "ms": ms, "gbps": r["bytes"] / (ms * 1e-3) / 1e9}
        ms = r["bytes"] / 2.5e12 * 1e3
        r["impls"]["torch"] = {"ok": True, "checked": True, "ms": ms, "gbps": r["bytes"] / (ms * 1e-3) / 1e9}
        r["memcpy"] = {"cuMemcpyDtoD_gbps": 4000.0, "torch_copy_gbps": 3900.0}
        results.append(r)
    n = len(results)
    reps, warm = args.reps, args.warmup
    print(f"bench --dry: {n} cases x (3 implementations + 2 copies) x ({warm} + {reps} launches); the GPU time "
          f"is about {n * 5 * (warm + reps) * (args.sleep_us / 1000 + 0.1 + 0.6) / 1000:.0f} s of timed launches "
          f"(sleep {args.sleep_us:.0f} us + flush + kernel each), plus the checks")
    text = tables(results)
    print("\n(made-up numbers: the table code only)\n" + text)
    if args.dry_write:
        write_outputs(args.dry_write, text, {"dry": True, "results": results}, prefix="dry")
    return 0


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ptx", default=os.path.join(ROOT, "target/gpu/my_kernels.ptx"),
                   help="our kernels' PTX (my_kernels.ptx, as const-layout-builder writes it)")
    p.add_argument("--twins", default=os.path.join(ROOT, "target/gpu/twins/twins.cubin"), help="twins.cubin")
    p.add_argument("--helper", default=None, help="const_layout_launch.py or its folder")
    p.add_argument("--loader", choices=("cupy", "driver"), default="cupy",
                   help="load modules by cupy.RawModule (falls back to the driver) or the driver (ctypes)")
    p.add_argument("--kernels", default="softmax,layernorm,transpose", help="softmax, layernorm, transpose")
    p.add_argument("--rows", default=None,
                   help=f"row counts, comma-separated (default {','.join(map(str, ROW_SIZES))}; --once: {ONCE_ROWS})")
    p.add_argument("--transpose", default=None, help=f"BATCHxMxN (default {'x'.join(map(str, TRANSPOSE_SIZE))})")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--sleep-us", type=float, default=1000.0, help="sleep kernel before each timed launch (0: none)")
    p.add_argument("--no-flush", action="store_true", help="no L2 flush before each timed launch")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true", help="checks only, no timing")
    g.add_argument("--once", action="store_true", help="ours and the twins once each (for ncu), checked")
    p.add_argument("--dry", action="store_true", help="no GPU: the launch plan (of --once with it) and the table code")
    p.add_argument("--sms", type=int, default=132, help="multiprocessors for --dry (H200: 132)")
    p.add_argument("--dry-write", default=None, help="with --dry: write dry.md/dry.json to this folder")
    p.add_argument("--impls", default=",".join(IMPLS), help="implementations to run (ours, twin, torch)")
    p.add_argument("--child-json", default=None,
                   help="(internal) run in a fresh process after a trap: write the results here, no table")
    p.add_argument("--child-timeout", type=float, default=180.0, help="seconds a fresh process may take")
    return p.parse_args(argv)


def run_child(argv, timeout):
    """Runs bench.py with `argv` in a fresh process (its output goes through); its exit status."""
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        return subprocess.run([sys.executable, os.path.abspath(__file__), *argv], timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        print(f"bench: the fresh process took more than {timeout:.0f} s; stopped")
        return 124


def in_child(argv, args, kernel, size, impls):
    """(result, failed, lost) of `impls` of one case, run by a fresh process (run_child): the
    parent's CUDA context is lost. `lost`: the implementations the child could not run either."""
    fd, path = tempfile.mkstemp(prefix="bench-child-", suffix=".json")
    os.close(fd)
    extra = ["--kernels", kernel, "--impls", ",".join(impls), "--child-json", path]
    extra += ["--transpose", "x".join(map(str, size))] if kernel == "transpose" else ["--rows", str(size)]
    print(f"bench: {kernel} {size_label(kernel, size)} {','.join(impls)}: in a fresh process")
    try:
        rc = run_child([*argv, *extra], args.child_timeout)
        try:
            with open(path) as f:
                data = json.load(f)
        except (OSError, ValueError):
            data = None
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
    if not data or not data.get("results"):
        err = f"the fresh process exited {rc} without results"
        print(f"bench: {kernel} {size_label(kernel, size)}: {err}")
        r = {"kernel": kernel, "size": size_label(kernel, size), "bytes": kernel_bytes(kernel, size),
             "impls": {i: {"ok": False, "error": err} for i in impls}}
        return r, True, []
    return data["results"][0], data.get("failed", True), data.get("remaining", [])


def merge(into, r):
    """Adds r's implementations (and memcpy anchor, when `into` has none) to `into`."""
    into["impls"].update(r.get("impls", {}))
    if r.get("memcpy") and not (into.get("memcpy") or {}).get("cuMemcpyDtoD_gbps"):
        into["memcpy"] = r["memcpy"]
    return into


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse(argv)
    where = load_helper(args.helper)
    if args.dry:
        return dry(args)
    child = args.child_json is not None
    impls_all = [i.strip() for i in args.impls.split(",") if i.strip()]
    if args.once:
        impls_all = [i for i in impls_all if i != "torch"]
    previous = signal.signal(signal.SIGTERM, on_sigterm)
    print(f"bench: helper {where}")
    t0 = time.time()
    mode = "once" if args.once else "check" if args.check else "bench"
    results, failed, info, stopped = [], False, {"device": "?"}, None
    bench, lost, remaining_child, spawn = None, None, [], False
    try:
        try:
            bench = Bench(args)
            info = bench.info
            print(f"bench: {info['device']}, {bench.sms} SMs, torch {info['torch']}, stream {bench.stream}")
            bench.load_modules()
            spawn = not child  # after a trap, fresh processes go on (a child does not spawn)
        except Interrupted:
            raise
        except Exception as e:  # noqa: BLE001
            print(f"bench: no GPU run possible: {type(e).__name__}: {e}")
            traceback.print_exc()
            failed = True
            lost = f"no GPU run possible: {type(e).__name__}: {e}"
        timing = not (args.check or args.once)
        for kernel, size in cases(args, args.once):
            label = size_label(kernel, size)
            if lost:
                if not spawn:
                    results.append({"kernel": kernel, "size": label, "bytes": kernel_bytes(kernel, size),
                                    "impls": {i: {"ok": False, "error": f"not run: {lost}"} for i in impls_all}})
                    continue
                r, f, rest = in_child(argv, args, kernel, size, impls_all)
                failed |= f
                while rest:  # the child lost its context too: the rest of the case in another one
                    r2, f, rest = in_child(argv, args, kernel, size, rest)
                    merge(r, r2)
                    failed |= f
                results.append(r)
                continue
            try:
                results.append(bench.run_case(kernel, size, impls_all, timing))
            except ContextLost as e:
                lost = str(e)
                failed = True
                r = e.result or {"kernel": kernel, "size": label, "bytes": kernel_bytes(kernel, size), "impls": {}}
                rest = list(e.remaining)
                for i in rest:
                    r["impls"][i] = {"ok": False, "error": f"not run: {lost}"}
                results.append(r)
                if child:
                    remaining_child = rest
                    print(f"bench: the CUDA context is lost ({lost}); {', '.join(rest) or 'nothing'} of this case "
                          f"left to another process")
                    continue
                print(f"bench: the CUDA context is lost ({lost}); the rest runs in fresh processes")
                while rest:
                    r2, f, rest = in_child(argv, args, kernel, size, rest)
                    merge(r, r2)
                    failed |= f
            except Exception as e:  # noqa: BLE001
                failed = True
                print(f"bench: {kernel} {size}: ERROR {type(e).__name__}: {e}")
                traceback.print_exc(limit=3)
                results.append({"kernel": kernel, "size": label, "bytes": kernel_bytes(kernel, size),
                                "impls": {}, "error": f"{type(e).__name__}: {e}"})
            finally:
                try:
                    bench.torch.cuda.empty_cache()
                except Exception:  # noqa: BLE001
                    pass
    except Interrupted as e:
        stopped = f"interrupted ({e}) after {time.time() - t0:.0f} s"
        failed = True
        print(f"\nbench: {stopped}: the cases not finished are left out")
    signal.signal(signal.SIGTERM, previous)
    failed |= bool(bench and bench.failed)
    payload = {"mode": mode, "info": info, "load_errors": bench.load_errors if bench else {}, "failed": failed,
               "stopped": stopped, "args": vars(args), "results": results}
    if child:
        payload["remaining"] = remaining_child
        try:
            with open(args.child_json, "w") as f:
                json.dump(payload, f, default=str)
        except OSError as e:
            print(f"bench: could not write {args.child_json}: {e}")
        return 1 if failed else 0
    text = tables(results, info)
    out_dir = bench.out_dir() if bench else (os.environ.get("OUT") or os.path.join(os.getcwd(), "bench-out"))
    write_outputs(out_dir, text, payload, prefix=mode)
    print(f"\n## my-kernels {mode}: {info.get('device')} ({time.time() - t0:.0f} s)\n")
    print(text)
    if failed:
        print(f"\nbench: SOME CHECKS OR RUNS FAILED (see above){'; ' + stopped if stopped else ''}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
