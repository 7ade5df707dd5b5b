//! Finding things: `search`, `glossary`, `conventions`.

use anyhow::Result;
use graphex_engine::lookup;
use serde::Serialize;

use super::output::{clip, emit, table};
use super::read::locked_note;
use super::session::{Context, Need};

#[derive(Serialize)]
struct Hit {
    name: String,
    #[serde(rename = "type")]
    node_type: String,
    tier: String,
    score: i64,
    description: String,
}

pub fn search(ctx: &Context, text: &str, limit: usize) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let hits: Vec<Hit> = lookup::search_with_bodies(&store, text, limit.max(1))?
        .into_iter()
        .map(|h| Hit {
            name: h.node.name.to_string(),
            node_type: h.node.node_type.to_string(),
            tier: h.node.tier.to_string(),
            score: h.score,
            description: h.node.description,
        })
        .collect();
    emit(ctx.json, &hits, |hits| {
        if hits.is_empty() {
            return "no matches\n".into();
        }
        let rows: Vec<Vec<String>> = hits
            .iter()
            .map(|h| {
                vec![
                    h.name.clone(),
                    h.node_type.clone(),
                    h.score.to_string(),
                    clip(&h.description, 70),
                ]
            })
            .collect();
        table(&["NAME", "TYPE", "SCORE", "DESCRIPTION"], &rows)
    })
}

#[derive(Serialize)]
struct Term {
    term: String,
    definition: String,
    tier: String,
}

pub fn glossary(ctx: &Context, term: &str) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let terms: Vec<Term> = lookup::glossary(store.catalog(), term)
        .into_iter()
        .map(|n| Term {
            term: n.name.to_string(),
            definition: n.description,
            tier: n.tier.to_string(),
        })
        .collect();
    let asked = term.to_owned();
    emit(ctx.json, &terms, |terms| {
        if terms.is_empty() {
            return format!("no glossary entry for {asked:?}\n");
        }
        terms
            .iter()
            .map(|t| format!("{}: {}\n", t.term, t.definition))
            .collect()
    })
}

#[derive(Serialize)]
struct Convention {
    name: String,
    description: String,
    tier: String,
    /// The node it applies through (absent for global conventions).
    through: Option<String>,
}

pub fn conventions(ctx: &Context, target: &str) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let found: Vec<Convention> = lookup::conventions_for(store.catalog(), target)
        .into_iter()
        .map(|a| Convention {
            name: a.convention.name.to_string(),
            description: a.convention.description,
            tier: a.convention.tier.to_string(),
            through: a.through,
        })
        .collect();
    let asked = target.to_owned();
    emit(ctx.json, &found, |found| {
        if found.is_empty() {
            return format!("no conventions found for {asked:?}\n");
        }
        found
            .iter()
            .map(|c| {
                let why = c
                    .through
                    .as_deref()
                    .map_or_else(|| "global".to_owned(), |t| format!("via {t}"));
                format!("- {}: {} ({why})\n", c.name, c.description)
            })
            .collect()
    })
}

/// `contradictions [--check]`: the pairs to resolve, with how.
pub fn contradictions(ctx: &Context, check: bool) -> Result<()> {
    let store = ctx.open(Need::Read)?;
    locked_note(ctx, &store);
    let found = graphex_engine::curate::contradictions(store.catalog(), store.level().max_tier());
    let open = found.iter().filter(|c| !c.acknowledged).count();
    emit(ctx.json, &found, |found| {
        if found.is_empty() {
            return "no contradictions between active nodes\n".into();
        }
        let mut s = String::new();
        for c in found {
            let state = if c.acknowledged {
                "both marked disputed"
            } else {
                "to resolve"
            };
            s.push_str(&format!("{} contradicts {}  ({state})\n", c.from, c.to));
        }
        s.push_str(&format!(
            "{} contradiction(s), {open} to resolve: keep one with `graphex deprecate OTHER --reason R`, or mark \
             both with `graphex update NAME --prop disputed=true`; until one is deprecated, projections flag both \
             as disputed\n",
            found.len()
        ));
        s
    })?;
    if check && open > 0 {
        anyhow::bail!("{open} contradiction(s) to resolve");
    }
    Ok(())
}
