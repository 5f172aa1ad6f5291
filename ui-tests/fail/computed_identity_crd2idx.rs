// An identity layout's values are coordinates: crd2idx on it is a compile error pointing to coord.
use const_layout::C;
use const_layout::algebra::computed::make_identity_layout;

fn main() {
    let id = make_identity_layout((C::<4>, C::<8>));
    let _ = id.crd2idx(3usize);
}
