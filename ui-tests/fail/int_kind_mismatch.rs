// A runtime integer where a static one is required, and a static one where a runtime one is.
use const_layout::C;
use const_layout::int::{RuntimeInt, StaticInt};

fn needs_static<T: StaticInt>(_: T) {}
fn needs_runtime<T: RuntimeInt>(_: T) {}

fn main() {
    needs_static(8usize);
    needs_runtime(C::<8>);
}
