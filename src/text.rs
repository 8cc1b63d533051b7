//! Text helpers shared by the pure stages: case and accent folding, masking of quoted and fenced
//! text, sentence splitting and word tokenisation.
//!
//! Everything here is a total function over `&str`; no I/O, no allocation beyond the returned value.

/// Lower-cases `text` and folds the accents of Latin letters (`è` → `e`, `ç` → `c`), and the
/// typographic apostrophes to `'`, so that Italian and English matching works on plain ASCII
/// spellings. Characters outside those ranges are lower-cased and kept.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match fold_char(c) {
            Some(f) => out.push(f),
            None => out.extend(c.to_lowercase()),
        }
    }
    out
}

fn fold_char(c: char) -> Option<char> {
    Some(match c {
        'A'..='Z' => c.to_ascii_lowercase(),
        'a'..='z' | '0'..='9' => c,
        'à' | 'á' | 'â' | 'ã' | 'ä' | 'å' | 'À' | 'Á' | 'Â' | 'Ã' | 'Ä' | 'Å' => 'a',
        'è' | 'é' | 'ê' | 'ë' | 'È' | 'É' | 'Ê' | 'Ë' => 'e',
        'ì' | 'í' | 'î' | 'ï' | 'Ì' | 'Í' | 'Î' | 'Ï' => 'i',
        'ò' | 'ó' | 'ô' | 'õ' | 'ö' | 'Ò' | 'Ó' | 'Ô' | 'Õ' | 'Ö' => 'o',
        'ù' | 'ú' | 'û' | 'ü' | 'Ù' | 'Ú' | 'Û' | 'Ü' => 'u',
        'ç' | 'Ç' => 'c',
        'ñ' | 'Ñ' => 'n',
        '’' | '‘' | '`' | '´' => '\'',
        _ => return None,
    })
}

/// Replaces fenced code blocks (```` ``` ```` or `~~~`) with spaces, keeping line breaks, so
/// that pasted code never counts as an instruction.
pub fn mask_fenced(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_fence = false;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let is_fence = trimmed.starts_with("```") || trimmed.starts_with("~~~");
        if is_fence || in_fence {
            out.extend(line.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
        } else {
            out.push_str(line);
        }
        if is_fence {
            in_fence = !in_fence;
        }
    }
    out
}

/// Replaces everything that is quoted rather than said by the user: fenced code, inline code
/// (`` `…` ``), double quotes (`"…"`, `“…”`) and guillemets (`«…»`). Single quotes are left alone
/// because they are apostrophes in Italian (`l'agente`). An unclosed quote masks to the end,
/// which errs on the side of "not an instruction".
pub fn mask_quoted(text: &str) -> String {
    let fenced = mask_fenced(text);
    let mut out = String::with_capacity(fenced.len());
    let mut closer: Option<char> = None;
    for c in fenced.chars() {
        match closer {
            Some(end) => {
                if c == end {
                    closer = None;
                }
                out.push(if c == '\n' { '\n' } else { ' ' });
            }
            None => {
                closer = match c {
                    '`' => Some('`'),
                    '"' => Some('"'),
                    '“' => Some('”'),
                    '«' => Some('»'),
                    _ => None,
                };
                out.push(if closer.is_some() { ' ' } else { c });
            }
        }
    }
    out
}

/// Splits text into sentences at `.`, `!`, `?`, `;` and line breaks, keeping the terminator, so
/// a caller can tell a question (`…?`) from a statement.
pub fn sentences(text: &str) -> impl Iterator<Item = &str> {
    text.split_inclusive(['.', '!', '?', ';', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Unicode-aware words: maximal runs of alphanumeric characters (apostrophes and punctuation
/// split words, so `l'agente` gives `l` and `agente`).
pub fn words(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_lowercases_and_strips_accents() {
        assert_eq!(fold("Perché È Già così"), "perche e gia cosi");
        assert_eq!(fold("L’agente"), "l'agente");
        assert_eq!(fold("ΑΒΓ"), "αβγ");
    }

    #[test]
    fn mask_fenced_blanks_code_blocks_only() {
        let masked = mask_fenced("before\n```\nuse a subagent\n```\nafter");
        assert!(masked.starts_with("before\n"));
        assert!(masked.ends_with("after"));
        assert!(!masked.contains("subagent"));
        assert_eq!(
            masked.len(),
            "before\n```\nuse a subagent\n```\nafter".len()
        );
    }

    #[test]
    fn mask_quoted_blanks_quotes_and_inline_code() {
        let cases = [
            ("say \"use a subagent\" now", "subagent"),
            ("say `use a subagent` now", "subagent"),
            ("say “use a subagent” now", "subagent"),
            ("say «usa un subagent» now", "subagent"),
        ];
        for (input, hidden) in cases {
            let masked = mask_quoted(input);
            assert!(!masked.contains(hidden), "{input} -> {masked}");
            assert!(
                masked.starts_with("say ") && masked.ends_with(" now"),
                "{masked}"
            );
        }
        assert_eq!(mask_quoted("usa l'agente"), "usa l'agente");
    }

    #[test]
    fn sentences_keep_terminators() {
        let got: Vec<_> = sentences("Ciao. Come stai?\nBene").collect();
        assert_eq!(got, ["Ciao.", "Come stai?", "Bene"]);
    }

    #[test]
    fn words_split_on_punctuation() {
        let got: Vec<_> = words("l'agente, città-stato").collect();
        assert_eq!(got, ["l", "agente", "città", "stato"]);
    }
}
