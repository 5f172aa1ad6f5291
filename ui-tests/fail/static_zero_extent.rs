// A static zero extent built without the macro: a compile-time assertion (full build only).
use const_layout::{make_static_layout, C};

fn main() {
    let _ = make_static_layout((C::<8>, C::<0>), (C::<1>, C::<8>));
}
