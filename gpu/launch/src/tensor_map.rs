//! TMA tensor maps encoded from Rust: the driver's `cuTensorMapEncodeTiled` for a 2-D tensor of
//! 16-bit elements and a box a kernel reports ([`TmaBox`], from its shared-memory layout), copied
//! to device memory and passed to the kernel as a [`TensorMapRef`].

use crate::args::InArg;
use crate::error::{LaunchError, TensorMapError};
use const_layout::C;
use const_layout::atom::tma::{TmaBox, TmaSwizzle};
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
/// assert_eq!(map.spec().dims, [4096, 5120]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct TensorMap<'t> {
    spec: TensorMapSpec,
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
    /// assert_eq!(map.spec().box_dims, [64, 256]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn encode(
        stream: &Arc<CudaStream>,
        tensor: &InArg<'t, u32, (u32, u32), (u32, C<1>)>,
        tma_box: TmaBox,
    ) -> Result<Self, LaunchError> {
        let spec = TensorMapSpec::new(tensor.param(), tma_box)?;
        let ctx = stream.context();
        if let Some(own) = tensor.context()
            && !Arc::ptr_eq(own, ctx)
        {
            let what = "the tensor's buffer".to_string();
            return Err(LaunchError::WrongContext { kernel: "cuTensorMapEncodeTiled".into(), what });
        }
        ctx.bind_to_thread().map_err(|e| LaunchError::cuda("binding the CUDA context", e))?;
        let mut map = sys::CUtensorMap { opaque: [0; 16] };
        let strides = [spec.row_pitch_bytes];
        let element_strides = [1u32, 1];
        // SAFETY: `map` is a writable CUtensorMap; the arrays hold `tensorRank` (2) entries, the
        // strides `tensorRank - 1`; the values passed `TensorMapSpec::new`'s checks of the
        // driver's conditions. Encoding reads no device memory (the address is only recorded).
        let r = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map,
                sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16,
                2,
                spec.addr as *mut std::ffi::c_void,
                spec.dims.as_ptr(),
                strides.as_ptr(),
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
        Ok(TensorMap { spec, tensor: tensor.param().to_words(), device: Some(device), borrow: PhantomData })
    }

    /// A map that was never encoded (address 0), for the launch checks' tests.
    #[cfg(test)]
    pub(crate) fn unencoded(
        tensor: &InArg<'t, u32, (u32, u32), (u32, C<1>)>,
        tma_box: TmaBox,
    ) -> Result<Self, TensorMapError> {
        let spec = TensorMapSpec::new(tensor.param(), tma_box)?;
        Ok(TensorMap { spec, tensor: tensor.param().to_words(), device: None, borrow: PhantomData })
    }

    /// The kernel parameter: the map's device address.
    /// (Example: [`TensorMap`].)
    pub fn as_ref(&self) -> TensorMapRef {
        TensorMapRef::new(self.device.as_ref().map_or(0, |d| d.addr))
    }

    /// What was encoded.
    /// (Example: [`TensorMap`].)
    pub fn spec(&self) -> &TensorMapSpec {
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
    fn swizzle_modes_are_the_drivers() {
        assert_eq!(cu_swizzle(TmaSwizzle::None) as u32, 0);
        assert_eq!(cu_swizzle(TmaSwizzle::B32) as u32, 1);
        assert_eq!(cu_swizzle(TmaSwizzle::B64) as u32, 2);
        assert_eq!(cu_swizzle(TmaSwizzle::B128) as u32, 3);
        assert_eq!(sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B as u32, 3);
        assert_eq!(size_of::<sys::CUtensorMap>(), 128);
    }
}
