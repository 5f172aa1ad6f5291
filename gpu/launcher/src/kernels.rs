//! What the launcher knows of the PTX module's entry points beyond their `Entry` declarations
//! (`const_layout_ptx`): each one's layouts for a problem size and its launch geometry, both from
//! the kernel crate the module is built from (`const-layout-kernels`), so that the launcher and the
//! kernels cannot disagree.
//!
//! | entry point | tensors | grid, block, shared memory |
//! |---|---|---|
//! | `copy_f32` | `src, dst: ColMajor (m,n)` | `copy::grid(m, n)`, `copy::block()`, none |
//! | `transpose_f32` | `src: RowMajor (m,n), dst: ColMajor (m,n)` | `transpose::{grid, block, SMEM_BYTES}` |
//! | `sgemm_{nt,tn}_f32` | `a (m,k), b (n,k)`: `ColMajor` (NT) or `RowMajor` (TN); `c: ColMajor (m,n)` | `sgemm::{grid, block, SMEM_BYTES}` |
//! | `hgemm_{tn,nt}_{f32,f16}` | `a, b`: `RowWords (m,k/2), (n,k/2)` (TN) or `ColWords (m/2,k), (n/2,k)` (NT); `c`: `ColMajor (m,n)` (f32) or `RowWords (m,n/2)` (f16) | `hgemm::{grid, block, SMEM_BYTES}` |
//! | `hgemm_sm90_tn_{f32,f16}` | as `hgemm_tn_*`, and TMA maps of `a`, `b` for `hgemm_sm90::{a_box, b_box}` | `hgemm_sm90::{grid, block, SMEM_BYTES}` |
//! | `hgemm_sm90_config` | `out: ConfigWords` (16 words) | one thread |
//! | `attention_sm90_d{64,128}` | `q, k, v, o: HeadWords (seq, d/2, heads, batch)`, `lse: HeadF32 (seq_q, heads, batch)`, TMA maps of `q`, `k`, `v` as `(d, seq, heads, batch)` for `attention_sm90::q_box` (`attention`) | `attention_sm90::{grid, THREADS, smem_bytes(d)}` |
//! | `attention_sm90_config` | `out: ConfigWords` (16 words) | one thread |
//!
//! Shared memory: a kernel crate's `SMEM_BYTES` is what its body needs; it is given as dynamic
//! shared memory unless the entry point declares that much statically (`transpose_f32` does):
//! `KernelLimits::dynamic_smem_for`.

use const_layout::{C, Layout, LayoutError, make_layout};
use const_layout_device::{Dim3, LaunchConfig};
use const_layout_kernels::{copy, hgemm, hgemm_sm90, sgemm, transpose};
use const_layout_launch::KernelLimits;

/// A column-major `(rows, cols):(_1, rows)` layout (`ColMajor`, `ColWords`).
pub type ColLayout = Layout<(u32, u32), (C<1>, u32)>;
/// A row-major `(rows, cols):(cols, _1)` layout (`RowMajor`, `RowWords`).
pub type RowLayout = Layout<(u32, u32), (u32, C<1>)>;

/// The compact column-major `rows x cols` layout.
pub fn col_major(rows: u32, cols: u32) -> Result<ColLayout, LayoutError> {
    make_layout((rows, cols), (C::<1>, rows))
}

/// The compact row-major `rows x cols` layout.
pub fn row_major(rows: u32, cols: u32) -> Result<RowLayout, LayoutError> {
    make_layout((rows, cols), (cols, C::<1>))
}

/// The two GEMM forms, CuTe's names: the storage of `A` (m x k) and `B` (n x k).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GemmForm {
    /// `A`, `B` column-major (m and n contiguous); cuBLAS `('N', 'T')`.
    Nt,
    /// `A`, `B` row-major (k contiguous); cuBLAS `('T', 'N')`.
    Tn,
}

impl GemmForm {
    /// `NT` or `TN`.
    pub fn name(self) -> &'static str {
        match self {
            GemmForm::Nt => "NT",
            GemmForm::Tn => "TN",
        }
    }

    /// The offset of element `(i, p)` of the compact `rows x k` operand stored in this form.
    pub fn offset(self, rows: usize, k: usize, i: usize, p: usize) -> usize {
        match self {
            GemmForm::Nt => i + p * rows,
            GemmForm::Tn => i * k + p,
        }
    }
}

/// The geometry of a family of entry points, from the kernel crate (see the module's table).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Geometry {
    /// `copy_f32`.
    Copy,
    /// `transpose_f32`.
    Transpose,
    /// `sgemm_{nt,tn}_f32`.
    Sgemm,
    /// `hgemm_{tn,nt}_{f32,f16}`.
    Hgemm,
    /// `hgemm_sm90_tn_{f32,f16}`.
    HgemmSm90,
    /// One thread (`hgemm_sm90_config`).
    Single,
}

impl Geometry {
    /// The grid, block and shared memory for an output of `m x n`.
    pub fn dims(self, m: u32, n: u32) -> (Dim3, Dim3, u32) {
        match self {
            Geometry::Copy => (copy::grid(m, n), copy::block(), 0),
            Geometry::Transpose => (transpose::grid(m, n), transpose::block(), transpose::SMEM_BYTES),
            Geometry::Sgemm => (sgemm::grid(m, n), sgemm::block(), sgemm::SMEM_BYTES),
            Geometry::Hgemm => (hgemm::grid(m, n), hgemm::block(), hgemm::SMEM_BYTES),
            Geometry::HgemmSm90 => (hgemm_sm90::grid(m, n), hgemm_sm90::block(), hgemm_sm90::SMEM_BYTES),
            Geometry::Single => (Dim3::x(1), Dim3::x(1), 0),
        }
    }

    /// The launch configuration for an output of `m x n` of a kernel with `limits`.
    pub fn config(self, limits: &KernelLimits, m: u32, n: u32) -> LaunchConfig {
        let (grid, block, smem) = self.dims(m, n);
        LaunchConfig { grid, block, dynamic_smem_bytes: limits.dynamic_smem_for(smem) }
    }
}

/// CUDA's grid limits (x below 2^31, y and z at most 65535): what `--size-*` are checked against
/// before anything is allocated (the launch checks them again).
pub fn grid_fits(grid: Dim3) -> bool {
    grid.x < 1 << 31 && grid.y <= 65535 && grid.z <= 65535
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_follows_the_kernels_crate() {
        assert_eq!(Geometry::Copy.dims(8192, 8192), (copy::grid(8192, 8192), copy::block(), 0));
        let limits = KernelLimits {
            max_threads_per_block: 1024,
            static_smem_bytes: 16384,
            max_smem_per_block: 232448,
        };
        let t = Geometry::Transpose.config(&limits, 100, 100);
        assert_eq!((t.grid, t.dynamic_smem_bytes), (transpose::grid(100, 100), 0));
        let limits = KernelLimits { static_smem_bytes: 0, ..limits };
        assert_eq!(
            Geometry::Hgemm.dims(5120, 5120),
            (hgemm::grid(5120, 5120), hgemm::block(), hgemm::SMEM_BYTES)
        );
        let s = Geometry::HgemmSm90.config(&limits, 5120, 5120);
        assert_eq!(
            (s.grid, s.block, s.dynamic_smem_bytes),
            (hgemm_sm90::grid(5120, 5120), hgemm_sm90::block(), hgemm_sm90::SMEM_BYTES)
        );
        assert_eq!(Geometry::Sgemm.config(&limits, 64, 64).dynamic_smem_bytes, sgemm::SMEM_BYTES);
        assert!(grid_fits(copy::grid(8192, 8192)) && !grid_fits(copy::grid(128, 1 << 30)));
    }

    #[test]
    fn layouts_and_offsets() {
        let c = col_major(3, 4).unwrap();
        assert_eq!((c.shape(), c.stride().1), ((3, 4), 3));
        assert_eq!(row_major(3, 4).unwrap().stride().0, 4);
        assert_eq!(GemmForm::Nt.offset(5, 4, 2, 3), 17);
        assert_eq!(GemmForm::Tn.offset(5, 4, 2, 3), 11);
    }
}
