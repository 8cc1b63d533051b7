//! A general bilingual vocabulary for skill routing: Italian software and office words, file
//! extensions and a few English synonyms, each with the English words it also stands for, so an
//! Italian prompt ("converti il foglio di calcolo in una presentazione") meets English skill
//! descriptions ("spreadsheet", "slides"). General on purpose: it names no skill and no catalog.
//! Keys and values are stems (`crate::text::stem` of the words), so inflections meet.
//! Pure data and one lookup.

/// The English stems a prompt stem also stands for (empty when it has none).
pub fn expansions(stem: &str) -> &'static [&'static str] {
    VOCABULARY
        .binary_search_by(|(key, _)| (*key).cmp(stem))
        .map_or(&[], |i| VOCABULARY[i].1)
}

/// (stem of the prompt word, English stems it also stands for), sorted by key.
#[rustfmt::skip]
pub static VOCABULARY: &[(&str, &[&str])] = &[
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
    ("caratte", &["font", "charact"]),
    ("cartell", &["folder", "directo"]),
    ("cerc", &["search", "find", "researc"]),
    ("cercar", &["search", "find", "researc"]),
    ("chiav", &["key"]),
    ("citazio", &["citatio"]),
    ("client", &["custome"]),
    ("codic", &["cod"]),
    ("collaud", &["test"]),
    ("color", &["colour"]),
    ("comand", &["command"]),
    ("compila", &["build", "compil"]),
    ("compit", &["task"]),
    ("configu", &["config"]),
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
    ("grafic", &["chart", "graph", "plot", "graphic", "design"]),
    ("htm", &["html", "web"]),
    ("html", &["web"]),
    ("immagin", &["imag", "pictur"]),
    ("indagar", &["investi", "debug"]),
    ("interfa", &["ui"]),
    ("interro", &["query"]),
    ("ipynb", &["jupyter", "noteboo"]),
    ("jpeg", &["imag"]),
    ("jpg", &["imag"]),
    ("js", &["javascr"]),
    ("lavor", &["work", "job"]),
    ("lent", &["slow", "perform"]),
    ("libr", &["book"]),
    ("libreri", &["library"]),
    ("licenz", &["licens"]),
    ("manifes", &["poster"]),
    ("mapp", &["map"]),
    ("marchi", &["brand"]),
    ("memori", &["memory"]),
    ("messagg", &["messag"]),
    ("migrar", &["migrati", "migrat"]),
    ("migrazi", &["migrati", "migrat"]),
    ("modell", &["model", "templat"]),
    ("modific", &["edit", "modify", "chang"]),
    ("modul", &["form"]),
    ("mov", &["vide"]),
    ("mp3", &["audi"]),
    ("mp4", &["vide"]),
    ("orari", &["schedul"]),
    ("ottimiz", &["optimiz"]),
    ("pacchet", &["packag"]),
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
    ("progett", &["design", "project"]),
    ("prov", &["test"]),
    ("pubblic", &["adverti", "ads", "publish"]),
    ("pulsant", &["button"]),
    ("py", &["python"]),
    ("ram", &["branch"]),
    ("rapport", &["report"]),
    ("relazio", &["report"]),
    ("requisi", &["require", "spec"]),
    ("ret", &["network"]),
    ("revisio", &["review"]),
    ("riassum", &["summary", "summari"]),
    ("riassun", &["summary", "summari"]),
    ("ricerc", &["search", "find", "researc"]),
    ("rifatto", &["refacto"]),
    ("riferim", &["referen"]),
    ("rilasci", &["releas"]),
    ("riprist", &["restor", "recover"]),
    ("rispost", &["answer"]),
    ("riunion", &["meet"]),
    ("rived", &["review"]),
    ("riveder", &["review"]),
    ("rs", &["rust"]),
    ("salvata", &["backup", "sav"]),
    ("scadenz", &["deadlin"]),
    ("scherm", &["screen", "screens"]),
    ("scherma", &["screen", "screens"]),
    ("scriv", &["writ"]),
    ("scriver", &["writ"]),
    ("segret", &["secret"]),
    ("sicurez", &["securit"]),
    ("sintes", &["summary", "summari"]),
    ("sistema", &["fix"]),
    ("sit", &["websit", "web"]),
    ("slid", &["present"]),
    ("specifi", &["spec"]),
    ("spreads", &["excel"]),
    ("stil", &["styl"]),
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
    ("unir", &["merg", "combin"]),
    ("utent", &["user"]),
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
        let has =
            |word: &str, english: &str| expansions(&stem(word)).contains(&stem(english).as_str());
        assert!(has("foglio", "spreadsheet"));
        assert!(has("presentazioni", "slides"));
        assert!(has("xlsx", "spreadsheet"));
        assert!(has("correggi", "fix"));
        assert!(expansions("zzz").is_empty());
    }
}
