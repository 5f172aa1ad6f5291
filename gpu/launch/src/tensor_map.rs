//! TMA tensor maps encoded from Rust: the driver's `cuTensorMapEncodeTiled` for a tensor of 16-bit
//! elements (a 2-D [`HalfRows`] matrix, or rank 2 to 5 from dimensions and strides) and a box a
//! kernel reports ([`TmaBox`], from its shared-memory layout), copied to device memory and passed
//! to the kernel as a [`TensorMapRef`].

use crate::args::InArg;
use crate::error::{LaunchError, TensorMapError};
use const_layout::C;
use const_layout::atom::tma::{TmaBox, TmaSwizzle};
use const_layout::int_tuple::IntTuple;
use const_layout::layout::LayoutShape;
use const_layout_device::abi::TensorMapRef;
use const_layout_device::{TensorParam, TensorWords};
use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, SyncOnDrop};
use std::marker::PhantomData;
use std::sync::Arc;

/// A row-major matrix of 16-bit elements as `u32` words, two to a word: `(rows, words):(pitch, _1)`
/// in words. What a tensor map is encoded for.
pub type HalfRows = TensorParam<u32, (u32, u32), (u32, C<1>)>;

/// The arguments of `cuTensorMapEncodeTiled` for a [`HalfRows`] tensor and a box, checked (see
/// [`TensorMapSpec::new`]). Elements are `CU_TENSOR_MAP_DATA_TYPE_UINT16`, element strides 1, no
/// interleave, L2 promotion of 256 bytes, out-of-bounds elements read as zeros.
///
/// ```
/// use const_layout::{make_layout, C};
/// use const_layout::atom::tma::{TmaBox, TmaSwizzle};
/// use const_layout_launch::{HalfRows, TensorMapSpec};
/// // A 5120 x 4096 matrix of halves: 2048 words a row.
/// let a = HalfRows::new(0x7f00_0000_0000, 5120 * 2048, &make_layout((5120u32, 2048u32), (2048u32, C::<1>)).unwrap()).unwrap();
/// let tma_box = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };
/// let s = TensorMapSpec::new(&a, tma_box).unwrap();
/// assert_eq!((s.dims, s.row_pitch_bytes, s.box_dims), ([4096, 5120], 8192, [64, 128]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMapSpec {
    /// The tensor's global address.
    pub addr: u64,
    /// `globalDim`: elements a row (inner), rows (outer).
    pub dims: [u64; 2],
    /// `globalStrides[0]`: bytes from a row to the next.
    pub row_pitch_bytes: u64,
    /// `boxDim`: the box's elements a row, rows.
    pub box_dims: [u32; 2],
    /// The swizzle mode.
    pub swizzle: TmaSwizzle,
}

impl TensorMapSpec {
    /// The encoding of `tensor` (16-bit elements, two to a word, rows of `words` words, `pitch`
    /// words apart) for `tma_box`. Checks, as `cuTensorMapEncodeTiled` requires: 16-bit
    /// elements; box extents in 1..=256, the box's rows a multiple of 16 bytes and no wider than
    /// the swizzle's span; a row pitch that is a multiple of 16 bytes and at least a row; a row of
    /// at most 2^32 elements. (The tensor's address is 16-byte aligned: [`TensorParam::new`]
    /// checked it.) A box may be larger than the tensor: TMA fills what lies outside with zeros.
    ///
    /// ```
    /// use const_layout::{make_layout, C};
    /// use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// use const_layout_launch::{HalfRows, TensorMapError, TensorMapSpec};
    /// let l = make_layout((100u32, 30u32), (50u32, C::<1>)).unwrap(); // a pitch of 200 bytes
    /// let t = HalfRows::new(0x7f00_0000_0000, 5000, &l).unwrap();
    /// let b = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };
    /// assert_eq!(TensorMapSpec::new(&t, b), Err(TensorMapError::Pitch { bytes: 200 }));
    /// ```
    pub fn new(tensor: &HalfRows, tma_box: TmaBox) -> Result<Self, TensorMapError> {
        check_box(tma_box)?;
        let TmaBox { inner, outer, swizzle, .. } = tma_box;
        let l = tensor.layout();
        let ((rows, words), (pitch, _)) = (l.shape(), l.stride());
        let (rows, words, pitch) = (u64::from(rows), u64::from(words), u64::from(pitch));
        if pitch < words {
            return Err(TensorMapError::RowsOverlap { pitch, words });
        }
        if (pitch * 4) % 16 != 0 {
            return Err(TensorMapError::Pitch { bytes: pitch * 4 });
        }
        if 2 * words > 1 << 32 {
            return Err(TensorMapError::DimTooLarge { dim: "inner", value: 2 * words });
        }
        let addr = tensor.to_words().addr;
        Ok(TensorMapSpec {
            addr,
            dims: [2 * words, rows],
            row_pitch_bytes: pitch * 4,
            box_dims: [inner, outer],
            swizzle,
        })
    }
}

/// What `cuTensorMapEncodeTiled` requires of a box of 16-bit elements: extents in 1..=256, rows a
/// multiple of 16 bytes and no wider than the swizzle's span.
fn check_box(tma_box: TmaBox) -> Result<(), TensorMapError> {
    let TmaBox { inner, outer, element_bits, swizzle } = tma_box;
    if element_bits != 16 {
        return Err(TensorMapError::ElementBits { bits: element_bits });
    }
    for (dim, value) in [("inner", inner), ("outer", outer)] {
        if !(1..=256).contains(&value) {
            return Err(TensorMapError::BoxExtent { dim, value });
        }
    }
    let row_bytes = inner * 2;
    if row_bytes % 16 != 0 {
        return Err(TensorMapError::BoxRowBytes { bytes: row_bytes });
    }
    if swizzle != TmaSwizzle::None && row_bytes > swizzle.span() {
        return Err(TensorMapError::SwizzleSpan { bytes: row_bytes, span: swizzle.span() });
    }
    Ok(())
}

/// The arguments of `cuTensorMapEncodeTiled` for a tensor of 16-bit elements of rank 2 to 5 and a
/// box `[inner, outer, 1, ...]`, checked (see [`TensorMapSpecNd::new`]): what
/// [`TensorMap::encode_nd`] encodes (and [`TensorMap::encode`], as rank 2). The entries past
/// `rank` are 0 (`dims`, `strides_bytes`) or 1 (`box_dims`).
///
/// ```
/// use const_layout::atom::tma::{TmaBox, TmaSwizzle};
/// use const_layout_launch::TensorMapSpecNd;
/// // PyTorch's q of shape (batch 4, heads 16, seq 1000, dim 128), stored as (b, s, h, d):
/// // q.stride() = (2048000, 128, 2048, 1); TMA's order is innermost first.
/// let b = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };
/// let s = TensorMapSpecNd::new(0x7f00_0000_0000, 4 * 2048000 / 2, [128, 1000, 16, 4], [1, 2048, 128, 2048000], b).unwrap();
/// assert_eq!((s.rank, s.dims, s.strides_bytes), (4, [128, 1000, 16, 4, 0], [4096, 256, 4096000, 0]));
/// assert_eq!(s.box_dims, [64, 128, 1, 1, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorMapSpecNd {
    /// The tensor's global address.
    pub addr: u64,
    /// `tensorRank`.
    pub rank: u32,
    /// `globalDim`: the extents, innermost first.
    pub dims: [u64; 5],
    /// `globalStrides`: bytes from an index of dimension `i + 1` to the next.
    pub strides_bytes: [u64; 4],
    /// `boxDim`: `[inner, outer, 1, ...]`.
    pub box_dims: [u32; 5],
    /// The swizzle mode.
    pub swizzle: TmaSwizzle,
}

impl TensorMapSpecNd {
    /// The encoding of the tensor of 16-bit elements at `addr` (16-byte aligned) in an allocation
    /// of `words` 32-bit words from there, of extents `dims` and element strides `strides`, both
    /// innermost first, for `tma_box`. Checks, as `cuTensorMapEncodeTiled` requires: a rank of 2
    /// to 5; the box as [`TensorMapSpec::new`] checks it; extents in 1..=2^32; `strides[0]` 1 (the
    /// innermost dimension contiguous); the other strides multiples of 16 bytes below 2^40 (in any
    /// order: a transposed view is a tensor too); and that every element lies inside the
    /// allocation. A box may be larger than the tensor: TMA fills what lies outside with zeros.
    ///
    /// ```
    /// use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// use const_layout_launch::{TensorMapError, TensorMapSpecNd};
    /// let b = TmaBox { inner: 64, outer: 64, element_bits: 16, swizzle: TmaSwizzle::B128 };
    /// // A head dim of 100 halves a row: 200 bytes.
    /// let e = TensorMapSpecNd::new(0x7f00_0000_0000, 1 << 20, [100, 50, 8], [1, 100, 5000], b);
    /// assert_eq!(e, Err(TensorMapError::Stride { dim: 1, bytes: 200 }));
    /// ```
    pub fn new<const RANK: usize>(
        addr: u64,
        words: u64,
        dims: [u64; RANK],
        strides: [u64; RANK],
        tma_box: TmaBox,
    ) -> Result<Self, TensorMapError> {
        if !(2..=5).contains(&RANK) {
            return Err(TensorMapError::Rank { rank: RANK as u32 });
        }
        check_box(tma_box)?;
        if !addr.is_multiple_of(16) {
            return Err(TensorMapError::Address { addr });
        }
        for (dim, &value) in dims.iter().enumerate() {
            if !(1..=1 << 32).contains(&value) {
                return Err(TensorMapError::DimExtent { dim, value });
            }
        }
        if strides[0] != 1 {
            return Err(TensorMapError::InnerStride { stride: strides[0] });
        }
        let mut spec = TensorMapSpecNd {
            addr,
            rank: RANK as u32,
            dims: [0; 5],
            strides_bytes: [0; 4],
            box_dims: [tma_box.inner, tma_box.outer, 1, 1, 1],
            swizzle: tma_box.swizzle,
        };
        let mut last: u128 = 0; // the offset of the last element
        for dim in 0..RANK {
            spec.dims[dim] = dims[dim];
            last += (dims[dim] as u128 - 1) * strides[dim] as u128;
            if dim > 0 {
                let bytes = strides[dim].saturating_mul(2);
                if !bytes.is_multiple_of(16) || bytes >= 1 << 40 {
                    return Err(TensorMapError::Stride { dim, bytes });
                }
                spec.strides_bytes[dim - 1] = bytes;
            }
        }
        if last >= 2 * words as u128 {
            return Err(TensorMapError::OutsideAllocation {
                last: u64::try_from(last).unwrap_or(u64::MAX),
                elements: words.saturating_mul(2),
            });
        }
        Ok(spec)
    }
}

impl From<TensorMapSpec> for TensorMapSpecNd {
    /// The 2-D encoding as rank 2.
    ///
    /// ```
    /// use const_layout::atom::tma::TmaSwizzle;
    /// use const_layout_launch::{TensorMapSpec, TensorMapSpecNd};
    /// let s = TensorMapSpec { addr: 0, dims: [64, 32], row_pitch_bytes: 128, box_dims: [64, 32], swizzle: TmaSwizzle::B128 };
    /// assert_eq!(TensorMapSpecNd::from(s).strides_bytes, [128, 0, 0, 0]);
    /// ```
    fn from(s: TensorMapSpec) -> Self {
        TensorMapSpecNd {
            addr: s.addr,
            rank: 2,
            dims: [s.dims[0], s.dims[1], 0, 0, 0],
            strides_bytes: [s.row_pitch_bytes, 0, 0, 0],
            box_dims: [s.box_dims[0], s.box_dims[1], 1, 1, 1],
            swizzle: s.swizzle,
        }
    }
}

/// The driver's swizzle mode of `s`.
fn cu_swizzle(s: TmaSwizzle) -> sys::CUtensorMapSwizzle {
    match s {
        TmaSwizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
        TmaSwizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        TmaSwizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        TmaSwizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    }
}

/// A TMA tensor map (a 128-byte `CUtensorMap`) in device memory it owns, 128-byte aligned, for an
/// input tensor it borrows for `'t`: the tensor stays allocated while the map can be used. Passed
/// to a kernel's [`TensorMapRef`] parameter as `&TensorMap`; a launch refuses a map whose tensor is
/// none of its inputs.
///
/// ```no_run
/// use const_layout::{make_layout, C};
/// use const_layout::atom::tma::{TmaBox, TmaSwizzle};
/// use const_layout_launch::{InArg, TensorMap};
/// let ctx = cudarc::driver::CudaContext::new(0)?;
/// let stream = ctx.default_stream();
/// let a = stream.alloc_zeros::<u32>(5120 * 2048)?; // 5120 x 4096 halves
/// let a = InArg::new(&a, &make_layout((5120u32, 2048u32), (2048u32, C::<1>))?)?;
/// // The box of the Hopper GEMM's `A` stages (`const_layout_kernels::hgemm_sm90::a_box()`).
/// let tma_box = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };
/// let map = TensorMap::encode(&stream, &a, tma_box)?;
/// assert_eq!(map.as_ref().address() % 128, 0);
/// assert_eq!(map.bytes().len(), 128);
/// assert_eq!(map.spec().dims[..2], [4096, 5120]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TensorMap<'t> {
    spec: TensorMapSpecNd,
    tensor: TensorWords,
    device: Option<Device>,
    borrow: PhantomData<&'t CudaSlice<u32>>,
}

/// The map's device copy.
struct Device {
    buf: CudaSlice<u8>,
    addr: u64,
    bytes: [u8; 128],
}

impl<'t> TensorMap<'t> {
    /// Encodes the map of `tensor` for `tma_box` with `cuTensorMapEncodeTiled` (after
    /// [`TensorMapSpec::new`]'s checks) and copies it to device memory on `stream`, waiting for the
    /// copy.
    ///
    /// ```no_run
    /// # use const_layout::{make_layout, C};
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// # use const_layout_launch::{InArg, TensorMap};
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// # let stream = ctx.default_stream();
    /// let b = stream.alloc_zeros::<u32>(256 * 32)?; // 256 x 64 halves
    /// let b = InArg::new(&b, &make_layout((256u32, 32u32), (32u32, C::<1>))?)?;
    /// let tma_box = TmaBox { inner: 64, outer: 256, element_bits: 16, swizzle: TmaSwizzle::B128 };
    /// let map = TensorMap::encode(&stream, &b, tma_box)?;
    /// assert_eq!(map.spec().box_dims[..2], [64, 256]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(
        stream: &Arc<CudaStream>,
        tensor: &InArg<'t, u32, (u32, u32), (u32, C<1>)>,
        tma_box: TmaBox,
    ) -> Result<Self, LaunchError> {
        let spec = TensorMapSpec::new(tensor.param(), tma_box)?;
        Self::encode_spec(stream, tensor.param().to_words(), tensor.context(), spec.into())
    }

    /// Encodes the map of a tensor of 16-bit elements of rank 2 to 5 in `tensor`'s allocation (from
    /// its address), of extents `dims` and element strides `strides`, innermost first, for
    /// `tma_box` (after [`TensorMapSpecNd::new`]'s checks, against the allocation's length), and
    /// copies it to device memory on `stream`, waiting for the copy. The kernel's
    /// `TmaTensor::new` takes the same dimensions and strides. `tensor`'s own layout is the
    /// kernel parameter's; the map is that argument's (a launch checks it is an input).
    ///
    /// ```no_run
    /// # use const_layout::{make_layout, C};
    /// # use const_layout::atom::tma::{TmaBox, TmaSwizzle};
    /// # use const_layout_launch::{InArg, TensorMap};
    /// # let ctx = cudarc::driver::CudaContext::new(0)?;
    /// # let stream = ctx.default_stream();
    /// // q: (batch 2, heads 8, seq 512, dim 128) halves, contiguous, as words.
    /// let q = stream.alloc_zeros::<u32>(2 * 8 * 512 * 64)?;
    /// let q = InArg::new(&q, &make_layout((2 * 8 * 512u32, 64u32), (64u32, C::<1>))?)?;
    /// let tma_box = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };
    /// let map = TensorMap::encode_nd(&stream, &q, [128, 512, 8, 2], [1, 128, 65536, 524288], tma_box)?;
    /// assert_eq!(map.spec().rank, 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode_nd<S: IntTuple + LayoutShape<D>, D: IntTuple, const RANK: usize>(
        stream: &Arc<CudaStream>,
        tensor: &InArg<'t, u32, S, D>,
        dims: [u64; RANK],
        strides: [u64; RANK],
        tma_box: TmaBox,
    ) -> Result<Self, LaunchError> {
        let words = tensor.param().to_words();
        let spec = TensorMapSpecNd::new(words.addr, words.len, dims, strides, tma_box)?;
        Self::encode_spec(stream, words, tensor.context(), spec)
    }

    /// `cuTensorMapEncodeTiled` for `spec` (checked), copied to device memory.
    fn encode_spec(
        stream: &Arc<CudaStream>,
        tensor: TensorWords,
        context: Option<&Arc<CudaContext>>,
        spec: TensorMapSpecNd,
    ) -> Result<Self, LaunchError> {
        let ctx = stream.context();
        if let Some(own) = context
            && !Arc::ptr_eq(own, ctx)
        {
            let what = "the tensor's buffer".to_string();
            return Err(LaunchError::WrongContext { kernel: "cuTensorMapEncodeTiled".into(), what });
        }
        ctx.bind_to_thread().map_err(|e| LaunchError::cuda("binding the CUDA context", e))?;
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        let element_strides = [1u32; 5];
        // SAFETY: `map` is a writable CUtensorMap; the arrays hold at least `tensorRank` (2 to 5)
        // entries, the strides `tensorRank - 1`; the values passed `TensorMapSpec::new`'s or
        // `TensorMapSpecNd::new`'s checks of the driver's conditions. Encoding reads no device
        // memory (the address is only recorded).
        let r = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
                spec.rank,
                spec.addr as *mut std::ffi::c_void,
                spec.dims.as_ptr(),
                spec.strides_bytes.as_ptr(),
                spec.box_dims.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                cu_swizzle(spec.swizzle),
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        r.result().map_err(|e| LaunchError::cuda(format!("cuTensorMapEncodeTiled {spec:?}"), e))?;
        let mut bytes = [0u8; 128];
        for (chunk, word) in bytes.chunks_exact_mut(8).zip(map.opaque) {
            chunk.copy_from_slice(&word.to_ne_bytes());
        }
        // 256 bytes, the map at the first 128-byte boundary (TMA needs 64).
        let mut buf =
            stream.alloc_zeros::<u8>(256).map_err(|e| LaunchError::cuda("allocating a tensor map", e))?;
        let (base, guard) = buf.device_ptr(stream);
        drop(guard);
        let offset = (base.wrapping_neg() % 128) as usize;
        let mut at = buf.slice_mut(offset..offset + 128);
        stream.memcpy_htod(&bytes, &mut at).map_err(|e| LaunchError::cuda("copying a tensor map", e))?;
        stream.synchronize().map_err(|e| LaunchError::cuda("copying a tensor map", e))?;
        let device = Device { buf, addr: base + offset as u64, bytes };
        Ok(TensorMap { spec, tensor, device: Some(device), borrow: PhantomData })
    }

    /// A map that was never encoded (address 0), for the launch checks' tests.
    #[cfg(test)]
    pub(crate) fn unencoded(
        tensor: &InArg<'t, u32, (u32, u32), (u32, C<1>)>,
        tma_box: TmaBox,
    ) -> Result<Self, TensorMapError> {
        let spec = TensorMapSpec::new(tensor.param(), tma_box)?.into();
        Ok(TensorMap { spec, tensor: tensor.param().to_words(), device: None, borrow: PhantomData })
    }

    /// The kernel parameter: the map's device address.
    /// (Example: [`TensorMap`].)
    pub fn as_ref(&self) -> TensorMapRef {
        TensorMapRef::new(self.device.as_ref().map_or(0, |d| d.addr))
    }

    /// What was encoded (a 2-D map's as rank 2).
    /// (Example: [`TensorMap`].)
    pub fn spec(&self) -> &TensorMapSpecNd {
        &self.spec
    }

    /// The map's 128 bytes, as the driver encoded them.
    /// (Example: [`TensorMap`].)
    pub fn bytes(&self) -> &[u8; 128] {
        const NONE: [u8; 128] = [0; 128];
        self.device.as_ref().map_or(&NONE, |d| &d.bytes)
    }

    /// The tensor the map was encoded for, as its parameter's data.
    pub(crate) fn tensor(&self) -> TensorWords {
        self.tensor
    }

    /// The context of the map's memory.
    pub(crate) fn context(&self) -> Option<&Arc<CudaContext>> {
        self.device.as_ref().map(|d| d.buf.context())
    }

    /// cudarc's stream ordering for the map's memory, held over a launch that reads it.
    pub(crate) fn sync<'s>(&'s self, stream: &'s CudaStream) -> Option<SyncOnDrop<'s>> {
        self.device.as_ref().map(|d| d.buf.device_ptr(stream).1)
    }
}

impl std::fmt::Debug for TensorMap<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TensorMap({:#x}, {:?})", self.as_ref().address(), self.spec)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use const_layout::make_layout;

    const BASE: u64 = 0x7f00_0000_0000;
    const B128: TmaBox = TmaBox { inner: 64, outer: 128, element_bits: 16, swizzle: TmaSwizzle::B128 };

    fn rows(rows: u32, words: u32, pitch: u32) -> HalfRows {
        let l = make_layout((rows, words), (pitch, C::<1>)).unwrap();
        HalfRows::new(BASE, ((rows - 1) * pitch + words) as usize, &l).unwrap()
    }

    #[test]
    fn the_spec_is_what_hgemm_bench_encodes() {
        // hgemm_bench.py's Sm90: dims (cols, rows) in halves, the row stride in bytes, the box.
        let s = TensorMapSpec::new(&rows(333, 132, 132), B128).unwrap();
        assert_eq!(
            s,
            TensorMapSpec {
                addr: BASE,
                dims: [264, 333],
                row_pitch_bytes: 528,
                box_dims: [64, 128],
                swizzle: TmaSwizzle::B128
            }
        );
        // The kernel's own boxes pass, and a box larger than the tensor is allowed (zero fill).
        let a = const_layout_kernels_boxes();
        for b in a {
            assert!(TensorMapSpec::new(&rows(200, 132, 132), b).is_ok(), "{b:?}");
        }
    }

    /// The Hopper GEMM's boxes, as `hgemm_sm90::{a_box, b_box}` give them (the kernels crate is
    /// not a dependency of this one).
    fn const_layout_kernels_boxes() -> [TmaBox; 2] {
        [B128, TmaBox { outer: 256, ..B128 }]
    }

    #[test]
    fn every_condition_is_checked_with_its_numbers() {
        let t = rows(128, 32, 32);
        let e = |b: TmaBox| TensorMapSpec::new(&t, b).unwrap_err();
        assert_eq!(e(TmaBox { element_bits: 32, ..B128 }), TensorMapError::ElementBits { bits: 32 });
        assert_eq!(e(TmaBox { inner: 0, ..B128 }), TensorMapError::BoxExtent { dim: "inner", value: 0 });
        assert_eq!(e(TmaBox { outer: 257, ..B128 }), TensorMapError::BoxExtent { dim: "outer", value: 257 });
        assert_eq!(e(TmaBox { inner: 12, ..B128 }), TensorMapError::BoxRowBytes { bytes: 24 });
        assert_eq!(e(TmaBox { inner: 128, ..B128 }), TensorMapError::SwizzleSpan { bytes: 256, span: 128 });
        assert_eq!(
            e(TmaBox { inner: 64, swizzle: TmaSwizzle::B64, ..B128 }),
            TensorMapError::SwizzleSpan { bytes: 128, span: 64 }
        );
        assert!(TensorMapSpec::new(&t, TmaBox { inner: 128, swizzle: TmaSwizzle::None, ..B128 }).is_ok());
        assert_eq!(
            TensorMapSpec::new(&rows(128, 32, 30), B128),
            Err(TensorMapError::RowsOverlap { pitch: 30, words: 32 })
        );
        assert_eq!(TensorMapSpec::new(&rows(128, 30, 30), B128), Err(TensorMapError::Pitch { bytes: 120 }));
        let wide = make_layout((1u32, 1u32 << 31 | 4), (1u32 << 31 | 4, C::<1>)).unwrap();
        let wide = HalfRows::new(BASE, (1 << 31) + 4, &wide).unwrap();
        assert_eq!(
            TensorMapSpec::new(&wide, B128),
            Err(TensorMapError::DimTooLarge { dim: "inner", value: (1 << 32) + 8 })
        );
        assert_eq!(
            LaunchError::from(TensorMapError::Pitch { bytes: 120 }).to_string(),
            "a tensor map was refused: the row pitch of 120 bytes is not a multiple of 16 bytes"
        );
    }

    #[test]
    fn every_condition_of_a_rank_n_map_is_checked_with_its_numbers() {
        // q of shape (batch 2, heads 4, seq 100, dim 128) stored (b, s, h, d).
        let (dims, strides) = ([128u64, 100, 4, 2], [1u64, 512, 128, 51200]);
        let words = 2 * 51200 / 2;
        let s = TensorMapSpecNd::new(BASE, words, dims, strides, B128).unwrap();
        assert_eq!(s.strides_bytes, [1024, 256, 102400, 0]);
        assert_eq!((s.rank, s.dims, s.box_dims), (4, [128, 100, 4, 2, 0], [64, 128, 1, 1, 1]));
        let e = |dims: [u64; 4], strides: [u64; 4], words: u64, b: TmaBox| {
            TensorMapSpecNd::new(BASE, words, dims, strides, b).unwrap_err()
        };
        assert_eq!(
            e(dims, strides, words, TmaBox { inner: 128, ..B128 }),
            TensorMapError::SwizzleSpan { bytes: 256, span: 128 }
        );
        assert_eq!(e([128, 0, 4, 2], strides, words, B128), TensorMapError::DimExtent { dim: 1, value: 0 });
        assert_eq!(
            e([128, 100, 4, (1 << 32) + 1], strides, words, B128),
            TensorMapError::DimExtent { dim: 3, value: (1 << 32) + 1 }
        );
        assert_eq!(e(dims, [2, 512, 128, 51200], words, B128), TensorMapError::InnerStride { stride: 2 });
        assert_eq!(e(dims, [1, 512, 100, 51200], words, B128), TensorMapError::Stride { dim: 2, bytes: 200 });
        assert_eq!(
            e(dims, [1, 512, 128, 1 << 39], 1 << 45, B128),
            TensorMapError::Stride { dim: 3, bytes: 1 << 40 }
        );
        // The last element, (127, 99, 3, 1), at 127 + 99 512 + 3 128 + 51200 = 102399.
        assert_eq!(
            e(dims, strides, words - 1, B128),
            TensorMapError::OutsideAllocation { last: 102399, elements: 102398 }
        );
        assert_eq!(TensorMapSpecNd::new(BASE, words, [8], [1], B128), Err(TensorMapError::Rank { rank: 1 }));
        assert_eq!(
            TensorMapSpecNd::new(BASE + 8, words, dims, strides, B128),
            Err(TensorMapError::Address { addr: BASE + 8 })
        );
        assert_eq!(
            LaunchError::from(TensorMapError::Stride { dim: 2, bytes: 200 }).to_string(),
            "a tensor map was refused: dimension 2's stride of 200 bytes is not a multiple of 16 bytes below 2^40"
        );
        // A 2-D spec is the rank-2 one.
        let two = TensorMapSpec::new(&rows(333, 132, 132), B128).unwrap();
        assert_eq!(
            TensorMapSpecNd::from(two),
            TensorMapSpecNd::new(BASE, 333 * 132, [264, 333], [1, 264], B128).unwrap()
        );
    }

    #[test]
    fn swizzle_modes_are_the_drivers() {
        assert_eq!(cu_swizzle(TmaSwizzle::None) as u32, 0);
        assert_eq!(cu_swizzle(TmaSwizzle::B32) as u32, 1);
        assert_eq!(cu_swizzle(TmaSwizzle::B64) as u32, 2);
        assert_eq!(cu_swizzle(TmaSwizzle::B128) as u32, 3);
        assert_eq!(sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B as u32, 3);
        assert_eq!(size_of::<sys::CUtensorMap>(), 128);
    }
}
