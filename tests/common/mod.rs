//! Helpers shared by the differential tests (a module of each test crate that uses it).

/// Whether every operand of the expression is static: after dropping template-argument lists
/// (`select<0,2>`, `Sw<3,4,3>`: a `<` right after a name), every integer must be written `_N`.
pub fn all_static(expr: &str) -> bool {
    let b = expr.as_bytes();
    let mut text = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'<' && i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_') {
            while i < b.len() && b[i] != b'>' {
                i += 1;
            }
            i += 1;
            continue;
        }
        text.push(b[i]);
        i += 1;
    }
    let mut j = 0;
    while j < text.len() {
        if !text[j].is_ascii_digit() {
            j += 1;
            continue;
        }
        let mut k = j;
        while j < text.len() && text[j].is_ascii_digit() {
            j += 1;
        }
        if k > 0 && text[k - 1] == b'-' {
            k -= 1;
        }
        let prev = if k > 0 { text[k - 1] } else { b' ' };
        if prev != b'_' && !prev.is_ascii_alphanumeric() {
            return false;
        }
    }
    true
}
