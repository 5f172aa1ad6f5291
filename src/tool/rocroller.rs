//! `layout rocroller GRAPH [--at TAG=V,...] [--svg | --table-svg] [--reverse]`: AMD rocRoller's
//! coordinate graph as a kernel writer inspects it. The graph is the crate's text
//! (`const_layout::rocroller::text`); every number printed comes from the crate's `Transformer`,
//! so the view is exactly as right as the traversal it shows.
//!
//! - text (default): the graph one element a line, its sources and sinks, and the map the graph
//!   computes from the sources to each sink (or, `--reverse`, from the sinks back to each source)
//!   tabulated at every coordinate, as CuTe's `print_layout` tabulates a layout;
//! - `--at`: from some coordinates, every other coordinate the transformer reaches;
//! - `--svg`: the graph drawn in layers, as rocRoller's `toDOT` shows it;
//! - `--table-svg`: the first tabulated map as a picture (`print_svg_values`).

use super::quote;
use const_layout::picture::print_svg_values;
use const_layout::rocroller::{CoordinateGraph, GraphError, Tag, Transformer};
use std::fmt::Write as _;

/// The most coordinates one table tabulates (a 64 x 64 grid): the text grows with the cells.
const MAX_TABLE_CELLS: usize = 4096;

/// The most values all tables together compute (16 full tables): the text grows with them.
const MAX_EVALUATIONS: usize = 1 << 16;

/// The most work all tables together do, in steps of the transformer's search: one value costs
/// about (elements on its paths) x (elements), so a chain of 256 elements affords one table of
/// 4096 cells (a quarter of a second), a graph of 20 elements all sixteen.
const MAX_WORK: usize = 1 << 27;

/// The most characters of a label in the graph's picture: a `PiecewiseAffineJoin`'s parameters
/// can run to hundreds, and the text output has them whole.
const MAX_LABEL_CHARS: usize = 60;

const EXAMPLE: &str = "layout rocroller 'graph{0: SubDimension[0](64, 1); 1: SubDimension[1](64, 1); 2: Linear(4096, 1); 3: Flatten(0, 1 -> 2)}'";

/// What the command prints.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Output {
    Text,
    Svg,
    TableSvg,
}

/// The command's arguments, read.
struct Arguments<'a> {
    graph: String,
    at: Option<&'a str>,
    output: Output,
    reverse: bool,
}

/// `layout rocroller ...`: the graph's text, its picture, its table's picture, or the
/// coordinates reached from `--at`.
pub(super) fn rocroller(args: &[&str]) -> Result<String, String> {
    let a = arguments(args)?;
    let graph: CoordinateGraph =
        a.graph.parse().map_err(|e| format!("the graph does not read: {e} in {}", quote(&a.graph)))?;
    let view = View::new(&graph)?;
    if let Some(at) = a.at {
        return Ok(view.reached(&coordinates(at, &view)?));
    }
    match a.output {
        Output::Text => Ok(view.text(a.reverse)),
        Output::Svg => Ok(view.svg()),
        Output::TableSvg => view.table_svg(a.reverse),
    }
}

/// The options, and the other words joined into the graph's text (as the other commands join an
/// expression given as several words).
fn arguments<'a>(args: &[&'a str]) -> Result<Arguments<'a>, String> {
    let mut a = Arguments { graph: String::new(), at: None, output: Output::Text, reverse: false };
    let mut words = Vec::new();
    let mut it = args.iter();
    let mut seen: Vec<&str> = Vec::new();
    while let Some(&w) = it.next() {
        // Only `--` and a letter is an option: `$0 --4` is a condition's text.
        let (name, inline) = match w.split_once('=') {
            Some((n, v)) if n == "--at" => (n, Some(v)),
            _ => (w, None),
        };
        if !(name.starts_with("--") && name[2..].starts_with(|c: char| c.is_ascii_alphabetic())) {
            words.push(w);
            continue;
        }
        if seen.contains(&name) {
            return Err(format!("`{name}` is given twice"));
        }
        match name {
            "--at" => {
                let v = match inline {
                    Some(v) => v,
                    None => it.next().copied().ok_or("`--at` needs TAG=V[,TAG=V...], e.g. --at 0=5,1=3")?,
                };
                a.at = Some(v);
            }
            "--svg" => a.output = Output::Svg,
            "--table-svg" => a.output = Output::TableSvg,
            "--reverse" => a.reverse = true,
            _ => {
                return Err(format!(
                    "unknown option {}: `rocroller` takes --at TAG=V,..., --svg, --table-svg and --reverse",
                    quote(w)
                ));
            }
        }
        seen.push(name);
    }
    if seen.contains(&"--svg") && seen.contains(&"--table-svg") {
        return Err("`--svg` draws the graph and `--table-svg` its table: give one of them".to_string());
    }
    if a.at.is_some() && (a.output != Output::Text || a.reverse) {
        return Err("`--at` prints the coordinates it reaches both ways: give it without `--svg`, `--table-svg` and `--reverse`".to_string());
    }
    if a.reverse && a.output == Output::Svg {
        return Err(
            "`--reverse` turns the table around; `--svg` draws the graph, which has no direction to turn"
                .to_string(),
        );
    }
    if words.is_empty() {
        return Err(format!("`rocroller` needs a graph, e.g. {EXAMPLE}"));
    }
    a.graph = words.join(" ");
    Ok(a)
}

/// `--at`'s `TAG=V,TAG=V`: each tag a dimension of the graph, once.
fn coordinates(list: &str, view: &View<'_>) -> Result<Vec<(Tag, isize)>, String> {
    let mut out: Vec<(Tag, isize)> = Vec::new();
    for entry in list.split(',') {
        let bad = || format!("`--at` takes TAG=V[,TAG=V...] (integers, e.g. 0=5,1=3), not {}", quote(entry));
        let (tag, value) = entry.split_once('=').ok_or_else(bad)?;
        let tag: Tag = tag.trim().parse().map_err(|_| bad())?;
        let value: isize = value.trim().parse().map_err(|_| bad())?;
        if view.graph.dimension(tag).is_none() {
            return Err(match view.graph.edge(tag) {
                Some((edge, _, _)) => {
                    format!("`--at` sets dimensions; tag {tag} is an edge ({}), not a dimension", edge.name())
                }
                None => format!(
                    "`--at` sets dimensions; the graph has no tag {tag} (its tags are 0 to {})",
                    view.graph.len().saturating_sub(1)
                ),
            });
        }
        if out.iter().any(|&(t, _)| t == tag) {
            return Err(format!("`--at` gives tag {tag} twice"));
        }
        out.push((tag, value));
    }
    Ok(out)
}

/// A graph with what every output reads of it: each element's text, and the dimensions with no
/// edge in (sources) and no edge out (sinks).
struct View<'g> {
    graph: &'g CoordinateGraph,
    /// Each element's text as the graph's notation writes it (`Linear(64, 1)`, `Tile(0 -> 1, 2)`).
    texts: Vec<String>,
    sources: Vec<Tag>,
    sinks: Vec<Tag>,
}

impl<'g> View<'g> {
    fn new(graph: &'g CoordinateGraph) -> Result<Self, String> {
        // The crate's own notation, cut at its lines, so that the names are rocRoller's and
        // written in one place.
        let all = format!("{graph:#}");
        let texts: Vec<String> = all
            .lines()
            .skip(1)
            .filter_map(|l| {
                let l = l.trim();
                l.strip_suffix(';').unwrap_or(l).split_once(": ").map(|(_, t)| t.to_string())
            })
            .collect();
        if texts.len() != graph.len() {
            return Err("internal error: the graph's text no longer has one line per element".to_string());
        }
        let (mut has_in, mut has_out) = (vec![false; graph.len()], vec![false; graph.len()]);
        for e in 0..graph.len() {
            if let Some((_, srcs, dsts)) = graph.edge(e) {
                srcs.iter().for_each(|&s| has_out[s] = true);
                dsts.iter().for_each(|&d| has_in[d] = true);
            }
        }
        let dims = || (0..graph.len()).filter(|&t| graph.dimension(t).is_some());
        let sources = dims().filter(|&t| !has_in[t]).collect();
        let sinks = dims().filter(|&t| !has_out[t]).collect();
        Ok(View { graph, texts, sources, sinks })
    }

    /// A dimension's kind as the notation writes it (`SubDimension[0]`).
    fn kind(&self, tag: Tag) -> &str {
        let t = self.texts.get(tag).map_or("", String::as_str);
        t.split_once('(').map_or(t, |(k, _)| k)
    }

    /// The default output: the graph, its ends, and its tables.
    fn text(&self, reverse: bool) -> String {
        let mut out = format!("{:#}\n", self.graph);
        let tags = |v: &[Tag]| {
            if v.is_empty() {
                "none".to_string()
            } else {
                v.iter().map(Tag::to_string).collect::<Vec<_>>().join(", ")
            }
        };
        let _ = writeln!(
            out,
            "sources (no edge in): {}; sinks (no edge out): {}",
            tags(&self.sources),
            tags(&self.sinks)
        );
        let (inputs, outputs) = self.direction(reverse);
        // rocRoller's stores run in reverse: where a table forward fails and one in reverse would
        // not, say so.
        let other = !reverse && !self.sources.is_empty() && self.grid(&self.sinks, true).is_ok();
        let hint = if other { " (--reverse tabulates the sources from the sinks)" } else { "" };
        let grid = match self.grid(inputs, reverse) {
            Ok(g) => g,
            Err(why) => {
                let _ = writeln!(out, "no table: {why}{hint}");
                return out;
            }
        };
        // Tables while both budgets last; the first always (at most 4096 values of 256 elements).
        let mut fit = 0;
        let (mut values, mut work) = (0usize, 0usize);
        for &o in outputs {
            let cost =
                grid.cells.saturating_mul(self.behind(o, reverse) + 1).saturating_mul(self.graph.len() + 1);
            values = values.saturating_add(grid.cells);
            work = work.saturating_add(cost);
            if fit > 0 && (values > MAX_EVALUATIONS || work > MAX_WORK) {
                break;
            }
            out.push('\n');
            out.push_str(&self.table(&grid, o, hint));
            fit += 1;
        }
        if outputs.len() > fit {
            let _ = writeln!(
                out,
                "\n{} not tabulated (the tables are bounded; ask for a coordinate with --at): {}",
                if reverse { "sources" } else { "sinks" },
                tags(&outputs[fit..])
            );
        }
        out
    }

    /// How many elements lead to `tag` (against the edges; along them in reverse): the
    /// transformer's search visits at most these.
    fn behind(&self, tag: Tag, reverse: bool) -> usize {
        let n = self.graph.len();
        let mut seen = vec![false; n];
        let mut stack = vec![tag];
        let mut count = 0;
        while let Some(t) = stack.pop() {
            for e in 0..n {
                let Some((_, srcs, dsts)) = self.graph.edge(e) else { continue };
                let (before, after) = if reverse { (dsts, srcs) } else { (srcs, dsts) };
                if after.contains(&t) && !seen[e] {
                    seen[e] = true;
                    count += 1;
                    for &b in before {
                        if !seen[b] {
                            seen[b] = true;
                            count += 1;
                            stack.push(b);
                        }
                    }
                }
            }
        }
        count
    }

    /// The tabulated map's inputs and outputs: sources to sinks, or back.
    fn direction(&self, reverse: bool) -> (&[Tag], &[Tag]) {
        if reverse { (&self.sinks, &self.sources) } else { (&self.sources, &self.sinks) }
    }

    /// The coordinates of `inputs`, where they can be enumerated: or why not, in a few words.
    fn grid(&self, inputs: &[Tag], reverse: bool) -> Result<Grid, String> {
        let what = if reverse { "sink" } else { "source" };
        if inputs.is_empty() {
            return Err(format!("the graph has no {what} dimension"));
        }
        let mut sizes = Vec::with_capacity(inputs.len());
        let mut cells: usize = 1;
        for &t in inputs {
            let size = self.graph.dimension(t).and_then(|d| d.size());
            let size = match size {
                Some(s) if s > 0 => s as usize,
                Some(s) => return Err(format!("{what} {t}: {} has size {s}", self.texts[t])),
                None => return Err(format!("{what} {t}: {} has no integer size", self.texts[t])),
            };
            cells = cells.checked_mul(size).filter(|&c| c <= MAX_TABLE_CELLS).ok_or_else(|| {
                format!(
                    "the {what}s' coordinates are more than {MAX_TABLE_CELLS} (sizes {})",
                    inputs
                        .iter()
                        .map(|&t| self.graph.dimension(t).and_then(|d| d.size()).unwrap_or(0).to_string())
                        .collect::<Vec<_>>()
                        .join(" x ")
                )
            })?;
            sizes.push(size);
        }
        Ok(Grid { inputs: inputs.to_vec(), sizes, cells, reverse })
    }

    /// `output` at every coordinate of the grid (colexicographic: the first input fastest, as CuTe
    /// enumerates a shape), `None` where the transformer fails, and its first error.
    fn tabulate(&self, grid: &Grid, output: Tag) -> (Vec<Option<isize>>, Option<GraphError>) {
        let mut t = Transformer::new(self.graph);
        let mut first = None;
        let values = (0..grid.cells)
            .map(|cell| {
                let mut rest = cell;
                for (&tag, &size) in grid.inputs.iter().zip(&grid.sizes) {
                    // Below the size, itself at most MAX_TABLE_CELLS: the cast is exact.
                    t.set_coordinate(tag, (rest % size) as isize);
                    rest /= size;
                }
                let r = if grid.reverse { t.reverse(&[output]) } else { t.forward(&[output]) };
                r.map_err(|e| first = first.or(Some(e))).ok().map(|[v]| v)
            })
            .collect();
        (values, first)
    }

    /// One output's table: a grid for one or two inputs (rows the first), a line per coordinate
    /// for more.
    fn table(&self, grid: &Grid, output: Tag, hint: &str) -> String {
        let (values, error) = self.tabulate(grid, output);
        let names = grid.inputs.iter().map(|&t| format!("{t}: {}", self.kind(t))).collect::<Vec<_>>();
        let (what, how, from) =
            if grid.reverse { ("source", "in reverse", "sinks") } else { ("sink", "forward", "sources") };
        let mut out = format!("{what} {output}: {}, {how} from {from} ", self.texts[output]);
        let text = |v: &Option<isize>| v.map_or("-".to_string(), |v| v.to_string());
        match grid.sizes.as_slice() {
            &[rows] | &[rows, _] => {
                let cols = grid.sizes.get(1).copied().unwrap_or(1);
                match names.as_slice() {
                    [r] => {
                        let _ = writeln!(out, "(rows {r})");
                    }
                    [r, c, ..] => {
                        let _ = writeln!(out, "(rows {r}, columns {c})");
                    }
                    [] => {}
                }
                let width = values.iter().map(|v| text(v).len()).max().unwrap_or(1).max(digits(cols - 1)) + 2;
                let label = digits(rows - 1).max(2);
                let rule =
                    format!("{}{}+\n", " ".repeat(label + 2), format!("+{}", "-".repeat(width)).repeat(cols));
                out.push_str(&" ".repeat(label + 2));
                for n in 0..cols {
                    let _ = write!(out, "  {n:>w$} ", w = width - 2);
                }
                out.push('\n');
                for m in 0..rows {
                    out.push_str(&rule);
                    let _ = write!(out, "{m:>label$}  ");
                    for n in 0..cols {
                        let _ = write!(out, "| {:>w$} ", text(&values[m + n * rows]), w = width - 2);
                    }
                    out.push_str("|\n");
                }
                out.push_str(&rule);
            }
            sizes => {
                let _ = writeln!(out, "({}), the first fastest:", names.join(", "));
                let mut coord = vec![0; sizes.len()];
                for v in &values {
                    let c = coord.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
                    let _ = writeln!(out, "  ({c}) -> {}", text(v));
                    for (c, &s) in coord.iter_mut().zip(sizes) {
                        *c += 1;
                        if *c < s {
                            break;
                        }
                        *c = 0;
                    }
                }
            }
        }
        if let Some(e) = error {
            let n = values.iter().filter(|v| v.is_none()).count();
            let hint = if n == values.len() { hint } else { "" };
            let _ = writeln!(out, "-: not computed ({n} of {}): {e}{hint}", values.len());
        }
        out
    }

    /// `--table-svg`: the first output's table as a picture.
    fn table_svg(&self, reverse: bool) -> Result<String, String> {
        let (inputs, outputs) = self.direction(reverse);
        let grid = self
            .grid(inputs, reverse)
            .map_err(|why| format!("`--table-svg` cannot tabulate the graph: {why}"))?;
        let &output = outputs.first().ok_or_else(|| {
            format!(
                "`--table-svg` cannot tabulate the graph: it has no {} dimension",
                if reverse { "source" } else { "sink" }
            )
        })?;
        let (values, _) = self.tabulate(&grid, output);
        // One input: one row. More: the first input down, the rest (first fastest) across.
        let rows = if grid.sizes.len() == 1 { 1 } else { grid.sizes[0] };
        let inputs = grid.inputs.iter().map(Tag::to_string).collect::<Vec<_>>().join(", ");
        let caption = format!("{output}: {} at ({inputs})", self.texts[output]);
        let picture = print_svg_values(&values, rows, &caption).map_err(|e| format!("`--table-svg`: {e}"))?;
        Ok(picture.to_string())
    }

    /// `--at`: every other dimension the transformer reaches from `given`, forward and in
    /// reverse, then those it does not.
    fn reached(&self, given: &[(Tag, isize)]) -> String {
        let mut t = Transformer::new(self.graph);
        for &(tag, v) in given {
            t.set_coordinate(tag, v);
        }
        let mut out = String::new();
        for &(tag, v) in given {
            let _ = writeln!(out, "{tag}: {} = {v} (given)", self.kind(tag));
        }
        let mut missed = String::new();
        for tag in (0..self.graph.len()).filter(|&d| self.graph.dimension(d).is_some()) {
            if given.iter().any(|&(g, _)| g == tag) {
                continue;
            }
            let name = self.kind(tag);
            match (t.forward(&[tag]), t.reverse(&[tag])) {
                (Ok([f]), Ok([r])) if f == r => {
                    let _ = writeln!(out, "{tag}: {name} = {f} (forward and reverse)");
                }
                (Ok([f]), Ok([r])) => {
                    let _ = writeln!(out, "{tag}: {name} = {f} forward, {r} in reverse");
                }
                (Ok([f]), Err(_)) => {
                    let _ = writeln!(out, "{tag}: {name} = {f} (forward)");
                }
                (Err(_), Ok([r])) => {
                    let _ = writeln!(out, "{tag}: {name} = {r} (in reverse)");
                }
                (Err(f), Err(r)) => {
                    let _ = writeln!(missed, "{tag}: {name} not reached (forward: {f}; reverse: {r})");
                }
            }
        }
        out.push_str(&missed);
        out
    }

    /// `--svg`: the graph in layers, top to bottom, as rocRoller's `toDOT` lays it out.
    fn svg(&self) -> String {
        let n = self.graph.len();
        let layer = self.layers();
        // Each element's box: its lines of text, and whether it is a dimension, a coordinate
        // transform or a dataflow edge (drawn lighter: index traversal does not follow it).
        let boxes: Vec<Node> = (0..n).map(|t| self.node(t)).collect();
        // A wide layer wraps onto several rows, so that the picture stays within a canvas.
        let layers = layer.iter().copied().max().map_or(0, |m| m + 1);
        let mut in_layer = vec![0usize; layers];
        let mut first_row = vec![0usize; layers + 1];
        for &l in &layer {
            in_layer[l] += 1;
        }
        for l in 0..layers {
            first_row[l + 1] = first_row[l] + in_layer[l].div_ceil(MAX_PER_ROW);
        }
        let mut seen = vec![0usize; layers];
        let row: Vec<usize> = layer
            .iter()
            .map(|&l| {
                seen[l] += 1;
                first_row[l] + (seen[l] - 1) / MAX_PER_ROW
            })
            .collect();
        let rows = first_row[layers];
        let mut row_height = vec![0i64; rows];
        let mut row_width = vec![0i64; rows];
        for (t, b) in boxes.iter().enumerate() {
            let r = row[t];
            row_height[r] = row_height[r].max(b.height());
            row_width[r] += b.width() + if row_width[r] > 0 { GAP_X } else { 0 };
        }
        let dims = (0..n).filter(|&t| self.graph.dimension(t).is_some()).count();
        let edges = n - dims;
        let title = format!(
            "rocRoller coordinate graph: {dims} dimension{}, {edges} edge{}",
            if dims == 1 { "" } else { "s" },
            if edges == 1 { "" } else { "s" }
        );
        let title_width = title.len() as i64 * 7;
        let width = row_width.iter().copied().max().unwrap_or(0).max(title_width) + 2 * MARGIN;
        let mut row_y = Vec::with_capacity(rows);
        let mut y = MARGIN + TITLE;
        for h in &row_height {
            row_y.push(y);
            y += h + GAP_Y;
        }
        let height = (y - GAP_Y + MARGIN).max(MARGIN + TITLE + MARGIN);
        // Each row centred, its elements in tag order.
        let mut at = vec![(0i64, 0i64); n];
        let mut next_x: Vec<i64> = row_width.iter().map(|w| (width - w) / 2).collect();
        for (t, b) in boxes.iter().enumerate() {
            let r = row[t];
            at[t] = (next_x[r], row_y[r] + (row_height[r] - b.height()) / 2);
            next_x[r] += b.width() + GAP_X;
        }
        let mut s = String::new();
        let _ = writeln!(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>");
        let _ = writeln!(
            s,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\">"
        );
        let _ = writeln!(s, "<title>{}</title>", escape(&title));
        let _ = writeln!(s, "<rect x=\"0\" y=\"0\" width=\"{width}\" height=\"{height}\" fill=\"white\"/>");
        let _ = writeln!(
            s,
            "<text x=\"{MARGIN}\" y=\"{}\" font-family=\"sans-serif\" font-size=\"12\" fill=\"rgb(80,80,80)\">{}</text>",
            MARGIN + 10,
            escape(&title)
        );
        // The lines first, so that the boxes cover their ends.
        for dataflow in [false, true] {
            let colour = if dataflow { "rgb(160,160,160)" } else { "black" };
            let _ = writeln!(s, "<g stroke=\"{colour}\" stroke-width=\"1\">");
            for e in 0..n {
                let Some((edge, srcs, dsts)) = self.graph.edge(e) else { continue };
                if edge.is_coordinate_transform() == dataflow {
                    continue;
                }
                // Each end meets the edge's box at its place in the edge's ordered ends.
                let place = |k: usize, count: usize| (k as i64 + 1) * boxes[e].width() / (count as i64 + 1);
                let anchor = |t: Tag, dx| Anchor {
                    x: at[t].0,
                    y: at[t].1,
                    w: boxes[t].width(),
                    h: boxes[t].height(),
                    dx,
                };
                for (k, &src) in srcs.iter().enumerate() {
                    arrow(&mut s, anchor(src, None), anchor(e, Some(place(k, srcs.len()))));
                }
                for (k, &dst) in dsts.iter().enumerate() {
                    arrow(&mut s, anchor(e, Some(place(k, dsts.len()))), anchor(dst, None));
                }
            }
            s.push_str("</g>\n");
        }
        let _ = writeln!(s, "<g stroke=\"black\" stroke-width=\"1\">");
        for (t, b) in boxes.iter().enumerate() {
            let fill = match b.kind {
                Kind::Dimension => "rgb(220,235,255)",
                Kind::Transform => "rgb(255,240,200)",
                Kind::DataFlow => "rgb(235,235,235)",
            };
            let (x, y) = at[t];
            let _ = writeln!(
                s,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{}\" height=\"{}\" fill=\"{fill}\"/>",
                b.width(),
                b.height()
            );
        }
        s.push_str("</g>\n");
        let _ = writeln!(s, "<g font-family=\"monospace\" text-anchor=\"middle\" fill=\"black\">");
        for (t, b) in boxes.iter().enumerate() {
            let (x, y) = at[t];
            let size = b.font();
            for (k, line) in b.lines.iter().enumerate() {
                let ty = y + PAD_Y + (k as i64) * b.line_height() + size;
                let _ = writeln!(
                    s,
                    "<text x=\"{}\" y=\"{ty}\" font-size=\"{size}\">{}</text>",
                    x + b.width() / 2,
                    escape(line)
                );
            }
        }
        s.push_str("</g>\n</svg>\n");
        s
    }

    /// Each element's layer: the longest path to it from an element with nothing in (Kahn's
    /// order; a cycle, which the notation allows, is broken at its smallest tag).
    fn layers(&self) -> Vec<usize> {
        let n = self.graph.len();
        let mut preds: Vec<Vec<Tag>> = vec![Vec::new(); n];
        let mut succs: Vec<Vec<Tag>> = vec![Vec::new(); n];
        for e in 0..n {
            if let Some((_, srcs, dsts)) = self.graph.edge(e) {
                for &s in srcs {
                    succs[s].push(e);
                    preds[e].push(s);
                }
                for &d in dsts {
                    succs[e].push(d);
                    preds[d].push(e);
                }
            }
        }
        let mut waiting: Vec<usize> = preds.iter().map(Vec::len).collect();
        let mut layer: Vec<Option<usize>> = vec![None; n];
        // At most n rounds, each O(n + arcs): bounded for any graph the notation reads.
        for _ in 0..n {
            let unplaced = |t: &Tag| layer[*t].is_none();
            let Some(v) =
                (0..n).filter(unplaced).find(|&t| waiting[t] == 0).or_else(|| (0..n).find(unplaced))
            else {
                break;
            };
            layer[v] = Some(preds[v].iter().filter_map(|&p| layer[p]).map(|l| l + 1).max().unwrap_or(0));
            for &w in &succs[v] {
                waiting[w] = waiting[w].saturating_sub(1);
            }
        }
        layer.into_iter().map(|l| l.unwrap_or(0)).collect()
    }

    /// An element's box in the picture.
    fn node(&self, tag: Tag) -> Node {
        let text = self.texts.get(tag).map_or("", String::as_str);
        match self.graph.edge(tag) {
            None => {
                let d = self.graph.dimension(tag);
                let extent = |e: Option<String>| e.unwrap_or_else(|| "?".to_string());
                let size = extent(d.and_then(|d| d.size_extent()).map(|e| extent_text(&e)));
                let stride = extent(d.and_then(|d| d.stride_extent()).map(|e| extent_text(&e)));
                Node::new(
                    Kind::Dimension,
                    vec![format!("{tag}: {}", self.kind(tag)), format!("size {size}, stride {stride}")],
                )
            }
            Some((edge, _, _)) => {
                let kind = if edge.is_coordinate_transform() { Kind::Transform } else { Kind::DataFlow };
                // `Name<parameters>(ends)`: the ends on the first line (their order is the
                // edge's meaning), the parameters on a second.
                let name = edge.name();
                let ends = text.rfind('(').map_or("", |k| &text[k..]);
                let params = text.get(name.len()..text.len() - ends.len()).unwrap_or("");
                let mut lines = vec![format!("{tag}: {name}{ends}")];
                if !params.is_empty() {
                    lines.push(params.to_string());
                }
                Node::new(kind, lines)
            }
        }
    }
}

/// A runtime or known extent as the notation writes it.
fn extent_text(e: &const_layout::rocroller::Extent) -> String {
    match e {
        const_layout::rocroller::Extent::Known(v) => v.to_string(),
        const_layout::rocroller::Extent::Runtime(n) => n.as_str().to_string(),
    }
}

/// The coordinates a table enumerates: its inputs and their sizes.
struct Grid {
    inputs: Vec<Tag>,
    sizes: Vec<usize>,
    cells: usize,
    reverse: bool,
}

/// Decimal digits of `n`.
fn digits(n: usize) -> usize {
    n.to_string().len()
}

/// The most boxes side by side: a wider layer wraps.
const MAX_PER_ROW: usize = 12;

/// Picture metrics, in pixels: a monospace character is at most 0.6 of its size wide.
const MARGIN: i64 = 16;
const TITLE: i64 = 20;
const GAP_X: i64 = 24;
const GAP_Y: i64 = 40;
const PAD_X: i64 = 8;
const PAD_Y: i64 = 5;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dimension,
    Transform,
    DataFlow,
}

/// An element's box: its kind and lines of text.
struct Node {
    kind: Kind,
    lines: Vec<String>,
}

impl Node {
    fn new(kind: Kind, lines: Vec<String>) -> Self {
        let cut = |l: String| {
            if l.chars().count() <= MAX_LABEL_CHARS {
                l
            } else {
                l.chars().take(MAX_LABEL_CHARS - 1).chain(['…']).collect()
            }
        };
        Node { kind, lines: lines.into_iter().map(cut).collect() }
    }
    /// Edges are the smaller boxes, as in rocRoller's pictures.
    fn font(&self) -> i64 {
        if self.kind == Kind::Dimension { 12 } else { 10 }
    }
    fn line_height(&self) -> i64 {
        self.font() + 4
    }
    fn width(&self) -> i64 {
        let chars = self.lines.iter().map(|l| l.chars().count()).max().unwrap_or(0) as i64;
        chars * self.font() * 3 / 5 + 2 + 2 * PAD_X
    }
    fn height(&self) -> i64 {
        self.lines.len() as i64 * self.line_height() + 2 * PAD_Y
    }
}

/// Where a line meets a box: the box (its corner and size) and, for an edge's ordered
/// ends, how far into its width (`None`: the middle).
#[derive(Clone, Copy)]
struct Anchor {
    x: i64,
    y: i64,
    w: i64,
    h: i64,
    dx: Option<i64>,
}

impl Anchor {
    /// The point on the bottom (`1`), the top (`-1`) or the middle of a side (`0`, the right one
    /// when `right`).
    fn point(&self, side: i8, right: bool) -> (i64, i64) {
        let x = self.x + self.dx.unwrap_or(self.w / 2);
        match side {
            1 => (x, self.y + self.h),
            -1 => (x, self.y),
            _ => (if right { self.x + self.w } else { self.x }, self.y + self.h / 2),
        }
    }
}

/// A line from one box to another with an arrowhead (two short lines) at the second: from the
/// bottom of the upper box to the top of the lower, or side to side where they overlap in height
/// (a cycle's way back within a layer).
fn arrow(s: &mut String, from: Anchor, to: Anchor) {
    let (a, b) = if from.y + from.h <= to.y {
        (from.point(1, false), to.point(-1, false))
    } else if to.y + to.h <= from.y {
        (from.point(-1, false), to.point(1, false))
    } else {
        let right = from.x < to.x;
        (from.point(0, right), to.point(0, !right))
    };
    let _ = writeln!(s, "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/>", a.0, a.1, b.0, b.1);
    let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
    let len = (dx * dx + dy * dy).sqrt();
    if len < 1.0 {
        return;
    }
    let (ux, uy) = (dx / len, dy / len);
    for side in [-1.0, 1.0] {
        // Rounded to whole pixels: the same text on every platform.
        let hx = (b.0 as f64 - 7.0 * ux + side * 3.5 * uy).round() as i64;
        let hy = (b.1 as f64 - 7.0 * uy - side * 3.5 * ux).round() as i64;
        let _ = writeln!(s, "<line x1=\"{hx}\" y1=\"{hy}\" x2=\"{}\" y2=\"{}\"/>", b.0, b.1);
    }
}

/// Text for XML: `<`, `>`, `&` and quotes as entities.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}
