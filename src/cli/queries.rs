//! `graphex queries`: saved queries (master level), and the query text
//! `graphex query --saved NAME` runs.

use anyhow::{Result, anyhow};
use graphex_engine::Store;
use serde::Serialize;

use super::args::QueriesCommand;
use super::output::emit;
use super::session::{Context, Need};

pub fn queries(ctx: &Context, c: &QueriesCommand) -> Result<()> {
    let mut store = ctx.open(Need::Write)?;
    match c {
        QueriesCommand::List => list(ctx, &store),
        QueriesCommand::Save { name, query } => {
            store.save_query(name, query)?;
            emit(
                ctx.json,
                &Done {
                    saved: Some(name),
                    deleted: None,
                },
                |_| format!("saved query {name}\n"),
            )
        }
        QueriesCommand::Delete { name } => {
            store.delete_query(name)?;
            emit(
                ctx.json,
                &Done {
                    saved: None,
                    deleted: Some(name),
                },
                |_| format!("deleted saved query {name}\n"),
            )
        }
    }
}

/// The text of the saved query `name`, or an error naming the saved ones.
pub fn saved_text(store: &Store, name: &str) -> Result<String> {
    match store.saved_query(name)? {
        Some(q) => Ok(q.text),
        None => {
            let names: Vec<String> = store.saved_queries()?.into_iter().map(|q| q.name).collect();
            Err(if names.is_empty() {
                anyhow!("no saved query named {name:?} (none are saved: `graphex queries save NAME 'QUERY'`)")
            } else {
                anyhow!("no saved query named {name:?} (saved: {})", names.join(", "))
            })
        }
    }
}

#[derive(Serialize)]
struct Done<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    saved: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deleted: Option<&'a str>,
}

#[derive(Serialize)]
struct Row {
    name: String,
    text: String,
    saved_at: String,
}

fn list(ctx: &Context, store: &Store) -> Result<()> {
    let rows: Vec<Row> = store
        .saved_queries()?
        .into_iter()
        .map(|q| Row {
            name: q.name,
            text: q.text,
            saved_at: q.saved_at.to_string(),
        })
        .collect();
    emit(ctx.json, &rows, |rows| {
        if rows.is_empty() {
            return "no saved queries (save one with `graphex queries save NAME 'QUERY'`)\n".into();
        }
        let width = rows.iter().map(|r| r.name.chars().count()).max().unwrap_or(0);
        rows.iter()
            .map(|r| format!("{:width$}  {}\n", r.name, r.text))
            .collect()
    })
}
