//! Exports a store's readable graph and a fixed traversal workload, and times
//! graphex on it, so `scripts/bench_networkx.py` can time NetworkX on exactly
//! the same work.
//!
//! cargo run --release -p graphex-engine --example traversal_workload -- ROOT IDENTITY OUT_DIR
//!
//! Writes OUT_DIR/nodes.tsv (name, type), OUT_DIR/edges.tsv (from, relation,
//! to), OUT_DIR/centers.txt and
//! OUT_DIR/pairs.tsv (1000 each, deterministic), then prints JSON medians for
//! open + load, 2-hop undirected neighbourhoods and undirected shortest paths.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use graphex_engine::traverse::{Direction, Filter, neighbors, shortest_path};
use graphex_engine::{Credentials, Store};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, identity, out] = args.as_slice() else {
        return Err("usage: traversal_workload ROOT IDENTITY OUT_DIR".into());
    };
    let creds = Credentials {
        identity_file: Some(PathBuf::from(identity)),
        ..Credentials::default()
    };
    let t = Instant::now();
    let store = Store::open(root.as_ref(), &creds)?;
    let open_ms = t.elapsed().as_secs_f64() * 1e3;
    let cat = store.catalog();
    std::fs::create_dir_all(out)?;
    let mut edges = std::io::BufWriter::new(std::fs::File::create(format!("{out}/edges.tsv"))?);
    for e in cat.edges() {
        let (Some(a), Some(b)) = (cat.node(&e.from), cat.node(&e.to)) else {
            continue;
        };
        writeln!(edges, "{}\t{}\t{}", a.name, e.relation, b.name)?;
    }
    edges.flush()?;
    let mut nodes = std::io::BufWriter::new(std::fs::File::create(format!("{out}/nodes.tsv"))?);
    for n in cat.nodes() {
        writeln!(nodes, "{}\t{}", n.name, n.node_type)?;
    }
    nodes.flush()?;
    let mut names: Vec<String> = cat.nodes().map(|n| n.name.to_string()).collect();
    names.sort();
    let step = (names.len() / 1000).max(1);
    let centers: Vec<&String> = names.iter().step_by(step).take(1000).collect();
    let pairs: Vec<(&String, &String)> = (0..centers.len())
        .map(|i| (centers[i], centers[(i * 7919 + 13) % centers.len()]))
        .collect();
    std::fs::write(
        format!("{out}/centers.txt"),
        centers.iter().map(|c| format!("{c}\n")).collect::<String>(),
    )?;
    std::fs::write(
        format!("{out}/pairs.tsv"),
        pairs.iter().map(|(a, b)| format!("{a}\t{b}\n")).collect::<String>(),
    )?;

    let f = Filter::default();
    let mut hood = Vec::new();
    for c in &centers {
        let t = Instant::now();
        let rings = neighbors(cat, c, 2, Direction::Both, &f)?;
        hood.push(t.elapsed().as_secs_f64() * 1e6);
        std::hint::black_box(rings);
    }
    let mut paths = Vec::new();
    let mut found = 0;
    for (a, b) in &pairs {
        let t = Instant::now();
        let p = shortest_path(cat, a, b, true, &f)?;
        paths.push(t.elapsed().as_secs_f64() * 1e6);
        found += usize::from(p.is_some());
    }
    println!(
        "{{\"tool\": \"graphex\", \"nodes\": {}, \"edges\": {}, \"open_load_ms\": {open_ms:.1}, \
         \"two_hop_median_us\": {:.1}, \"path_median_us\": {:.1}, \"paths_found\": {found}}}",
        cat.node_count(),
        cat.edge_count(),
        median(hood),
        median(paths)
    );
    Ok(())
}
