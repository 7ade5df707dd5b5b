//! `graphex pending` in a terminal: each pending proposal's card, then
//! `Accept? [y/n/edit]`, as the spec shows. Every step is one typed
//! operation (the queue, one card, an accept, a reject, a request for
//! changes), run through the store's unlock session when one serves this
//! terminal, else on one store opened here for the whole walk; an edit
//! opens $EDITOR here.

use std::cell::RefCell;
use std::io::{BufRead, IsTerminal as _, Write};
use std::rc::Rc;

use anyhow::{Context as _, Result, bail};

use super::args::Command;
use super::hold::client::{Ran, forward_op};
use super::hold::ops::Op;
use super::review_args::{AcceptArgs, RejectArgs, RequestChangesArgs};
use super::session::{Context, Held, Need};

/// Whether `command` is a `pending` that asks: in a terminal (stdin and
/// stdout), for the whole queue, without `--json` or `--no-ask`.
pub fn asks(command: &Command, json: bool) -> bool {
    matches!(
        command,
        Command::Pending {
            id: None,
            no_ask: false,
            ..
        }
    ) && !json
        && std::io::stdin().is_terminal()
        && std::io::stdout().is_terminal()
}

/// Walks the queue in the terminal.
pub fn run(ctx: &Context, session: Option<&str>) -> Result<()> {
    let mut steps = Live::new(ctx, session)?;
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut out = std::io::stdout();
    walk(&mut steps, session, &mut input, &mut out)
}

/// What the walk asks of the store.
trait Steps {
    /// Runs one operation; `json`: its JSON form.
    fn run(&mut self, op: Op, json: bool) -> Ran;
    /// Edits a proposal in $EDITOR, then accepts the edit (in the terminal).
    fn edit(&mut self, id: &str) -> Ran;
}

/// The store's session, or one store opened here.
struct Live {
    ctx: Context,
    session: bool,
    /// The queue the session already gave when asked whether it serves
    /// this walk (not asked for twice).
    listed: Option<Ran>,
}

impl Live {
    fn new(ctx: &Context, session: Option<&str>) -> Result<Live> {
        let listing = Op::Pending {
            session: session.map(str::to_owned),
            id: None,
        };
        if ctx.unlock.is_none()
            && let Some(listed) = forward_op(ctx.store.clone(), listing, true)
        {
            return Ok(Live {
                ctx: ctx.clone(),
                session: true,
                listed: Some(listed),
            });
        }
        let (store, _) = ctx.open_with_credentials(Need::Write)?;
        Ok(Live {
            ctx: Context {
                held: Some(Held(Rc::new(RefCell::new(store)))),
                unlock: None,
                ..ctx.clone()
            },
            session: false,
            listed: None,
        })
    }
}

impl Steps for Live {
    fn run(&mut self, op: Op, json: bool) -> Ran {
        if matches!(op, Op::Pending { id: None, .. })
            && json
            && let Some(listed) = self.listed.take()
        {
            return listed;
        }
        if self.session
            && let Some(ran) = forward_op(self.ctx.store.clone(), op.clone(), json)
        {
            return ran;
        }
        let ctx = Context {
            json,
            ..self.ctx.clone()
        };
        let (result, out) = super::output::capture(|| op.run(&ctx));
        let mut stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        let code = match result {
            Ok(()) => 0,
            Err(e) => {
                stderr.push_str(&super::output::error_text(&e));
                1
            }
        };
        Ran {
            code,
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr,
        }
    }

    fn edit(&mut self, id: &str) -> Ran {
        match super::proposals::edit(&self.ctx, id, false) {
            Ok(()) => Ran::default(),
            Err(e) => Ran {
                code: 1,
                stdout: String::new(),
                stderr: super::output::error_text(&e),
            },
        }
    }
}

/// What the walk did.
#[derive(Debug, Default, PartialEq, Eq)]
struct Tally {
    accepted: usize,
    rejected: usize,
    sent_back: usize,
    edited: usize,
    skipped: usize,
}

const HELP: &str = "  y  accept it      n  reject it (with a reason the agent reads)\n  \
                    edit  edit it in $EDITOR, then accept the edit\n  \
                    c  ask its agent for changes (with a comment)\n  \
                    s or Enter  skip it      q  stop here\n";

fn walk(steps: &mut dyn Steps, session: Option<&str>, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<()> {
    let listed = steps.run(
        Op::Pending {
            session: session.map(str::to_owned),
            id: None,
        },
        true,
    );
    if listed.code != 0 {
        bail!("{}", listed.stderr.trim_end().trim_start_matches("error: "));
    }
    write!(out, "{}", listed.stderr)?;
    let ids = pending_ids(&listed.stdout)?;
    if ids.is_empty() {
        writeln!(out, "no pending proposals")?;
        return Ok(());
    }
    let mut tally = Tally::default();
    let mut stopped = false;
    for (at, id) in ids.iter().enumerate() {
        let card = steps.run(
            Op::Pending {
                session: None,
                id: Some(id.clone()),
            },
            false,
        );
        if card.code != 0 {
            // Decided meanwhile (another reviewer, a batch): said, then on.
            write!(out, "{}", card.stderr)?;
            continue;
        }
        write!(out, "\n{}{}", card.stdout, card.stderr)?;
        if !decide(steps, id, (at + 1, ids.len()), input, out, &mut tally)? {
            stopped = true;
            break;
        }
    }
    let Tally {
        accepted,
        rejected,
        sent_back,
        edited,
        skipped,
    } = tally;
    writeln!(
        out,
        "\n{}accepted {accepted}, rejected {rejected}, sent back {sent_back}, edited {edited}, skipped {skipped}",
        if stopped { "stopped: " } else { "" }
    )?;
    Ok(())
}

/// Asks about one proposal until it is decided, skipped or the walk
/// stops (`false`).
fn decide(
    steps: &mut dyn Steps,
    id: &str,
    (at, of): (usize, usize),
    input: &mut dyn BufRead,
    out: &mut dyn Write,
    tally: &mut Tally,
) -> Result<bool> {
    loop {
        let Some(answer) = ask(input, out, &format!("({at}/{of}) Accept? [y/n/edit] "))? else {
            return Ok(false);
        };
        match answer.to_ascii_lowercase().as_str() {
            "y" | "yes" => {
                if accept(steps, id, input, out)? {
                    tally.accepted += 1;
                    return Ok(true);
                }
            }
            "n" | "no" => {
                let Some(reason) = ask(input, out, "Reason (the agent reads it; Enter goes back): ")? else {
                    return Ok(false);
                };
                if reason.is_empty() {
                    continue;
                }
                let ran = steps.run(
                    Op::Reject(RejectArgs {
                        id: Some(id.to_owned()),
                        reason,
                        session: None,
                        batch: None,
                    }),
                    false,
                );
                if shown(out, &ran)? {
                    tally.rejected += 1;
                    return Ok(true);
                }
            }
            "c" => {
                let Some(comment) = ask(input, out, "What should change (Enter goes back): ")? else {
                    return Ok(false);
                };
                if comment.is_empty() {
                    continue;
                }
                let ran = steps.run(
                    Op::RequestChanges(RequestChangesArgs {
                        id: id.to_owned(),
                        comment,
                        change: None,
                    }),
                    false,
                );
                if shown(out, &ran)? {
                    tally.sent_back += 1;
                    return Ok(true);
                }
            }
            "e" | "edit" => {
                if shown(out, &steps.edit(id))? {
                    tally.edited += 1;
                    return Ok(true);
                }
            }
            "" | "s" | "skip" => {
                tally.skipped += 1;
                return Ok(true);
            }
            "q" | "quit" => return Ok(false),
            "?" | "h" | "help" => write!(out, "{HELP}")?,
            other => writeln!(
                out,
                "{:?} is not an answer: y, n, edit, c, s or q (? for help)",
                super::cards::clean(other, " ")
            )?,
        }
    }
}

/// Accepts; a refusal that `--force` would pass (a node moved since the
/// proposal) is shown, and forcing it asked for. Whether it was accepted.
fn accept(steps: &mut dyn Steps, id: &str, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<bool> {
    let args = |force| AcceptArgs {
        id: Some(id.to_owned()),
        only: None,
        force,
        session: None,
        batch: None,
    };
    let ran = steps.run(Op::Accept(args(false)), false);
    if shown(out, &ran)? {
        return Ok(true);
    }
    if !ran.stderr.contains("--force") {
        return Ok(false);
    }
    match ask(input, out, "Accept it anyway, over what changed since? [y/N] ")? {
        Some(a) if matches!(a.to_ascii_lowercase().as_str(), "y" | "yes") => {
            shown(out, &steps.run(Op::Accept(args(true)), false))
        }
        _ => Ok(false),
    }
}

/// Prints what a step printed; whether it succeeded.
fn shown(out: &mut dyn Write, ran: &Ran) -> Result<bool> {
    write!(out, "{}{}", ran.stdout, ran.stderr)?;
    Ok(ran.code == 0)
}

/// One answer, trimmed; `None` at the end of the input.
fn ask(input: &mut dyn BufRead, out: &mut dyn Write, question: &str) -> Result<Option<String>> {
    write!(out, "{question}")?;
    out.flush()?;
    let mut line = String::new();
    if input.read_line(&mut line).context("cannot read the answer")? == 0 {
        writeln!(out)?;
        return Ok(None);
    }
    Ok(Some(line.trim().to_owned()))
}

/// The ids of the queue's proposals, in its order, from `pending --json`.
fn pending_ids(json: &str) -> Result<Vec<String>> {
    let v: serde_json::Value = serde_json::from_str(json).context("the queue's JSON did not parse")?;
    let proposals = v["proposals"].as_array().context("the queue's JSON has no proposals")?;
    proposals
        .iter()
        .map(|p| p["id"].as_str().map(str::to_owned).context("a proposal without an id"))
        .collect()
}

#[cfg(test)]
#[path = "pending_ask_tests.rs"]
mod tests;
