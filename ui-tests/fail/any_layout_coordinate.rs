// A runtime-structured layout takes integer indices through `AnyLayout`: a tuple coordinate's
// structure could not be checked against its shape at compile time.
use const_layout::dyn_layout::DynLayout;
use const_layout::make_tensor;

fn main() {
    let l: DynLayout = "(4,2):(2,1)".parse().unwrap();
    let data = [0u8; 8];
    let t = make_tensor(&data, l).unwrap();
    let _ = t.get((1usize, 1usize));
}
