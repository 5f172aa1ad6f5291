//! The exported proptest strategies (feature `proptest`) give what they promise: valid layouts
//! with static, runtime and mixed leaves; injective layouts; admissible composition pairs;
//! tilers that divide; valid swizzles. `cargo test --features proptest --test strategies`.
#![cfg(feature = "proptest")]

use const_layout::algebra::{composition, zipped_divide};
use const_layout::strategy;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::cell::Cell;

#[test]
fn layouts_mix_static_and_runtime_leaves() {
    let (all_static, all_runtime, mixed) = (Cell::new(0), Cell::new(0), Cell::new(0));
    TestRunner::new(Config::with_cases(2000))
        .run(&strategy::layout(), |l| {
            let flags: Vec<bool> =
                l.shape().leaves().chain(l.stride().leaves()).map(|x| x.is_static).collect();
            let cell = if flags.iter().all(|&s| s) {
                &all_static
            } else if flags.iter().all(|&s| !s) {
                &all_runtime
            } else {
                &mixed
            };
            cell.set(cell.get() + 1);
            // What prints reads back.
            prop_assert_eq!(l.to_string().parse::<const_layout::dyn_layout::DynLayout>().unwrap(), l);
            Ok(())
        })
        .unwrap();
    assert!(all_static.get() > 50 && all_runtime.get() > 50 && mixed.get() > 500);
}

proptest! {
    #![proptest_config(Config::with_cases(500))]

    #[test]
    fn injective_layouts_are_injective(l in strategy::injective_layout()) {
        let mut seen: Vec<isize> = (0..l.size().value).map(|i| l.offset(i)).collect();
        seen.sort_unstable();
        seen.dedup();
        prop_assert_eq!(seen.len() as isize, l.size().value);
    }

    #[test]
    fn composition_pairs_are_admissible((a, b) in strategy::composition_pair()) {
        let c = composition(&a, &b).unwrap();
        for i in 0..b.size().value {
            prop_assert_eq!(c.offset(i), a.offset(b.offset(i)));
        }
    }

    #[test]
    fn divisible_tilers_divide((l, t) in strategy::layout().prop_flat_map(|l| (Just(l), strategy::divisible_tiler(l)))) {
        let z = zipped_divide(&l, &t).unwrap();
        prop_assert_eq!(z.size().value, l.size().value);
    }

    #[test]
    fn swizzles_are_valid(s in strategy::swizzle()) {
        // An involution on its bits.
        for x in 0..(1isize << 10) {
            prop_assert_eq!(s.apply(s.apply(x)), x);
        }
    }
}
