// A copy atom that is not a 16-byte cp.async where one is asked for.
use const_layout::atom::UniversalCopy;
use const_layout_device::CpAsync16;

fn copy_with<Op: CpAsync16>(_: Op) {}

fn main() {
    copy_with(UniversalCopy::<u128>::default());
}
