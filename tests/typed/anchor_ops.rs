//! The loops the benchmarks and `tools/algebra_counts.sh` measure (`benches/anchor/ops.rs`) give
//! the same answers on every entry of the anchor's extents, whichever path computes them: the typed
//! runtime algebra, the runtime-structured algebra, and the flat-array floor model. A figure from a
//! loop that computed something else would compare nothing.

#[path = "../../benches/anchor/ops.rs"]
mod ops;

#[test]
fn every_path_gives_the_same_answers() {
    let mn = ops::extents();
    for i in 0..1024 {
        let composition = ops::composition(&mn, i);
        assert_eq!(ops::dyn_composition(&mn, i), composition, "composition, entry {i}");
        let divide = ops::logical_divide(&mn, i);
        assert_eq!(ops::logical_divide_static(&mn, i), divide, "static-tile divide, entry {i}");
        assert_eq!(ops::dyn_logical_divide(&mn, i), divide, "logical_divide, entry {i}");
        let complement = ops::complement(&mn, i);
        assert_eq!(ops::dyn_complement(&mn, i), complement, "complement, entry {i}");
        assert_eq!(ops::floor::complement_op(&mn, i), complement, "floor complement, entry {i}");
        // The operand alone: `(_4,m):(_1,_16)` maps 1 to 1 and has size 4m.
        let m = mn[i].0 as isize;
        assert_eq!(ops::dyn_complement_operand(&mn, i), 1 + 4 * m, "operand, entry {i}");
    }
}
