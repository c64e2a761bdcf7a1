import { terminalSafe } from './escape.js'
import { Writable, type Readable } from 'node:stream'

/** Exit codes of `svc-manifest`: part of its interface, documented in docs/cli.md. */
export const EXIT_OK = 0
/** The manifest is invalid or tampered, or the diff has breaking changes. */
export const EXIT_FAILED = 1
/** Bad arguments, or a network or file error. */
export const EXIT_ERROR = 2
/** `call --stream` interrupted by Ctrl-C (SIGINT), as a shell reports it: 128 + 2. */
export const EXIT_INTERRUPTED = 130
/** `call --stream` ended by SIGTERM: 128 + 15. */
export const EXIT_TERMINATED = 143

/** An error that ends the command with one line on stderr and the given exit code. */
export class CliError extends Error {
  readonly exitCode: number
  /** More lines for stderr, after the message. */
  readonly details: string[]

  constructor (message: string, exitCode = EXIT_ERROR, details: string[] = []) {
    super(message)
    this.exitCode = exitCode
    this.details = details
  }
}

/** Where the CLI writes: the process's streams, or a caller's sink when `main` runs inside another program. */
export interface CliOutput {
  stdout (text: string): void
  stderr (text: string): void
  /** What a command that speaks a protocol on stdio (`mcp`) reads. Default: the process's stdin. */
  stdin?: Readable
}

export const processOutput: CliOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  get stdin () { return process.stdin }
}

let output = processOutput

/** Runs `work` with `print` and `printError` going to `sink`. */
export async function writingTo<T> (sink: CliOutput, work: () => Promise<T>): Promise<T> {
  const previous = output
  output = sink
  try {
    return await work()
  } finally {
    output = previous
  }
}

/**
 * Writes a line (or lines) to stdout. Control characters other than the line feed are escaped here, on the
 * way out, so nothing a server sends can drive the terminal; text that mixes in remote strings must escape
 * their line feeds itself (`escapeControls`).
 */
export function print (text: string): void {
  const safe = terminalSafe(text)
  output.stdout(safe.endsWith('\n') ? safe : `${safe}\n`)
}

export function printError (text: string): void {
  output.stderr(`${terminalSafe(text)}\n`)
}

/** The streams of a protocol spoken on stdio: read from the sink's stdin, written through its stdout. */
export function protocolStreams (): { input: Readable, output: Writable } {
  const sink = output
  const input = sink.stdin ?? process.stdin
  return { input, output: new Writable({ decodeStrings: false, write (chunk: string, _encoding, done) { sink.stdout(chunk); done() } }) }
}

export function prettyJson (value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`
}
