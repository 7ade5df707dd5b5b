//! Traversal tests on the shared sample catalog.

use super::*;
use crate::model::{NodeType, Relation, Tier};
use crate::query::StatusFilter;
use crate::testkit::{sample, visible};

fn names(steps: &[PathStep]) -> Vec<String> {
    steps.iter().map(|s| s.node.name.to_string()).collect()
}

#[test]
fn rings_by_distance_with_the_edge_of_arrival() {
    let c = sample();
    let rings = neighbors(&c, "orders-service", 2, Direction::Out, &Filter::default()).unwrap();
    let ring1: Vec<&str> = rings[0].nodes.iter().map(|r| r.node.name.as_str()).collect();
    assert_eq!(ring1, ["currency-utils", "orders-team", "postgresql"]);
    let ring2: Vec<&str> = rings[1].nodes.iter().map(|r| r.node.name.as_str()).collect();
    assert_eq!(ring2, ["money-core"], "old-money is deprecated: not walked by default");
    assert_eq!(
        (rings[1].nodes[0].via.relation.as_str(), rings[1].nodes[0].from.as_str()),
        ("depends-on", "currency-utils")
    );
    let incoming = neighbors(&c, "currency-utils", 1, Direction::In, &Filter::default()).unwrap();
    assert_eq!(incoming[0].nodes.len(), 2);
    let typed = Filter {
        types: vec![NodeType::new("module").unwrap()],
        ..Filter::default()
    };
    let rings = neighbors(&c, "orders-service", 2, Direction::Out, &typed).unwrap();
    assert_eq!(
        (rings[0].nodes.len(), rings[1].nodes.len()),
        (1, 1),
        "types filter reports, still walks through"
    );
    let rel = Filter {
        relations: vec![Relation::new("owned-by").unwrap()],
        ..Filter::default()
    };
    assert_eq!(
        neighbors(&c, "orders-service", 3, Direction::Both, &rel).unwrap()[0]
            .nodes
            .len(),
        1
    );
    let any = Filter {
        status: StatusFilter::Any,
        ..Filter::default()
    };
    assert_eq!(
        neighbors(&c, "currency-utils", 1, Direction::Out, &any).unwrap()[0]
            .nodes
            .len(),
        2
    );
    assert!(neighbors(&c, "nope", 1, Direction::Both, &Filter::default()).is_err());
}

#[test]
fn shortest_paths_directed_and_undirected() {
    let c = sample();
    let f = Filter::default();
    let p = shortest_path(&c, "orders-service", "money-core", false, &f)
        .unwrap()
        .unwrap();
    assert_eq!(names(&p), ["orders-service", "currency-utils", "money-core"]);
    assert!(p[0].via.is_none() && p[2].via.as_ref().unwrap().relation.as_str() == "depends-on");
    assert!(
        shortest_path(&c, "money-core", "orders-service", false, &f)
            .unwrap()
            .is_none(),
        "against the arrows"
    );
    let back = shortest_path(&c, "money-core", "billing-service", true, &f)
        .unwrap()
        .unwrap();
    assert_eq!(names(&back), ["money-core", "currency-utils", "billing-service"]);
    assert_eq!(
        names(
            &shortest_path(&c, "orders-team", "orders-team", true, &f)
                .unwrap()
                .unwrap()
        ),
        ["orders-team"]
    );
    let public = visible(Tier::Public);
    assert!(
        shortest_path(&public, "orders-service", "money-core", true, &f).is_err(),
        "hidden end"
    );
}

#[test]
fn subgraphs_hold_nodes_within_depth_and_edges_among_them() {
    let c = sample();
    let g = subgraph(&c, "currency-utils", 1, &Filter::default()).unwrap();
    let mut names: Vec<&str> = g.nodes.iter().map(|(n, _)| n.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        ["billing-service", "currency-utils", "money-core", "orders-service"]
    );
    assert_eq!(g.edges.len(), 3);
    assert_eq!(g.nodes[0].1, 0, "the centre first, at distance 0");
    let wide = subgraph(&c, "currency-utils", 2, &Filter::default()).unwrap();
    assert_eq!(wide.nodes.len(), 6);
    assert_eq!(wide.edges.len(), 5);
}

#[test]
fn the_strongest_path_prefers_heavier_edges_over_as_many_hops() {
    use crate::codec::Snapshot;
    use crate::model::Status;
    use crate::testkit::{edge, node};
    let nodes: Vec<_> = ["a", "b", "c", "d"]
        .iter()
        .map(|n| node(n, "service", Tier::Public, Status::Active))
        .collect();
    let mut edges = vec![
        edge(&nodes, "a", "uses", "b"),
        edge(&nodes, "b", "uses", "d"),
        edge(&nodes, "a", "uses", "c"),
        edge(&nodes, "c", "uses", "d"),
    ];
    edges[0].weight = 0.1;
    edges[1].weight = 0.1;
    edges[2].weight = 0.9;
    edges[3].weight = 0.8;
    let c = crate::store::Catalog::build(Vec::new(), Snapshot::new(nodes, edges));
    let (steps, cost) = strongest_path(&c, "a", "d", false, &Filter::default())
        .unwrap()
        .unwrap();
    assert_eq!(names(&steps), ["a", "c", "d"]);
    assert!((cost - (hop_cost(0.9) + hop_cost(0.8))).abs() < 1e-9, "{cost}");
    assert!(
        strongest_path(&c, "d", "a", false, &Filter::default())
            .unwrap()
            .is_none(),
        "directed"
    );
    assert_eq!(
        names(
            &strongest_path(&c, "d", "a", true, &Filter::default())
                .unwrap()
                .unwrap()
                .0
        ),
        ["d", "c", "a"]
    );
}
