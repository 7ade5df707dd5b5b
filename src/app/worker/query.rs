//! The worker's share of the Query pane: evaluations, completions,
//! exports and clipboard texts, as a function of the open store (the pane's
//! tests call it the same way).

use graphex_engine::Store;

use super::{Reply, Request};
use crate::app::panes::query::work;

/// The reply to a Query pane request (`None` for any other request).
pub fn answer(store: Option<&Store>, req: Request) -> Option<Reply> {
    let not_open = || "the store is not open".to_owned();
    Some(match req {
        Request::RunQuery { generation, text } => Reply::QueryResult {
            generation,
            result: Box::new(match store {
                Some(s) => work::evaluate(s, &text),
                None => Err(work::ErrorView {
                    message: not_open(),
                    span: (0, 0),
                    candidates: Vec::new(),
                }),
            }),
        },
        Request::Complete {
            generation,
            text,
            cursor,
        } => Reply::Completed {
            generation,
            completion: match store {
                Some(s) => work::complete(s, &text, cursor, graphex_engine::model::Timestamp::now()),
                None => work::Completion {
                    items: Vec::new(),
                    replace: (cursor, cursor),
                    signature: None,
                },
            },
        },
        Request::ExportQuery { text, file } => {
            match store.map_or_else(|| Err(not_open()), |s| work::export(s, &text, &file)) {
                Ok(done) => Reply::Done(done),
                Err(e) => Reply::Failed(format!("export: {e}")),
            }
        }
        Request::CopyQuery { text, format } => {
            match store.map_or_else(|| Err(not_open()), |s| work::render(s, &text, format)) {
                Ok(body) => Reply::Clipboard(body),
                Err(e) => Reply::Failed(format!("copy: {e}")),
            }
        }
        _ => return None,
    })
}
