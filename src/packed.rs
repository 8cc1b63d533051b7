//! Static tables of strings without pointers: the entries written as one string, and their
//! byte offsets computed at compile time.
//!
//! A `&'static str` inside a static table (`&[&str]`, `&[(&str, &[&str])]`) is a pointer, and a
//! position-independent executable has the dynamic loader relocate every such pointer at every
//! start, whether the table is read or not: ~13 instructions and a write into a copy-on-write page
//! per pointer, on every prompt (docs/performance.md, "Where the time goes"). A [`Table`] holds
//! one pointer (its text) and `u16` offsets, so a table of a thousand strings costs one
//! relocation instead of a thousand or more.
//!
//! Entries are lines ([`Table::lines`]: `key value value…`, looked up by their first word) or
//! words separated by ASCII whitespace ([`Table::words`]). A table that [`Table::find`] or
//! [`Table::contains`] searches must be sorted by its first words; building one that is not
//! fails the build.

/// Entries of `text` and where each one starts and ends (byte offsets), `N` of them.
#[derive(Debug)]
pub struct Table<const N: usize> {
    text: &'static str,
    /// Per entry: where it starts, where its first word ends, where it ends.
    spans: [(u16, u16, u16); N],
}

/// One byte that ends an entry: a newline for lines, any ASCII whitespace for words.
const fn ends_entry(b: u8, lines: bool) -> bool {
    if lines {
        b == b'\n'
    } else {
        b.is_ascii_whitespace()
    }
}

/// The count of the non-empty entries of `text` and, when `N` is not 0, their spans (start, end
/// of the first word, end).
const fn scan<const N: usize>(text: &str, lines: bool) -> (usize, [(u16, u16, u16); N]) {
    let b = text.as_bytes();
    assert!(
        b.len() <= u16::MAX as usize,
        "a packed table's text is at most 64 KiB"
    );
    let mut spans = [(0u16, 0u16, 0u16); N];
    let mut n = 0;
    let mut i = 0;
    while i < b.len() {
        if ends_entry(b[i], lines) {
            i += 1;
            continue;
        }
        let start = i;
        let mut key_end = usize::MAX;
        while i < b.len() && !ends_entry(b[i], lines) {
            if b[i] == b' ' && key_end == usize::MAX {
                key_end = i;
            }
            i += 1;
        }
        if key_end == usize::MAX {
            key_end = i;
        }
        if N > 0 {
            spans[n] = (start as u16, key_end as u16, i as u16);
        }
        n += 1;
    }
    (n, spans)
}

/// How many lines `text` has (empty lines do not count): the `N` of [`Table::lines`].
pub const fn count_lines(text: &str) -> usize {
    scan::<0>(text, true).0
}

/// How many words `text` has, separated by ASCII whitespace: the `N` of [`Table::words`].
pub const fn count_words(text: &str) -> usize {
    scan::<0>(text, false).0
}

/// `a` before `b`, bytewise (the order of `str::cmp`), at compile time.
const fn less(a: &[u8], b: &[u8]) -> bool {
    let mut i = 0;
    while i < a.len() && i < b.len() {
        if a[i] != b[i] {
            return a[i] < b[i];
        }
        i += 1;
    }
    a.len() < b.len()
}

/// `b[start..end]`, at compile time.
const fn slice(b: &[u8], start: u16, end: u16) -> &[u8] {
    b.split_at(end as usize).0.split_at(start as usize).1
}

impl<const N: usize> Table<N> {
    /// A table of the lines of `text` (empty lines skipped). `N` is [`count_lines`] of `text`.
    pub const fn lines(text: &'static str) -> Table<N> {
        Table::build(text, true)
    }

    /// A table of the words of `text`, separated by ASCII whitespace. `N` is [`count_words`] of
    /// `text`.
    pub const fn words(text: &'static str) -> Table<N> {
        Table::build(text, false)
    }

    const fn build(text: &'static str, lines: bool) -> Table<N> {
        let (n, spans) = scan::<N>(text, lines);
        assert!(n == N, "a packed table's N is its count of entries");
        Table { text, spans }
    }

    /// The same table, checked at compile time to be sorted by first word with no key twice
    /// (so [`Table::find`] and [`Table::contains`] can binary-search it).
    pub const fn sorted(self) -> Table<N> {
        let b = self.text.as_bytes();
        let mut i = 1;
        while i < N {
            let (s0, k0, _) = self.spans[i - 1];
            let (s1, k1, _) = self.spans[i];
            assert!(
                less(slice(b, s0, k0), slice(b, s1, k1)),
                "a sorted packed table has its keys in strictly increasing order"
            );
            i += 1;
        }
        self
    }

    /// The number of entries.
    pub const fn len(&self) -> usize {
        N
    }

    /// True when the table has no entry.
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    /// Entry `i`.
    pub fn get(&self, i: usize) -> &'static str {
        let (start, _, end) = self.spans[i];
        &self.text[start as usize..end as usize]
    }

    /// The entries, in order.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        (0..N).map(|i| self.get(i))
    }

    /// The first word of entry `i` (the whole entry of a word table).
    fn key(&self, i: usize) -> &'static str {
        let (start, key_end, _) = self.spans[i];
        &self.text[start as usize..key_end as usize]
    }

    /// The rest of the entry whose first word is `key` (after the space; empty when the entry is
    /// the key alone), by binary search: the table must be [`Table::sorted`].
    pub fn find(&self, key: &str) -> Option<&'static str> {
        let mut lo = 0;
        let mut hi = N;
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.key(mid).cmp(key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => {
                    let (_, key_end, end) = self.spans[mid];
                    let rest = (key_end + 1).min(end);
                    return Some(&self.text[rest as usize..end as usize]);
                }
            }
        }
        None
    }

    /// True when an entry's first word is `key` (binary search: the table must be
    /// [`Table::sorted`]).
    pub fn contains(&self, key: &str) -> bool {
        self.find(key).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINES: &str = "
alpha one two
beta

gamma three
";
    static TABLE: Table<{ count_lines(LINES) }> = Table::lines(LINES).sorted();
    const WORDS: &str = "b a\n  c\tdd";
    static WORD_TABLE: Table<{ count_words(WORDS) }> = Table::words(WORDS);

    #[test]
    fn entries_are_the_lines_or_words_of_the_text() {
        // Expected values written out, not derived from the table.
        assert_eq!(TABLE.len(), 3);
        assert_eq!(
            TABLE.iter().collect::<Vec<_>>(),
            ["alpha one two", "beta", "gamma three"]
        );
        assert_eq!(WORD_TABLE.iter().collect::<Vec<_>>(), ["b", "a", "c", "dd"]);
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_words(" \n "), 0);
    }

    #[test]
    fn find_returns_the_rest_of_the_entry_by_its_first_word() {
        assert_eq!(TABLE.find("alpha"), Some("one two"));
        assert_eq!(TABLE.find("beta"), Some(""));
        assert_eq!(TABLE.find("gamma"), Some("three"));
        for missing in ["", "a", "alph", "alphaa", "one", "zeta", "gamma three"] {
            assert_eq!(TABLE.find(missing), None, "{missing}");
        }
        assert!(TABLE.contains("beta") && !TABLE.contains("bet"));
    }

    #[test]
    fn sorted_accepts_increasing_keys_only() {
        // `sorted` runs at compile time for the statics; the same checks at run time here.
        let ok = std::panic::catch_unwind(|| Table::<3>::words("a ab b").sorted());
        assert!(ok.is_ok());
        for bad in ["b a c", "a a b", "ab a b"] {
            let r = std::panic::catch_unwind(|| Table::<3>::words(bad).sorted());
            assert!(r.is_err(), "{bad}");
        }
        let r = std::panic::catch_unwind(|| Table::<2>::words("a b c"));
        assert!(r.is_err(), "a wrong N is refused");
    }
}
