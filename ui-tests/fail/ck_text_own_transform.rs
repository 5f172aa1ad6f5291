// A transform of the user's own has no text form until it implements `TransformText`: printing or
// serializing a descriptor of it says so.
use const_layout::ck_tile::{MultiIndex, StagesText, Transform, TransformText};
use typenum::U1;

struct Twice;

impl Transform for Twice {
    const NAME: &'static str = "twice";
    type Low = U1;
    type Up = U1;
    fn upper_lengths(&self) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([4])
    }
    fn calculate_lower_index(&self, up: &MultiIndex<U1>) -> MultiIndex<U1> {
        MultiIndex::<U1>::from([2 * up[0]])
    }
    fn update_lower_index(&self, du: &MultiIndex<U1>, low: &mut MultiIndex<U1>, _: &MultiIndex<U1>) -> MultiIndex<U1> {
        low[0] += 2 * du[0];
        MultiIndex::<U1>::from([2 * du[0]])
    }
}

fn text<T: TransformText>(t: &T) -> String {
    t.text().to_string()
}

fn stages<S: StagesText>(_: &S) {}

fn main() {
    let _ = text(&Twice);
    stages(&const_layout::ck_tile::Stage::new(Twice, const_layout::sequence![0], const_layout::sequence![1]));
    // Not stages at all.
    stages(&4usize);
}
