//! `layout!(composition(A, B))`: static layout algebra evaluated at expansion time.
//!
//! The expression is turned into the text of `const_layout::eval::eval` with every literal
//! static (`8` becomes `_8`), evaluated by the library's own evaluator (from `const-layout-core`,
//! see `lib.rs`), and the result, whose integers are all static, is emitted as a zero-sized
//! `Layout` of `C<N>`s. An inadmissible expression is a compile error in `cargo check`, spanned on
//! the call that fails and naming the failed condition with its numbers.

use crate::dyn_layout::DynIntTuple;
use const_layout_core::eval::{Value, eval};
use proc_macro2::{Delimiter, Span, TokenStream as TokenStream2, TokenTree};
use quote::{quote, quote_spanned};

/// Whether the input is an algebra call (`name(...)` or `name<...>(...)`), not a layout literal.
pub(crate) fn is_call(input: &TokenStream2) -> bool {
    let mut it = input.clone().into_iter();
    match (it.next(), it.next()) {
        (Some(TokenTree::Ident(name)), Some(TokenTree::Group(g))) => {
            g.delimiter() == Delimiter::Parenthesis && !name.to_string().starts_with('_')
        }
        (Some(TokenTree::Ident(_)), Some(TokenTree::Punct(p))) => p.as_char() == '<',
        _ => false,
    }
}

/// The expression as evaluator text, with the span of the token behind every character.
struct Text {
    text: String,
    spans: Vec<Span>,
}

impl Text {
    fn push(&mut self, s: &str, span: Span) {
        self.text.push_str(s);
        self.spans.extend(std::iter::repeat_n(span, s.chars().count()));
    }

    fn span_at(&self, column: usize) -> Span {
        let k = column.saturating_sub(1).min(self.spans.len().saturating_sub(1));
        self.spans.get(k).copied().unwrap_or_else(Span::call_site)
    }
}

fn write_tokens(tokens: TokenStream2, out: &mut Text) -> Result<(), syn::Error> {
    let mut it = tokens.into_iter().peekable();
    while let Some(tt) = it.next() {
        match tt {
            TokenTree::Group(g) => {
                let (open, close) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::None => ("", ""),
                    _ => {
                        return Err(syn::Error::new(
                            g.span(),
                            "expected `(`: layout algebra uses parentheses",
                        ));
                    }
                };
                out.push(open, g.span_open());
                write_tokens(g.stream(), out)?;
                out.push(close, g.span_close());
            }
            TokenTree::Literal(lit) => {
                let s = lit.to_string();
                let v: i128 = s
                    .replace('_', "")
                    .parse()
                    .map_err(|_| syn::Error::new(lit.span(), format!("expected an integer, found `{s}`")))?;
                out.push(&format!("_{v}"), lit.span());
            }
            TokenTree::Punct(p) if p.as_char() == '-' => match it.next() {
                Some(TokenTree::Literal(lit)) => {
                    let v: i128 = lit
                        .to_string()
                        .replace('_', "")
                        .parse()
                        .map_err(|_| syn::Error::new(lit.span(), "expected an integer after `-`"))?;
                    out.push(&format!("_-{v}"), p.span());
                }
                _ => return Err(syn::Error::new(p.span(), "expected an integer after `-`")),
            },
            TokenTree::Punct(p) => {
                let c = p.as_char();
                if !matches!(c, ':' | ',' | '<' | '>') {
                    return Err(syn::Error::new(
                        p.span(),
                        format!("unexpected `{c}` in a layout expression"),
                    ));
                }
                out.push(&c.to_string(), p.span());
            }
            TokenTree::Ident(id) => {
                let s = id.to_string();
                let is_static_leaf =
                    s.len() > 1 && s.starts_with('_') && s[1..].bytes().all(|b| b.is_ascii_digit());
                let is_name = matches!(it.peek(), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis)
                    || matches!(it.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '<')
                    || matches!(
                        s.as_str(),
                        "LayoutLeft" | "LayoutRight" | "GenColMajor" | "GenRowMajor" | "_"
                    );
                if !is_static_leaf && !is_name {
                    return Err(syn::Error::new(
                        id.span(),
                        format!(
                            "`{s}` is a runtime value: `layout!` evaluates algebra at compile time, so its operands must be literals; \
                             for runtime operands call `const_layout::algebra` functions"
                        ),
                    ));
                }
                out.push(&s, id.span());
            }
        }
    }
    Ok(())
}

/// Expand `layout!(expr)` for an algebra expression.
pub(crate) fn expand(input: TokenStream2) -> TokenStream2 {
    let mut text = Text { text: String::new(), spans: Vec::new() };
    if let Err(e) = write_tokens(input, &mut text) {
        return e.into_compile_error();
    }
    let value = match eval(&text.text) {
        Ok(v) => v,
        Err(e) => {
            let msg = e.to_string();
            // The evaluator says where; the span says it better.
            let column = msg
                .strip_prefix("column ")
                .and_then(|r| r.split_once(':'))
                .and_then(|(n, _)| n.parse::<usize>().ok())
                .unwrap_or(1);
            let msg = msg.split_once(": ").map_or(msg.as_str(), |(_, m)| m);
            return syn::Error::new(text.span_at(column), msg).into_compile_error();
        }
    };
    let span = text.span_at(1);
    match value {
        Value::Layout(l) if l.has_basis() => syn::Error::new(
            span,
            format!(
                "`{l}` has basis strides (an identity layout), which `layout!` cannot type: use `const_layout::algebra::computed::make_identity_layout` (static) or `const_layout::algebra::make_identity_layout` (runtime)"
            ),
        )
        .into_compile_error(),
        Value::Layout(l) => {
            let (shape, stride) = (tuple_value(l.shape()), tuple_value(l.stride()));
            quote_spanned!(span=> ::const_layout::make_static_layout(#shape, #stride))
        }
        Value::Int(_) | Value::Tuple(_) => {
            let t = match value {
                Value::Int(v) => DynIntTuple::int(v),
                Value::Tuple(t) => t,
                _ => unreachable!(),
            };
            tuple_value(&t)
        }
        Value::Bool(b) => quote!(#b),
        // CuTe's `(layout, offset)` pairs: `slice_and_offset`, `local_tile`, `local_partition`.
        Value::Partition(p) if p.origin.is_none() && !p.layout.has_basis() => {
            let (shape, stride) = (tuple_value(p.layout.shape()), tuple_value(p.layout.stride()));
            let offset = tuple_value(&DynIntTuple::int(crate::dyn_layout::DynInt::new_static(p.offset)));
            quote_spanned!(span=> (::const_layout::make_static_layout(#shape, #stride), #offset))
        }
        // A slice of a swizzled layout that stays swizzled, and its offset.
        Value::ComposedPartition(c, offset) if c.offset_value().is_static && offset.is_static => {
            match c.outer() {
                crate::swizzle::Outer::Swizzle(sw) => {
                    let (b, m, s) = (sw.bits(), sw.base(), sw.shift());
                    let o = proc_macro2::Literal::isize_unsuffixed(c.offset_value().value);
                    let (shape, stride) = (tuple_value(c.inner().shape()), tuple_value(c.inner().stride()));
                    let offset = tuple_value(&DynIntTuple::int(offset));
                    quote_spanned!(span=> (::const_layout::layout::SwizzledLayout::<#b, #m, #s, _, _, { #o }>::new(
                        ::const_layout::make_static_layout(#shape, #stride)
                    ), #offset))
                }
                crate::swizzle::Outer::Layout(_) => {
                    syn::Error::new(span, "a layout composed after a layout has no static type yet").into_compile_error()
                }
            }
        }
        // `make_layout_tv`: the tile's shape and the (thread, value) layout.
        Value::LayoutTv(t, l) => {
            let (tiler, shape, stride) = (tuple_value(&t), tuple_value(l.shape()), tuple_value(l.stride()));
            quote_spanned!(span=> (#tiler, ::const_layout::make_static_layout(#shape, #stride)))
        }
        Value::Composed(c) if c.offset_value().is_static => match c.outer() {
            crate::swizzle::Outer::Swizzle(sw) => {
                let (b, m, s) = (sw.bits(), sw.base(), sw.shift());
                let o = proc_macro2::Literal::isize_unsuffixed(c.offset_value().value);
                let (shape, stride) = (tuple_value(c.inner().shape()), tuple_value(c.inner().stride()));
                quote_spanned!(span=> ::const_layout::layout::SwizzledLayout::<#b, #m, #s, _, _, { #o }>::new(
                    ::const_layout::make_static_layout(#shape, #stride)
                ))
            }
            crate::swizzle::Outer::Layout(_) => {
                syn::Error::new(span, "a layout composed after a layout has no static type yet")
                    .into_compile_error()
            }
        },
        other => syn::Error::new(
            span,
            format!(
                "`{other}` has no static type yet: evaluate it at run time with `const_layout::eval::eval`"
            ),
        )
        .into_compile_error(),
    }
}

/// An all-static int tuple as a value of `C<N>`s.
fn tuple_value(t: &DynIntTuple) -> TokenStream2 {
    match t.as_int() {
        Some(v) => {
            let n = proc_macro2::Literal::isize_unsuffixed(v.value);
            if v.value < 0 { quote!(::const_layout::C::<{ #n }>) } else { quote!(::const_layout::C::<#n>) }
        }
        None => {
            let items: Vec<TokenStream2> = t.modes().map(|m| tuple_value(&m)).collect();
            quote!((#(#items,)*))
        }
    }
}
