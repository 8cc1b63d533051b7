// Generated from PHASE_CUES in src/stages/agents/policy.rs by
// `SOPHIA_UPDATE_DEFAULTS=1 cargo test --lib phase_cue_stems_are_in_sync`.
// Do not edit.

/// Per phase, the stems of its cue words, sorted (binary search).
#[rustfmt::skip]
pub static PHASE_CUE_STEMS: [(&str, &[&str]); 5] = [
    ("discovery", &["cerc", "cercar", "collect", "dov", "elenc", "elencar", "esplor", "explor", "find", "gather", "individ", "invento", "legg", "legger", "list", "localiz", "locat", "lookup", "mapp", "raccogl", "read", "recuper", "scan", "scansio", "search", "trov", "trovar", "wher"]),
    ("analysis", &["analis", "analizz", "analys", "analyz", "assess", "capir", "caus", "compar", "confron", "correl", "correla", "cronolo", "diagnos", "explain", "impact", "impatt", "investi", "perch", "riassum", "ricostr", "sinteti", "spieg", "spiegam", "summari", "timelin", "underst", "valut", "why"]),
    ("implementation", &["add", "aggiorn", "aggiung", "applic", "apply", "cambi", "chang", "corregg", "develop", "fix", "impleme", "migr", "migrat", "modific", "modify", "refacto", "renam", "resolv", "rifatto", "rinomin", "risolv", "sistem", "svilupp", "updat"]),
    ("review", &["audit", "check", "control", "diff", "review", "reviewe", "revisio", "revisor", "rived", "verific"]),
    ("test", &["checkli", "collaud", "copertu", "coverag", "e2e", "qa", "regress", "test", "testar"]),
];
