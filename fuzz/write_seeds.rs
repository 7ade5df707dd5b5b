//! Writes the seed corpora (`seeds/<target>/`) from the engine's real
//! encoders: `cargo run --bin write_seeds` in this folder.

fn main() -> std::io::Result<()> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds");
    for (i, (target, bytes)) in graphex_engine::fuzzing::seeds().into_iter().enumerate() {
        let at = dir.join(target);
        std::fs::create_dir_all(&at)?;
        std::fs::write(at.join(format!("encoder-{i}")), bytes)?;
    }
    println!("wrote seeds into {}", dir.display());
    Ok(())
}
