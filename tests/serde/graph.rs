//! rocRoller's coordinate graphs (`const_layout::rocroller::CoordinateGraph`) serialize as their
//! text (`rocroller::text`): a string in JSON, a length-prefixed string in bincode, read back
//! equal; malformed text, wrong types, bytes that are not UTF-8 and names the text cannot hold
//! are errors, never panics.

use crate::graphs::random_graph;
use crate::rng::Rng;
use const_layout::rocroller::{
    CoordinateGraph, Dimension, DimensionKind, Edge, Extent, Name, PiecewiseAffine, Positional,
};
use serde::Deserialize;
use serde::de::value::{BytesDeserializer, Error as ValueError};

#[test]
fn graphs_round_trip_as_their_text() {
    let mut rng = Rng(0x6e4a);
    for _ in 0..1500 {
        let g = random_graph(&mut rng, 40);
        let text = g.to_string();
        let json = serde_json::to_string(&g).unwrap();
        assert_eq!(json, serde_json::to_string(&text).unwrap(), "JSON holds the text");
        assert_eq!(serde_json::from_str::<CoordinateGraph>(&json).unwrap(), g, "{json}");
        let bin = bincode::serialize(&g).unwrap();
        assert_eq!(bin, bincode::serialize(&text).unwrap(), "bincode holds the text");
        assert_eq!(bincode::deserialize::<CoordinateGraph>(&bin).unwrap(), g, "{text}");
        // As UTF-8 bytes too (a format that hands the visitor bytes).
        let from_bytes = CoordinateGraph::deserialize(BytesDeserializer::<ValueError>::new(text.as_bytes()));
        assert_eq!(from_bytes.unwrap(), g);
    }
}

/// A kernel's configuration. The full-size graph is boxed, as `CoordinateGraph`'s documentation
/// advises: in a debug build each layer of serde (the derived visitor, `Option`, `Result`) holds
/// its own copy of a 52 KB graph, and a struct holding one by value needs more than a test
/// thread's stack to deserialize.
#[derive(serde::Serialize, serde::Deserialize, PartialEq, Debug)]
struct Kernel {
    name: String,
    graph: Box<CoordinateGraph>,
    small: CoordinateGraph<4>,
}

// One deserialization a function, for the same reason.
fn from_json(json: &str) -> Kernel {
    serde_json::from_str(json).unwrap()
}

fn through_json(k: &Kernel) -> Kernel {
    from_json(&serde_json::to_string(k).unwrap())
}

fn through_bincode(k: &Kernel) -> Kernel {
    bincode::deserialize(&bincode::serialize(k).unwrap()).unwrap()
}

#[test]
fn a_config_file_holds_graphs() {
    let k = from_json(
        r#"{"name": "basic", "graph": "graph{0: SubDimension[0](64, 1); 1: SubDimension[1](64, 1); 2: Linear(4096, 1); 3: Flatten(0, 1 -> 2)}", "small": "graph{0: User(M, lda)}"}"#,
    );
    assert_eq!((k.graph.len(), k.graph.edge(3).map(|e| e.0)), (4, Some(Edge::Flatten)));
    assert_eq!(k.small.dimension(0).map(|d| d.size_extent()), Some(Some(Extent::Runtime("M".into()))));
    assert!(through_json(&k) == k);
    assert!(through_bincode(&k) == k);
    // A graph larger than the field's capacity is an error with the numbers.
    let e =
        serde_json::from_str::<CoordinateGraph<1>>(r#""graph{0: Lane(?, ?); 1: Lane(?, ?)}""#).unwrap_err();
    assert!(e.to_string().contains("more than 1 elements (the graph's capacity)"), "{e}");
}

#[test]
fn malformed_input_is_an_error() {
    for (json, want) in [
        (r#""graph{0: Linear(4, 1)""#, "column 22: expected `;` or `}`, found the end of the input"),
        (
            r#""graph{1: Linear(4, 1)}""#,
            "column 7: expected tag 0 (elements are written in tag order), found 1",
        ),
        (
            r#""graph{0: Tile(0 -> 0)}""#,
            "column 15: coordinate graph: an edge end is not a dimension (tag 0)",
        ),
        (r#""(8,4):(1,2)""#, "column 1: expected `graph{`, found `(`"),
        (r#""""#, "column 1: expected `graph{`, found the end of the input"),
        ("17", "a rocRoller coordinate graph as text"),
        (r#"["graph{}"]"#, "a rocRoller coordinate graph as text"),
        (r#"{"graph": "graph{}"}"#, "a rocRoller coordinate graph as text"),
        ("null", "a rocRoller coordinate graph as text"),
        ("true", "a rocRoller coordinate graph as text"),
    ] {
        let e = serde_json::from_str::<CoordinateGraph>(json).unwrap_err().to_string();
        assert!(e.contains(want), "{json}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
    // Bytes that are not UTF-8 name what was expected.
    let e = <CoordinateGraph>::deserialize(BytesDeserializer::<ValueError>::new(b"graph{\xff}")).unwrap_err();
    assert!(e.to_string().contains("a rocRoller coordinate graph as text"), "{e}");
    // A name given in code that the text cannot hold is a serialization error naming it.
    let mut g = CoordinateGraph::new();
    g.add_dimension(Dimension::new(DimensionKind::Workitem(0)).with_runtime_size("threadIdx.x")).unwrap();
    let e = serde_json::to_string(&g).unwrap_err().to_string();
    assert!(e.contains("`threadIdx.x`"), "{e}");
    assert!(bincode::serialize(&g).is_err());
    let mut g = CoordinateGraph::new();
    let x = g.add_dimension(Dimension::linear(4, 1)).unwrap();
    let long = Extent::Runtime(Name::from("a_name_longer_than_22_bytes"));
    let p = PiecewiseAffine::with_extents(
        Positional::arg(0).lt(2),
        [long],
        Extent::Known(0),
        [Extent::Known(1)],
        Extent::Known(0),
    );
    let id = g.add_piecewise_affine(p.unwrap()).unwrap();
    g.add_edge(Edge::PiecewiseAffineJoin(id), &[x], &[x]).unwrap();
    let e = serde_json::to_string(&g).unwrap_err().to_string();
    assert!(e.contains("`a_name_longer_than_22_bytes`"), "{e}");
    // Random text and random bytes: errors, never a panic.
    let mut rng = Rng(0x6ba0);
    let alphabet = b"graph{}0123456789:;,()[]<>?$-+*/%&|^!=_ LinearTile->";
    for _ in 0..3000 {
        let s: String = (0..rng.pick(48)).map(|_| alphabet[rng.pick(alphabet.len())] as char).collect();
        let _ = serde_json::from_str::<CoordinateGraph>(&serde_json::to_string(&s).unwrap());
        let bytes: Vec<u8> = (0..rng.pick(48)).map(|_| rng.next() as u8).collect();
        let _ = bincode::deserialize::<CoordinateGraph>(&bytes);
        let mut framed = bincode::serialize(&s).unwrap();
        if let Some(b) = framed.last_mut() {
            *b = rng.next() as u8;
        }
        let _ = bincode::deserialize::<CoordinateGraph>(&framed);
    }
}
