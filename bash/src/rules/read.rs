//! Rules for the searchers `grep`/`rg`/`ag`/`ack` (the listers and the plain readers are specs of
//! the registry).

use super::here;
use crate::eval::{Eval, Inv};
use crate::opts::{OptSpec, parse_opts, spec};

const GREP_SPEC: OptSpec = spec(
    "efmABCdD",
    "--regexp --file --max-count --after-context --before-context --context \
        --directories --devices --label --group-separator",
);
const RG_SPEC: OptSpec = spec(
    "eftgTAmBCjMrEd",
    "--regexp --file --type --glob --iglob --type-not --max-count --after-context \
        --before-context --context --threads --max-columns --replace --encoding \
        --max-depth --sort --sortr --colors --type-add --type-clear --pre --pre-glob \
        --ignore-file --max-filesize --path-separator --context-separator --engine",
);
const AG_SPEC: OptSpec = spec(
    "GgABCmp",
    "--ignore --ignore-dir --depth --file-search-regex --after --before --context \
        --max-count --path-to-ignore --pager",
);

pub(super) fn rule_grep(e: &mut Eval, inv: &Inv<'_>) {
    let recursive_tool = matches!(inv.name, "rg" | "ag" | "ack");
    let a = parse_opts(
        inv.args,
        match inv.name {
            "rg" => &RG_SPEC,
            "ag" | "ack" => &AG_SPEC,
            _ => &GREP_SPEC,
        },
    );
    if inv.name != "ag" {
        a.values(&["-f", "--file"]).for_each(|f| e.read(f));
    }
    let no_pattern = a.has(&["-e", "--regexp", "-f", "--file", "--files"])
        || (inv.name == "ag" && a.has(&["-g"]));
    let paths = a
        .operands
        .get(usize::from(!no_pattern)..)
        .unwrap_or_default();
    let tree = recursive_tool || a.has(&["-r", "-R", "--recursive", "--dereference-recursive"]);
    if paths.is_empty() && tree {
        e.read_as(&here(), true);
    }
    paths.iter().for_each(|p| e.read_as(p, tree));
}
