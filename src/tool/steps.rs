//! `layout steps EXPR [--svg]`: where each element of a composition's, a divide's or a product's
//! input lands in its result. The map comes from the evaluator itself: the same operation on the
//! identity of the input's domain (`make_layout(shape(A))`, whose offset is the element's index)
//! gives, for each element of the result, the index of the element of `A` it is (compositions
//! and divides) or of the element of `A` and the copy it is in (products: `A`'s and `B`'s
//! identities, `a + size(A) b`). So the view is exact wherever the evaluator is.

use super::{eval_picture, quote};
use const_layout::dyn_layout::{DynInt, DynIntTuple, DynLayout};
use const_layout::eval::Value;
use const_layout::picture::print_svg_tv;

/// The operations `steps` explains.
const DIVIDES: [&str; 4] = ["logical_divide", "zipped_divide", "tiled_divide", "flat_divide"];
const PRODUCTS: [&str; 6] = [
    "logical_product",
    "zipped_product",
    "tiled_product",
    "flat_product",
    "blocked_product",
    "raked_product",
];

/// `NAME(A, X)` split at its top-level comma: the name and the two arguments' text.
fn call(expr: &str) -> Option<(&str, &str, &str)> {
    let expr = expr.trim();
    let open = expr.find('(')?;
    let (name, body) = (expr[..open].trim(), expr[open + 1..].strip_suffix(')')?);
    let mut depth = 0i32;
    for (i, c) in body.char_indices() {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            ',' if depth == 0 => return Some((name, body[..i].trim(), body[i + 1..].trim())),
            _ => {}
        }
        if depth < 0 {
            return None;
        }
    }
    None
}

fn layout_of(expr: &str, what: &str) -> Result<DynLayout, String> {
    match eval_picture(expr)? {
        Value::Layout(l) => Ok(l),
        _ => Err(format!("{what} {} is not a layout", quote(expr))),
    }
}

/// The cells of `A`'s picture: `(size of mode 0, the rest)`, with more columns where the map
/// reaches past `A`'s end (a tiler that does not divide `A`: CuTe's divide goes on past it).
fn tile_of(a: &DynLayout, reach: isize) -> Result<DynIntTuple, String> {
    let size = a.size().value;
    let rows =
        a.shape().mode(0).filter(|_| a.rank() > 1).map_or(size, |m| m.leaves().map(|x| x.value).product());
    let rows = rows.max(1);
    let n = size.max(reach);
    let cols = n / rows + isize::from(n % rows != 0);
    let mode = |x: isize| DynIntTuple::int(DynInt::new_static(x));
    DynIntTuple::tuple(&[mode(rows), mode(cols)]).map_err(|e| e.to_string())
}

/// `layout steps EXPR [--svg]`.
pub(super) fn steps(args: &[&str]) -> Result<String, String> {
    let (svg, words): (bool, Vec<&str>) = match args {
        ["--svg", rest @ ..] => (true, rest.to_vec()),
        _ => (false, args.to_vec()),
    };
    let usage = "`steps` takes a composition, a divide or a product, e.g. layout steps 'logical_divide((_8,_8):(_8,_1), <_4:_1, _2:_1>)'";
    if words.is_empty() {
        return Err(usage.to_string());
    }
    let expr = words.join(" ");
    let (op, a_text, x_text) = call(&expr).ok_or_else(|| usage.to_string())?;
    let is_divide = DIVIDES.contains(&op);
    let is_product = PRODUCTS.contains(&op);
    if op != "composition" && !is_divide && !is_product {
        return Err(format!("`steps` explains composition, the divides and the products, not {}", quote(op)));
    }
    let result = eval_picture(&expr)?;
    let a = layout_of(a_text, "the first argument")?;
    let identity = format!("make_layout(shape({a_text}))");
    // (colour, label) -> cell: colour and label are the picture's "thread" and "value".
    let (tv, tile, what) = if is_product {
        let b = layout_of(x_text, "the second argument")?;
        // The result's index of element a of copy b: the inverse of `a + size(A) b`.
        let ids = format!("{op}({identity}, make_layout(shape({x_text})))");
        let tv = format!(
            "select<1,0>(composition(right_inverse({ids}), make_layout(({}, {}))))",
            a.size(),
            b.size()
        );
        let result_layout = layout_of(&ids, "the product")?;
        (tv, result_layout, "(copy of A, element of A) -> the result's index, over the result's cells")
    } else if is_divide {
        // All four divides arrange the same tiles: the zipped one is (tile, rest) at any tiler.
        let tv = format!("select<1,0>(zipped_divide({identity}, {x_text}))");
        (tv, a, "(tile, position in the tile) -> A's index, over A's cells")
    } else {
        let b = layout_of(x_text, "the second argument")?;
        let ids = format!("composition({identity}, {x_text})");
        let tv =
            if b.rank() >= 2 { format!("select<1,0>({ids})") } else { format!("make_layout(_1:_0, {ids})") };
        (tv, a, "(column, row of the result) -> A's index, over A's cells")
    };
    let tv = layout_of(&tv, "the map")?;
    let tile = tile_of(&tile, tv.cosize().value)?;
    if svg {
        let picture =
            print_svg_tv(&tv, &tile).map_err(|e| format!("{e} (the picture of {})", quote(&expr)))?;
        return Ok(picture.to_string());
    }
    Ok(format!("{expr}\n  = {result}\n  {what} {tile}: {tv}\n"))
}
