//! scripts/bash-diff.sh's comparison: `old_bash::analyze` (an earlier commit's analyser) against
//! `code_intel_bash::analyze` on generated command lines. Arguments: the programs to exercise
//! (default: the registry's specs as of issue 38), or `--corpus FILE`: compare on FILE's command
//! lines, separated by NUL bytes (a command may hold newlines).
#![allow(clippy::print_stdout)]

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, file] = args.as_slice()
        && flag == "--corpus"
    {
        let text = std::fs::read_to_string(file).expect("corpus file");
        let (mut n, mut diff) = (0, 0);
        for cmd in text.split('\0').filter(|l| !l.is_empty()) {
            let a = format!("{:?}", old_bash::analyze(&cmd));
            let b = format!("{:?}", code_intel_bash::analyze(&cmd));
            n += 1;
            if a != b { diff += 1; if diff <= 10 { println!("DIFF {cmd}\n  old {a}\n  new {b}"); } }
        }
        println!("{n} commands, {diff} differ");
        std::process::exit(i32::from(diff > 0));
    }
    let default = ["shuf","iconv","pandoc","xmllint","xxd","fallocate","uniq","tee","sponge","head","tail","bat","sort","cut","nl","less","file","stat","diff","cat","more","wc","tac","strings","md5sum","sha1sum","sha256sum","cmp"];
    let progs: Vec<&str> = if args.is_empty() { default.to_vec() } else { args.iter().map(String::as_str).collect() };
    let pool = ["-o","out","-oout","--output","--output=out","--out","--outp=x","-n","3","-a","--append","--","-","in","src/m1.py","-e","-c","-l","-s","-ro","-k2","--key=1","$X","-x","--to-file","f","-u","-t",":","-f","-w","-i","-C","-L","--format","%s","-S","1M","-T","/tmp","-b","-z","-p","--name","-r","-R","-rf","--recursive","--reference=f","--size","0","-m","755","+x","-v","--date","now","dir/"];
    let mut seed: u64 = 0x1234_5678;
    let mut next = |n: usize| { seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407); ((seed >> 33) as usize) % n };
    let (mut n, mut diff) = (0, 0);
    for p in progs {
        for _ in 0..8000 {
            let len = next(6);
            let mut cmd = String::from(p);
            for _ in 0..len { cmd.push(' '); cmd.push_str(pool[next(pool.len())]); }
            let wrap = next(4);
            let cmd = match wrap { 0 => format!("sudo {cmd}"), 1 => format!("echo x | {cmd} > o2"), 2 => format!("cd d && {cmd}"), _ => cmd };
            let a = format!("{:?}", old_bash::analyze(&cmd));
            let b = format!("{:?}", code_intel_bash::analyze(&cmd));
            n += 1;
            if a != b { diff += 1; if diff <= 10 { println!("DIFF {cmd}\n  old {a}\n  new {b}"); } }
        }
    }
    println!("{n} commands, {diff} differ");
    if diff > 0 {
        std::process::exit(1);
    }
}
