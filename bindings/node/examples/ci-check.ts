#!/usr/bin/env node
// A CI check: fails when a change touches a file outside the explored files of the code-intel
// session recorded for it — the write gate's rule, applied after the fact to a branch.
//
//   node examples/dist/ci-check.js <repo> [--session <id>] [--base <git-ref>]
//
// The session defaults to the most recently changed one of the repository; the change is
// `git diff --name-only <base>` (default HEAD: the uncommitted change) plus untracked files.
// Exit 0: every changed file was explored; 1: some were not (listed); 2: the check could not run.
import { execFileSync } from 'node:child_process'
import { openRepo, type CodeIntelError } from '@code-intel/node'

interface Args {
  repo: string
  session?: string
  base: string
}

function parseArgs(argv: string[]): Args {
  const [repo, ...rest] = argv
  if (repo === undefined) throw new Error('usage: ci-check <repo> [--session <id>] [--base <git-ref>]')
  const args: Args = { repo, base: 'HEAD' }
  for (let i = 0; i < rest.length; i += 2) {
    const [flag, value] = [rest[i], rest[i + 1]]
    if (value === undefined) throw new Error(`${flag} needs a value`)
    if (flag === '--session') args.session = value
    else if (flag === '--base') args.base = value
    else throw new Error(`unknown option ${flag}`)
  }
  return args
}

function changedFiles(repo: string, base: string): string[] {
  const git = (...a: string[]) =>
    execFileSync('git', ['-C', repo, ...a], { encoding: 'utf8' })
      .split('\n')
      .filter((l) => l.length > 0)
  const files = new Set([...git('diff', '--name-only', base), ...git('ls-files', '--others', '--exclude-standard')])
  return [...files].sort()
}

async function main(): Promise<number> {
  const args = parseArgs(process.argv.slice(2))
  const repo = openRepo(args.repo)
  const id = args.session ?? (await repo.listSessions())[0]?.session_id
  if (id === undefined) {
    console.error('ci-check: no code-intel session recorded in this repository')
    return 1
  }
  const explored = new Set(await repo.session(id).exploredFiles())
  const changed = changedFiles(args.repo, args.base)
  const outside = changed.filter((f) => !explored.has(f))
  if (outside.length > 0) {
    console.error(`ci-check: ${outside.length} changed file(s) outside session ${id}'s explored files:`)
    for (const f of outside) console.error(`  ${f}`)
    return 1
  }
  console.log(`ci-check: ${changed.length} changed file(s), all explored in session ${id}`)
  return 0
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    const err = e as Partial<CodeIntelError>
    console.error(`ci-check: ${err.message ?? String(e)}${err.hint ? ` (${err.hint})` : ''}`)
    process.exit(2)
  },
)
