//! `doctor`: an integrity check of a store that works where opening does
//! not. It reads the index through its own read-only connection, so a store
//! that refuses to open (a forged key, a rolled-back row, a damaged page)
//! is still inspected and each problem named.
//!
//! Checks: the schema version and SQLite's own page check; the key files
//! and their scrypt work factors; opening with the credentials given (the
//! keyring's MACs and commitments, the index manifest); every node blob the
//! session can read decrypts, and every referenced blob exists; orphan
//! blobs; and, per tier key, how many keys and records it has sealed
//! against the AES-GCM random-nonce budget.

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::error::{Error, Result};
use crate::keys::{Credentials, Level, files};
use crate::model::Tier;
use crate::store::objects::{Census, Listed};
use crate::store::{LEAN_SCHEMA, Layout, SCHEMA_VERSION, Store, UNMIGRATED_SCHEMA};

mod orphans;
mod unsealed;

/// What a check found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Ok,
    /// Something is wrong: `doctor` exits non-zero.
    Finding,
    /// Not run with these credentials, or not applicable.
    Skipped,
}

/// One check and what it found.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub name: &'static str,
    pub outcome: Outcome,
    pub detail: String,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub store: String,
    pub level: Option<Level>,
    pub checks: Vec<Check>,
    /// Orphan blobs removed (with `collect_orphans`).
    pub collected: usize,
}

impl Report {
    /// The number of findings.
    pub fn findings(&self) -> usize {
        self.checks.iter().filter(|c| c.outcome == Outcome::Finding).count()
    }
}

/// What `doctor` may do besides reading.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    /// Delete orphan blobs older than `orphan_grace`.
    pub collect_orphans: bool,
    /// How old an orphan must be to be collected ([`ORPHAN_GRACE`]; less
    /// only when no other process can be writing, as after a crash test).
    pub orphan_grace: Duration,
    /// The store's passphrases are public (the demo): a light KDF is expected.
    pub weak_kdf_expected: bool,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            collect_orphans: false,
            orphan_grace: ORPHAN_GRACE,
            weak_kdf_expected: false,
        }
    }
}

/// An orphan younger than this may belong to a commit under way in another
/// process (blobs are written before the index); it is left alone.
pub const ORPHAN_GRACE: Duration = Duration::from_secs(600);

/// Below this scrypt work factor a passphrase file is weak (age's default
/// here is about 2^18).
pub const WEAK_KDF_LOG_N: u8 = 15;

/// Sealing operations per tier key before `doctor` asks for a rotation:
/// AES-GCM with random 96-bit nonces stays below a 2^-32 collision chance
/// up to 2^32 messages per key; this keeps a margin of 16.
pub const ROTATE_AFTER: u64 = 1 << 28;

fn check(name: &'static str, outcome: Outcome, detail: impl Into<String>) -> Check {
    Check {
        name,
        outcome,
        detail: detail.into(),
    }
}

/// Examines the store under `root` with `creds`.
pub fn examine(root: &Path, creds: &Credentials, opts: Options) -> Result<Report> {
    let layout = Layout::new(root);
    if !layout.db().is_file() {
        return Err(Error::NoStore(root.to_owned()));
    }
    let mut checks = Vec::new();
    let conn = Connection::open_with_flags(layout.db(), OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    crate::store::forbid_code(&conn)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    // The checks below read the index row by row: one view for all of them.
    conn.execute_batch("BEGIN")?;
    checks.push(schema(&conn));
    checks.extend(key_files(&layout, opts));
    let sealed = unsealed::has_seal(&conn);
    let (store, open_check) = match Store::open(root, creds) {
        Ok(s) => {
            let level = s.level();
            let what = if level >= Level::Master {
                "the keyring's MACs and key commitments hold; the index matches its manifest and the master's seal \
                 (every row, decision, the audit head and the approved settings)"
            } else if level == Level::Agent {
                "the keyring's agent MAC holds; the readable index matches its manifest and the master's signature"
            } else {
                "opened locked: nothing to authenticate without a key"
            };
            (Some(s), check("open", Outcome::Ok, format!("at level {level}: {what}")))
        }
        // No seal: opened against its manifest alone (master level), so
        // that everything the seal does not vouch for is still checked.
        Err(e) if !sealed => match Store::open_to_seal(root, creds) {
            Ok(s) => (
                Some(s),
                check(
                    "open",
                    Outcome::Finding,
                    format!(
                        "{e}. Opened against the index's manifest alone for the checks below (run `graphex seal`,                          which compares with the last trusted seal)"
                    ),
                ),
            ),
            Err(_) => (None, check("open", Outcome::Finding, e.to_string())),
        },
        Err(e) => (None, check("open", Outcome::Finding, e.to_string())),
    };
    checks.push(open_check);
    if let Some(s) = &store {
        checks.push(unsealed::freshness(s));
        checks.push(unsealed::audit_chain(s));
        checks.push(unsealed::decisions(s));
    }
    // A damaged index fails some reads: each becomes a finding, and what
    // can still be read is still checked.
    let unreadable =
        |name: &'static str, e: Error| check(name, Outcome::Finding, format!("cannot read the index: {e}"));
    let mut collected = 0;
    // Collecting deletes: only after the store opened at the master level
    // (its keyring and manifest verified). A store that fails its checks may
    // have lost rows to an attacker; their blobs are the evidence.
    let history = store
        .as_ref()
        .filter(|s| s.level() >= Level::Master)
        .map(|s| match s.check_history() {
            Ok(()) => check(
                "history",
                Outcome::Ok,
                "every history and timeline row carries the master's MAC",
            ),
            Err(e) => check("history", Outcome::Finding, e.to_string()),
        });
    let history_ok = history.as_ref().is_some_and(|c| c.outcome == Outcome::Ok);
    checks.extend(history);
    // Saved queries: their rows against the seal (checked at open too) and
    // every record opened.
    checks.extend(
        store
            .as_ref()
            .filter(|s| s.level() >= Level::Master)
            .map(|s| match s.saved_queries() {
                Ok(q) => check(
                    "saved queries",
                    Outcome::Ok,
                    format!("{} saved, each under the master's seal and opening", q.len()),
                ),
                Err(e) => check("saved queries", Outcome::Finding, e.to_string()),
            }),
    );
    // The history check runs at the master level only: passing it means both.
    let may_collect = history_ok;
    // Nor while a key rotation runs: its new blobs are named by nothing
    // until it commits. Held until the checks are done.
    let rotation_lock = (opts.collect_orphans && may_collect)
        .then(|| crate::keys::rotation::lock(&layout.keys(), false).ok())
        .flatten();
    let rotating = opts.collect_orphans && may_collect && rotation_lock.is_none();
    let may_collect = may_collect && !rotating;
    match referenced_blobs(&conn) {
        Ok(referenced) => {
            checks.push(missing_blobs(&layout, &referenced));
            // One listing of `.gpp/objects` serves the layout and the orphans.
            match crate::store::Objects::new(layout.objects()).list() {
                Ok(listed) => {
                    checks.push(blob_layout(&layout, &listed));
                    let collect = (opts.collect_orphans && may_collect).then_some(opts.orphan_grace);
                    match orphans::orphans(&layout, &listed, &conn, &referenced, store.as_ref(), collect) {
                        Ok((c, n)) => {
                            checks.extend(c);
                            collected = n;
                        }
                        Err(e) => checks.push(check("orphan blobs", Outcome::Finding, e.to_string())),
                    }
                }
                Err(e) => checks.push(check(
                    "blob layout",
                    Outcome::Finding,
                    format!("cannot list .gpp/objects: {e}"),
                )),
            }
        }
        Err(e) => {
            checks.push(unreadable("blobs present", e));
            // Without the index's references, nothing may be called an orphan.
            checks.push(check(
                "orphan blobs",
                Outcome::Skipped,
                "the index's blob names cannot be read",
            ));
        }
    }
    if rotating {
        checks.push(check(
            "collect orphans",
            Outcome::Skipped,
            "nothing removed: a key rotation is under way (its new files are named by nothing until it commits)",
        ));
    } else if opts.collect_orphans && !may_collect {
        checks.push(check(
            "collect orphans",
            Outcome::Skipped,
            "nothing removed: collecting needs the store to open at the master level with its checks passing",
        ));
    }
    checks.push(match &store {
        Some(s) => decrypt_all(s, &conn).unwrap_or_else(|e| unreadable("blobs decrypt", e)),
        None => check("blobs decrypt", Outcome::Skipped, "the store did not open"),
    });
    checks.push(match &store {
        Some(s) => settings(s),
        None => check("settings", Outcome::Skipped, "the store did not open"),
    });
    checks.push(nonce_budget(&conn).unwrap_or_else(|e| unreadable("nonce budget", e)));
    checks.push(
        key_rotation(&layout, opts.collect_orphans && may_collect).unwrap_or_else(|e| unreadable("key rotation", e)),
    );
    drop(rotation_lock);
    Ok(Report {
        store: root.display().to_string(),
        level: store.as_ref().map(Store::level),
        checks,
        collected,
    })
}

/// `.gpp/config.toml` against the settings the master approved: a file
/// edited by hand changes nothing, and is a finding until approved.
fn settings(store: &Store) -> Check {
    match store.config() {
        Ok(c) if c.unapproved.is_empty() => check("settings", Outcome::Ok, ".gpp/config.toml is the approved settings"),
        Ok(c) => check(
            "settings",
            Outcome::Finding,
            format!(
                ".gpp/config.toml differs from the approved settings, which stay in force (`graphex config approve` \
                 if the change is yours): {}",
                c.unapproved.join("; ")
            ),
        ),
        Err(e) => check("settings", Outcome::Finding, e.to_string()),
    }
}

fn schema(conn: &Connection) -> Check {
    let version: rusqlite::Result<u32> = conn.pragma_query_value(None, "user_version", |r| r.get(0));
    let quick: rusqlite::Result<String> = conn.query_row("PRAGMA quick_check", [], |r| r.get(0));
    // The version number is a field anyone can write: the layout must say
    // the same (v10 keys nodes by their id alone, v9 by a hidden row number).
    let without_rowid: Option<bool> = conn
        .query_row(
            "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = 'nodes'",
            [],
            |r| r.get(0),
        )
        .ok();
    // v11 holds edges in groups, whose tokens no index holds.
    let token_index = conn
        .query_row(
            "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'edges_by_token'",
            [],
            |_| Ok(()),
        )
        .is_ok();
    let laid_out = without_rowid.map(|lean| match (lean, token_index) {
        (false, _) => UNMIGRATED_SCHEMA,
        (true, true) => LEAN_SCHEMA,
        (true, false) => SCHEMA_VERSION,
    });
    if let (Ok(v), Some(laid_out)) = (&version, laid_out)
        && (UNMIGRATED_SCHEMA..=SCHEMA_VERSION).contains(v)
        && *v != laid_out
    {
        let then = if laid_out == SCHEMA_VERSION {
            ""
        } else {
            ", then run `graphex migrate`"
        };
        return check(
            "schema",
            Outcome::Finding,
            format!(
                "graph.db says v{v} but is laid out as v{laid_out}: its version was changed outside Graphex (set \
                 it back with `sqlite3 graph.db 'PRAGMA user_version = {laid_out}'`{then})"
            ),
        );
    }
    match (version, quick) {
        (Ok(v), Ok(q)) if v == SCHEMA_VERSION && q == "ok" => {
            check("schema", Outcome::Ok, format!("v{v}; SQLite's page check passes"))
        }
        // The older layouts read and write as the new one: advice, not a finding.
        (Ok(v), Ok(q)) if v == UNMIGRATED_SCHEMA && q == "ok" => check(
            "schema",
            Outcome::Ok,
            format!(
                "v{v}, the older layout; SQLite's page check passes (`graphex migrate` lays it out as \
                 v{LEAN_SCHEMA}, about a third smaller; at the human level it also holds the edges in groups, \
                 v{SCHEMA_VERSION}, about half the size)"
            ),
        ),
        (Ok(v), Ok(q)) if v == LEAN_SCHEMA && q == "ok" => check(
            "schema",
            Outcome::Ok,
            format!(
                "v{v}, one edge a row; SQLite's page check passes (`graphex migrate` at the human level holds \
                 the edges in groups, v{SCHEMA_VERSION}, about a third smaller)"
            ),
        ),
        (Ok(v), Ok(q)) if q == "ok" => check(
            "schema",
            Outcome::Finding,
            format!("v{v}, this program writes v{SCHEMA_VERSION}"),
        ),
        (Ok(_), Ok(q)) => check("schema", Outcome::Finding, format!("SQLite's page check: {q}")),
        (Err(e), _) | (_, Err(e)) => check(
            "schema",
            Outcome::Finding,
            format!("graph.db is not a readable SQLite database ({e})"),
        ),
    }
}

fn key_files(layout: &Layout, opts: Options) -> Vec<Check> {
    let paths = layout.keys();
    let mut missing = Vec::new();
    let mut all = vec![paths.master(), paths.master_pub(), paths.agent(), paths.auth()];
    all.extend(Tier::ALL.map(|t| paths.tier(t)));
    for p in &all {
        if !p.is_file() {
            missing.push(
                p.file_name()
                    .map(|f| f.to_string_lossy().into_owned())
                    .unwrap_or_default(),
            );
        }
    }
    let files_check = if missing.is_empty() {
        check("key files", Outcome::Ok, format!("{} present", all.len()))
    } else {
        check(
            "key files",
            Outcome::Finding,
            format!("missing: {}", missing.join(", ")),
        )
    };
    let kdf = match std::fs::read(paths.master()).ok().as_deref().and_then(files::kdf_log_n) {
        None => check("passphrase KDF", Outcome::Finding, "master.age has no scrypt stanza"),
        Some(n) if n > files::MAX_KDF_LOG_N => check(
            "passphrase KDF",
            Outcome::Finding,
            format!("master.age asks for 2^{n}, above the cap of 2^{}", files::MAX_KDF_LOG_N),
        ),
        Some(n) if n < WEAK_KDF_LOG_N && opts.weak_kdf_expected => check(
            "passphrase KDF",
            Outcome::Ok,
            format!("master.age: scrypt 2^{n}, light on purpose (its passphrase is published)"),
        ),
        Some(n) if n < WEAK_KDF_LOG_N => check(
            "passphrase KDF",
            Outcome::Finding,
            format!(
                "master.age: scrypt 2^{n} is weak (made with GRAPHEX_TEST_KDF_LOG_N?); a guessed passphrase \
                 is cheap to test: make the store again with the default"
            ),
        ),
        Some(n) => check("passphrase KDF", Outcome::Ok, format!("master.age: scrypt 2^{n}")),
    };
    vec![files_check, kdf]
}

/// Every blob the index names: current and past node versions, snapshots.
fn referenced_blobs(conn: &Connection) -> Result<HashSet<String>> {
    let mut out = HashSet::new();
    for sql in [
        "SELECT iif(typeof(blob) = 'blob', lower(hex(blob)), blob) FROM nodes",
        "SELECT iif(typeof(blob) = 'blob', lower(hex(blob)), blob) FROM node_versions",
        "SELECT blob FROM snapshots",
        // The other branch's version of a node a merge found changed on
        // both sides, until its merge proposal is decided.
        "SELECT theirs_blob FROM merge_conflicts",
    ] {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            out.insert(r.get::<_, String>(0)?);
        }
    }
    Ok(out)
}

fn missing_blobs(layout: &Layout, referenced: &HashSet<String>) -> Check {
    let objects = crate::store::Objects::new(layout.objects());
    let missing = referenced.iter().filter(|h| !objects.exists(h)).count();
    if missing == 0 {
        check(
            "blobs present",
            Outcome::Ok,
            format!("{} referenced, all present", referenced.len()),
        )
    } else {
        check(
            "blobs present",
            Outcome::Finding,
            format!("{missing} of {} referenced blobs are missing", referenced.len()),
        )
    }
}

/// Blob files still flat (a store made before the fan-out): no finding
/// (they are read as they are), but said, with what moves them.
fn blob_layout(layout: &Layout, listed: &[Listed]) -> Check {
    let census = Census::of(&layout.objects(), listed);
    let (blobs, flat) = (census.blobs, census.flat);
    let planted: Vec<String> = census.planted.iter().map(|p| p.display().to_string()).collect();
    if !planted.is_empty() {
        return check(
            "blob layout",
            Outcome::Finding,
            format!(
                "{} is not a directory of its own (a link or a file planted under a fan-out name): blobs \
                 written through it would leave .gpp/objects and what git commits; writes refuse it; remove it",
                planted.join(", ")
            ),
        );
    }
    if flat == 0 {
        check(
            "blob layout",
            Outcome::Ok,
            format!("{blobs} blob file(s), fanned out in objects/XX/ (at most 256 directories)"),
        )
    } else {
        check(
            "blob layout",
            Outcome::Ok,
            format!(
                "{flat} of {blobs} blob file(s) are still flat in objects/ (a store made before the fan-out); \
                 they are read as they are, and the next write or `graphex migrate` moves them to objects/XX/"
            ),
        )
    }
}

/// Decrypts the current version of every node this session reads.
fn decrypt_all(store: &Store, conn: &Connection) -> Result<Check> {
    let mut stmt = conn.prepare("SELECT id, tier FROM nodes")?;
    let mut rows = stmt.query([])?;
    let (mut ok, mut failed, mut first) = (0usize, 0usize, None);
    while let Some(r) = rows.next()? {
        let code: i64 = r.get(1)?;
        if !Tier::from_code(code).is_some_and(|t| store.keys().reads(t)) {
            continue;
        }
        let bytes: Vec<u8> = r.get(0)?;
        let Ok(uuid) = uuid::Uuid::from_slice(&bytes) else {
            failed += 1;
            continue;
        };
        match store.node_by_id(&crate::model::NodeId(uuid)) {
            Ok(_) => ok += 1,
            Err(e) => {
                failed += 1;
                first.get_or_insert_with(|| e.to_string());
            }
        }
    }
    Ok(if failed == 0 {
        check(
            "blobs decrypt",
            Outcome::Ok,
            format!("{ok} readable nodes decrypt and match the index"),
        )
    } else {
        check(
            "blobs decrypt",
            Outcome::Finding,
            format!("{failed} node(s) fail: {}", first.unwrap_or_default()),
        )
    })
}

/// Each tier key's version, and what an interrupted rotation left: a
/// rotation that committed but whose key files are not in place (the
/// store's next open at a writable checkout finishes it), or staged files
/// of one that never committed (harmless; removed with `collect`, which
/// the caller passes only while it holds the rotation lock).
fn key_rotation(layout: &Layout, collect: bool) -> Result<Check> {
    let paths = layout.keys();
    // Its own view, after the open above (which finishes a committed
    // rotation): the other checks' view is older.
    let conn = &Connection::open_with_flags(layout.db(), OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    crate::store::forbid_code(conn)?;
    conn.busy_timeout(Duration::from_secs(10))?;
    let versions = Tier::ALL
        .into_iter()
        .map(|t| Ok(format!("{t} v{}", crate::store::key_version(conn, t)?)))
        .collect::<Result<Vec<_>>>()?
        .join(", ");
    if let Some((tier, _)) = crate::store::rotation_marker(conn)?
        && (paths.staged(tier).exists() || paths.auth_staged().exists())
    {
        return Ok(check(
            "key rotation",
            Outcome::Finding,
            format!(
                "the {tier} key's rotation committed but its key files are not in place yet: open the store                  where keys/ is writable (any command) to finish it; key versions: {versions}"
            ),
        ));
    }
    let staged = crate::keys::staged_files(&paths);
    if staged.is_empty() {
        return Ok(check("key rotation", Outcome::Ok, format!("key versions: {versions}")));
    }
    let names = staged
        .iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join(", ");
    if collect {
        // The caller holds the rotation lock: no rotation is under way.
        if crate::store::rotation_marker(conn)?.is_none() {
            crate::keys::rotation::discard(&paths)?;
            return Ok(check(
                "key rotation",
                Outcome::Ok,
                format!("removed {names}, left by a rotation that never committed; key versions: {versions}"),
            ));
        }
    }
    Ok(check(
        "key rotation",
        Outcome::Finding,
        format!(
            "{names} left by a rotation that never committed (or one under way): never used; \
             `graphex keys rotate` or `graphex doctor --collect-orphans` removes them; key versions: {versions}"
        ),
    ))
}

/// Per tier key: the sealings it has made (data-key wraps, index records,
/// snapshots, audit records, decisions), as counted at each commit, against
/// [`ROTATE_AFTER`]. A store made before counting began gets a lower bound
/// from its rows.
fn nonce_budget(conn: &Connection) -> Result<Check> {
    if let Some(counts) = crate::store::sealings(conn)? {
        return Ok(budget_check(counts, "counted"));
    }
    let mut counts = [0u64; 4];
    for sql in [
        "SELECT tier, COUNT(*) FROM node_versions GROUP BY tier",
        "SELECT tier, COUNT(*) FROM nodes GROUP BY tier",
        "SELECT tier, COUNT(*) FROM edges GROUP BY tier",
    ] {
        let mut stmt = conn.prepare(sql)?;
        let mut rows = stmt.query([])?;
        while let Some(r) = rows.next()? {
            let (tier, n): (i64, i64) = (r.get(0)?, r.get(1)?);
            if let Some(t) = Tier::from_code(tier) {
                counts[t.code() as usize] += u64::try_from(n).unwrap_or(0);
            }
        }
    }
    Ok(budget_check(counts, "at least (estimated from the rows)"))
}

fn budget_check(counts: [u64; 4], how: &str) -> Check {
    let worst = Tier::ALL
        .into_iter()
        .max_by_key(|t| counts[t.code() as usize])
        .unwrap_or(Tier::Public);
    let n = counts[worst.code() as usize];
    let detail = format!(
        "{how}: {n} sealings under the current {worst} key, {:.4}% of the {} after which a rotation is due \
         (`graphex keys rotate --tier {worst}`)",
        n as f64 * 100.0 / ROTATE_AFTER as f64,
        ROTATE_AFTER
    );
    let outcome = if n >= ROTATE_AFTER {
        Outcome::Finding
    } else {
        Outcome::Ok
    };
    check("nonce budget", outcome, detail)
}
