//! Reusable ratatui widgets fed plain view models; they never import app or
//! engine types.
