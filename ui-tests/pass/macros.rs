// Every notation macro, static and mixed.
use const_layout::int::Int;
use const_layout::{coord, layout, layout_type, shape, stride, tiler};

struct Tile {
    smem: layout_type!((8,(4,2)):(1,8)),
    gmem: layout_type!((usize, 8):(1, usize)),
}

fn main() {
    let m = 100usize;
    let t = Tile { smem: layout!((8,(4,2)):(1,8)), gmem: layout!((m, 8):(1, m)).unwrap() };
    assert_eq!(t.smem.crd2idx(coord!(1, (1, 1))).value(), 41);
    assert_eq!(t.gmem.crd2idx(coord!(3, 2)), 203);
    let s = shape!(8, (4, m));
    let d = stride!(1, (8, {8 * 4}));
    let l = const_layout::make_layout(s, d).unwrap();
    assert_eq!(l.size(), 3200usize);
    let (a, b) = tiler!(<3:3, (2,4):(1,8)>);
    assert_eq!((a.size().value(), b.size().value()), (3, 8));
    let (x, y) = tiler!(<{m}:1, 4>).unwrap();
    assert_eq!((x.size(), y.size().value()), (100usize, 4));
}
