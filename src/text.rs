//! Text helpers shared by the pure stages: case and accent folding, masking of quoted and fenced
//! text, sentence splitting and word tokenisation.
//!
//! Everything here is a total function over `&str`; no I/O, no allocation beyond the returned value.

use std::borrow::Cow;

use crate::packed::{Table, count_words};

/// `text` in Unicode's composed form (NFC), the form most keyboards type: a decomposed letter
/// (`e` + U+0300 COMBINING GRAVE, as macOS file names and some pasted text carry) is then the
/// same letter as the precomposed `è`, so every stage after it reads one spelling. Borrowed when
/// the text is composed already (all ASCII text is), checked in one pass.
pub fn nfc(text: &str) -> Cow<'_, str> {
    use unicode_normalization::{IsNormalized, UnicodeNormalization, is_nfc_quick};
    match is_nfc_quick(text.chars()) {
        IsNormalized::Yes => Cow::Borrowed(text),
        IsNormalized::No | IsNormalized::Maybe => Cow::Owned(text.nfc().collect()),
    }
}

/// Lower-cases `text` and folds the accents of Latin letters (`è` → `e`, `ç` → `c`), and the
/// typographic apostrophes to `'`, so that Italian and English matching works on plain ASCII
/// spellings. Characters outside those ranges are lower-cased and kept.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in nfc(text).chars() {
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
        assert_eq!(
            fold("ÀÁÂÃÄÅàáâãäå ÈÉÊËèéêë ÌÍÎÏìíîï ÒÓÔÕÖòóôõö ÙÚÛÜùúûü Çç Ññ ’‘`´"),
            "aaaaaaaaaaaa eeeeeeee iiiiiiii oooooooooo uuuuuuuu cc nn ''''"
        );
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
        // Every character of a fenced line becomes a space, its line break stays.
        assert_eq!(
            mask_fenced("a\n~~~ sh\nrm x\n~~~\nb\n"),
            "a\n      \n    \n   \nb\n"
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
        // A quote over two lines keeps its line break.
        assert_eq!(mask_quoted("say \"a\nb\" now"), "say   \n   now");
    }

    #[test]
    fn sentences_keep_terminators() {
        let got: Vec<_> = sentences("Ciao. Come stai?\nBene").collect();
        assert_eq!(got, ["Ciao.", "Come stai?", "Bene"]);
    }

    #[test]
    fn prefix_respects_char_boundaries() {
        assert_eq!(prefix("aé", 2), "a");
        assert_eq!(prefix("abc", 10), "abc");
        assert_eq!(routing_window(&"x".repeat(100_000)).len(), 64 * 1024);
    }

    #[test]
    fn words_split_on_punctuation() {
        let got: Vec<_> = words("l'agente, città-stato").collect();
        assert_eq!(got, ["l", "agente", "città", "stato"]);
    }
}

/// Intent detection, skill scoring and the agent policy read only the first 64 KiB of the
/// stripped prompt: the request is at the start, pasted logs and code come after, and the cost of
/// a hook run must stay flat as prompts grow to megabytes.
pub const ROUTING_WINDOW_BYTES: usize = 64 * 1024;

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn prefix(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The part of a prompt that routing reads (see [`ROUTING_WINDOW_BYTES`]).
pub fn routing_window(text: &str) -> &str {
    prefix(text, ROUTING_WINDOW_BYTES)
}

/// Folded words that negate what follows in the same clause ("non usare…", "don't use…"; the
/// apostrophe splits "don't" into "don" and "t").
pub static NEGATIONS: Table<{ count_words(NEGATIONS_TEXT) }> =
    Table::words(NEGATIONS_TEXT).sorted();
const NEGATIONS_TEXT: &str = "\
    avoid cannot doesn don dont evita evitare mai mustn ne neither nessun nessuno never niente
    no non nor not senza shouldn stop without won";

/// Openings (folded first words) that make a sentence a question or a request for an explanation
/// ("spiegami…", "cos'è…", "how do…"), Italian and English.
static QUESTION_LEADS: Table<{ count_words(QUESTION_LEADS_TEXT) }> =
    Table::words(QUESTION_LEADS_TEXT).sorted();
const QUESTION_LEADS_TEXT: &str = "\
    are chi come conviene cos cosa describe descrivi difference differenza dimmi do does
    explain how is parlami perche qual quale quali quando shall should spiega spiegami tell
    what when which who why";

/// "can you …", "puoi …", "please …": a request phrased as a question.
pub fn is_polite_request(words: &[&str]) -> bool {
    matches!(words, ["can" | "could" | "would" | "will", "you", ..])
        || matches!(
            words.first(),
            Some(&("puoi" | "potresti" | "riesci" | "vorrei" | "voglio" | "please"))
        )
}

/// True when the (folded) words open a question or an explanation request, and not a polite
/// request.
pub fn is_question_lead(words: &[&str]) -> bool {
    words.first().is_some_and(|w| QUESTION_LEADS.contains(w)) && !is_polite_request(words)
}

/// Italian and English stop words (folded), dropped before skill scoring. Sorted (one table
/// for both languages: `chi`, `come`, `me`, `no` are words of both).
static STOP_WORDS: Table<{ count_words(STOP_WORDS_TEXT) }> = Table::words(STOP_WORDS_TEXT).sorted();
const STOP_WORDS_TEXT: &str = "\
    a about ad adesso after agli ai aiutami aiuto al all alla alle allo also altra altro an
    anche ancora and any are as at be been before bene but by c can che chi ci ciao come con
    cosa cosi could cui da dagli dai dal dalla dalle dammi degli dei del dell della delle dello
    di did dimmi do does domani don dove e e' ed era essere fai fammi fare favore for fra from
    get gia give gli grazie ha had hanno has have he hello help her here hi him his ho how i
    ieri if il im in into io is it its just l la le lei let li like lo loro lui ma mai make me
    mi mia mie miei mio molto more my ne need negli nei nel nella nelle nello no noi non nostra
    nostro not now o of oggi ogni ok on one or ora our out over per perche piu please po poi
    potresti puoi qualche qualcosa quale quali quando quanto quel quella quelle quelli quello
    questa queste questi questo qui riesci s se sempre she should show si sia so solo some sono
    su sua sue sul sulla sulle suo suoi t tell than thank thanks that the their them then there
    these they this those ti to too tra tu tua tue tuo tuoi tutte tutti tutto un una uno up us
    usa use using va very vi voglio voi vorrei want was we were what when where which while who
    why will with would you your yours";

/// The rest of NLTK's English stop-word list (function words: pronouns, prepositions,
/// quantifiers, contractions), also dropped; but `down` and `off`, particles of the phrasal verbs
/// that keyword phrases spell (`hand-off`, `break down`).
static MORE_STOP_WORDS: Table<{ count_words(MORE_STOP_WORDS_TEXT) }> =
    Table::words(MORE_STOP_WORDS_TEXT).sorted();
const MORE_STOP_WORDS_TEXT: &str = "\
    above again against ain am aren because being below between both couldn didn doesn doing
    during each few further hadn hasn haven having hers herself himself isn itself ll mightn
    most mustn myself needn nor once only other ours ourselves own re same shan shouldn such
    theirs themselves through under until ve wasn weren whom won wouldn yourself yourselves";

/// True for a folded word that carries no meaning for routing.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.contains(word) || MORE_STOP_WORDS.contains(word)
}

/// Light stemming for Italian and English: English plural and verb endings, then a final Italian
/// vowel, then at most seven characters, so `queries`/`query`, `tabella`/`tabelle`,
/// `documentazione`/`documents` meet. Words with digits (`topic49`, `utf8`) are identifiers and
/// are kept whole. Input must be folded.
pub fn stem(word: &str) -> String {
    if word.chars().any(|c| c.is_ascii_digit()) {
        return word.to_owned();
    }
    let mut w = word;
    let owned;
    if let Some(base) = w.strip_suffix("ies").filter(|b| b.len() >= 3) {
        owned = format!("{base}y");
        w = &owned;
    } else if let Some(base) = w.strip_suffix("ing").filter(|b| b.len() >= 4) {
        // `committing` meets `commit`, `planning` `plan`: a doubled final consonant is
        // undoubled (not l, s, z: `installing`, `passing`).
        let b = base.as_bytes();
        let n = b.len();
        w = if b[n - 1] == b[n - 2]
            && !matches!(
                b[n - 1],
                b'a' | b'e' | b'i' | b'o' | b'u' | b'l' | b's' | b'z'
            ) {
            &base[..n - 1]
        } else {
            base
        };
    } else if let Some(base) = w
        .strip_suffix('s')
        .filter(|b| b.len() >= 3 && !b.ends_with('s'))
    {
        w = base;
    }
    if w.len() > 3 && w.ends_with(['a', 'e', 'i', 'o']) {
        w = &w[..w.len() - 1];
    }
    w.chars().take(7).collect()
}

/// The routing terms of a text: folded words without stop words, numbers or single letters,
/// stemmed, in order.
pub fn terms(text: &str) -> Vec<String> {
    routing_words(&fold(text)).map(stem).collect()
}

/// The words of folded text that count for routing: no stop words, numbers or single letters.
pub fn routing_words(folded: &str) -> impl Iterator<Item = &str> {
    words(folded).filter(|w| {
        w.chars().count() > 1 && !w.chars().all(|c| c.is_ascii_digit()) && !is_stop_word(w)
    })
}

#[cfg(test)]
mod stem_tests {
    use super::*;

    type Contains<'a> = &'a dyn Fn(&str) -> bool;

    /// Every word of the word tables, read from their text the plain way
    /// (`split_ascii_whitespace`), is found through the packed tables' binary search, and a
    /// word next to it is not (unless it is a word of the table too).
    #[test]
    fn packed_word_tables_round_trip_every_word() {
        let tables: [(&str, Contains); 4] = [
            (NEGATIONS_TEXT, &|w| NEGATIONS.contains(w)),
            (QUESTION_LEADS_TEXT, &|w| QUESTION_LEADS.contains(w)),
            (STOP_WORDS_TEXT, &|w| STOP_WORDS.contains(w)),
            (MORE_STOP_WORDS_TEXT, &|w| MORE_STOP_WORDS.contains(w)),
        ];
        for (text, contains) in tables {
            let words: Vec<&str> = text.split_ascii_whitespace().collect();
            for w in &words {
                assert!(contains(w), "{w}");
                for near in [format!("{w}~"), format!("{w}a"), w[1..].to_owned()] {
                    assert_eq!(contains(&near), words.contains(&near.as_str()), "{near}");
                }
            }
        }
    }

    #[test]
    fn function_words_are_stop_words_and_phrasal_particles_are_not() {
        for w in [
            "through", "only", "each", "other", "same", "between", "itself", "doesn",
        ] {
            assert!(is_stop_word(w), "{w}");
        }
        for w in ["down", "off", "page", "review"] {
            assert!(!is_stop_word(w), "{w}");
        }
        assert_eq!(terms("Go through the docs only once"), ["go", "doc"]);
    }

    #[test]
    fn stems_meet_across_inflections() {
        let pairs = [
            ("queries", "query"),
            ("tabella", "tabelle"),
            ("documentazione", "documents"),
            ("database", "databases"),
            ("screenshot", "screenshots"),
            ("files", "file"),
            ("logs", "log"),
            ("indice", "indici"),
            // A doubled consonant before -ing is undoubled.
            ("committing", "commits"),
            ("debugging", "debug"),
            ("planning", "plans"),
            ("logging", "log"),
        ];
        for (a, b) in pairs {
            assert_eq!(stem(a), stem(b), "{a} / {b}");
        }
        // l, s and z stay doubled: `installing` is `install`, not `instal`.
        assert_eq!(stem("installing"), "install");
        assert_eq!(stem("passing"), stem("pass"));
        assert_eq!(stem("buzzing"), "buzz");
        assert_ne!(stem("log"), stem("login"));
        assert_ne!(stem("class"), stem("cla"));
        assert_ne!(stem("topic499"), stem("topic49"));
    }

    #[test]
    fn terms_drop_stop_words_numbers_and_fold() {
        assert_eq!(
            terms("Esegui la QUERY sulle tabelle 123 e poi"),
            ["esegu", "query", "tabell"]
        );
        assert_eq!(terms("plot x y z"), ["plot"], "single letters are dropped");
    }
}
