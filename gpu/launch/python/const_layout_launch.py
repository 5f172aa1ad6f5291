"""Launch const-layout's GPU kernels from Python, with the tensor parameters checked as Rust checks them.

A kernel's tensor parameter (`In<TensorParam<T, S, D>>`, `Out<..>` in Rust) is 64 bytes: the
allocation's device address (u64), its length in elements (u64), and the layout's *runtime*
integers as twelve 32-bit words (shape's first, then stride's, left to right; static integers are
in the type and not stored; unused words are 0). `tensor_param` writes exactly the bytes
`TensorParam::new(addr, len, &layout).to_words()` gives in Rust, with the same checks in the same
order and the same messages (`ParamError`, `LayoutError`); `launch` calls the driver's
`cuLaunchKernel` through ctypes with a function handle from CuPy (`RawModule.get_function(name)`),
cuda-python (`cuda.bindings.driver.cuModuleGetFunction`) or any other source.

The layout's type is written in CuTe's notation with the integer types of the Rust type: `_N` for
a static integer (`C<N>`), `u32`, `i32`, `usize`, ... for a runtime one. The entry points' types:

    COL_MAJOR = "(u32,u32):(_1,u32)"     # ColMajor (f32) and ColWords (u32 words)
    ROW_MAJOR = "(u32,u32):(u32,_1)"     # RowMajor (f32) and RowWords (u32 words)
    CONFIG_WORDS = "_16:_1"

Example (CuPy; `f32`, `u32` say a scalar parameter's type):

    import cupy as cp
    import const_layout_launch as cl
    mod = cp.RawModule(path="target/ptx/const_layout_kernels.ptx")
    f = mod.get_function("copy_f32")
    x = cp.arange(1000 * 300, dtype=cp.float32); y = cp.zeros_like(x)
    src = cl.tensor_param_of(x, cl.COL_MAJOR, (1000, 300), (1, 1000))
    dst = cl.tensor_param_of(y, cl.COL_MAJOR, (1000, 300), (1, 1000))
    cl.launch(f, grid=(8, 5), block=(256,), smem=0, params=[src, dst], stream=cp.cuda.get_current_stream())

TMA tensor maps (`TmaTensor` in a kernel, `TensorMapRef` parameters) for tensors of 16-bit elements of
rank 2 to 5, with Rust's checks and messages (`TensorMapSpecNd::new`): `tensor_map_of(q, box)` for a
PyTorch tensor or CuPy array of any strides (a PyTorch `q` of shape (batch, heads, seq, dim) is the
TMA tensor of dims `[dim, seq, heads, batch]` and strides `q.stride()` reversed), `tensor_map_param`
to put the map on the device as the kernel's parameter:

    box = cl.TmaBox(inner=64, outer=128, element_bits=16, swizzle=cl.TMA_SWIZZLE_128B)
    keep, q_map = cl.tensor_map_param(cl.tensor_map_of(q, box), like=q)   # q_map: u64(address)

Building parameters and checking maps need only the standard library; `launch` and encoding a map
need libcuda (a GPU machine).
"""

import ctypes
import struct

__all__ = [
    "COL_MAJOR", "ROW_MAJOR", "COL_WORDS", "ROW_WORDS", "CONFIG_WORDS", "PARAM_WORDS", "MAX_COSIZE",
    "ParamError", "LaunchError", "LayoutType", "tensor_param", "tensor_param_of", "layout_words",
    "u32", "i32", "u64", "i64", "f32", "f64", "launch", "prepare", "check_config",
    "TensorMapError", "TmaBox", "tensor_map_spec", "tensor_map", "tensor_map_of", "tma_tensor_of", "tensor_map_param",
]

COL_MAJOR = "(u32,u32):(_1,u32)"
ROW_MAJOR = "(u32,u32):(u32,_1)"
COL_WORDS = COL_MAJOR
ROW_WORDS = ROW_MAJOR
CONFIG_WORDS = "_16:_1"
PARAM_WORDS = 12  # LayoutParam's words
MAX_COSIZE = 1 << 32  # const_layout_device::MAX_COSIZE
ISIZE = (-(1 << 63), (1 << 63) - 1)

# A runtime integer type (const-layout's runtime integers; 64-bit hosts): (smallest, largest value, signed).
INT_TYPES = {
    "u32": (0, (1 << 32) - 1, False), "u64": (0, (1 << 64) - 1, False), "usize": (0, (1 << 64) - 1, False),
    "i32": (-(1 << 31), (1 << 31) - 1, True), "i64": ISIZE + (True,), "isize": ISIZE + (True,),
}


class ParamError(ValueError):
    """A tensor parameter refused; the message is Rust's (`ParamError` or `LayoutError` Display)."""


class LaunchError(RuntimeError):
    """A launch refused before, or failed in, the driver; the message is one line, as Rust's `LaunchError`."""


class Leaf:
    """One integer of a layout type: static (`value`) or runtime (`kind`, an integer type name)."""

    __slots__ = ("value", "kind")

    def __init__(self, value=None, kind=None):
        self.value, self.kind = value, kind

    def __repr__(self):
        return f"_{self.value}" if self.kind is None else self.kind


def _parse_tuple(text, at):
    """An int tuple type at `text[at:]`: a Leaf or a tuple of them; returns (tree, next position)."""
    if at < len(text) and text[at] == "(":
        items, at = [], at + 1
        while True:
            item, at = _parse_tuple(text, at)
            items.append(item)
            if at < len(text) and text[at] == ",":
                at += 1
            elif at < len(text) and text[at] == ")":
                return tuple(items), at + 1
            else:
                raise ValueError(f"layout type {text!r}: expected `,` or `)` at column {at + 1}")
    end = at
    while end < len(text) and (text[end].isalnum() or text[end] == "_"):
        end += 1
    word = text[at:end]
    if word.startswith("_") and word[1:].isdigit():
        return Leaf(value=int(word[1:])), end
    if word in INT_TYPES:
        return Leaf(kind=word), end
    raise ValueError(f"layout type {text!r}: `{word}` at column {at + 1} is neither a static `_N` nor one of "
                     f"{', '.join(INT_TYPES)}")


def _leaves(tree):
    if isinstance(tree, Leaf):
        return [tree]
    return [leaf for item in tree for leaf in _leaves(item)]


def _congruent(a, b):
    if isinstance(a, Leaf) or isinstance(b, Leaf):
        return isinstance(a, Leaf) and isinstance(b, Leaf)
    return len(a) == len(b) and all(_congruent(x, y) for x, y in zip(a, b))


def _same_nesting(tree, value):
    """Whether `value` (ints and tuples/lists) nests as the type `tree`."""
    if isinstance(tree, Leaf):
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, (tuple, list)) and len(value) == len(tree) and all(
        _same_nesting(t, v) for t, v in zip(tree, value))


def _values(value):
    if isinstance(value, int):
        return [value]
    return [x for item in value for x in _values(item)]


def _first_runtime(leaves):
    """The first runtime integer type among `leaves` (the type of results computed from them)."""
    return next((leaf.kind for leaf in leaves if leaf.kind is not None), None)


class LayoutType:
    """A layout's type, `S:D` in CuTe's notation with Rust's integer types: `"(u32,(_4,i32)):(_1,(u32,i32))"`.

    Shape and stride nest alike (the Rust type is congruent); at most 12 runtime integers.
    """

    def __init__(self, text):
        self.text = text.replace(" ", "")
        shape_text, colon, stride_text = self.text.partition(":")
        if not colon:
            raise ValueError(f"layout type {text!r}: expected SHAPE:STRIDE")
        self.shape, end = _parse_tuple(shape_text, 0)
        if end != len(shape_text):
            raise ValueError(f"layout type {text!r}: unexpected `{shape_text[end:]}` after the shape")
        self.stride, end = _parse_tuple(stride_text, 0)
        if end != len(stride_text):
            raise ValueError(f"layout type {text!r}: unexpected `{stride_text[end:]}` after the stride")
        if not _congruent(self.shape, self.stride):
            raise ValueError(f"layout type {text!r}: the stride is not congruent with the shape")
        self.shape_leaves, self.stride_leaves = _leaves(self.shape), _leaves(self.stride)
        runtime = sum(leaf.kind is not None for leaf in self.shape_leaves + self.stride_leaves)
        if runtime > PARAM_WORDS:
            raise ValueError(f"layout type {text!r}: {runtime} runtime integers; a layout passed to a kernel has "
                             f"at most LayoutParam's {PARAM_WORDS} words")

    def __repr__(self):
        return f"LayoutType({self.text!r})"

    def _typed(self, part, tree, leaves, value):
        """The values of `part`, checked against the type as Rust's `IntTuple::try_from_dyn`."""
        if not _same_nesting(tree, value):
            raise ParamError(f"the {part} nests differently from the type's")
        values = _values(value)
        for i, (leaf, v) in enumerate(zip(leaves, values)):
            if not ISIZE[0] <= v <= ISIZE[1]:
                raise ParamError(f"{part} integer {i} does not fit in isize")
            if leaf.kind is None and v != leaf.value:
                raise ParamError(f"{part} integer {i} is {v} where the type has the static _{leaf.value}")
            if leaf.kind is not None and not INT_TYPES[leaf.kind][0] <= v <= INT_TYPES[leaf.kind][1]:
                raise ParamError(f"{part} integer {i} is {v}, outside the type's integer type")
        return values

    def words(self, shape, stride):
        """The layout's twelve words (`LayoutParam::words`), after the checks of a typed layout
        (`make_layout`) and LayoutParam's 32-bit check; see `tensor_param`."""
        shape_values, stride_values = self._check_layout(shape, stride)
        return self._words(shape_values, stride_values)

    def _check_layout(self, shape, stride):
        s = self._typed("shape", self.shape, self.shape_leaves, shape)
        d = self._typed("stride", self.stride, self.stride_leaves, stride)
        # `check_shape`: every extent positive, the size within isize.
        size = 1
        for i, v in enumerate(s):
            if v <= 0:
                raise ParamError(f"shape integer {i} is {v}: extents must be positive")
            size *= v
            if size > ISIZE[1]:
                raise ParamError("the size of the shape overflows isize")
        # `Layout::try_new`: the span `sum((s - 1) |d|)` and the cosize within isize, then both size
        # and cosize within the layout's integer types (the first runtime type of the shape, or for
        # the cosize of a static shape, of the stride).
        span = 0
        for sv, dv in zip(s, d):
            span += (sv - 1) * abs(dv)
            if span > ISIZE[1]:
                raise ParamError("the cosize of the layout overflows isize")
        cosize = span + 1
        if cosize > ISIZE[1]:
            raise ParamError("the cosize of the layout overflows isize")
        size_type = _first_runtime(self.shape_leaves)
        cosize_type = size_type or _first_runtime(self.stride_leaves)
        if size_type is not None and size > INT_TYPES[size_type][1]:
            raise ParamError(f"the size {size} does not fit in the layout's integer type")
        if cosize_type is not None and cosize > INT_TYPES[cosize_type][1]:
            raise ParamError(f"the cosize {cosize} does not fit in the layout's integer type")
        return s, d

    def _words(self, shape_values, stride_values):
        words, leaf = [], 0
        for leaf_type, v in zip(self.shape_leaves + self.stride_leaves, shape_values + stride_values):
            if leaf_type.kind is not None:
                signed = INT_TYPES[leaf_type.kind][2]
                fits = -(1 << 31) <= v < (1 << 31) if signed else 0 <= v < (1 << 32)
                if not fits:
                    raise ParamError(f"kernel parameter (32 bits) integer {leaf} does not fit in isize")
                words.append(v & 0xFFFF_FFFF)
            leaf += 1
        return words + [0] * (PARAM_WORDS - len(words))

    def param(self, addr, length, shape, stride):
        """The 64 bytes of `TensorParam::new(addr, length, &layout)`; see `tensor_param`."""
        s, d = self._check_layout(shape, stride)
        if addr % 16 != 0:
            raise ParamError(f"device address {addr:#x} is not 16-byte aligned")
        for mode, v in enumerate(d):
            if v < 0:
                raise ParamError(f"mode {mode} has the negative stride {v}; device tensors need non-negative strides")
        cosize = 1 + sum((sv - 1) * dv for sv, dv in zip(s, d))
        if cosize > length:
            raise ParamError(f"the layout reaches element {cosize} but the allocation has {length}")
        if cosize > MAX_COSIZE:
            raise ParamError(f"the layout reaches element {cosize}, past the 2^32 elements of a device tensor")
        return struct.pack("<QQ12I", addr, length, *self._words(s, d))


def _layout_type(ty):
    return ty if isinstance(ty, LayoutType) else LayoutType(ty)


def tensor_param(layout_type, addr, length, shape, stride):
    """The 64 bytes of a tensor parameter: `TensorParam::<T, S, D>::new(addr, length, &layout).to_words()`.

    `layout_type` is the Rust type `S:D` in CuTe's notation (`"(u32,u32):(_1,u32)"`, or a
    `LayoutType`); `shape` and `stride` are the layout's values, nested as the type (an int, or
    tuples/lists of them), static integers with their type's value. `length` is the allocation's
    length in elements of `T`. Raises `ParamError` with Rust's message: a value the type cannot hold,
    a non-positive extent, an overflow, the address not 16-byte aligned, a negative stride, a
    cosize past `length` or past 2^32, a runtime integer that does not fit 32 bits.
    """
    if not isinstance(addr, int) or not isinstance(length, int) or addr < 0 or length < 0:
        raise ValueError("tensor_param: the address and the length are non-negative integers")
    if addr >= 1 << 64 or length >= 1 << 64:
        raise ValueError("tensor_param: the address and the length are 64-bit")
    return _layout_type(layout_type).param(addr, length, shape, stride)


def layout_words(layout_type, shape, stride):
    """The twelve 32-bit words of `LayoutParam::new(&layout)` (what `tensor_param` puts at offset 16)."""
    return _layout_type(layout_type).words(shape, stride)


def _allocation(tensor):
    """(address, bytes from the address to the end of its allocation) of a CuPy array or a PyTorch tensor."""
    if hasattr(tensor, "data_ptr") and hasattr(tensor, "untyped_storage"):  # torch.Tensor
        storage = tensor.untyped_storage()
        addr = tensor.data_ptr()
        return addr, storage.data_ptr() + storage.nbytes() - addr
    data = getattr(tensor, "data", None)
    if data is not None and hasattr(data, "ptr") and hasattr(data, "mem"):  # cupy.ndarray
        return data.ptr, data.mem.ptr + data.mem.size - data.ptr
    raise TypeError(f"tensor_param_of: {type(tensor).__name__} is neither a CuPy array nor a PyTorch tensor")


def tensor_param_of(tensor, layout_type, shape, stride, element_bytes=4):
    """`tensor_param` for the memory of a CuPy array or a PyTorch tensor: its data address, and as
    length the elements of `element_bytes` (4: the kernels' 32-bit words, f32, u32 or i32, halves two
    to a word) from there to the end of its allocation."""
    addr, nbytes = _allocation(tensor)
    return tensor_param(layout_type, addr, nbytes // element_bytes, shape, stride)


# Scalar parameters: a Python number does not say its type, these do.
def u32(x):
    """A `u32` parameter."""
    return ctypes.c_uint32(x)


def i32(x):
    """An `i32` parameter."""
    return ctypes.c_int32(x)


def u64(x):
    """A `u64` parameter (a `TensorMapRef`: the map's device address)."""
    return ctypes.c_uint64(x)


def i64(x):
    """An `i64` parameter."""
    return ctypes.c_int64(x)


def f32(x):
    """An `f32` parameter."""
    return ctypes.c_float(x)


def f64(x):
    """An `f64` parameter."""
    return ctypes.c_double(x)


_NUMPY_SCALARS = {"uint32": ctypes.c_uint32, "int32": ctypes.c_int32, "uint64": ctypes.c_uint64,
                  "int64": ctypes.c_int64, "float32": ctypes.c_float, "float64": ctypes.c_double}


def _param(p, i):
    """Parameter `i` as a ctypes object and its (size, alignment)."""
    if isinstance(p, (bytes, bytearray)):
        if len(p) % 8 != 0:
            raise LaunchError(f"parameter {i}: {len(p)} bytes; an aggregate parameter here is a multiple of 8")
        buf = (ctypes.c_uint64 * (len(p) // 8)).from_buffer_copy(p)
        return buf, len(p), 8
    if isinstance(p, ctypes._SimpleCData):
        return p, ctypes.sizeof(p), ctypes.sizeof(p)
    dtype = getattr(getattr(p, "dtype", None), "name", None)
    if dtype in _NUMPY_SCALARS and getattr(p, "shape", None) == ():
        c = _NUMPY_SCALARS[dtype](p.item())
        return c, ctypes.sizeof(c), ctypes.sizeof(c)
    raise LaunchError(f"parameter {i}: {type(p).__name__} does not say its type: give tensor_param's bytes, "
                      "or u32(x), i32(x), u64(x), i64(x), f32(x), f64(x) (or a NumPy scalar)")


def check_config(grid, block, smem, max_threads=1024, static_smem=0, max_smem=None, kernel="kernel"):
    """Checks a launch's geometry as Rust's `KernelLimits::check` does (the same messages)."""
    gx, gy, gz = (tuple(grid) + (1, 1, 1))[:3]
    bx, by, bz = (tuple(block) + (1, 1, 1))[:3]
    threads, limit = bx * by * bz, min(max_threads, 1024)
    if threads == 0 or threads > limit or bx > 1024 or by > 1024 or bz > 64:
        raise LaunchError(f"{kernel}: the block ({bx},{by},{bz}) has {threads} threads; this kernel takes 1 to "
                          f"{limit} (x, y <= 1024, z <= 64)")
    if not (1 <= gx < 1 << 31 and 1 <= gy <= 65535 and 1 <= gz <= 65535):
        raise LaunchError(f"{kernel}: the grid ({gx},{gy},{gz}) exceeds CUDA's limits (x in 1..2^31, y and z in "
                          "1..=65535)")
    if max_smem is not None and smem + static_smem > max_smem:
        raise LaunchError(f"{kernel}: {smem} bytes of dynamic shared memory and {static_smem} static exceed the "
                          f"device's {max_smem} bytes a block")
    return (gx, gy, gz), (bx, by, bz)


class TensorMapError(ValueError):
    """A tensor map refused before the driver; the message is Rust's (`TensorMapError` Display)."""


TMA_SWIZZLE_NONE, TMA_SWIZZLE_32B, TMA_SWIZZLE_64B, TMA_SWIZZLE_128B = 0, 1, 2, 3  # CUtensorMapSwizzle


class TmaBox(tuple):
    """Rust's `const_layout::atom::tma::TmaBox`: `inner` elements a row (contiguous), `outer` rows,
    `element_bits`, `swizzle` (a `TMA_SWIZZLE_*`). What a kernel reports for each of its maps."""

    def __new__(cls, inner, outer, element_bits=16, swizzle=TMA_SWIZZLE_NONE):
        return super().__new__(cls, (inner, outer, element_bits, swizzle))

    inner = property(lambda self: self[0])
    outer = property(lambda self: self[1])
    element_bits = property(lambda self: self[2])
    swizzle = property(lambda self: self[3])

    def bytes(self):
        """The bytes one load writes (`TmaBox::bytes`)."""
        return self.inner * self.outer * self.element_bits // 8


U64_MAX = (1 << 64) - 1


def tensor_map_spec(addr, words, dims, strides, box):
    """Rust's `TensorMapSpecNd::new(addr, words, dims, strides, box)`: the arguments of
    `cuTensorMapEncodeTiled` for the tensor of 16-bit elements at `addr` in an allocation of `words`
    32-bit words from there, extents `dims` and element strides `strides` innermost first, and `box`
    (a `TmaBox` or a 4-tuple), as a dict (`addr`, `rank`, `dims` (5), `strides_bytes` (4),
    `box_dims` (5), `swizzle`). Raises `TensorMapError` with Rust's message, checking in Rust's
    order: a rank of 2 to 5; the box (16-bit elements, extents in 1..=256, rows a multiple of 16
    bytes and within the swizzle's span); the address 16-byte aligned; extents in 1..=2^32;
    `strides[0]` 1; the other strides multiples of 16 bytes below 2^40; every element inside the
    allocation."""
    dims, strides = [int(x) for x in dims], [int(x) for x in strides]
    if len(dims) != len(strides):
        raise ValueError("tensor_map_spec: as many strides as dimensions")
    if any(not 0 <= x <= U64_MAX for x in dims + strides + [addr, words]):
        raise ValueError("tensor_map_spec: dimensions, strides, the address and the words are u64")
    rank = len(dims)
    if not 2 <= rank <= 5:
        raise TensorMapError(f"a tensor of rank {rank}; TMA loads ranks 2 to 5 here")
    inner, outer, bits, swizzle = (int(x) for x in box)
    if bits != 16:
        raise TensorMapError(f"the box is for {bits}-bit elements; tensor maps here are of 16-bit elements")
    for name, value in (("inner", inner), ("outer", outer)):
        if not 1 <= value <= 256:
            raise TensorMapError(f"the box's {name} extent {value} is outside 1..=256")
    row = 2 * inner
    if row % 16 != 0:
        raise TensorMapError(f"the box's rows of {row} bytes are not a multiple of 16 bytes")
    span = 16 << swizzle
    if swizzle != TMA_SWIZZLE_NONE and row > span:
        raise TensorMapError(f"the box's rows of {row} bytes are wider than its swizzle's {span} bytes")
    if addr % 16 != 0:
        raise TensorMapError(f"the tensor's address {addr:#x} is not 16-byte aligned")
    for dim, value in enumerate(dims):
        if not 1 <= value <= 1 << 32:
            raise TensorMapError(f"dimension {dim}'s extent of {value} elements is outside 1..=2^32")
    if strides[0] != 1:
        raise TensorMapError(f"the innermost dimension's stride is {strides[0]} elements; TMA needs it contiguous (1)")
    last, strides_bytes = 0, []
    for dim in range(rank):
        last += (dims[dim] - 1) * strides[dim]
        if dim > 0:
            b = min(2 * strides[dim], U64_MAX)
            if b % 16 != 0 or b >= 1 << 40:
                raise TensorMapError(f"dimension {dim}'s stride of {b} bytes is not a multiple of 16 bytes below 2^40")
            strides_bytes.append(b)
    if last >= 2 * words:
        raise TensorMapError(f"the tensor's last element is at offset {min(last, U64_MAX)}, past its allocation's "
                             f"{min(2 * words, U64_MAX)} elements")
    return {"addr": addr, "rank": rank, "dims": dims + [0] * (5 - rank), "strides_bytes": strides_bytes + [0] * (5 - rank),
            "box_dims": [inner, outer, 1, 1, 1], "swizzle": swizzle}


def tensor_map(addr, words, dims, strides, box):
    """The 128 bytes of the `CUtensorMap` that `cuTensorMapEncodeTiled` encodes for `tensor_map_spec`'s
    arguments (checked first, with Rust's messages): 16-bit elements (`UINT16`), element strides 1, no
    interleave, L2 promotion of 256 bytes, zero fill. As Rust's `TensorMap::encode_nd`."""
    spec = tensor_map_spec(addr, words, dims, strides, box)
    cuda = _cuda()
    host = (ctypes.c_uint64 * 24)()  # 128 bytes at a 64-byte aligned address inside
    at = ctypes.addressof(host) + (-ctypes.addressof(host)) % 64
    UINT16, INTERLEAVE_NONE, L2_256B, OOB_ZERO = 1, 0, 3, 0
    r = cuda.cuTensorMapEncodeTiled(
        ctypes.c_void_p(at), UINT16, ctypes.c_uint32(spec["rank"]), ctypes.c_void_p(addr),
        (ctypes.c_uint64 * 5)(*spec["dims"]), (ctypes.c_uint64 * 4)(*spec["strides_bytes"][:4]),
        (ctypes.c_uint32 * 5)(*spec["box_dims"]), (ctypes.c_uint32 * 5)(1, 1, 1, 1, 1),
        INTERLEAVE_NONE, spec["swizzle"], L2_256B, OOB_ZERO)
    _check(r, f"cuTensorMapEncodeTiled {spec}")
    return ctypes.string_at(at, 128)


def tensor_map_of(tensor, box):
    """`tensor_map` for a PyTorch tensor or CuPy array of 16-bit elements (f16, bf16, ...) of rank 2 to 5
    and any strides: the TMA tensor of its dims and strides reversed (innermost first; the last
    dimension must be contiguous), in its allocation from its data address. A PyTorch `q` of shape
    (batch, heads, seq, dim) gives dims `[dim, seq, heads, batch]` and `q.stride()` reversed: what
    the kernel's `TmaTensor::new` must be given."""
    return tensor_map(*tma_tensor_of(tensor), box)


def tma_tensor_of(tensor):
    """(address, words of its allocation from there, dims, strides) of a PyTorch tensor or CuPy array of
    16-bit elements as a TMA tensor: dims and strides innermost first (its shape and strides reversed).
    What `tensor_map_of` encodes, and what the kernel's `TmaTensor::new` must be given."""
    addr, nbytes = _allocation(tensor)
    size = getattr(tensor, "itemsize", None) or tensor.element_size()
    if size != 2:
        raise TensorMapError(f"the box is for {8 * size}-bit elements; tensor maps here are of 16-bit elements")
    strides = tensor.stride() if callable(getattr(tensor, "stride", None)) else [s // 2 for s in tensor.strides]
    return addr, nbytes // 4, list(reversed(tensor.shape)), list(reversed(strides))


def tensor_map_param(map_bytes, like):
    """The map's 128 bytes copied to the device of `like` (a PyTorch tensor or a CuPy array): returns
    (the device buffer, to keep alive until the launch completes, and the `u64` parameter of its
    address, for the kernel's `TensorMapRef`). The buffer is 64-byte aligned (both allocators align
    to 256 bytes or more; checked)."""
    if hasattr(like, "untyped_storage"):  # torch
        import torch
        buf = torch.frombuffer(bytearray(map_bytes), dtype=torch.uint8).to(like.device)
        addr = buf.data_ptr()
    else:  # cupy
        import cupy
        import numpy
        buf = cupy.asarray(numpy.frombuffer(map_bytes, dtype=numpy.uint8))
        addr = buf.data.ptr
    if addr % 64 != 0:
        raise LaunchError(f"the tensor map's device copy at {addr:#x} is not 64-byte aligned")
    return buf, u64(addr)


_CUDA = None
CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 0
CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES = 1
CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97
CUDA_ERROR_INVALID_VALUE = 1


def _cuda():
    global _CUDA
    if _CUDA is None:
        try:
            _CUDA = ctypes.CDLL("libcuda.so.1")
        except OSError:
            raise LaunchError("no CUDA driver: libcuda.so could not be loaded (this machine has no NVIDIA driver "
                              "or GPU)") from None
    return _CUDA


def _check(r, what):
    if r != 0:
        name = ctypes.c_char_p()
        _cuda().cuGetErrorName(r, ctypes.byref(name))
        raise LaunchError(f"{what}: {name.value.decode() if name.value else f'CUresult {r}'}")


def _handle(obj, *names):
    # A CuPy RawKernel (what RawModule.get_function returns in recent CuPy) holds its loaded
    # Function, the one with the handle, in `.kernel`.
    if not any(hasattr(obj, n) for n in names) and hasattr(obj, "kernel"):
        obj = obj.kernel
    for n in names:
        if hasattr(obj, n):
            return int(getattr(obj, n))
    return int(obj)


def _param_info(cuda, func):
    """(offset, size) of each of the function's parameters, or None where the driver cannot say (before 12.4).
    `func` is the CUfunction as a `ctypes.c_void_p`."""
    get = getattr(cuda, "cuFuncGetParamInfo", None)
    if get is None:
        return None
    load = getattr(cuda, "cuFuncLoad", None)  # lazy loading: the function itself, first
    if load is not None:
        _check(load(func), "loading the function")
    info = []
    while True:
        offset, size = ctypes.c_size_t(), ctypes.c_size_t()
        r = get(func, ctypes.c_size_t(len(info)), ctypes.byref(offset), ctypes.byref(size))
        if r == CUDA_ERROR_INVALID_VALUE:
            return info
        _check(r, f"reading parameter {len(info)}")
        info.append((offset.value, size.value))


def launch(function, grid, block, smem, params, stream=None, kernel="kernel"):
    """Checks and launches once: `prepare(...)()`. See `prepare`."""
    prepare(function, grid, block, smem, params, stream, kernel)()


def prepare(function, grid, block, smem, params, stream=None, kernel="kernel"):
    """A launch of `function`, checked now and returned as a function of no arguments that queues it
    (each call one `cuLaunchKernel`, nothing else): `function` (a CUfunction handle: an int, a CuPy `Function` (`.ptr`), a cuda-python
    `CUfunction`) on `stream` (None: the legacy default stream; an int, a CuPy stream (`.ptr`), a
    PyTorch stream (`.cuda_stream`)) with the geometry `grid`, `block` (up to three extents) and
    `smem` bytes of dynamic shared memory, and `params` in the entry point's order: `tensor_param`'s
    bytes for tensors, `u32(x)`, `f32(x)`, ... (or NumPy scalars) for scalars.

    Checked first, with Rust's messages: the geometry against CUDA's limits, the function's threads
    a block and the device's shared memory; where the driver can say them (12.4 and later), the
    number of parameters and each one's size and offset against the function's. Dynamic shared
    memory past 48 KiB is allowed on the function first. Each call of the result queues the launch
    on the stream (the tensors must stay alive until it completes).
    """
    cuda = _cuda()
    func = ctypes.c_void_p(_handle(function, "ptr"))
    stream_handle = ctypes.c_void_p(0 if stream is None else _handle(stream, "ptr", "cuda_stream"))

    def attribute(attr, what):
        v = ctypes.c_int()
        _check(cuda.cuFuncGetAttribute(ctypes.byref(v), attr, func), f"{kernel}: reading its {what}")
        return v.value

    device, optin = ctypes.c_int(), ctypes.c_int()
    _check(cuda.cuCtxGetDevice(ctypes.byref(device)), "reading the current device")
    _check(cuda.cuDeviceGetAttribute(ctypes.byref(optin), CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                                     device), "reading the shared memory a block")
    grid, block = check_config(grid, block, smem, attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, "threads a block"),
                               attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, "static shared memory"), optin.value,
                               kernel)
    values = [_param(p, i) for i, p in enumerate(params)]
    info = _param_info(cuda, func)
    if info is not None:
        if len(info) != len(values):
            plural = "" if len(info) == 1 else "s"
            raise LaunchError(f"{kernel}: the PTX entry point has {len(info)} parameter{plural}, the launch "
                              f"gives {len(values)}")
        end = 0
        for i, ((_, size, align), (ptx_offset, ptx_size)) in enumerate(zip(values, info)):
            offset = -(-end // align) * align
            end = offset + size
            if size != ptx_size or offset != ptx_offset:
                raise LaunchError(f"{kernel}: parameter {i} is {ptx_size} bytes at offset {ptx_offset} in the PTX, "
                                  f"the launch gives {size} bytes at offset {offset}")
    if smem > attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, "dynamic shared memory"):
        _check(cuda.cuFuncSetAttribute(func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, ctypes.c_int(smem)),
               f"{kernel}: allowing {smem} bytes of dynamic shared memory")
    pointers = (ctypes.c_void_p * max(1, len(values)))(*[ctypes.addressof(v) for v, _, _ in values])
    dims = [ctypes.c_uint(x) for x in grid + block]

    def run():
        # The checked arguments, kept alive by this closure: each call only queues the launch, so
        # that timing a short kernel measures the GPU, not Python.
        _check(cuda.cuLaunchKernel(func, *dims, ctypes.c_uint(smem), stream_handle, pointers, None),
               f"launching {kernel}")
    run.values = values
    return run
