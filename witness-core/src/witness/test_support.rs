//! Test helpers shared by the witness readers' tests.

use proptest::sample::Index;

/// Applies random edits to a witness: overwrite a byte, delete one, insert one of the format's
/// special characters (`specials`, or the random byte itself), or truncate.
pub fn mutate(mut bytes: Vec<u8>, edits: &[(Index, u8, u8)], specials: &[u8]) -> Vec<u8> {
    for (ix, op, b) in edits {
        if bytes.is_empty() {
            break;
        }
        let i = ix.index(bytes.len());
        match op {
            0 => bytes[i] = *b,
            1 => {
                bytes.remove(i);
            }
            2 => {
                let k = *b as usize % (specials.len() + 1);
                bytes.insert(i, specials.get(k).copied().unwrap_or(*b));
            }
            _ => bytes.truncate(i),
        }
    }
    bytes
}
