//! Ruby in interpreter code (`ruby -e`): its calls that write, read, load or run code
//! ([`CALLS`]: `File`, `IO`, `FileUtils`, `Kernel`, `Open3`, `$LOAD_PATH`, the `*_eval` family),
//! and the forms only Ruby has: a call named by a symbol (`send(:system, …)`) and `Pathname`
//! methods on a literal receiver.

use super::tokens::{CArg, CTok, Spanned, paren_args};
use super::{At, CODE_VALUES, Call, names_a_writing_call};
use crate::eval::Eval;
use crate::lex::Word;

/// Ruby's calls.
pub(super) const CALLS: &[(&str, Call)] = &[
    ("File.truncate", Call::Write(&[0])),
    (
        "Kernel.eval binding.eval TOPLEVEL_BINDING.eval *instance_eval *class_eval \
         *module_eval *instance_exec *class_exec *module_exec",
        Call::Code,
    ),
    (
        "$LOAD_PATH.unshift $LOAD_PATH.push $LOAD_PATH.concat",
        Call::LoadPath(&[0]),
    ),
    (
        "load require_relative Kernel.load Kernel.require_relative",
        Call::LoadFile,
    ),
    ("Kernel.require", Call::Require),
    (
        "File.write IO.write File.delete File.unlink FileUtils.rm FileUtils.rm_f \
         FileUtils.rm_rf FileUtils.touch FileUtils.mkdir_p",
        Call::Write(&[0]),
    ),
    ("File.rename FileUtils.mv", Call::Write(&[0, 1])),
    ("FileUtils.cp FileUtils.cp_r", Call::Write(&[1])),
    ("File.open File.new Kernel.open", Call::Open),
    ("File.read IO.read File.readlines IO.readlines", Call::Read),
    (
        "IO.popen Kernel.system Kernel.exec Kernel.spawn Open3.capture2 Open3.capture2e \
         Open3.capture3 Open3.popen2 Open3.popen2e Open3.popen3 Open3.pipeline \
         Open3.pipeline_r Open3.pipeline_w",
        Call::Shell,
    ),
];

/// A writing or code-running call named by a Ruby symbol (`send(:system, …)`,
/// `public_send(:eval, s)`, `method(:unlink).call(p)`).
pub(super) fn symbol_call(e: &mut Eval, at: &At<'_, '_>, name: &str, after_dot: bool) -> bool {
    let At { via, toks, j, .. } = *at;
    if !after_dot
        && j >= 1
        && matches!(toks[j - 1].tok, CTok::Punct(b':'))
        && toks[j - 1].end == toks[j].start
        && (j < 2
            || matches!(
                toks[j - 2].tok,
                CTok::Punct(b'(' | b',' | b'[')
                    | CTok::Ident("send" | "public_send" | "__send__" | "method")
            ))
        && (names_a_writing_call(name) || CODE_VALUES.contains(&name))
    {
        e.unknown(
            format!(":{name}"),
            format!("{via}: a call by name (:{name})"),
        );
        return true;
    }
    false
}

/// Ruby's `Pathname.new('f').write(…)`, `Pathname('f').delete`: the path the receiver
/// names (other objects' `write` is a stream's).
pub(super) fn pathname_method(e: &mut Eval, at: &At<'_, '_>, name: &str, after_dot: bool) -> bool {
    let At {
        code,
        via,
        toks,
        pair,
        j,
        ..
    } = *at;
    if after_dot
        && matches!(
            name,
            "write"
                | "binwrite"
                | "delete"
                | "unlink"
                | "rmtree"
                | "mkpath"
                | "mkdir"
                | "rmdir"
                | "make_symlink"
                | "make_link"
                | "truncate"
                | "rename"
                | "utime"
                | "chmod"
        )
        && let Some(p) = pathname_receiver(toks, pair, j, code)
    {
        e.write(&Word::synthetic(&p, false), via);
        return true;
    }
    false
}

/// The literal path of a Ruby `Pathname.new('f')` / `Pathname('f')` receiver of the method at
/// `j`.
fn pathname_receiver(toks: &[Spanned<'_>], pair: &[usize], j: usize, code: &str) -> Option<String> {
    if j < 2 || !matches!(toks[j - 2].tok, CTok::Punct(b')')) {
        return None;
    }
    let open = pair[j - 2];
    if !matches!(
        toks.get(open.checked_sub(1)?)?.tok,
        CTok::Ident("Pathname" | "Pathname.new")
    ) {
        return None;
    }
    let (args, _) = paren_args(toks, pair, open, code);
    args.first().and_then(CArg::lit).map(str::to_string)
}
