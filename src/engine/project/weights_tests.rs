//! Cortex weights: defaults change nothing, importance reorders, a decay of
//! 0 drops what is reached through its relation, bad values are refused.

use super::*;
use crate::codec::Snapshot;
use crate::config::Config;
use crate::model::Status;
use crate::project::{Access, Center, Projection, Request, Settings, project};
use crate::testkit::{edge, node};

/// `svc` (service) owned by `alpha` (team), depending on `beta` (database);
/// `gamma` (concept) is two hops out, through `alpha`.
fn graph() -> Catalog {
    let mut nodes = vec![
        node("svc", "service", Tier::Public, Status::Active),
        node("alpha", "team", Tier::Public, Status::Active),
        node("beta", "database", Tier::Public, Status::Active),
        node("gamma", "concept", Tier::Public, Status::Active),
    ];
    for n in &mut nodes {
        n.description = format!("about {}", n.name);
    }
    let edges = vec![
        edge(&nodes, "svc", "owned-by", "alpha"),
        edge(&nodes, "svc", "depends-on", "beta"),
        edge(&nodes, "alpha", "uses", "gamma"),
    ];
    Catalog::build(Vec::new(), Snapshot::new(nodes, edges))
}

fn settings(toml: &str) -> crate::error::Result<Settings> {
    Config::parse("config.toml", toml)?.projection_settings()
}

fn run(s: &Settings) -> Projection {
    let r = Request {
        center: Center::Node {
            name: "svc".into(),
            depth: 2,
        },
        agent: "a".into(),
        access: Access::Tier(Tier::Public),
        budget: 4000,
        at: None,
    };
    project(&graph(), &r, s).unwrap()
}

fn score(p: &Projection, name: &str) -> f64 {
    p.items.iter().find(|i| i.name == name).unwrap().relevance
}

#[test]
fn unset_weights_are_the_built_in_ones_and_keep_the_digest() {
    let w = Weights::default();
    let kinds = [
        "convention",
        "service",
        "module",
        "glossary",
        "decision",
        "team",
        "anything",
    ];
    let values: Vec<f64> = kinds.iter().map(|k| w.importance(k)).collect();
    assert_eq!(values, [15.0, 12.0, 12.0, 10.0, 10.0, 5.0, 5.0]);
    assert_eq!((w.decay("uses"), w.recency_days), (1.0, 180.0));
    assert_eq!(settings("").unwrap().weights, w);
    let canonical = Config::default().canonical().unwrap();
    assert!(!canonical.contains("importance") && !canonical.contains("decay") && !canonical.contains("recency"));
    // Explicit defaults rank exactly as no settings do.
    let explicit = settings(
        "[graphex.projection]\nrecency_days = 180\n[graphex.projection.decay]\nuses = 1.0\n[graphex.projection.importance]\nteam = 5\n",
    )
    .unwrap();
    let (a, b) = (run(&Settings::default()), run(&explicit));
    assert_eq!((&a.text, &a.items), (&b.text, &b.items));
}

#[test]
fn a_configured_importance_reorders_two_candidates() {
    let plain = run(&Settings::default());
    assert_eq!(
        score(&plain, "alpha"),
        score(&plain, "beta"),
        "team and database are both 5"
    );
    assert!(
        plain.text.find("alpha is a") < plain.text.find("beta is a"),
        "{}",
        plain.text
    );
    let s = settings("[graphex.projection.importance]\ndatabase = 20\n\"*\" = 1.5\n").unwrap();
    let p = run(&s);
    assert_eq!(score(&p, "beta") - score(&plain, "beta"), 15.0);
    assert_eq!(
        score(&p, "alpha") - score(&plain, "alpha"),
        -3.5,
        "the others' importance"
    );
    assert_eq!(
        score(&p, "svc"),
        score(&plain, "svc"),
        "a built-in type keeps its value"
    );
    assert!(p.text.find("beta is a") < p.text.find("alpha is a"), "{}", p.text);
}

#[test]
fn a_decay_of_zero_drops_what_is_reached_through_its_relation() {
    let plain = run(&Settings::default());
    let p = run(&settings("[graphex.projection.decay]\nowned-by = 0.0\n").unwrap());
    assert_eq!(
        (score(&p, "alpha"), score(&p, "gamma")),
        (0.0, 0.0),
        "and what lies beyond it"
    );
    assert_eq!(score(&p, "beta"), score(&plain, "beta"));
    assert_eq!(score(&p, "svc"), score(&plain, "svc"), "the subject keeps everything");
    let half = run(&settings("[graphex.projection.decay]\nowned-by = 0.5\nuses = 0.5\n").unwrap());
    assert_eq!(score(&half, "alpha"), score(&plain, "alpha") / 2.0);
    assert_eq!(
        score(&half, "gamma"),
        score(&plain, "gamma") / 4.0,
        "decays multiply per hop"
    );
}

#[test]
fn bad_weights_are_refused_naming_the_key_and_value() {
    for (toml, named) in [
        (
            "[graphex.projection.importance]\nservice = -1\n",
            "importance.service = -1",
        ),
        ("[graphex.projection.importance]\nteam = nan\n", "importance.team = NaN"),
        ("[graphex.projection.importance]\nteam = inf\n", "importance.team = inf"),
        ("[graphex.projection.decay]\nuses = 1.5\n", "decay.uses = 1.5"),
        ("[graphex.projection.decay]\nuses = -0.1\n", "decay.uses = -0.1"),
        ("[graphex.projection]\nrecency_days = 0\n", "recency_days = 0"),
        ("[graphex.projection]\nrecency_days = -3\n", "recency_days = -3"),
    ] {
        let e = settings(toml).unwrap_err().to_string();
        assert!(e.contains(named) && e.contains("projection setting"), "{toml}: {e}");
    }
    let typo = settings("[graphex.projection.decay]\nuses = \"half\"\n").unwrap_err();
    assert!(typo.to_string().contains("[graphex.projection]"), "{typo}");
}

#[test]
fn a_key_that_names_no_type_or_relation_is_refused_at_approval_naming_the_known_ones() {
    let mut nodes = vec![
        node("svc", "service", Tier::Public, Status::Active),
        node("fix-it", "runbook", Tier::Public, Status::Active),
    ];
    let edges = vec![
        edge(&nodes, "fix-it", "blocks", "svc"),
        edge(&nodes, "fix-it", "similar-to", "svc"),
    ];
    nodes[0].description = "the service".into();
    let c = Catalog::build(Vec::new(), Snapshot::new(nodes, edges));
    let check = |toml: &str| {
        Config::parse("c", toml)
            .unwrap()
            .settings_to_approve(&c)
            .map(|s| s.weights)
    };
    for fine in [
        "[graphex.projection.importance]\nservice = 1\n\"*\" = 2\nrunbook = 3\nglossary = 4\n",
        "[graphex.projection.decay]\nblocks = 0.5\nsimilar_to = 0.5\nowned-by = 0\n",
    ] {
        assert!(check(fine).is_ok(), "{fine}: {:?}", check(fine));
    }
    let similar = check("[graphex.projection.decay]\nsimilar_to = 0.25\n").unwrap();
    assert_eq!(similar.decay("similar-to"), 0.25, "one spelling, as everywhere");
    let e = check("[graphex.projection.importance]\nservcie = 1\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("importance.servcie") && e.contains("known: service, module") && e.contains("runbook"),
        "{e}"
    );
    let e = check("[graphex.projection.decay]\ndepends_onn = 0.5\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("decay.depends_onn")
            && e.contains("depends-on")
            && e.contains("custom relations in the graph: blocks, similar-to"),
        "{e}"
    );
    assert!(
        Config::parse("c", "[graphex.projection.importance]\nservcie = 1\n")
            .unwrap()
            .projection_settings()
            .is_ok(),
        "settings already approved stay in force"
    );
}
