// Basis strides (`_1@0`) have no typed representation yet: the macro says so instead of
// emitting their values as plain strides.
use const_layout::layout;

fn main() {
    let _ = layout!(zipped_divide(make_identity_layout((8, 8)), (4, 4)));
}
