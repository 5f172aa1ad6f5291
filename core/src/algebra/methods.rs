//! CuTe's algebra as methods of [`DynLayout`], named as CuTe names the functions: `a.composition(&b)`
//! is [`composition`](super::composition)`(&a, &b)`, `a.logical_divide(&t)` is
//! [`logical_divide`](super::logical_divide)`(&a, &t)`. Each method calls the one implementation
//! the free function is, so both give the same answer or the same error; the free functions stay
//! for CuTe's argument order (`slice(coord, layout)`, `complement(layout, cotarget)`).

use super::{LayoutPartition, R, Slicer, Tiler};
use crate::dyn_layout::{DynInt, DynIntTuple, DynLayout};

impl DynLayout {
    /// CuTe's `composition(self, rhs)`: `self(rhs(i))` for every index.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(6,2):(8,2)".parse().unwrap();
    /// let c = a.composition(&"(4,3):(3,1)".parse().unwrap()).unwrap();
    /// assert_eq!(c.to_string(), "((2,2),(3,1)):((24,2),(8,2))");
    /// ```
    pub const fn composition(&self, rhs: &DynLayout) -> R<DynLayout> {
        super::composition(self, rhs)
    }

    /// CuTe's `composition(self, tiler)` with a tiler: by mode for `<...>`, as a layout otherwise.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(8,8):(1,8)".parse().unwrap();
    /// assert_eq!(a.composition_tiler(&"<2:1, 4:1>".parse().unwrap()).unwrap().to_string(), "(2,4):(1,8)");
    /// ```
    pub const fn composition_tiler(&self, tiler: &Tiler) -> R<DynLayout> {
        super::composition_tiler(self, tiler)
    }

    /// CuTe's `complement(self)`: the layout of the offsets `self` leaves out, up to its cosize.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "4:2".parse().unwrap();
    /// assert_eq!(a.complement().unwrap().to_string(), "(2,1):(_1,8)");
    /// ```
    pub const fn complement(&self) -> R<DynLayout> {
        super::complement(self)
    }

    /// CuTe's `complement(self, cotarget)`: the complement up to the shape `cotarget`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,_2):(_1,_6)".parse().unwrap();
    /// assert_eq!(a.complement_to(&"_24".parse().unwrap()).unwrap().to_string(), "(_3,_2):(_2,_12)");
    /// ```
    pub const fn complement_to(&self, cotarget: &DynIntTuple) -> R<DynLayout> {
        super::complement_to(self, cotarget)
    }

    /// CuTe's `coalesce(self)`: the same function with as few modes as possible, flat.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,(_1,_6)):(_1,(_6,_2))".parse().unwrap();
    /// assert_eq!(a.coalesce().unwrap().to_string(), "_12:_1");
    /// ```
    pub const fn coalesce(&self) -> R<DynLayout> {
        super::coalesce(self)
    }

    /// CuTe's `filter(self)`: stride-0 and extent-1 modes removed, then coalesced.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,_1,_3):(_0,_1,_2)".parse().unwrap();
    /// assert_eq!(a.filter().unwrap().to_string(), "_3:_2");
    /// ```
    pub const fn filter(&self) -> R<DynLayout> {
        super::filter(self)
    }

    /// CuTe's `filter_zeros(self)`: every stride-0 mode's extent set to 1.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(2,3):(0,1)".parse().unwrap();
    /// assert_eq!(a.filter_zeros().unwrap().to_string(), "(_1,3):(0,1)");
    /// ```
    pub const fn filter_zeros(&self) -> R<DynLayout> {
        super::filter_zeros(self)
    }

    /// CuTe's `right_inverse(self)`: `self(R(i)) == i` on the largest such domain.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_4,_2):(_2,_1)".parse().unwrap();
    /// let r = a.right_inverse().unwrap();
    /// assert!((0..r.size().value).all(|i| a.offset(r.offset(i)) == i));
    /// ```
    pub const fn right_inverse(&self) -> R<DynLayout> {
        super::right_inverse(self)
    }

    /// CuTe's `left_inverse(self)`: `L(self(i)) == i` for every index.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_4,_2):(_2,_1)".parse().unwrap();
    /// let l = a.left_inverse().unwrap();
    /// assert!((0..8).all(|i| l.offset(a.offset(i)) == i));
    /// ```
    pub const fn left_inverse(&self) -> R<DynLayout> {
        super::left_inverse(self)
    }

    /// CuTe's `nullspace(self)`: the indices `self` sends to offset 0.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(4,2,3):(1,0,4)".parse().unwrap();
    /// assert_eq!(a.nullspace().unwrap().to_string(), "2:4");
    /// ```
    pub const fn nullspace(&self) -> R<DynLayout> {
        super::nullspace(self)
    }

    /// CuTe's `max_common_layout(self, other)`: the largest layout both map alike from index 0.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_8,_4):(_1,_8)".parse().unwrap();
    /// assert_eq!(a.max_common_layout(&a).unwrap().to_string(), "_32:_1");
    /// ```
    pub const fn max_common_layout(&self, other: &DynLayout) -> R<DynLayout> {
        super::max_common_layout(self, other)
    }

    /// CuTe's `max_common_vector(self, other)`: how many elements from index 0 both keep
    /// contiguous (1 where a stride is runtime, as CuTe).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_8,_4):(_1,_8)".parse().unwrap();
    /// assert_eq!(a.max_common_vector(&a).unwrap().value, 32);
    /// ```
    pub const fn max_common_vector(&self, other: &DynLayout) -> R<DynInt> {
        super::max_common_vector(self, other)
    }

    /// CuTe's `logical_divide(self, tiler)`: each mode split into the tile and the rest.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_8,_8):(_1,_8)".parse().unwrap();
    /// let d = a.logical_divide(&"<_2:_1, _4:_1>".parse().unwrap()).unwrap();
    /// assert_eq!(d.to_string(), "((_2,_4),(_4,_2)):((_1,_2),(_8,_32))");
    /// ```
    pub const fn logical_divide(&self, tiler: &Tiler) -> R<DynLayout> {
        super::logical_divide(self, tiler)
    }

    /// CuTe's `zipped_divide(self, tiler)`: `(tile, rest)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(8,8):(1,8)".parse().unwrap();
    /// let d = a.zipped_divide(&"<2:1, 4:1>".parse().unwrap()).unwrap();
    /// assert_eq!(d.to_string(), "((2,4),((1,4),(1,2))):((1,8),((1,2),(8,32)))");
    /// ```
    pub const fn zipped_divide(&self, tiler: &Tiler) -> R<DynLayout> {
        super::zipped_divide(self, tiler)
    }

    /// CuTe's `tiled_divide(self, tiler)`: `(tile, rest0, rest1, ...)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(8,8):(1,8)".parse().unwrap();
    /// let d = a.tiled_divide(&"<2:1, 4:1>".parse().unwrap()).unwrap();
    /// assert_eq!(d.to_string(), "((2,4),(1,4),(1,2)):((1,8),(1,2),(8,32))");
    /// ```
    pub const fn tiled_divide(&self, tiler: &Tiler) -> R<DynLayout> {
        super::tiled_divide(self, tiler)
    }

    /// CuTe's `flat_divide(self, tiler)`: `(tile0, tile1, ..., rest0, rest1, ...)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(8,8):(1,8)".parse().unwrap();
    /// let d = a.flat_divide(&"<2:1, 4:1>".parse().unwrap()).unwrap();
    /// assert_eq!(d.to_string(), "(2,4,(1,4),(1,2)):(1,8,(1,2),(8,32))");
    /// ```
    pub const fn flat_divide(&self, tiler: &Tiler) -> R<DynLayout> {
        super::flat_divide(self, tiler)
    }

    /// CuTe's `logical_product(self, tiler)`: `(self, tiler repeated over self's complement)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,_2):(_4,_1)".parse().unwrap();
    /// let p = a.logical_product(&"_6:_1".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "((_2,_2),(_2,_3)):((_4,_1),(_2,_8))");
    /// ```
    pub const fn logical_product(&self, tiler: &Tiler) -> R<DynLayout> {
        super::logical_product(self, tiler)
    }

    /// CuTe's `zipped_product(self, tiler)`: `(block, rest)` by mode.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(2,2):(1,2)".parse().unwrap();
    /// let p = a.zipped_product(&"<3:1, 2:1>".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "((2,2),((1,3),(2,1))):((1,2),((1,2),(1,4)))");
    /// ```
    pub const fn zipped_product(&self, tiler: &Tiler) -> R<DynLayout> {
        super::zipped_product(self, tiler)
    }

    /// CuTe's `tiled_product(self, tiler)`: `(block, rest0, rest1, ...)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(2,2):(1,2)".parse().unwrap();
    /// let p = a.tiled_product(&"<3:1, 2:1>".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "((2,2),(1,3),(2,1)):((1,2),(1,2),(1,4))");
    /// ```
    pub const fn tiled_product(&self, tiler: &Tiler) -> R<DynLayout> {
        super::tiled_product(self, tiler)
    }

    /// CuTe's `flat_product(self, tiler)`: `(block0, block1, ..., rest0, rest1, ...)`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(2,2):(1,2)".parse().unwrap();
    /// let p = a.flat_product(&"<3:1, 2:1>".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "(2,2,(1,3),(2,1)):(1,2,(1,2),(1,4))");
    /// ```
    pub const fn flat_product(&self, tiler: &Tiler) -> R<DynLayout> {
        super::flat_product(self, tiler)
    }

    /// CuTe's `blocked_product(self, tiler)`: `self` as the block, repeated as `tiler` says, mode
    /// by mode.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,_2):(_1,_2)".parse().unwrap();
    /// let p = a.blocked_product(&"(_3,_4):(_1,_3)".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "((_2,_3),(_2,_4)):((_1,_4),(_2,_12))");
    /// ```
    pub const fn blocked_product(&self, tiler: &DynLayout) -> R<DynLayout> {
        super::blocked_product(self, tiler)
    }

    /// CuTe's `raked_product(self, tiler)`: the blocks interleaved, mode by mode.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,_2):(_1,_2)".parse().unwrap();
    /// let p = a.raked_product(&"(_3,_4):(_1,_3)".parse().unwrap()).unwrap();
    /// assert_eq!(p.to_string(), "((_3,_2),(_4,_2)):((_4,_1),(_12,_2))");
    /// ```
    pub const fn raked_product(&self, tiler: &DynLayout) -> R<DynLayout> {
        super::raked_product(self, tiler)
    }

    /// CuTe's `tile_to_shape(self, target, order)`: `self` repeated to cover `target`, in
    /// `order` (column-major without one).
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_2,_2):(_1,_2)".parse().unwrap();
    /// let t = a.tile_to_shape(&"(_4,_6)".parse().unwrap(), None).unwrap();
    /// assert_eq!(t.to_string(), "((_2,_2),(_2,_3)):((_1,_4),(_2,_8))");
    /// ```
    pub const fn tile_to_shape(&self, target: &DynIntTuple, order: Option<&DynIntTuple>) -> R<DynLayout> {
        super::tile_to_shape(self, target, order)
    }

    /// CuTe's `local_tile(self, tiler, coord)`: tile `coord` of `self` divided by `tiler`, as a
    /// layout and the offset of its first element.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(8,8):(1,8)".parse().unwrap();
    /// let t = a.local_tile(&"(2,4)".parse().unwrap(), &"(1,1)".parse().unwrap()).unwrap();
    /// assert_eq!((t.offset, t.layout.to_string()), (34, "(2,4):(1,8)".to_string()));
    /// ```
    pub fn local_tile(&self, tiler: &Tiler, coord: &DynIntTuple) -> R<LayoutPartition> {
        super::local_tile(self, tiler, coord)
    }

    /// CuTe's `local_partition(self, tile, index)`: what thread `index` of the thread layout
    /// `tile` holds of `self`, and its offset.
    ///
    /// ```
    /// use const_layout::dyn_layout::{DynInt, DynLayout};
    /// let a: DynLayout = "(8,8):(1,8)".parse().unwrap();
    /// let p = a.local_partition(&"(2,4):(1,2)".parse().unwrap(), DynInt::new_runtime(3)).unwrap();
    /// assert_eq!((p.offset, p.layout.to_string()), (9, "(4,2):(2,32)".to_string()));
    /// ```
    pub fn local_partition(&self, tile: &DynLayout, index: DynInt) -> R<LayoutPartition> {
        super::local_partition(self, tile, index)
    }

    /// CuTe's `slice(coord, self)`: the modes where `coord` is `_`.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(4,2):(1,4)".parse().unwrap();
    /// assert_eq!(a.slice(&"(_,1)".parse().unwrap()).unwrap().to_string(), "(4):(1)");
    /// ```
    pub const fn slice(&self, coord: &Slicer) -> R<DynLayout> {
        super::slice(coord, self)
    }

    /// CuTe's `slice_and_offset(coord, self)`: [`DynLayout::slice`] and the offset of `coord`
    /// with `_` at 0.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(4,2):(1,4)".parse().unwrap();
    /// let p = a.slice_and_offset(&"(_,1)".parse().unwrap()).unwrap();
    /// assert_eq!((p.offset, p.layout.to_string()), (4, "(4):(1)".to_string()));
    /// ```
    pub fn slice_and_offset(&self, coord: &Slicer) -> R<LayoutPartition> {
        super::slice_and_offset(coord, self)
    }

    /// CuTe's `upcast<n>(self)`: the layout over elements `n` times as wide.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_4,_8):(_1,_4)".parse().unwrap();
    /// assert_eq!(a.upcast(2).unwrap().to_string(), "(_2,_8):(_1,_2)");
    /// ```
    pub const fn upcast(&self, n: isize) -> R<DynLayout> {
        super::upcast(self, n)
    }

    /// CuTe's `downcast<n>(self)`: the layout over elements `n` times as narrow.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_4,_8):(_1,_4)".parse().unwrap();
    /// assert_eq!(a.downcast(2).unwrap().to_string(), "(_8,_8):(_1,_8)");
    /// ```
    pub const fn downcast(&self, n: isize) -> R<DynLayout> {
        super::downcast(self, n)
    }

    /// CuTe's `recast_layout<Old, New>(self)` for element widths in bits.
    ///
    /// ```
    /// use const_layout::dyn_layout::DynLayout;
    /// let a: DynLayout = "(_4,_8):(_1,_4)".parse().unwrap();
    /// assert_eq!(a.recast_layout(16, 32).unwrap().to_string(), "(_2,_8):(_1,_2)");
    /// ```
    pub const fn recast_layout(&self, old_bits: isize, new_bits: isize) -> R<DynLayout> {
        super::recast_layout(self, old_bits, new_bits)
    }
}
