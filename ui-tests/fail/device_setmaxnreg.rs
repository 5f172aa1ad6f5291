// `setmaxnreg` takes a multiple of 8 from 24 to 256 registers: 20 is a compile error naming it.
fn main() {
    const_layout_device::wgmma::set_max_registers::<20, true>();
}
