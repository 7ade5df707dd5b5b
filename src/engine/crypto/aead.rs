//! AES-256-GCM with random 96-bit nonces and caller-supplied associated data.
//! Sealed layout: `nonce (12) || ciphertext || tag (16)`.

use aes_gcm::aead::{Aead, AeadInOut, KeyInit, Payload};
use aes_gcm::{Aes256Gcm, Nonce};

use super::secret::{SymmetricKey, fill_random};
use crate::error::Result;

/// Nonce length of AES-GCM.
pub const NONCE_LEN: usize = 12;
/// Tag length of AES-GCM.
pub const TAG_LEN: usize = 16;

/// Authentication failed: wrong key, wrong associated data, or altered bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenFailed;

/// An AES-256-GCM cipher with its key schedule expanded once.
pub struct Sealer {
    cipher: Aes256Gcm,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Sealer(<redacted>)")
    }
}

impl Sealer {
    /// Prepares a cipher for `key`.
    pub fn new(key: &SymmetricKey) -> Self {
        Self {
            cipher: Aes256Gcm::new(key.expose().into()),
        }
    }

    /// Encrypts `plaintext`, binding `ad`. Returns nonce, ciphertext and tag.
    pub fn seal(&self, ad: &[u8], plaintext: &[u8]) -> Result<Vec<u8>> {
        // Sized for the tag too: the plaintext is encrypted where it is
        // copied, never left in a buffer given back on growth.
        let mut out = Vec::with_capacity(NONCE_LEN + plaintext.len() + TAG_LEN);
        out.resize(NONCE_LEN, 0);
        out.extend_from_slice(plaintext);
        self.seal_in_place(ad, &mut out, 0)?;
        Ok(out)
    }

    /// [`Sealer::seal`] without a second buffer: `buf` holds `at` bytes of
    /// the caller's, then room for the nonce, then the plaintext, which is
    /// encrypted where it lies; the nonce goes in its room and the tag is
    /// appended. `buf[at..]` is then exactly what `seal` returns.
    pub fn seal_in_place(&self, ad: &[u8], buf: &mut Vec<u8>, at: usize) -> Result<()> {
        let start = at + NONCE_LEN;
        if buf.len() < start {
            return Err(crate::error::Error::integrity("encryption", "no room for the nonce"));
        }
        let mut nonce = [0u8; NONCE_LEN];
        fill_random(&mut nonce)?;
        let tag = self
            .cipher
            .encrypt_inout_detached(&Nonce::from(nonce), ad, buf[start..].as_mut().into())
            .map_err(|_| crate::error::Error::integrity("encryption", "plaintext too long for AES-GCM"))?;
        buf[at..start].copy_from_slice(&nonce);
        buf.extend_from_slice(&tag);
        Ok(())
    }

    /// Decrypts what [`Sealer::seal`] produced with the same `ad`.
    pub fn open(&self, ad: &[u8], sealed: &[u8]) -> Result<Vec<u8>, OpenFailed> {
        if sealed.len() < NONCE_LEN + TAG_LEN {
            return Err(OpenFailed);
        }
        let (nonce, ct) = sealed.split_at(NONCE_LEN);
        let nonce: [u8; NONCE_LEN] = nonce.try_into().map_err(|_| OpenFailed)?;
        self.cipher
            .decrypt(&Nonce::from(nonce), Payload { msg: ct, aad: ad })
            .map_err(|_| OpenFailed)
    }

    /// [`Sealer::open`] without a second buffer: the plaintext is decrypted
    /// over the ciphertext and returned as that part of `sealed`. After a
    /// failure `sealed` may hold unauthenticated bytes: the caller wipes it
    /// either way, as it wipes the plaintext.
    pub fn open_in_place<'a>(&self, ad: &[u8], sealed: &'a mut [u8]) -> Result<&'a [u8], OpenFailed> {
        if sealed.len() < NONCE_LEN + TAG_LEN {
            return Err(OpenFailed);
        }
        let (nonce, rest) = sealed.split_at_mut(NONCE_LEN);
        let (ct, tag) = rest.split_at_mut(rest.len() - TAG_LEN);
        let nonce: [u8; NONCE_LEN] = (&*nonce).try_into().map_err(|_| OpenFailed)?;
        let tag: [u8; TAG_LEN] = (&*tag).try_into().map_err(|_| OpenFailed)?;
        self.cipher
            .decrypt_inout_detached(&Nonce::from(nonce), ad, ct.into(), &tag.into())
            .map_err(|_| OpenFailed)?;
        Ok(ct)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealing_in_place_gives_what_seal_gives() {
        let key = SymmetricKey::random().unwrap();
        let s = Sealer::new(&key);
        let mut buf = vec![9u8; 1 + NONCE_LEN];
        buf.extend_from_slice(b"hello in place");
        s.seal_in_place(b"ad", &mut buf, 1).unwrap();
        assert_eq!(buf[0], 9, "the caller's bytes are left");
        assert_eq!(buf.len(), 1 + NONCE_LEN + 14 + TAG_LEN);
        assert_eq!(s.open(b"ad", &buf[1..]).unwrap(), b"hello in place");
        assert_eq!(s.open(b"other", &buf[1..]), Err(OpenFailed));
        assert!(s.seal_in_place(b"ad", &mut vec![0u8; NONCE_LEN - 1], 0).is_err());
    }

    #[test]
    fn round_trip_and_binding() {
        let key = SymmetricKey::random().unwrap();
        let s = Sealer::new(&key);
        let sealed = s.seal(b"ad", b"hello").unwrap();
        assert_eq!(s.open(b"ad", &sealed).unwrap(), b"hello");
        assert_eq!(s.open(b"other", &sealed), Err(OpenFailed));
        let mut flipped = sealed.clone();
        flipped[NONCE_LEN] ^= 1;
        assert_eq!(s.open(b"ad", &flipped), Err(OpenFailed));
        assert_eq!(s.open(b"ad", &sealed[..10]), Err(OpenFailed));
        let other = Sealer::new(&SymmetricKey::random().unwrap());
        assert_eq!(other.open(b"ad", &sealed), Err(OpenFailed));
    }

    #[test]
    fn opening_in_place_accepts_and_refuses_what_open_does() {
        let key = SymmetricKey::random().unwrap();
        let s = Sealer::new(&key);
        let sealed = s.seal(b"ad", b"hello in place").unwrap();
        let mut buf = sealed.clone();
        assert_eq!(s.open_in_place(b"ad", &mut buf).unwrap(), b"hello in place");
        assert_eq!(s.open_in_place(b"other", &mut sealed.clone()), Err(OpenFailed));
        let mut flipped = sealed.clone();
        flipped[NONCE_LEN + 3] ^= 1;
        assert_eq!(s.open_in_place(b"ad", &mut flipped), Err(OpenFailed));
        let mut tag_flipped = sealed.clone();
        *tag_flipped.last_mut().unwrap() ^= 1;
        assert_eq!(s.open_in_place(b"ad", &mut tag_flipped), Err(OpenFailed));
        assert_eq!(
            s.open_in_place(b"ad", &mut sealed[..NONCE_LEN + TAG_LEN - 1].to_vec()),
            Err(OpenFailed)
        );
        let mut empty = s.seal(b"ad", b"").unwrap();
        assert_eq!(s.open_in_place(b"ad", &mut empty).unwrap(), b"");
    }
}
