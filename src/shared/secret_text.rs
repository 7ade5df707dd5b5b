//! A passphrase inside a message to the unlock session (`#[serde(with)]`):
//! it travels only towards the process that holds the keys, over the
//! owner's private socket, and is a `SecretString` again on arrival.

use graphex_engine::age_secret::{ExposeSecret as _, SecretString};
use serde::{Deserialize as _, Deserializer, Serializer};

/// Writes the passphrase's text.
pub fn serialize<S: Serializer>(secret: &SecretString, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(secret.expose_secret())
}

/// Reads it back into a secret.
pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<SecretString, D::Error> {
    String::deserialize(d).map(SecretString::from)
}
