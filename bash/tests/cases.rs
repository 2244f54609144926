//! The analysis side of the lists in `cases/*.tsv`: each line's first write target and the rule
//! that reports it (`BashWrite::via`). The verdict column is the gate's, checked with the hook's
//! decision function in `hooks/tests/bash_lists.rs`.

use std::fmt::Write as _;
use std::path::Path;

use code_intel_bash::{BashTarget, analyze};

fn unescape(s: &str) -> String {
    s.replace('⏎', "\n").replace('⇥', "\t")
}

fn escape(s: &str) -> String {
    s.replace('\n', "⏎").replace('\t', "⇥")
}

fn check(name: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("cases")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut wrong = String::new();
    let mut lines = 0;
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        lines += 1;
        let f: Vec<&str> = line.splitn(4, '\t').collect();
        assert_eq!(f.len(), 4, "{name}:{}: four TAB-separated fields", i + 1);
        let command = unescape(f[3]);
        let (target, via) = match analyze(&command).writes.first() {
            None => ("-".to_string(), "-".to_string()),
            Some(w) => (
                match &w.target {
                    BashTarget::Path(p) => format!("path:{p}"),
                    BashTarget::Tree(p) => format!("tree:{p}"),
                    BashTarget::Dynamic(p) => format!("dynamic:{p}"),
                    BashTarget::Script(p) => format!("script:{p}"),
                },
                w.via.clone(),
            ),
        };
        if escape(&target) != f[1] || escape(&via) != f[2] {
            writeln!(
                wrong,
                "{name}:{}: {}\n    expected {} (by {})\n    got      {} (by {})",
                i + 1,
                f[3],
                f[1],
                f[2],
                escape(&target),
                escape(&via)
            )
            .unwrap();
        }
    }
    assert!(lines > 0, "{name} is empty");
    assert!(wrong.is_empty(), "lines whose analysis changed:\n{wrong}");
}

#[test]
fn hidden_writes_are_reported_by_the_rule_each_line_names() {
    check("hidden_writes.tsv");
}

#[test]
fn read_only_commands_report_what_their_lines_say() {
    check("read_only.tsv");
}
