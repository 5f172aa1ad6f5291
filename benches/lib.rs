//! const-layout's benchmarks: the `[[bench]]` targets of this package (`cargo bench` at the
//! repository root, `PERFORMANCE.md` for the figures). The library itself is empty.
#![no_std]
