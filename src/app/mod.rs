//! The terminal console: terminal setup, events, actions, keymap, state,
//! update, the engine worker and the panes. Until it lands, running `graphex`
//! without a command prints the store's status.
