// Static layout algebra in `layout!`: evaluated at expansion time, a zero-sized layout whose
// index math is constant.
use const_layout::int::Int;
use const_layout::{layout, C};

fn main() {
    let tiles = layout!(zipped_divide((8,6):(1,8), <4:1, 3:1>));
    assert_eq!(tiles.to_string(), "((_4,_3),(_2,_2)):((_1,_8),(_4,_24))");
    assert_eq!(core::mem::size_of_val(&tiles), 0);
    // Index math on the result folds like any static layout: static coordinate, static offset.
    const OFFSET: isize = 25;
    let o = tiles.crd2idx(((C::<1>, C::<0>), (C::<0>, C::<1>)));
    assert_eq!(o.value(), OFFSET);
    assert_eq!(core::mem::size_of_val(&o), 0);
    let c = layout!(composition((6,2):(8,2), (4,3):(3,1)));
    assert_eq!(c.to_string(), "((_2,_2),_3):((_24,_2),_8)");
    let n: C<24> = layout!(size((4,(2,3))));
    assert_eq!(n, C::<24>);
    let sw = layout!(raked_product((2,5):(5,1), (3,4):(1,3)));
    assert_eq!(sw.to_string(), "((_3,_2),(_4,_5)):((_10,_5),(_30,_1))");
}
