import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { Test } from 'tap'
import { main } from '../../lib/cli/main.js'

export const root = fileURLToPath(new URL('../..', import.meta.url))

/** A fixture module under test/fixtures/apps, as a path from the repository root. */
export const fixtureApp = (name: string): string => `test/fixtures/apps/${name}.mjs`

export interface Run {
  code: number
  stdout: string
  stderr: string
}

export interface SpawnedRun extends Run {
  /** True when the process had to be killed after `killAfterMs`: it did not exit by itself. */
  killed: boolean
}

/** Runs the built CLI as a user does: `node dist/cli/bin.js …` from the repository root. */
export function spawned (args: string[], killAfterMs = 20_000): Promise<SpawnedRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/cli/bin.js', ...args], { cwd: root, timeout: killAfterMs }, (error, stdout, stderr) => {
      const killed = error?.killed === true
      resolve({ code: error === null ? 0 : Number(error.code), stdout, stderr, killed })
    })
  })
}

/**
 * Runs the CLI's main in this process, with what it prints captured: the same code as the bin, without a
 * process start per call. `spawned` covers what only a process shows (exit status, module loading).
 */
export async function cli (...args: string[]): Promise<Run> {
  let stdout = ''
  let stderr = ''
  const code = await main(args, { stdout: (text) => { stdout += text }, stderr: (text) => { stderr += text } })
  return { code, stdout, stderr }
}

/** A stderr of exactly one line starting with the program name. */
export function oneLine (t: Test, stderr: string, pattern: string | RegExp): void {
  t.match(stderr, /^svc-manifest: [^\n]+\n$/, 'one line on stderr')
  t.match(stderr, pattern)
}
