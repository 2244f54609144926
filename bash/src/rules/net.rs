//! Rules for downloads and transfers: `curl`, `wget`, `rsync`/`scp` to a local destination.

use super::{here, url_file};
use crate::eval::{Eval, Inv};
use crate::lex::Word;
use crate::opts::{OptSpec, parse_opts, spec};

const CURL_SPEC: OptSpec = spec(
    "AbcCdDeEFHKmoPQrTuUwxXyYzt",
    "--output --output-dir --dump-header --cookie-jar --data --data-raw --data-binary \
        --data-urlencode --data-ascii --header --user-agent --request --user --url \
        --cookie --form --form-string --max-time --connect-timeout --retry --proxy \
        --referer --upload-file --cacert --cert --key --config --write-out --range \
        --resolve --json --oauth2-bearer --variable --trace --trace-ascii --stderr \
        --max-filesize --limit-rate --retry-delay --retry-max-time --interface --proto \
        --proto-redir --hsts --alt-svc",
);

pub(super) fn rule_curl(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &CURL_SPEC);
    for w in a.values(&[
        "-D",
        "--dump-header",
        "-c",
        "--cookie-jar",
        "--trace",
        "--trace-ascii",
        "--stderr",
        "--hsts",
        "--alt-svc",
    ]) {
        e.write(w, "curl");
    }
    // `-w '%output{FILE}…'` (curl 8.3) sends the rest of the write-out text to FILE (`%output{>>FILE}`
    // appends).
    for w in a.values(&["-w", "--write-out"]) {
        let mut rest = w.value.as_str();
        while let Some(k) = rest.find("%output{") {
            rest = &rest[k + "%output{".len()..];
            let file = rest.split('}').next().unwrap_or_default();
            let file = file.trim_start_matches(">>");
            e.write(&Word::synthetic(file, w.dynamic), "curl -w %output");
        }
    }
    e.in_dir(a.value(&["--output-dir"]), |e| {
        a.values(&["-o", "--output"])
            .for_each(|w| e.write(w, "curl -o"));
        if a.has(&["-O", "--remote-name", "--remote-name-all"]) {
            a.operands
                .iter()
                .copied()
                .chain(a.values(&["--url"]))
                .for_each(|u| e.write(&url_file(u), "curl -O"));
        }
    });
}

const WGET_SPEC: OptSpec = spec(
    "OoaPeUtTwQlARiBDIX",
    "--output-document --output-file --append-output --directory-prefix --execute \
        --user-agent --tries --timeout --wait --quota --level --accept --reject \
        --input-file --base --domains --include-directories --exclude-directories \
        --header --post-data --post-file --user --password --load-cookies --save-cookies \
        --referer --warc-file --rejected-log",
);

pub(super) fn rule_wget(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(inv.args, &WGET_SPEC);
    for w in a.values(&[
        "-o",
        "--output-file",
        "-a",
        "--append-output",
        "--save-cookies",
        "--rejected-log",
    ]) {
        e.write(w, "wget -o");
    }
    for w in a.values(&["--warc-file"]) {
        e.write(
            &Word::synthetic(&format!("{}*", w.value), true),
            "wget --warc-file",
        );
    }
    // `--spider` checks that pages exist and saves nothing.
    if a.has(&["--spider"]) {
        return;
    }
    if let Some(doc) = a.value(&["-O", "--output-document"]) {
        return e.write(doc, "wget -O");
    }
    let recursive = a.has(&["-r", "--recursive", "-m", "--mirror"]);
    e.in_dir(a.value(&["-P", "--directory-prefix"]), |e| {
        // URLs read from a file, names the server gives, or host and path directories: files
        // anywhere here.
        if recursive
            || a.has(&[
                "-i",
                "--input-file",
                "-x",
                "--force-directories",
                "--protocol-directories",
                "--content-disposition",
                "--trust-server-names",
            ])
        {
            return e.write_tree(&here(), "wget -r");
        }
        a.operands
            .iter()
            .for_each(|u| e.write(&url_file(u), "wget"));
    });
}

const RSYNC_SPEC: OptSpec = spec(
    "efBTM",
    "--rsh --filter --exclude --include --exclude-from --include-from --files-from \
        --log-file --temp-dir --partial-dir --backup-dir --suffix --chmod --chown \
        --compare-dest --copy-dest --link-dest --rsync-path --password-file --timeout \
        --bwlimit --max-size --min-size --port --out-format --info --debug",
);
const SCP_SPEC: OptSpec = spec("cFiJlOoPS", "");

pub(super) fn rule_rsync(e: &mut Eval, inv: &Inv<'_>) {
    let a = parse_opts(
        inv.args,
        if inv.name == "rsync" {
            &RSYNC_SPEC
        } else {
            &SCP_SPEC
        },
    );
    let [_, .., dest] = a.operands.as_slice() else {
        return;
    };
    if a.has(&["--remove-source-files", "--remove-sent-files"]) && !a.has(&["-n", "--dry-run"]) {
        // The sources are deleted once sent.
        let sources = &a.operands[..a.operands.len() - 1];
        sources.iter().for_each(|s| e.write_tree(s, inv.name));
    }
    let remote = dest.value.starts_with("rsync://")
        || dest
            .value
            .split_once(':')
            .is_some_and(|(host, _)| !host.is_empty() && !host.contains('/'));
    if !remote && !a.has(&["-n", "--dry-run"]) {
        e.emit(
            dest,
            a.has(&["-r", "-a", "--recursive", "--archive"]),
            inv.name,
        );
    }
}
