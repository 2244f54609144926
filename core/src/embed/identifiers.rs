//! Embedding text for identifiers: camelCase / snake_case / kebab-case splitting and expansion of
//! common abbreviations, so that `AuthSvc.getUserCtx` reads as words a model has seen.

/// Abbreviations common in code and their expansions, sorted by abbreviation (binary search).
///
/// Chosen by hand from identifiers seen in the project's corpora (Flask, Laravel, JS frameworks);
/// shared/docs/EMBEDDINGS.md records that expanding `Auth`/`Config` improved the rank of the right
/// symbol with multilingual-e5-small. Ambiguous short forms (`ts`, `pwd`, `ws`) are left alone.
const ABBREVIATIONS: &[(&str, &str)] = &[
    ("addr", "address"),
    ("admin", "administrator"),
    ("app", "application"),
    ("arg", "argument"),
    ("attr", "attribute"),
    ("auth", "authentication"),
    ("authn", "authentication"),
    ("authz", "authorization"),
    ("btn", "button"),
    ("buf", "buffer"),
    ("calc", "calculate"),
    ("cb", "callback"),
    ("cert", "certificate"),
    ("cfg", "configuration"),
    ("cmd", "command"),
    ("cnt", "count"),
    ("col", "column"),
    ("conf", "configuration"),
    ("config", "configuration"),
    ("conn", "connection"),
    ("ctrl", "controller"),
    ("ctx", "context"),
    ("cur", "current"),
    ("db", "database"),
    ("del", "delete"),
    ("desc", "description"),
    ("dest", "destination"),
    ("dict", "dictionary"),
    ("dir", "directory"),
    ("doc", "document"),
    ("dst", "destination"),
    ("elem", "element"),
    ("env", "environment"),
    ("err", "error"),
    ("evt", "event"),
    ("exc", "exception"),
    ("expr", "expression"),
    ("ext", "extension"),
    ("fmt", "format"),
    ("fn", "function"),
    ("func", "function"),
    ("gen", "generate"),
    ("hdr", "header"),
    ("i18n", "internationalization"),
    ("idx", "index"),
    ("img", "image"),
    ("impl", "implementation"),
    ("info", "information"),
    ("init", "initialize"),
    ("l10n", "localization"),
    ("len", "length"),
    ("lib", "library"),
    ("mgr", "manager"),
    ("msg", "message"),
    ("nav", "navigation"),
    ("num", "number"),
    ("obj", "object"),
    ("opt", "option"),
    ("param", "parameter"),
    ("passwd", "password"),
    ("perm", "permission"),
    ("pkg", "package"),
    ("pos", "position"),
    ("prev", "previous"),
    ("proc", "process"),
    ("prop", "property"),
    ("ptr", "pointer"),
    ("qty", "quantity"),
    ("recv", "receive"),
    ("ref", "reference"),
    ("repo", "repository"),
    ("req", "request"),
    ("res", "response"),
    ("resp", "response"),
    ("sess", "session"),
    ("spec", "specification"),
    ("src", "source"),
    ("stmt", "statement"),
    ("str", "string"),
    ("svc", "service"),
    ("sync", "synchronize"),
    ("sys", "system"),
    ("tmp", "temporary"),
    ("tmpl", "template"),
    ("tpl", "template"),
    ("tx", "transaction"),
    ("txn", "transaction"),
    ("ui", "user interface"),
    ("usr", "user"),
    ("util", "utility"),
    ("val", "value"),
    ("var", "variable"),
    ("ver", "version"),
];

fn expand(word: &str) -> Option<String> {
    let find = |w: &str| {
        ABBREVIATIONS
            .binary_search_by(|(abbr, _)| abbr.cmp(&w))
            .ok()
            .map(|i| ABBREVIATIONS[i].1)
    };
    if let Some(long) = find(word) {
        return Some(long.to_owned());
    }
    // Plurals of abbreviations: `msgs`, `params`, `args`.
    let singular = word.strip_suffix('s')?;
    let long = find(singular)?;
    (!long.ends_with('s') && !long.contains(' ')).then(|| format!("{long}s"))
}

/// Splits identifiers into lower-case words and expands common abbreviations; the embedding text
/// of symbol names.
///
/// - Words are separated by every character that is not alphanumeric (`_`, `-`, `.`, `/`, `:`,
///   spaces, punctuation), at lower→upper case changes (`getUser` → `get user`), before the last
///   capital of an acronym run (`HTMLParser` → `html parser`), after a digit before a capital
///   (`v2Api` → `v2 api`) and where ASCII and non-ASCII letters meet (`ログインForm` → `ログイン form`).
///   Digits stay attached to the letters before them (`sha256`, `utf8`).
/// - Each word is lower-cased, then replaced by its expansion if it is a known abbreviation or the
///   plural of one (`cfg` → `configuration`, `msgs` → `messages`).
/// - Words are joined by single spaces; text without identifiers (Japanese prose) passes through
///   with only its punctuation turned into spaces.
///
/// ```
/// use code_intel_core::embed::split_identifiers;
/// assert_eq!(split_identifiers("AuthService.getUserCtx"), "authentication service get user context");
/// assert_eq!(split_identifiers("load_db_config"), "load database configuration");
/// ```
pub fn split_identifiers(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let _ = for_each_identifier_word(text, |word| {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
        std::ops::ControlFlow::Continue(())
    });
    out
}

/// The words of [`split_identifiers`] one by one, in order, until `f` breaks: `f` gets each
/// lower-cased word or its expansion (which may hold spaces: `split_identifiers` joins exactly
/// these with single spaces). Lets a caller that needs only the first words of a long text stop
/// there (the summary embedding text keeps 48 words of a chunk's body).
pub fn for_each_identifier_word(
    text: &str,
    mut f: impl FnMut(&str) -> std::ops::ControlFlow<()>,
) -> std::ops::ControlFlow<()> {
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if word.is_empty() {
            return std::ops::ControlFlow::Continue(());
        }
        let lower = word.to_lowercase();
        word.clear();
        match expand(&lower) {
            Some(long) => f(&long),
            None => f(&lower),
        }
    };
    let mut chars = text.chars().peekable();
    let mut prev: Option<char> = None;
    while let Some(c) = chars.next() {
        if !c.is_alphanumeric() {
            flush(&mut word)?;
            prev = Some(c);
            continue;
        }
        if let Some(p) = prev {
            let next_lower = chars.peek().is_some_and(|n| n.is_lowercase());
            let boundary = p.is_alphanumeric()
                && ((p.is_lowercase() && c.is_uppercase())
                    || (p.is_uppercase() && c.is_uppercase() && next_lower)
                    || (p.is_ascii_digit() && c.is_uppercase())
                    || (p.is_ascii() != c.is_ascii()));
            if boundary {
                flush(&mut word)?;
            }
        }
        word.push(c);
        prev = Some(c);
    }
    flush(&mut word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abbreviation_table_is_sorted_and_unique() {
        assert!(
            ABBREVIATIONS.windows(2).all(|w| w[0].0 < w[1].0),
            "ABBREVIATIONS must be sorted for binary search"
        );
    }
}
