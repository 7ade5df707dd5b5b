use super::*;

/// A store that answers from a script and notes what it was asked.
#[derive(Default)]
struct Scripted {
    ids: Vec<&'static str>,
    /// Ids whose accept is refused unless forced.
    moved: Vec<&'static str>,
    asked: Vec<String>,
}

impl Steps for Scripted {
    fn run(&mut self, op: Op, json: bool) -> Ran {
        let ok = |stdout: String| Ran {
            code: 0,
            stdout,
            stderr: String::new(),
        };
        match op {
            Op::Pending { id: None, .. } => {
                assert!(json, "the queue is read as JSON");
                let ids: Vec<_> = self.ids.iter().map(|id| serde_json::json!({ "id": id })).collect();
                ok(serde_json::json!({ "proposals": ids }).to_string())
            }
            Op::Pending { id: Some(id), .. } => ok(format!("card of {id}\n")),
            Op::Accept(a) => {
                let id = a.id.unwrap();
                self.asked
                    .push(format!("accept {id}{}", if a.force { " --force" } else { "" }));
                if self.moved.contains(&id.as_str()) && !a.force {
                    return Ran {
                        code: 1,
                        stdout: String::new(),
                        stderr: "error: moved since; add --force\n".into(),
                    };
                }
                ok(format!("accepted {id}\n"))
            }
            Op::Reject(r) => {
                self.asked.push(format!("reject {} {}", r.id.unwrap(), r.reason));
                ok("rejected\n".into())
            }
            Op::RequestChanges(r) => {
                self.asked.push(format!("changes {} {}", r.id, r.comment));
                ok("sent back\n".into())
            }
            other => panic!("not asked of a walk: {other:?}"),
        }
    }

    fn edit(&mut self, id: &str) -> Ran {
        self.asked.push(format!("edit {id}"));
        Ran::default()
    }
}

fn walked(store: &mut Scripted, answers: &str) -> String {
    let mut out = Vec::new();
    walk(store, None, &mut answers.as_bytes(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

#[test]
fn each_card_is_followed_by_the_question_and_each_answer_is_one_operation() {
    let mut store = Scripted {
        ids: vec!["aaaa1", "bbbb2", "cccc3", "dddd4", "eeee5"],
        ..Scripted::default()
    };
    // y; n with an empty reason (back), then n with one; edit; a word that
    // is no answer, then Enter (skip); c with a comment.
    let out = walked(&mut store, "y\nn\n\nn\ntoo broad\nedit\nmaybe\n\nc\nname the queue\n");
    assert_eq!(
        store.asked,
        [
            "accept aaaa1",
            "reject bbbb2 too broad",
            "edit cccc3",
            "changes eeee5 name the queue"
        ]
    );
    assert!(out.contains("card of aaaa1\n(1/5) Accept? [y/n/edit] "), "{out}");
    assert!(out.contains("(5/5) Accept? [y/n/edit] "), "{out}");
    assert!(out.contains("\"maybe\" is not an answer"), "{out}");
    assert!(
        out.ends_with("accepted 1, rejected 1, sent back 1, edited 1, skipped 1\n"),
        "{out}"
    );
}

#[test]
fn a_moved_node_asks_before_forcing_and_q_or_the_end_of_input_stops() {
    let mut store = Scripted {
        ids: vec!["aaaa1", "bbbb2", "cccc3"],
        moved: vec!["aaaa1", "bbbb2"],
        ..Scripted::default()
    };
    // Refused, forcing declined: asked again; then skipped. The second:
    // refused, forced. Then q.
    let out = walked(&mut store, "y\nn\ns\ny\ny\nq\n");
    assert_eq!(store.asked, ["accept aaaa1", "accept bbbb2", "accept bbbb2 --force"]);
    assert!(out.contains("moved since; add --force"), "{out}");
    assert!(
        out.contains("Accept it anyway, over what changed since? [y/N] "),
        "{out}"
    );
    assert!(out.contains("stopped: accepted 1"), "{out}");
    // The input ends: nothing more is done.
    let mut store = Scripted {
        ids: vec!["aaaa1"],
        ..Scripted::default()
    };
    let out = walked(&mut store, "");
    assert!(store.asked.is_empty());
    assert!(out.contains("stopped: accepted 0"), "{out}");
}

#[test]
fn an_empty_queue_says_so_and_asks_nothing() {
    let mut store = Scripted::default();
    assert_eq!(walked(&mut store, "y\n"), "no pending proposals\n");
    assert!(store.asked.is_empty());
}
