//! The `find` rule: start points read, `-delete`/`-fprint`, and the command of `-exec`/`-ok` run
//! with `{}` as a Tree of each start point.

use super::here;
use crate::eval::{Eval, Inv};
use crate::lex::Word;
use crate::{BashTarget, BashWrite};

pub(super) fn rule_find(e: &mut Eval, inv: &Inv<'_>) {
    let args = inv.args;
    let mut i = 0;
    while let Some(w) = args.get(i) {
        match w.value.as_str() {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            v if v.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    i = i.min(args.len());
    let start = i;
    while args
        .get(i)
        .is_some_and(|w| !w.value.starts_with('-') && !matches!(w.value.as_str(), "(" | "!" | ","))
    {
        i += 1;
    }
    let roots = if i > start {
        args[start..i].to_vec()
    } else {
        vec![here()]
    };
    roots.iter().for_each(|r| e.read_as(r, true));
    let expr = args.get(i..).unwrap_or_default();
    let mut k = 0;
    while let Some(w) = expr.get(k) {
        let v = w.value.as_str();
        match v {
            "-delete" => roots.iter().for_each(|r| e.write_tree(r, "find -delete")),
            "-fprint" | "-fprint0" | "-fls" | "-fprintf" => {
                k += 1;
                expr.get(k)
                    .iter()
                    .for_each(|f| e.write(f, &format!("find {v}")));
            }
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let end = expr[k + 1..]
                    .iter()
                    .position(|w| matches!(w.value.as_str(), ";" | "+"))
                    .map_or(expr.len(), |p| k + 1 + p);
                let inner: Vec<Word> = expr[k + 1..end]
                    .iter()
                    .map(|w| Word {
                        dynamic: w.dynamic || w.value.contains("{}"),
                        ..w.clone()
                    })
                    .collect();
                // `-execdir`: relative paths resolve against each found file's directory.
                let saved = e.cwd.clone();
                if v.ends_with("dir") {
                    e.cwd = crate::eval::Cwd {
                        path: "<directory of each file find -execdir finds>".into(),
                        dynamic: true,
                    };
                }
                let sub = e.capture(|e| e.invoke(&inner, None));
                e.cwd = saved;
                e.out.reads.extend(sub.reads);
                for write in sub.writes {
                    let via = format!("find {v} {}", write.via);
                    match write.target {
                        BashTarget::Dynamic(d) if d.contains("{}") => {
                            roots.iter().for_each(|r| e.write_tree(r, &via))
                        }
                        target => e.out.writes.push(BashWrite { target, via }),
                    }
                }
                k = end;
            }
            _ => {}
        }
        k += 1;
    }
}
