//! SHA-256 fingerprints in the `sha256:<hex>` form used by the catalogs, indexes and manifests.
//! Pure.

use sha2::{Digest, Sha256};

/// `sha256:` followed by the lowercase hex digest of `data`.
pub fn sha256(data: &[u8]) -> String {
    let digest = Sha256::digest(data);
    let mut out = String::with_capacity(7 + 64);
    out.push_str("sha256:");
    for byte in digest.iter() {
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
    out
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// Canonical JSON: object keys sorted (by their UTF-8 bytes) at every level, no insignificant
/// whitespace, serde_json's escaping and number formatting. Independent of how the map type
/// orders keys.
pub fn canonical_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            out.push('{');
            for (i, (k, v)) in entries.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                write_canonical(v, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, v) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(v, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

#[cfg(test)]
mod tests {
    // Tests parse what the code under test printed.
    #![allow(clippy::disallowed_methods)]
    #[test]
    fn canonical_json_sorts_keys_at_every_level() {
        let v: serde_json::Value = serde_json::from_str(
            r#"{ "b": 1, "a": { "z": [ {"y": 2, "x": "é\n"} ], "c": null } }"#,
        )
        .unwrap();
        assert_eq!(
            super::canonical_json(&v),
            r#"{"a":{"c":null,"z":[{"x":"é\n","y":2}]},"b":1}"#
        );
    }

    #[test]
    fn known_digests() {
        assert_eq!(
            super::sha256(b""),
            "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(
            super::sha256(b"abc"),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}
