//! A node row's blob name (the SHA-256 of its blob file) as stored: a store
//! at schema v11 keeps its 32 bytes, older ones its 64 hex digits. Every
//! reader reads it as text through [`BLOB_NAME`], so the tags, MACs and file
//! names built on it are the same either way.

use rusqlite::types::Value;

/// The `blob` column as the 64 hex digits of its name, whichever way the
/// row keeps it.
pub(crate) const BLOB_NAME: &str = "iif(typeof(blob) = 'blob', lower(hex(blob)), blob)";

/// `name` as a row of a store keeping names as bytes (`binary`: v11)
/// stores it; anything but a blob name is kept as text (and refused by the
/// checks, as before).
pub(crate) fn stored(binary: bool, name: &str) -> Value {
    match crate::crypto::unhex(name) {
        Some(bytes) if binary && bytes.len() == 32 && super::objects::is_blob_name(name) => Value::Blob(bytes),
        _ => Value::Text(name.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_reads_back_the_same_either_way() {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("CREATE TABLE t (blob TEXT NOT NULL)").unwrap();
        let name = crate::crypto::sha256_hex(b"a blob");
        for binary in [false, true] {
            conn.execute("INSERT INTO t VALUES (?1)", [stored(binary, &name)])
                .unwrap();
        }
        conn.execute("INSERT INTO t VALUES (?1)", [stored(true, "not-a-name")])
            .unwrap();
        let (kinds, names): (Vec<String>, Vec<String>) = conn
            .prepare(&format!("SELECT typeof(blob), {BLOB_NAME} FROM t"))
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .unzip();
        assert_eq!(kinds, ["text", "blob", "text"]);
        assert_eq!(names, [name.clone(), name, "not-a-name".to_string()]);
    }
}
