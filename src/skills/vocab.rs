//! A general bilingual vocabulary for skill routing: Italian software and office words, file
//! extensions and a few English synonyms, each with the English words it also stands for, so an
//! Italian prompt ("converti il foglio di calcolo in una presentazione") meets English skill
//! descriptions ("spreadsheet", "slides"). General on purpose: it names no skill and no catalog.
//! Keys and values are stems (`crate::text::stem` of the words), so inflections meet.
//! Pure data and one lookup.

/// Three-letter file extensions of the table, which are keys as written.
const EXTENSIONS: &[&str] = &[
    "csv", "gif", "htm", "jpg", "mov", "mp3", "mp4", "png", "ppt", "svg", "wav", "xls", "yml",
];

/// The English stems a prompt word (folded) with stem `stem` also stands for (empty when it has
/// none). A short stem (`sit` of `sito`) also needs an Italian-looking word, one that ends with
/// a vowel, unless the word is an extension (`py`, `csv`), so English `sit` is not read as
/// `sito`.
pub fn expansions(word: &str, stem: &str) -> &'static [&'static str] {
    let italian = word.ends_with(['a', 'e', 'i', 'o', 'u']);
    if stem.len() <= 3 && !italian && word.len() > 2 && !EXTENSIONS.contains(&word) {
        return &[];
    }
    VOCABULARY
        .binary_search_by(|(key, _)| (*key).cmp(stem))
        .map_or(&[], |i| VOCABULARY[i].1)
}

/// (stem of the prompt word, English stems it also stands for), sorted by key.
#[rustfmt::skip]
pub static VOCABULARY: &[(&str, &[&str])] = &[
    ("abbonam", &["subscri"]),
    ("access", &["login", "auth"]),
    ("addestr", &["train"]),
    ("aggiorn", &["updat"]),
    ("allarm", &["alert"]),
    ("ambient", &["environ"]),
    ("analis", &["analyz", "analys"]),
    ("analizz", &["analyz", "analys"]),
    ("animazi", &["animati"]),
    ("annunci", &["announc"]),
    ("applica", &["app"]),
    ("apprend", &["learn"]),
    ("appunt", &["not"]),
    ("archivi", &["archiv"]),
    ("articol", &["articl", "post"]),
    ("attivit", &["task", "activit"]),
    ("autenti", &["authent", "auth"]),
    ("automaz", &["automat"]),
    ("avvis", &["alert"]),
    ("bilanci", &["budget", "financi"]),
    ("botton", &["button"]),
    ("calcol", &["spreads", "calcula"]),
    ("campagn", &["campaig"]),
    ("cancell", &["delet", "remov"]),
    ("capir", &["underst"]),
    ("capisc", &["underst"]),
    ("capisci", &["underst"]),
    ("caratte", &["font", "charact"]),
    ("cartell", &["folder", "directo"]),
    ("cerc", &["search", "find", "researc"]),
    ("cercar", &["search", "find", "researc"]),
    ("chiav", &["key"]),
    ("citazio", &["citatio"]),
    ("client", &["custome"]),
    ("codic", &["cod"]),
    ("collaud", &["test"]),
    ("colonn", &["column"]),
    ("color", &["colour"]),
    ("comand", &["command"]),
    ("compila", &["build", "compil"]),
    ("compit", &["task"]),
    ("concorr", &["competi"]),
    ("configu", &["config"]),
    ("consegn", &["handoff"]),
    ("conteni", &["contain"]),
    ("contrat", &["contrac"]),
    ("control", &["verify", "check", "validat"]),
    ("copertu", &["coverag"]),
    ("corregg", &["fix"]),
    ("correzi", &["fix"]),
    ("cre", &["creat"]),
    ("crear", &["creat"]),
    ("crittog", &["encrypt"]),
    ("csv", &["spreads", "dat"]),
    ("deck", &["slid", "present"]),
    ("diaposi", &["slid", "present"]),
    ("dipende", &["depende"]),
    ("disegn", &["draw", "design"]),
    ("disegna", &["draw", "design"]),
    ("distrib", &["deploy", "deploym"]),
    ("divider", &["split"]),
    ("documen", &["doc"]),
    ("docx", &["word", "documen"]),
    ("domand", &["questio"]),
    ("eccezio", &["excepti"]),
    ("elimin", &["delet", "remov"]),
    ("elimina", &["delet", "remov"]),
    ("error", &["bug"]),
    ("esperim", &["experim"]),
    ("estra", &["extract"]),
    ("estrarr", &["extract"]),
    ("excel", &["spreads"]),
    ("fattur", &["invoic"]),
    ("firm", &["signatu", "sign"]),
    ("firmar", &["signatu", "sign"]),
    ("fogl", &["spreads", "sheet"]),
    ("fogli", &["spreads", "sheet"]),
    ("font", &["sourc"]),
    ("fot", &["phot", "imag"]),
    ("fotogra", &["phot", "imag"]),
    ("funzion", &["functio"]),
    ("gif", &["imag"]),
    ("gioc", &["gam"]),
    ("graf", &["graph", "network"]),
    ("grafic", &["chart", "graph", "plot", "graphic", "design"]),
    ("htm", &["html", "web"]),
    ("html", &["web"]),
    ("immagin", &["imag", "pictur"]),
    ("indagar", &["investi", "debug"]),
    ("indiciz", &["index"]),
    ("interfa", &["ui"]),
    ("interro", &["query"]),
    ("ipynb", &["jupyter", "noteboo"]),
    ("iscritt", &["subscri", "signup"]),
    ("iscrizi", &["subscri", "signup"]),
    ("jpeg", &["imag"]),
    ("jpg", &["imag"]),
    ("js", &["javascr"]),
    ("lavor", &["work", "job"]),
    ("lent", &["slow", "perform"]),
    ("libr", &["book"]),
    ("libreri", &["library"]),
    ("licenz", &["licens"]),
    ("mancant", &["miss"]),
    ("manifes", &["poster"]),
    ("mapp", &["map"]),
    ("marchi", &["brand"]),
    ("memori", &["memory"]),
    ("messagg", &["messag"]),
    ("migrar", &["migrati", "migrat"]),
    ("migrazi", &["migrati", "migrat"]),
    ("misur", &["measur"]),
    ("misurar", &["measur"]),
    ("modell", &["model", "templat"]),
    ("modific", &["edit", "modify", "chang"]),
    ("modul", &["form"]),
    ("molecol", &["molecul"]),
    ("mov", &["vide"]),
    ("mp3", &["audi"]),
    ("mp4", &["vide"]),
    ("neural", &["network"]),
    ("orari", &["schedul"]),
    ("ottimiz", &["optimiz"]),
    ("pacchet", &["packag"]),
    ("pagamen", &["pay", "payment"]),
    ("pagar", &["pay", "payment"]),
    ("pagin", &["pag"]),
    ("permess", &["permiss"]),
    ("pian", &["plan", "plann"]),
    ("pianifi", &["plan", "plann"]),
    ("png", &["imag"]),
    ("powerpo", &["present", "slid"]),
    ("ppt", &["powerpo", "present", "slid"]),
    ("pptx", &["powerpo", "present", "slid"]),
    ("present", &["slid", "deck"]),
    ("prestaz", &["perform"]),
    ("prevent", &["quot", "estimat"]),
    ("previsi", &["predict", "forecas"]),
    ("prezz", &["pric"]),
    ("progett", &["design", "project"]),
    ("prov", &["test"]),
    ("pubblic", &["adverti", "ads", "publish"]),
    ("pulir", &["clean"]),
    ("pulizi", &["clean"]),
    ("pulsant", &["button"]),
    ("py", &["python"]),
    ("qualit", &["quality"]),
    ("ram", &["branch"]),
    ("rapport", &["report"]),
    ("recensi", &["review"]),
    ("registr", &["signup"]),
    ("relazio", &["report"]),
    ("reperib", &["call", "oncall"]),
    ("requisi", &["require", "spec"]),
    ("ret", &["network", "neural"]),
    ("revisio", &["review"]),
    ("riassum", &["summary", "summari"]),
    ("riassun", &["summary", "summari"]),
    ("ricerc", &["search", "find", "researc"]),
    ("rifatto", &["refacto"]),
    ("riferim", &["referen"]),
    ("rig", &["row"]),
    ("righ", &["row"]),
    ("rilasci", &["releas"]),
    ("riprist", &["restor", "recover"]),
    ("rispost", &["answer"]),
    ("ritorn", &["return"]),
    ("riunion", &["meet"]),
    ("rived", &["review"]),
    ("riveder", &["review"]),
    ("rs", &["rust"]),
    ("salvata", &["backup", "sav"]),
    ("scadenz", &["deadlin"]),
    ("scansio", &["crawl", "scan"]),
    ("scherm", &["screen", "screens"]),
    ("scherma", &["screen", "screens"]),
    ("scriv", &["writ"]),
    ("scriver", &["writ"]),
    ("segret", &["secret"]),
    ("sequenz", &["sequenc"]),
    ("seri", &["sery"]),
    ("sicurez", &["securit"]),
    ("sintes", &["summary", "summari"]),
    ("sistema", &["fix"]),
    ("sit", &["websit", "web"]),
    ("slid", &["present"]),
    ("specifi", &["spec"]),
    ("spreads", &["excel"]),
    ("stil", &["styl"]),
    ("struttu", &["structu"]),
    ("suon", &["sound", "audi"]),
    ("svg", &["vector", "imag"]),
    ("svilupp", &["develop"]),
    ("tabell", &["tabl"]),
    ("tem", &["them"]),
    ("termina", &["shell"]),
    ("testar", &["test"]),
    ("tf", &["terrafo"]),
    ("tradurr", &["transla"]),
    ("traduzi", &["transla"]),
    ("ts", &["typescr"]),
    ("tsx", &["typescr"]),
    ("turn", &["shift"]),
    ("unir", &["merg", "combin"]),
    ("utent", &["user"]),
    ("valor", &["valu"]),
    ("vendit", &["sal"]),
    ("verbal", &["minut", "not"]),
    ("verific", &["verify", "check", "validat"]),
    ("volanti", &["flyer", "poster"]),
    ("wav", &["audi"]),
    ("webp", &["imag"]),
    ("xls", &["excel", "spreads"]),
    ("xlsx", &["excel", "spreads"]),
    ("yaml", &["config"]),
    ("yml", &["yaml", "config"]),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::stem;

    #[test]
    fn table_is_sorted() {
        for pair in VOCABULARY.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} / {}", pair[0].0, pair[1].0);
        }
        for (key, values) in VOCABULARY {
            assert!(!values.is_empty() && !values.contains(key), "{key}");
        }
    }

    #[test]
    fn italian_words_meet_english_descriptions() {
        let has = |word: &str, english: &str| {
            expansions(word, &stem(word)).contains(&stem(english).as_str())
        };
        assert!(has("foglio", "spreadsheet"));
        assert!(has("presentazioni", "slides"));
        assert!(has("xlsx", "spreadsheet"));
        assert!(has("correggi", "fix"));
        assert!(has("sito", "website"));
        assert!(!has("sit", "website"), "English sit is not Italian sito");
        assert!(has("py", "python"));
        // Three-letter extensions are not English words: no vowel needed.
        assert!(has("csv", "spreadsheet"));
        assert!(has("png", "image"));
        assert!(expansions("zzz", "zzz").is_empty());
    }
}
