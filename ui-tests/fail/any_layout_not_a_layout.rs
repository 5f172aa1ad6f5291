// A tuple of integers is a shape, not a layout: generic code over `AnyLayout` names the trait.
use const_layout::AnyLayout;

fn size_of_layout<L: AnyLayout>(l: &L) -> usize {
    l.size()
}

fn main() {
    let _ = size_of_layout(&(4usize, 2usize));
}
