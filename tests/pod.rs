//! Kernel parameters as plain data (feature `bytemuck`): `LayoutWords` is `Pod` and `Zeroable`,
//! its bytes round-trip, and any bytes come back to a typed layout only through the checked
//! `LayoutParam::from_words`, which accepts exactly the words `LayoutParam::new` writes for a valid
//! layout. `cargo test --features bytemuck --test pod`.
#![cfg(feature = "bytemuck")]

#[path = "common/rng.rs"]
mod rng;

use const_layout::layout::param::{LayoutParam, LayoutWords, PARAM_WORDS};
use const_layout::{C, Layout, LayoutError, make_layout};
use rng::Rng;

type Mixed = Layout<(u32, (C<4>, u32)), (C<1>, (u32, i32))>;
type P = LayoutParam<(u32, (C<4>, u32)), (C<1>, (u32, i32))>;

fn param(l: &Mixed) -> P {
    LayoutParam::new(l).unwrap()
}

#[test]
fn layout_words_are_plain_data_that_round_trips() {
    assert_eq!(core::mem::size_of::<LayoutWords>(), 4 * PARAM_WORDS);
    let z: LayoutWords = bytemuck::Zeroable::zeroed();
    assert_eq!(z, LayoutWords([0; PARAM_WORDS]));
    let mut rng = Rng(0xb17e);
    for _ in 0..2000 {
        let (m, n) = (1 + rng.below(1 << 12) as u32, 1 + rng.below(64) as u32);
        let ld = m * 4;
        let l: Mixed =
            make_layout((m, (C::<4>, n)), (C::<1>, (m, ld as i32 * if rng.chance(50) { 1 } else { -1 })))
                .unwrap();
        let words = param(&l).to_words();
        let bytes: &[u8] = bytemuck::bytes_of(&words);
        assert_eq!(bytes.len(), 48);
        let back: LayoutWords = bytemuck::pod_read_unaligned(bytes);
        assert_eq!(back, words);
        assert_eq!(P::from_words(back).unwrap().layout(), l);
    }
}

#[test]
fn any_words_come_back_checked_or_not_at_all() {
    // The zeroed value is not a layout: a zero extent.
    assert!(matches!(
        P::from_words(bytemuck::Zeroable::zeroed()),
        Err(LayoutError::NonPositiveExtent { .. })
    ));
    let mut rng = Rng(0x0dd);
    let (mut ok, mut refused) = (0, 0);
    for _ in 0..20000 {
        let mut w = [0u32; PARAM_WORDS];
        for x in w.iter_mut().take(if rng.chance(80) { 4 } else { PARAM_WORDS }) {
            *x = if rng.chance(50) { rng.below(64) as u32 } else { rng.next() as u32 };
        }
        match P::from_words(LayoutWords(w)) {
            Ok(p) => {
                ok += 1;
                // What comes back is a valid layout whose words are exactly these.
                assert_eq!(p.words(), w);
                let l = p.layout();
                assert_eq!(Layout::try_new(l.shape(), l.stride()).unwrap(), l);
            }
            Err(_) => refused += 1,
        }
    }
    assert!(ok > 100 && refused > 100, "{ok} accepted, {refused} refused");
    // A nonzero unused word is refused, naming it.
    let mut w = param(&make_layout((8u32, (C::<4>, 2u32)), (C::<1>, (8u32, 32i32))).unwrap()).to_words();
    w.0[7] = 1;
    assert_eq!(
        P::from_words(w).unwrap_err(),
        LayoutError::ValueOutOfRange { part: "kernel parameter word", leaf: 7 }
    );
}
