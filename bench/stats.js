/** Small helpers shared by the benchmarks: medians, child processes, table output. */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { setTimeout } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'

const BUILT_ENTRY = new URL('../dist/index.js', import.meta.url)

/** Waits (up to a minute) while `dist/` is missing, as it briefly is when a build runs beside the benchmark. */
export async function waitForBuild () {
  for (let waited = 0; !existsSync(BUILT_ENTRY); waited += 250) {
    if (waited >= 60_000) throw new Error('dist/index.js is missing: run npm run build')
    await setTimeout(250)
  }
}

export function median (values) {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** Runs `bench/<script>` in a fresh Node process (this Node, or the binary `node`) and returns the JSON it prints last. */
export async function runScript (script, args, nodeFlags = [], node = process.execPath) {
  const path = fileURLToPath(new URL(script, import.meta.url))
  await waitForBuild()
  return new Promise((resolve, reject) => {
    execFile(node, [...nodeFlags, path, ...args.map(String)], { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) {
        reject(new Error(`${script} ${args.join(' ')} failed: ${stderr || error.message}`))
        return
      }
      const lines = stdout.trim().split('\n')
      resolve(JSON.parse(lines[lines.length - 1]))
    })
  })
}

/** A plain-text table with the columns padded to their widest cell. */
export function formatTable (header, rows) {
  const all = [header, ...rows].map((row) => row.map(String))
  const widths = header.map((_, column) => Math.max(...all.map((row) => row[column].length)))
  const line = (row) => '| ' + row.map((cell, column) => cell.padEnd(widths[column])).join(' | ') + ' |'
  const rule = '|' + widths.map((width) => '-'.repeat(width + 2)).join('|') + '|'
  return [line(all[0]), rule, ...all.slice(1).map(line)].join('\n')
}

export function verdict (met) {
  return met ? 'met' : 'MISSED'
}

export function fixed (value, digits = 2) {
  return Number.isFinite(value) ? value.toFixed(digits) : 'n/a'
}

export function thousands (value) {
  return Math.round(value).toLocaleString('en-US')
}
