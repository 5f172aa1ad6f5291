// CK's is_valid_sequence_map on the lower side: old top dimension 1 is consumed twice and 0
// never.
use const_layout::sequence;
use const_layout::ck_tile::{PassThrough, Stage, make_naive_tensor_descriptor_packed, transform_tensor_descriptor};

fn main() {
    let p = make_naive_tensor_descriptor_packed((2usize, 6usize)).unwrap();
    let _ = transform_tensor_descriptor(
        p,
        (
            Stage::new(PassThrough::new(2usize), sequence![1], sequence![0]),
            Stage::new(PassThrough::new(6usize), sequence![1], sequence![1]),
        ),
    );
}
