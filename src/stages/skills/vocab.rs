//! A general bilingual vocabulary for skill routing: Italian software and office words, file
//! extensions, abbreviations and the words people use for a *situation* ("the build is broken",
//! "il test fallisce", "rendi il codice leggibile"), each with the English words a description
//! uses for the *practice* (debug, fix, simplify, review, ship, plan, spec…), so a prompt meets
//! an English skill description that names the practice. General on purpose: every entry is a
//! synonym, translation or standard term of the trade that holds in any software or office
//! context; it names no skill and no catalog. Keys and values are stems (`crate::text::stem` of
//! the words), so inflections meet. Pure data and one lookup.

use crate::packed::{Table, count_lines, count_words};

/// Keys of at most three letters that are not Italian-looking words but count as written: file
/// extensions and abbreviations of the trade. Sorted.
static AS_WRITTEN: Table<{ count_words(AS_WRITTEN_TEXT) }> = Table::words(AS_WRITTEN_TEXT).sorted();
const AS_WRITTEN_TEXT: &str =
    "adr bdd bug css csv gif htm jpg jwt mov mp3 mp4 png ppt prd svg tdd wav xls
    xss yml";

/// Keys that are also English words with another meaning (`lent` of `lento`, `stamp` of
/// `stampa`, `contest` of `contesto`, `registr` of `registry`, `tapp` of `tapping`): they count
/// only for an Italian-looking word. (An Italian word whose English twin also ends with a vowel,
/// `finito`/`finite`, cannot be told apart that way and is left out of the table.) Sorted.
static ITALIAN_ONLY: Table<{ count_words(ITALIAN_ONLY_TEXT) }> =
    Table::words(ITALIAN_ONLY_TEXT).sorted();
const ITALIAN_ONLY_TEXT: &str = "contest lent registr stamp tapp";

/// The English stems a prompt word stands for: space-separated stems from the vocabulary's
/// text (no table of pointers), iterated in the table's order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expansions(&'static str);

impl Expansions {
    const NONE: Expansions = Expansions("");

    /// The stems, in order.
    pub fn iter(self) -> std::str::SplitAsciiWhitespace<'static> {
        self.0.split_ascii_whitespace()
    }

    /// True when the word stands for nothing more.
    pub fn is_empty(self) -> bool {
        self.0.is_empty()
    }
}

impl IntoIterator for Expansions {
    type Item = &'static str;
    type IntoIter = std::str::SplitAsciiWhitespace<'static>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// The English stems a prompt word (folded) with stem `stem` also stands for (empty when it has
/// none). A short stem (`sit` of `sito`) also needs an Italian-looking word, one that ends with
/// a vowel, unless the stem is an extension or an abbreviation (`csv`, `bug`) or the word has
/// two letters (`py`, `pr`), so English `sit` is not read as `sito`; so does a key that is an
/// English false friend ([`ITALIAN_ONLY`]).
pub fn expansions(word: &str, stem: &str) -> Expansions {
    let italian = word.ends_with(['a', 'e', 'i', 'o', 'u']);
    if stem.len() <= 3 && !italian && word.len() > 2 && !AS_WRITTEN.contains(stem) {
        return Expansions::NONE;
    }
    if !italian && ITALIAN_ONLY.contains(stem) {
        return Expansions::NONE;
    }
    // The name of an error or exception type (`TypeError`, `IndexError`,
    // `NullPointerException`): a report of an error, whatever the language.
    let names_a = |e: &str| word.len() > e.len() && word.ends_with(e);
    if names_a("error") || names_a("exception") {
        return ERROR_TYPE;
    }
    let found = lookup(stem);
    if !found.is_empty() || !italian {
        return found;
    }
    // An Italian verb with a pronoun joined to it (`puliscila`, `sistemalo`, `dividili`):
    // the verb without the pronoun.
    ENCLITICS
        .iter()
        .filter_map(|e| word.strip_suffix(e))
        .find(|verb| verb.len() >= 5)
        .map_or(Expansions::NONE, |verb| lookup(&crate::text::stem(verb)))
}

/// Pronouns an Italian verb takes at its end, longest first.
static ENCLITICS: Table<{ count_words(ENCLITICS_TEXT) }> = Table::words(ENCLITICS_TEXT);
const ENCLITICS_TEXT: &str = "gli la le li lo ne";

fn lookup(stem: &str) -> Expansions {
    VOCABULARY.find(stem).map_or(Expansions::NONE, Expansions)
}

/// What the name of an error type stands for.
const ERROR_TYPE: Expansions = Expansions("error excepti debug bug");

/// (stem of the prompt word, English stems it also stands for): one entry a line, the key then
/// its values, sorted by key. One string, not a `&[(&str, &[&str])]`: no pointer for the loader
/// to relocate per key and value (see [`crate::packed`]).
const VOCABULARY_TEXT: &str = "
abbonam subscri
accepta require
access login auth
addestr train
adr archite decisio record
affin refin
affinar refin
aggiorn updat
aggiust fix fixing repair
allarm alert
ambient environ
ambigu ambiguo unclear
analis analyz analys
analizz analyz analys
animazi animati
annunci announc
applica app
apprend learn
approv review
approva approv review
appunt not
archivi archiv
articol articl post
asserzi assert asserti
assess evaluat review
assessm evaluat review
attacc attack securit
attacch attack securit
attivit task activit
audit review
autenti authent auth
automaz automat
avvi start launch
avviar start launch
avvis alert
backlog task plan
bdd behavio driven
bilanci budget financi
blocc hang freez stuck block
bloccar hang freez stuck block
bloccat stuck hang freez
bottigl bottlen perform
bottlen perform
botton button
bozz draft mockup
brainst ide ideat
branch git
brok break fail failur error fix fixing
broken break fail failur error fix fixing
bug debug error fix fixing
buggy bug debug error
calcol spreads calcula
cambi chang
cambiam chang
cambiar chang
campagn campaig
canal channel
canary rollout deploy
cancell delet remov
capir underst
capisc underst
capisci underst
caratte font charact
caric load upload
caricam load
caricar load upload
cartell folder directo
cattur captur
cattura captur
caus root
cerc search find researc
cercar search find researc
changel releas version documen
cherry git
chiar clear clarity
chiarez clear clarity
chiav key
cifrar encrypt
cifratu encrypt
circlec pipelin automat
citazio citatio
cleanup clean
client custome
codic cod
collaud test
collegh colleag
colonn column
color colour
comand command
commit git
compil build
compila build compil
compit task
comples complex
complic complex simplif
comport behavio
comunic communi announc
concorr competi
condivi shar
configu config
conflic merg
conflit conflic merg
confron compar compari
consegn handoff deliver
consigl tip advic
conteni contain
contest context
contrat contrac
control verify check validat
convolu complex simplif
copertu coverag
corregg fix fixing
correzi fix fixing
crash error fail failur debug
crashed error fail failur debug
cre creat
crear creat
crittog encrypt
cronolo history
csrf securit
css styl layout fronten ui
csv spreads dat
debt refacto cleanup
debugga debug
deck slid present
definir defin
definis defin
definiz defin
deploy ship releas deploym
deploya deploy
deploym deploy ship releas
diagnos debug
diaposi slid present
dipende depende
disegn draw design
disegna draw design
disordi messy clean
disserv inciden failur
distrib deploy deploym
divid split
divider split
documen doc
docx word documen
domand questio
downtim inciden failur
eccezio excepti
elenc list
elimin delet remov
elimina delet remov
endpoin api
errat wrong incorre error
error bug
esegu run execut
eseguir run execut
esperim experim
esport export
esporta export
estra extract
estrarr extract
excel spreads
excepti error
fail failur error
failed fail error
failur fail error
fallime failur fail
fallir fail failur
fallisc fail failur
fallit failed fail failur
fas phas
fattur invoic
filmat vide
finir finish complet
firm signatu sign
firmar signatu sign
flaky intermi fail failur test
fluss flow
fogl spreads sheet
fogli spreads sheet
font sourc
fot phot imag
fotogra phot imag
funzion functio
gif imag
gioc gam
github git reposit
gitlab git reposit
gradual increme step
graf graph network
grafic chart graph plot graphic design
graphql api endpoin
guast broken failur fault
hotfix fix fixing bug releas
htm html web
html web
immagin imag pictur
impagin layout
incorre wrong error
indagar investi debug
indiciz index
iniezio securit input
inizi start begin
iniziar start begin
injecti securit input
interfa ui
intermi flaky
interro query
investi debug
ipynb jupyter noteboo
iscritt subscri signup
iscrizi subscri signup
ispezio inspect
jenkin pipelin automat
jpeg imag
jpg imag
js javascr
jwt authent auth token
lanci launch
lanciar launch
latency perform
latenz latency
launch releas ship
lavor work job
leak memory
legg read
legger read
leggibi readabl read clarity
lent slow perform
lentezz slow perform
lezion lesson
libr book
libreri library
licenz licens
malfunz bug failur error
mancant miss
manifes poster
manuten mainten maintai
mapp map
marchi brand
memori memory
mergear merg git
mergiar merg git
messagg messag
messy clean simplif complex
miglior improv
migrar migrati migrat
migrazi migrati migrat
milesto plan
misur measur
misurar measur
mockup prototy design
modell model templat
modific edit modify chang
modul form
molecol molecul
mov vide
mp3 audi
mp4 vide
mr merg request review
neural network
oauth authent auth token
obietti goal objecti
orari schedul
ottimiz optimiz
outag inciden failur
overeng complex simplif
pacchet packag
pagamen pay payment
pagar pay payment
pagin pag
panic crash error
passwor authent credent secret
patch fix fixing
perdit leak loss
perfezi refin improv polish
permess permiss
pian plan
pianifi plan
pipelin automat
png imag
powerpo present slid
ppt powerpo present slid
pptx powerpo present slid
pr pull request review merg
prd require spec product
present slid deck
prestaz perform
prevent quot estimat
previsi predict forecas
prezz pric
prod product
produzi product
profila profil perform
progett design project
propost proposa
protegg protect securit
protezi protect securit
prototi prototy mockup
prov test
provar test
pubblic adverti ads publish releas
pulir clean cleanup refacto simplif
pulisc clean cleanup refacto simplif
pulit clean
pulizi clean cleanup
pulsant button
pushar push git
py python
qualit quality
raffin refin
raffina refin
rallent slow perform
ram branch git
rapport report
react fronten ui compone interfa
readabl clarity read
rebas git branch
recensi review
refacto simplif clean restruc
refatto refacto
registr signup record
regol rul
regress bug
relazio report
rep reposit git
reperib call oncall
reposit git
requisi require spec
resocon report summary minut
ret network neural
revisio review
rfc spec design proposa
riassum summary summari
riassun summary summari
ricerc search find researc
ricevut receipt
richies request
rifatto refacto
riferim referen
rig row
righ row
rilasci releas ship deploy launch
rimuov remov delet
rimuove remov delet
rinomin renam
ripar fix fixing repair
riparar fix fixing repair
riprist restor recover rollbac
riprodu reprodu
ripulir clean cleanup refacto simplif
ripulis clean cleanup refacto simplif
riscriv rewrit refacto
risolv fix fixing resolv solv
risolve fix fixing resolv solv
rispost answer
ritorn return
riunion meet
rived review
riveder review
rivist review
roadmap plan
rollbac revert
rollout deploy releas
romp break broken
romper break broken
rompon break broken
rott broken break
rs rust
runner pipelin
saf secur securit
salvata backup sav
sbaglia wrong incorre error
scadenz deadlin
scansio crawl scan
scherm screen screens
scherma screen screens
scompon break breakdo split
scompor break breakdo split
scriv writ
scriver writ
segfaul crash error
segret secret
semplif simplif
sensibi sensiti
sequenz sequenc
seri sery
ship releas deploy
sicur secur securit
sicurez securit
simplif refacto clean
sintes summary summari
sistema fix fixing
sit websit web
slic increme step
slid present
slow perform latency
slownes perform latency
snellir simplif
snellis simplif
sostitu replac
spec specifi require
specifi spec
speed perform fast
spezz split break
spezzar split break
sporadi intermi flaky
sporc dirty messy clean
spreads excel
sprint plan task
squash git commit
stacktr error excepti debug
stag deploy environ
stamp print
stampab printab print
stampar print
stash git
stil styl
stim estimat
stimar estimat
storic history
stran strang unexpec
strang unexpec
strumen tool
struttu structu
subtask task
suddivi break breakdo split
suon sound audi
svg vector imag
svilupp develop
tabell tabl
tailwin css styl fronten
tapp milesto step
tavoloz palett color
tdd test driven
tem them
termina shell
testar test
tf terrafo
ticket task issu
tidy clean refacto
tipogra typogra font
tod task
token authent auth
traceba error excepti debug
traduc transla
tradurr transla
traduzi transla
trascri transcr
trasfor transfo convert
trouble debug fix fixing diagnos
ts typescr
tsx typescr
turn shift
unexpec error
unir merg combin
unisc merg combin
unsaf secur securit
upload input
utent user
vag vagu unclear
valor valu
valut assess evaluat
valutar assess evaluat
valutaz assess evaluat
veloc fast speed perform
velocit fast speed perform
vendit sal
verbal minut not meet
verific verify check validat
volanti flyer poster
vulnera securit
wav audi
webhook integra externa
webp imag
weird unexpec
wik documen doc
wirefra mockup design
worktre git branch paralle
wrong error incorre
xls excel spreads
xlsx excel spreads
xss securit
yaml config
yml yaml config
";

static VOCABULARY: Table<{ count_lines(VOCABULARY_TEXT) }> = Table::lines(VOCABULARY_TEXT).sorted();

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::stem;

    /// The entries of the vocabulary's text read the plain way (`str::lines`, split at
    /// spaces), without the packed table's offsets: (key, values).
    fn entries() -> Vec<(&'static str, Vec<&'static str>)> {
        VOCABULARY_TEXT
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| {
                let mut words = l.split(' ');
                (words.next().unwrap(), words.collect())
            })
            .collect()
    }

    #[test]
    fn table_is_sorted() {
        let entries = entries();
        for pair in entries.windows(2) {
            assert!(pair[0].0 < pair[1].0, "{} / {}", pair[0].0, pair[1].0);
        }
        for (key, values) in &entries {
            assert!(!values.is_empty() && !values.contains(key), "{key}");
            for (i, v) in values.iter().enumerate() {
                assert!(!values[..i].contains(v), "{key}: {v} twice");
            }
        }
        for list in [&AS_WRITTEN_TEXT, &ITALIAN_ONLY_TEXT] {
            let words: Vec<&str> = list.split_ascii_whitespace().collect();
            for pair in words.windows(2) {
                assert!(pair[0] < pair[1], "{} / {}", pair[0], pair[1]);
            }
        }
        for key in ITALIAN_ONLY.iter() {
            assert!(entries.iter().any(|(k, _)| *k == key), "{key}");
        }
    }

    /// Every entry of the table, looked up through the packed layout (offsets and binary
    /// search), gives back its values in order; and a key that is not in the table gives none.
    #[test]
    fn packed_table_round_trips_every_entry() {
        let entries = entries();
        assert_eq!(VOCABULARY.len(), entries.len());
        for (i, (key, values)) in entries.iter().enumerate() {
            let found: Vec<&str> = lookup(key).iter().collect();
            assert_eq!(&found, values, "{key}");
            let mut line = vec![*key];
            line.extend(values);
            assert_eq!(VOCABULARY.get(i), line.join(" "));
            // Its neighbours (the key less its last letter, the key and one more byte) find
            // their own entry or none.
            let prefix = &key[..key.len() - 1];
            let own = entries.iter().find(|(k, _)| *k == prefix);
            let expected = own.map_or(Vec::new(), |(_, v)| v.clone());
            assert_eq!(
                lookup(prefix).iter().collect::<Vec<_>>(),
                expected,
                "{prefix}"
            );
            assert!(lookup(&format!("{key}~")).is_empty(), "{key}~");
        }
        for w in AS_WRITTEN_TEXT.split_ascii_whitespace() {
            assert!(
                AS_WRITTEN.contains(w) && !AS_WRITTEN.contains(&format!("{w}x")),
                "{w}"
            );
        }
        for w in ITALIAN_ONLY_TEXT.split_ascii_whitespace() {
            assert!(
                ITALIAN_ONLY.contains(w) && !ITALIAN_ONLY.contains(&format!("{w}x")),
                "{w}"
            );
        }
        assert_eq!(
            ENCLITICS.iter().collect::<Vec<_>>(),
            ["gli", "la", "le", "li", "lo", "ne"]
        );
    }

    /// A key or value is something `stem` returns for a folded word: the word itself, or the
    /// word with the final vowel that `stem` drops (`slid` of `slide`, `ide` of `idea`).
    fn is_stem(s: &str) -> bool {
        let folded = s
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
        folded
            && [String::new(), "a".into(), "e".into(), "o".into()]
                .iter()
                .any(|end| stem(&format!("{s}{end}")) == s)
    }

    #[test]
    fn keys_and_values_are_stems() {
        for (key, values) in entries() {
            assert!(is_stem(key), "key {key}");
            for v in values {
                assert!(is_stem(v), "{key}: value {v}");
            }
        }
        for key in AS_WRITTEN.iter() {
            assert!(is_stem(key) && key.len() <= 3, "{key}");
        }
        assert!(!is_stem("document") && !is_stem("Test") && !is_stem("go-live"));
    }

    fn has(word: &str, english: &str) -> bool {
        let english = stem(english);
        expansions(word, &stem(word)).iter().any(|e| e == english)
    }

    #[test]
    fn italian_words_meet_english_descriptions() {
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

    #[test]
    fn situation_words_meet_the_practice_a_description_names() {
        let table = [
            // debugging
            ("bugs", "debugging"),
            ("crashes", "error"),
            ("flaky", "intermittent"),
            ("broken", "fix"),
            ("fallisce", "fail"),
            ("rotto", "broken"),
            // review, shipping, git, CI
            ("pr", "review"),
            ("rivedi", "review"),
            ("rilascio", "shipping"),
            ("deploy", "release"),
            ("committing", "git"),
            ("rebase", "git"),
            ("pipeline", "automation"),
            // simplification, TDD, spec, planning
            ("refactoring", "simplification"),
            ("semplifica", "simplify"),
            ("leggibile", "readable"),
            ("tdd", "test"),
            ("requisiti", "requirements"),
            ("specifica", "spec"),
            ("suddividi", "breakdown"),
            ("pianificazione", "planning"),
            // performance, security, office
            ("lento", "performance"),
            ("vulnerabilita", "security"),
            ("verbale", "minutes"),
            ("trascrizione", "transcript"),
        ];
        for (word, english) in table {
            assert!(has(word, english), "{word} -> {english}");
        }
        // A short English abbreviation of the trade counts as written, inflected too; a short
        // English word that is not one still does not.
        assert!(has("bug", "debug") && has("bugs", "fix"));
        assert!(has("ramo", "branch") && expansions("ram", "ram").is_empty());
        // An English false friend of an Italian key does not stand for the Italian word.
        assert!(has("stampa", "print") && !has("stamp", "print") && !has("stamped", "print"));
        assert!(has("contesto", "context") && !has("contest", "context"));
        assert!(has("lento", "slow") && !has("lent", "slow"));
        assert!(has("registrazione", "record") && !has("registry", "record"));
    }

    #[test]
    fn an_italian_verb_with_a_pronoun_joined_meets_the_verb() {
        // `puliscila` ("clean it") is `pulisci` + `la`; `dividili` is `dividi` + `li`.
        assert!(has("puliscila", "clean") && has("pulisci", "clean"));
        assert!(has("dividili", "split"));
        // Only Italian-looking words, and only when the word itself has no entry.
        assert!(expansions("bella", &stem("bella")).is_empty());
        assert!(!has("parallel", "clean"));
    }

    #[test]
    fn the_name_of_an_error_type_is_an_error() {
        for name in ["typeerror", "indexerror", "nullpointerexception"] {
            assert!(has(name, "error") && has(name, "debug"), "{name}");
        }
        // The bare words keep their own entries.
        assert!(!has("error", "debug") && has("error", "bug"));
    }
}
