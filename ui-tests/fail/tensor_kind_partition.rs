// A static layout is partitioned among the threads of a static thread layout, not a runtime one.
use const_layout::layout_type;
use const_layout::make_layout;

fn main() {
    let smem = <layout_type!((8,6):(1,8))>::default().coalesce();
    let threads = make_layout((4usize, 3usize), (3isize, 1isize)).unwrap();
    let _ = smem.local_partition(&threads, 0);
}
