//! Bash brace expansion of a word as written (`a{b,c}d` -> `abd acd`, `{1..3}`), before the
//! words of a command are analysed: `mv src/app.py{,.bak}` has two operands.

/// At most this many words come out of one word; a longer expansion is left as it was (a
/// run-time word).
const MAX_WORDS: usize = 256;

/// The words `raw` (a word as written, quotes kept) expands to, or `None` when it holds no brace
/// expansion or expands to more than [`MAX_WORDS`] words.
pub(super) fn expand(raw: &str) -> Option<Vec<String>> {
    find_group(raw.as_bytes())?;
    let mut out = Vec::new();
    expand_into(raw, &mut out).then_some(out)
}

fn expand_into(s: &str, out: &mut Vec<String>) -> bool {
    let Some((start, alts, end)) = find_group(s.as_bytes()) else {
        out.push(s.to_string());
        return out.len() <= MAX_WORDS;
    };
    for alt in alts {
        let next = format!("{}{alt}{}", &s[..start], &s[end..]);
        if !expand_into(&next, out) {
            return false;
        }
    }
    true
}

/// The index after the quoted or expansion unit starting at `i` (`'…'`, `"…"`, `\x`, `$'…'`,
/// `$(…)`, `${…}`, a backtick string), or `i + 1` for a plain byte.
fn skip(s: &[u8], i: usize) -> usize {
    let n = s.len();
    match s[i] {
        b'\\' => (i + 2).min(n),
        b'\'' => s[i + 1..]
            .iter()
            .position(|&c| c == b'\'')
            .map_or(n, |p| i + 2 + p),
        b'"' | b'`' => {
            let q = s[i];
            let mut k = i + 1;
            while k < n && s[k] != q {
                k = if s[k] == b'\\' { k + 2 } else { k + 1 };
            }
            (k + 1).min(n)
        }
        b'$' if i + 1 < n && s[i + 1] == b'\'' => skip(s, i + 1),
        b'$' if i + 1 < n && matches!(s[i + 1], b'(' | b'{') => {
            let (open, close) = if s[i + 1] == b'(' {
                (b'(', b')')
            } else {
                (b'{', b'}')
            };
            let mut depth = 0usize;
            let mut k = i + 1;
            while k < n {
                if s[k] == open {
                    depth += 1;
                } else if s[k] == close {
                    depth -= 1;
                    if depth == 0 {
                        return k + 1;
                    }
                } else if matches!(s[k], b'\\' | b'\'' | b'"' | b'`') {
                    k = skip(s, k);
                    continue;
                }
                k += 1;
            }
            n
        }
        _ => i + 1,
    }
}

/// The first brace expression of `s`: its start, its alternatives (texts) and its end (after `}`).
fn find_group(s: &[u8]) -> Option<(usize, Vec<String>, usize)> {
    let mut i = 0;
    while i < s.len() {
        if s[i] != b'{' {
            i = skip(s, i);
            continue;
        }
        // The matching `}` and the top-level commas.
        let (mut depth, mut k, mut commas) = (0usize, i, Vec::new());
        let mut close = None;
        while k < s.len() {
            match s[k] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(k);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(k),
                b'\\' | b'\'' | b'"' | b'`' | b'$' => {
                    k = skip(s, k);
                    continue;
                }
                _ => {}
            }
            k += 1;
        }
        let Some(close) = close else {
            i += 1;
            continue;
        };
        let text = |a: usize, b: usize| String::from_utf8_lossy(&s[a..b]).into_owned();
        if !commas.is_empty() {
            let mut alts = Vec::new();
            let mut from = i + 1;
            for c in commas.into_iter().chain([close]) {
                alts.push(text(from, c));
                from = c + 1;
            }
            return Some((i, alts, close + 1));
        }
        if let Some(alts) = sequence(&text(i + 1, close)) {
            return Some((i, alts, close + 1));
        }
        i += 1;
    }
    None
}

/// `a..b[..step]` of integers or single letters; `None` when not a sequence. A sequence longer
/// than [`MAX_WORDS`] gives more alternatives than [`expand`] accepts.
fn sequence(body: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = body.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = match parts.get(2) {
        Some(s) => s.parse::<i64>().ok()?.checked_abs()?.max(1),
        None => 1,
    };
    let (a, b) = (parts[0], parts[1]);
    let range = |x: i64, y: i64| -> Option<Vec<i64>> {
        if x.abs_diff(y) / step.unsigned_abs() > MAX_WORDS as u64 {
            return Some(vec![0; MAX_WORDS + 1]);
        }
        let mut v = Vec::new();
        let mut c = x;
        loop {
            v.push(c);
            if (x <= y && c + step > y) || (x > y && c - step < y) {
                break;
            }
            c = if x <= y { c + step } else { c - step };
        }
        Some(v)
    };
    if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        let width = [a, b]
            .iter()
            .filter(|p| p.trim_start_matches('-').starts_with('0') && p.len() > 1)
            .map(|p| p.len())
            .max()
            .unwrap_or(0);
        return Some(
            range(x, y)?
                .into_iter()
                .map(|n| format!("{n:0width$}"))
                .collect(),
        );
    }
    let one = |p: &str| {
        let mut c = p.chars();
        match (c.next(), c.next()) {
            (Some(ch), None) if ch.is_ascii_alphabetic() => Some(ch as i64),
            _ => None,
        }
    };
    let (x, y) = (one(a)?, one(b)?);
    Some(
        range(x, y)?
            .into_iter()
            .map(|n| char::from(u8::try_from(n).unwrap_or(b'?')).to_string())
            .collect(),
    )
}
