//! Finding the store and unlocking it: `--store`, `$GRAPHEX_STORE`, or the
//! nearest parent holding `.gpp/graphex`; secrets from the environment, or
//! prompted without echo when a terminal is attached.

use std::cell::{RefCell, RefMut};
use std::io::IsTerminal;
use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::rc::Rc;

use anyhow::{Context as _, Result, bail};
use graphex_engine::age_secret::SecretString;
use graphex_engine::keys::{ENV_HUMAN_PASSPHRASE, ENV_PASSPHRASE};
use graphex_engine::store::Layout;
use graphex_engine::{Credentials, Level, Store};

use super::args::UnlockArg;

/// What a command needs from the session.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Need {
    /// Read whatever the credentials give (public at least).
    Read,
    /// [`Need::Read`] for a command that prints no description and no
    /// property (`status`, `path`, `neighbors`, the text of `query`): the
    /// store it opens itself decodes neither.
    Names,
    /// [`Need::Names`] for a command that prints no edge either (`status`):
    /// the store it opens itself decodes no edge (it still counts and
    /// verifies every edge row).
    NodeNames,
    /// Write: the master level.
    Write,
}

/// Global options every command sees.
#[derive(Debug, Clone)]
pub struct Context {
    pub store: Option<PathBuf>,
    pub json: bool,
    pub unlock: Option<UnlockArg>,
    /// The store an unlock session holds open, when the command runs in one.
    pub held: Option<Held>,
}

/// A store an unlock session holds open (verified, current) and lends to
/// each command it runs for a client.
#[derive(Clone)]
pub struct Held(pub Rc<RefCell<Store>>);

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held(..)")
    }
}

/// A store a command opened itself, or one an unlock session lent it.
pub enum Opened<'a> {
    Own(Box<Store>),
    Lent(RefMut<'a, Store>),
}

/// A command's own store goes when the command's process is about to end:
/// its catalog is left to the process's exit rather than freed object by
/// object (tens of milliseconds at 100k nodes; freeing wipes nothing).
impl Drop for Opened<'_> {
    fn drop(&mut self) {
        if let Opened::Own(s) = self {
            s.leave_catalog_to_exit();
        }
    }
}

impl Deref for Opened<'_> {
    type Target = Store;
    fn deref(&self) -> &Store {
        match self {
            Opened::Own(s) => s,
            Opened::Lent(s) => s,
        }
    }
}

impl DerefMut for Opened<'_> {
    fn deref_mut(&mut self) -> &mut Store {
        match self {
            Opened::Own(s) => s,
            Opened::Lent(s) => s,
        }
    }
}

impl Context {
    /// The repository root of the store to use.
    pub fn root(&self) -> Result<PathBuf> {
        if let Some(dir) = &self.store {
            if !Layout::new(dir).db().is_file() {
                bail!(
                    "no Graphex store at {} (expected {}); create one with `graphex init {}`",
                    dir.display(),
                    Layout::new(dir).db().display(),
                    dir.display()
                );
            }
            return Ok(dir.clone());
        }
        let cwd = std::env::current_dir().context("cannot read the working directory")?;
        match Layout::discover(&cwd) {
            Some(layout) => Ok(layout.root().to_path_buf()),
            None => bail!(
                "no Graphex store found in {} or its parents; pass --store DIR, set GRAPHEX_STORE, or create one with `graphex init`",
                cwd.display()
            ),
        }
    }

    /// Opens the store with the environment's credentials, prompting for what
    /// `need` and `--unlock` require when a terminal is attached.
    pub fn open(&self, need: Need) -> Result<Opened<'_>> {
        let Some(held) = &self.held else {
            return self
                .open_with_credentials(need)
                .map(|(store, _)| Opened::Own(Box::new(store)));
        };
        let store = held
            .0
            .try_borrow_mut()
            .context("the unlock session's store is in use")?;
        warn_rollback(&store);
        if need == Need::Write && store.level() < Level::Master {
            bail!("this needs the master key: set {ENV_PASSPHRASE} or GRAPHEX_IDENTITY");
        }
        Ok(Opened::Lent(store))
    }

    /// [`Context::open`], also returning the credentials it used (for
    /// commands that seal new key files with a passphrase).
    pub fn open_with_credentials(&self, need: Need) -> Result<(Store, Credentials)> {
        let (root, creds) = self.credentials(need)?;
        let store = match need {
            Need::Names => Store::open_names_only(&root, &creds)?,
            Need::NodeNames => Store::open_node_names(&root, &creds)?,
            Need::Read | Need::Write => Store::open(&root, &creds)?,
        };
        note_first_sight(&store);
        warn_rollback(&store);
        if need == Need::Write && store.level() < Level::Master {
            bail!("this needs the master key: set {ENV_PASSPHRASE} or GRAPHEX_IDENTITY");
        }
        Ok((store, creds))
    }

    /// The credentials a read asks for (prompting in a terminal only for
    /// what `--unlock` asks), for a command that opens stores of its own
    /// (`diff` opens two states).
    pub fn read_credentials(&self) -> Result<Credentials> {
        Ok(self.credentials(Need::Read)?.1)
    }

    /// Opens a store that has no master's seal yet, at the master level, for
    /// `graphex seal`.
    pub fn open_to_seal(&self) -> Result<(Store, Credentials)> {
        let (root, creds) = self.credentials(Need::Write)?;
        Ok((Store::open_to_seal(&root, &creds)?, creds))
    }

    /// Whether opening for `need` would prompt for a passphrase (the
    /// environment does not give what it needs, and no session holds the
    /// store).
    pub fn would_prompt(&self, need: Need) -> bool {
        if self.held.is_some() {
            return false;
        }
        let creds = Credentials::from_env();
        let want_master = need == Need::Write || self.unlock.is_some();
        (want_master && !creds.has_master())
            || (self.unlock == Some(UnlockArg::Human) && creds.human_passphrase.is_none())
    }

    /// The store's root and the credentials `need` asks for (prompting in a
    /// terminal for what the environment does not give).
    fn credentials(&self, need: Need) -> Result<(PathBuf, Credentials)> {
        let root = self.root()?;
        let mut creds = Credentials::from_env();
        let want_master = need == Need::Write || self.unlock.is_some();
        if want_master && !creds.has_master() {
            creds.passphrase = Some(prompt_secret(
                "Master passphrase: ",
                &format!("this needs the master key: set {ENV_PASSPHRASE} or GRAPHEX_IDENTITY, or run in a terminal"),
            )?);
        }
        if self.unlock == Some(UnlockArg::Human) && creds.human_passphrase.is_none() {
            creds.human_passphrase = Some(prompt_secret(
                "Human-only passphrase: ",
                &format!("the human level needs {ENV_HUMAN_PASSPHRASE}, or run in a terminal"),
            )?);
        }
        Ok((root, creds))
    }
}

/// Says on stderr what the first sight of a branch trusts (once: the open
/// that made its record).
pub fn note_first_sight(store: &Store) {
    if let Some(text) = store.freshness().and_then(graphex_engine::store::first_sight_text) {
        super::output::note(&text);
    }
}

/// Says on stderr that the store went back (it opened read-only).
pub fn warn_rollback(store: &Store) {
    if let Some(rb) = store.rolled_back() {
        super::output::note(&format!(
            "warning: {}",
            graphex_engine::store::rollback_text(store.layout().root(), rb)
        ));
    }
}

/// The environment's credentials with the master's, prompted for in a
/// terminal when the environment has none (`doing` says what for).
pub fn master_credentials(doing: &str) -> Result<Credentials> {
    let mut creds = Credentials::from_env();
    if !creds.has_master() {
        creds.passphrase = Some(prompt_secret(
            "Master passphrase: ",
            &format!("{doing} needs the master key: set {ENV_PASSPHRASE} or GRAPHEX_IDENTITY, or run in a terminal"),
        )?);
    }
    Ok(creds)
}

/// The console's starting credentials: the environment's, plus what
/// `--unlock` asks to be prompted for before the screen opens.
pub fn console_credentials(ctx: &Context) -> Result<Credentials> {
    let mut creds = Credentials::from_env();
    if ctx.unlock.is_some() && !creds.has_master() {
        creds.passphrase = Some(prompt_secret("Master passphrase: ", "no terminal to ask on")?);
    }
    if ctx.unlock == Some(UnlockArg::Human) && creds.human_passphrase.is_none() {
        creds.human_passphrase = Some(prompt_secret("Human-only passphrase: ", "no terminal to ask on")?);
    }
    Ok(creds)
}

/// True when a person can answer a prompt.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Prompts on the terminal without echo, or fails with `otherwise`.
pub fn prompt_secret(prompt: &str, otherwise: &str) -> Result<SecretString> {
    if !interactive() {
        bail!("{otherwise}");
    }
    let text = rpassword::prompt_password(prompt).context("cannot read the passphrase from the terminal")?;
    if text.is_empty() {
        bail!("empty passphrase");
    }
    Ok(SecretString::from(text))
}

/// Asks `question` on the terminal (stderr, an answer line from stdin):
/// true only for `y` or `yes`; no answer (end of input) is no.
pub fn confirm(question: &str) -> Result<bool> {
    use std::io::Write as _;
    let mut err = std::io::stderr();
    write!(err, "{question} [y/N] ").context("cannot write to the terminal")?;
    err.flush().context("cannot write to the terminal")?;
    let mut answer = String::new();
    std::io::stdin()
        .read_line(&mut answer)
        .context("cannot read the answer from the terminal")?;
    Ok(matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes"))
}

/// A new passphrase: from `env`, else prompted twice.
pub fn new_passphrase(env: &str, what: &str) -> Result<SecretString> {
    if let Ok(v) = std::env::var(env) {
        if v.is_empty() {
            bail!("{env} is set but empty");
        }
        return Ok(SecretString::from(v));
    }
    let first = prompt_secret(
        &format!("New {what}: "),
        &format!("set {env}, or run in a terminal to be asked"),
    )?;
    let second = prompt_secret(&format!("Repeat the {what}: "), "")?;
    if graphex_engine::age_secret::ExposeSecret::expose_secret(&first)
        != graphex_engine::age_secret::ExposeSecret::expose_secret(&second)
    {
        bail!("the two {what}s differ");
    }
    Ok(first)
}

/// `dir`, made absolute against the working directory.
pub fn absolute(dir: &Path) -> Result<PathBuf> {
    if dir.is_absolute() {
        return Ok(dir.to_path_buf());
    }
    Ok(std::env::current_dir()
        .context("cannot read the working directory")?
        .join(dir))
}
