// The design card's layout, static and mixed, with every coordinate form.
use const_layout::{layout, make_layout, C};

fn main() {
    let l = layout!((8,(4,2)):(1,8));
    assert_eq!(l.crd2idx(13usize), 13);
    assert_eq!(l.crd2idx((5usize, 1usize)), 13);
    assert_eq!(l.crd2idx((5usize, (1usize, 0usize))), 13);
    let m = 8usize;
    let r = make_layout((m, (C::<4>, C::<2>)), (C::<1>, m)).unwrap();
    assert_eq!(r.crd2idx((5usize, (1usize, 0usize))), 13);
}
