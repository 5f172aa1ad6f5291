"""The Python helper's own checks, beyond what Rust's types can express (run by tests/python.rs with
PYTHONPATH=python; `python3 -m unittest test_python_helper` by hand)."""

import ctypes
import ctypes.util
import struct
import unittest

import const_layout_launch as cl

BASE = 0x7F00_0000_0000


class Bytes(unittest.TestCase):
    def test_the_byte_layout(self):
        b = cl.tensor_param(cl.ROW_MAJOR, BASE + 32, 5120 * 2048, (5120, 2048), (2048, 1))
        self.assertEqual(len(b), 64)
        addr, length, *words = struct.unpack("<QQ12I", b)
        self.assertEqual((addr, length), (BASE + 32, 5120 * 2048))
        self.assertEqual(words, [5120, 2048, 2048] + [0] * 9)  # static `_1` not stored
        # Signed integers as their low 32 bits; static integers in a nested type.
        self.assertEqual(cl.layout_words("(u32,(_4,i32)):(_1,(u32,i32))", (7, (4, 3)), (1, (7, -28)))[:5],
                         [7, 3, 7, (1 << 32) - 28, 0])
        self.assertEqual(cl.tensor_param(cl.CONFIG_WORDS, BASE, 16, 16, 1)[16:], bytes(48))

    def test_a_layout_type_parses_once(self):
        t = cl.LayoutType(" (u32 , u32) : (_1 , u32) ")
        self.assertEqual(t.param(BASE, 12, (3, 4), [1, 3]), cl.tensor_param(cl.COL_MAJOR, BASE, 12, (3, 4), (1, 3)))
        self.assertEqual(repr(t), "LayoutType('(u32,u32):(_1,u32)')")


class Refusals(unittest.TestCase):
    def refused(self, message, ty, shape, stride, addr=BASE, length=1 << 20):
        with self.assertRaises(cl.ParamError) as e:
            cl.tensor_param(ty, addr, length, shape, stride)
        self.assertEqual(str(e.exception), message)

    def test_values_against_the_type(self):
        self.refused("the shape nests differently from the type's", cl.COL_MAJOR, (3, (4, 1)), (1, 3))
        self.refused("the stride nests differently from the type's", cl.COL_MAJOR, (3, 4), 1)
        self.refused("the shape nests differently from the type's", cl.COL_MAJOR, (3, True), (1, 3))
        self.refused("shape integer 1 does not fit in isize", "(u64,u64):(_1,u64)", (3, 1 << 63), (1, 3))
        self.refused("stride integer 0 is 2 where the type has the static _1", cl.COL_MAJOR, (3, 4), (2, 3))
        self.refused("shape integer 0 is -3, outside the type's integer type", cl.COL_MAJOR, (-3, 4), (1, 3))
        self.refused("shape integer 1 is 0: extents must be positive", "(i32,i32):(_1,i32)", (3, 0), (1, 3))

    def test_overflows(self):
        self.refused("the size of the shape overflows isize", "(i64,i64):(_1,i64)", (1 << 32, 1 << 32), (1, 1))
        self.refused("the cosize of the layout overflows isize", "(i64,i64):(_1,i64)", (3, 3), (1, 1 << 62))
        self.refused("the size 4294967296 does not fit in the layout's integer type", cl.COL_MAJOR, (65536, 65536),
                     (1, 0))
        self.refused("the cosize 8589934592 does not fit in the layout's integer type", cl.COL_MAJOR, (2, 3),
                     (1, (1 << 32) - 1))

    def test_the_tensor_checks_in_rusts_order(self):
        self.refused("device address 0x7f0000000008 is not 16-byte aligned", cl.COL_MAJOR, (3, 4), (1, 3), BASE + 8)
        self.refused("mode 0 has the negative stride -1; device tensors need non-negative strides",
                     "(i32,i32):(i32,i32)", (3, 4), (-1, -3), BASE + 8 * 0)
        self.refused("the layout reaches element 12 but the allocation has 11", cl.COL_MAJOR, (3, 4), (1, 3),
                     length=11)
        self.refused("the layout reaches element 4295032832, past the 2^32 elements of a device tensor",
                     "(u64,u64):(_1,u64)", (65537, 65536), (1, 65537), length=1 << 40)
        self.refused("kernel parameter (32 bits) integer 3 does not fit in isize", "(u64,u64):(_1,u64)",
                     (1, 1), (1, 1 << 32), length=1 << 40)

    def test_bad_types_and_arguments(self):
        for ty, why in [("(u32,u32)", "expected SHAPE:STRIDE"), ("(u32,u16):(_1,u32)", "`u16` at column 6"),
                        ("(u32,u32:(_1,u32)", "expected `,` or `)`"), ("(u32,u32):(_1,(u32,u32))", "not congruent"),
                        ("((u32,u32,u32,u32),(u32,u32,u32)):((u32,u32,u32,u32),(u32,u32,u32))", "14 runtime integers")]:
            with self.assertRaises(ValueError) as e:
                cl.LayoutType(ty)
            self.assertIn(why, str(e.exception))
            self.assertNotIsInstance(e.exception, cl.ParamError)
        with self.assertRaises(ValueError):
            cl.tensor_param(cl.COL_MAJOR, -16, 12, (3, 4), (1, 3))


class FakeStorage:
    def __init__(self, ptr, nbytes):
        self.ptr, self.n = ptr, nbytes

    def data_ptr(self):
        return self.ptr

    def nbytes(self):
        return self.n


class FakeTorch:
    """What tensor_param_of reads of a torch.Tensor: a view 64 bytes into a 4096-byte allocation."""

    def data_ptr(self):
        return BASE + 64

    def untyped_storage(self):
        return FakeStorage(BASE, 4096)


class FakeMemory:
    ptr, size = BASE, 4096


class FakePointer:
    ptr, mem = BASE + 64, FakeMemory()


class FakeCupy:
    data = FakePointer()


class Integration(unittest.TestCase):
    def test_tensor_param_of_reads_the_allocation(self):
        for t in (FakeTorch(), FakeCupy()):
            b = cl.tensor_param_of(t, cl.COL_MAJOR, (8, 16), (1, 8))
            self.assertEqual(struct.unpack("<QQ", b[:16]), (BASE + 64, (4096 - 64) // 4))
        with self.assertRaises(cl.ParamError) as e:
            cl.tensor_param_of(FakeTorch(), cl.COL_MAJOR, (32, 32), (1, 32))
        self.assertEqual(str(e.exception), "the layout reaches element 1024 but the allocation has 1008")
        with self.assertRaises(TypeError):
            cl.tensor_param_of([1.0], cl.COL_MAJOR, (1, 1), (1, 1))

    def test_parameters_say_their_type(self):
        buf, size, align = cl._param(bytes(64), 0)
        self.assertEqual((size, align, ctypes.sizeof(buf)), (64, 8, 64))
        self.assertEqual(cl._param(cl.f32(0.5), 1)[1:], (4, 4))
        self.assertEqual(cl._param(cl.u64(BASE), 2)[1:], (8, 8))

        class NumpyScalar:
            dtype = type("D", (), {"name": "float32"})()
            shape = ()

            def item(self):
                return 2.5
        c, size, _ = cl._param(NumpyScalar(), 3)
        self.assertEqual((c.value, size), (2.5, 4))
        with self.assertRaises(cl.LaunchError) as e:
            cl._param(1.0, 4)
        self.assertIn("parameter 4: float does not say its type", str(e.exception))

    def test_configs(self):
        self.assertEqual(cl.check_config((40, 40), (128,), 0), ((40, 40, 1), (128, 1, 1)))
        with self.assertRaises(cl.LaunchError) as e:
            cl.check_config((1,), (512,), 0, max_threads=384, kernel="hgemm_sm90_tn_f32")
        self.assertEqual(str(e.exception), "hgemm_sm90_tn_f32: the block (512,1,1) has 512 threads; this kernel "
                                           "takes 1 to 384 (x, y <= 1024, z <= 64)")

    @unittest.skipIf(ctypes.util.find_library("cuda") is not None, "this machine has a CUDA driver")
    def test_no_driver_is_one_line(self):
        with self.assertRaises(cl.LaunchError) as e:
            cl.launch(1, (1,), (1,), 0, [])
        self.assertEqual(str(e.exception), "no CUDA driver: libcuda.so could not be loaded (this machine has no "
                                           "NVIDIA driver or GPU)")


class FakeDriver:
    """libcuda's launch path as C function pointers (ctypes callbacks), so that `launch` marshals its
    arguments exactly as it does for the real driver: a handle wrapped twice, a wrong argument type,
    fails here as it would on the GPU. `params` is the PTX's (offset, size) list."""

    def __init__(self, params, max_threads=1024):
        c, vp, sz = ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t
        pint, psz = ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_size_t)
        self.launched = []

        def func_attr(pi, attr, f):
            self.seen_function = f
            pi[0] = {cl.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: max_threads}.get(attr, 0)
            return 0

        def ctx_device(d):
            d[0] = 0
            return 0

        def device_attr(pi, attr, dev):
            pi[0] = 232448
            return 0

        def param_info(f, i, offset, size):
            if i >= len(params):
                return cl.CUDA_ERROR_INVALID_VALUE
            offset[0], size[0] = params[i]
            return 0

        def launch(f, gx, gy, gz, bx, by, bz, smem, stream, args, extra):
            blobs = [ctypes.string_at(args[i], s) for i, (_, s) in enumerate(params)]
            self.launched.append((f, (gx, gy, gz), (bx, by, bz), smem, stream, blobs))
            return 0

        keep = [
            ("cuFuncGetAttribute", ctypes.CFUNCTYPE(c, pint, c, vp), func_attr),
            ("cuCtxGetDevice", ctypes.CFUNCTYPE(c, pint), ctx_device),
            ("cuDeviceGetAttribute", ctypes.CFUNCTYPE(c, pint, c, c), device_attr),
            ("cuFuncLoad", ctypes.CFUNCTYPE(c, vp), lambda f: 0),
            ("cuFuncGetParamInfo", ctypes.CFUNCTYPE(c, vp, sz, psz, psz), param_info),
            ("cuFuncSetAttribute", ctypes.CFUNCTYPE(c, vp, c, c), lambda f, a, v: 0),
            ("cuLaunchKernel", ctypes.CFUNCTYPE(c, vp, *[ctypes.c_uint] * 7, vp, ctypes.POINTER(vp), vp), launch),
        ]
        for name, proto, fn in keep:
            setattr(self, name, proto(fn))


class Launch(unittest.TestCase):
    def setUp(self):
        self.saved = cl._CUDA

    def tearDown(self):
        cl._CUDA = self.saved

    def test_a_launch_marshals_its_arguments_as_the_driver_takes_them(self):
        class CupyFunction:  # what CuPy's RawModule.get_function returns: the handle as `.ptr`
            ptr = 0x5000

        cl._CUDA = driver = FakeDriver([(0, 64), (64, 64), (128, 4)])
        x = cl.tensor_param(cl.ROW_MAJOR, BASE, 4096 * 16, (16, 4096), (4096, 1))
        cl.launch(CupyFunction(), (8,), (256,), 0, [x, x, cl.f32(1.5)], kernel="rms_norm_f32")
        ((f, grid, block, smem, stream, blobs),) = driver.launched
        self.assertEqual((f, grid, block, smem, stream), (0x5000, (8, 1, 1), (256, 1, 1), 0, None))
        self.assertEqual(blobs, [x, x, struct.pack("<f", 1.5)])

    def test_parameters_that_differ_from_the_ptx_are_refused_before_the_launch(self):
        cl._CUDA = driver = FakeDriver([(0, 64), (64, 64)])
        x = cl.tensor_param(cl.ROW_MAJOR, BASE, 4096 * 16, (16, 4096), (4096, 1))
        with self.assertRaises(cl.LaunchError) as e:
            cl.launch(0x5000, (8,), (256,), 0, [x, x, cl.f32(1.5)], kernel="rms_norm_f32")
        self.assertEqual(str(e.exception), "rms_norm_f32: the PTX entry point has 2 parameters, the launch gives 3")
        self.assertEqual(driver.launched, [])


if __name__ == "__main__":
    unittest.main()


class TensorMaps(unittest.TestCase):
    class FakeTorch:
        """What `tma_tensor_of` reads of a PyTorch tensor: q of shape (2, 4, 100, 128) stored (b, s, h, d)."""

        class Storage:
            def data_ptr(self):
                return BASE

            def nbytes(self):
                return 2 * 2 * 100 * 4 * 128

        shape = (2, 4, 100, 128)

        def untyped_storage(self):
            return self.Storage()

        def data_ptr(self):
            return BASE

        def stride(self):
            return (51200, 128, 512, 1)

        def element_size(self):
            return 2

    def test_a_torch_tensor_is_its_shape_and_strides_reversed(self):
        addr, words, dims, strides = cl.tma_tensor_of(self.FakeTorch())
        self.assertEqual((addr, words, dims, strides), (BASE, 51200, [128, 100, 4, 2], [1, 512, 128, 51200]))
        box = cl.TmaBox(64, 128, 16, cl.TMA_SWIZZLE_128B)
        spec = cl.tensor_map_spec(addr, words, dims, strides, box)
        self.assertEqual(spec["strides_bytes"], [1024, 256, 102400, 0])
        self.assertEqual(box.bytes(), 16384)
        with self.assertRaises(cl.TensorMapError) as e:
            cl.tensor_map_spec(addr, words - 1, dims, strides, box)
        self.assertEqual(str(e.exception), "the tensor's last element is at offset 102399, past its allocation's "
                                           "102398 elements")
