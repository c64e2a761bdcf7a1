import { writeFile } from 'node:fs/promises'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { diffManifests } from '../client/diff.js'
import { MAX_TIMEOUT_MS } from '../client/http.js'
import { callCommand } from './call.js'
import { escapeControls } from './escape.js'
import { DEFAULT_GENERATE_TIMEOUT_MS, generateManifest } from './generate.js'
import { DEFAULT_DOWNLOAD_TIMEOUT_MS, isUrl, loadVerified } from './load.js'
import { mcpCommand } from './mcp.js'
import { eventsCommand, watchCommand } from './streams.js'
import { CliError, EXIT_FAILED, EXIT_OK, prettyJson, print, printError, processOutput, writingTo, type CliOutput } from './output.js'
import { formatDiff } from './report.js'
import { COMMAND_NAMES, helpOf } from './usage.js'

type Options = NonNullable<ParseArgsConfig['options']>

interface Command {
  /** The names of the positionals the command takes, for the usage line. */
  positionals: string[]
  /** More positionals may follow the named ones. */
  variadic?: boolean
  options: Options
  run (positionals: string[], values: Record<string, unknown>, signal?: AbortSignal): Promise<number>
}

const common: Options = { help: { type: 'boolean', short: 'h' }, timeout: { type: 'string' } }

const COMMANDS: Record<string, Command> = {
  fetch: { positionals: ['url'], options: { ...common, token: { type: 'string' } }, run: fetchCommand },
  check: { positionals: ['url|file'], options: { ...common, strict: { type: 'boolean' } }, run: checkCommand },
  diff: { positionals: ['before', 'after'], options: { ...common, json: { type: 'boolean' } }, run: diffCommand },
  generate: { positionals: ['module'], options: { ...common, out: { type: 'string', short: 'o' }, all: { type: 'boolean' } }, run: generateCommand },
  call: { positionals: ['url', 'command'], variadic: true, options: { ...common, params: { type: 'string' }, token: { type: 'string' }, stream: { type: 'boolean' }, 'all-pages': { type: 'boolean' } }, run: call },
  mcp: { positionals: ['url'], options: { ...common, token: { type: 'string' } }, run: mcp },
  events: { positionals: ['url'], options: { ...common, events: { type: 'string' }, token: { type: 'string' } }, run: events },
  watch: { positionals: ['url', 'channel', 'key'], options: { ...common, token: { type: 'string' } }, run: watch }
}

/**
 * Runs `svc-manifest` with the arguments after the program name; resolves to the exit code. Output goes to
 * the process's streams, or to `output` when another program runs the CLI in-process. `signal` ends the
 * streaming commands (`events`, `watch`; `call --stream`, which then cancels its call and exits 130);
 * without it they end on SIGINT or SIGTERM.
 */
export async function main (args: string[], output: CliOutput = processOutput, signal?: AbortSignal): Promise<number> {
  return await writingTo(output, async () => {
    try {
      return await dispatch(args, signal)
    } catch (error) {
      const failure = error instanceof CliError ? error : new CliError(`unexpected error: ${(error as Error).message}`)
      printError(`svc-manifest: ${oneLine(failure.message)}`)
      // Details are problems found in a manifest: they quote its names, line feeds included.
      for (const line of failure.details) printError(`  ${escapeControls(line)}`)
      return failure.exitCode
    }
  })
}

async function dispatch (args: string[], signal: AbortSignal | undefined): Promise<number> {
  const [name, ...rest] = args
  if (name === '--help' || name === '-h' || name === 'help') {
    print(helpOf(rest[0]))
    return EXIT_OK
  }
  const command = COMMANDS[name]
  if (command === undefined) {
    throw usageError(name === undefined ? 'missing command' : `unknown command "${name}" (commands: ${COMMAND_NAMES.join(', ')})`)
  }
  const { values, positionals } = parse(name, command, rest)
  if (values.help === true) {
    print(helpOf(name))
    return EXIT_OK
  }
  if (command.variadic === true ? positionals.length < command.positionals.length : positionals.length !== command.positionals.length) {
    throw usageError(`${name} takes ${command.positionals.map((p) => `<${p}>`).join(' ')}${command.variadic === true ? ' …' : ''}`, name)
  }
  return await command.run(positionals, values, signal)
}

function parse (name: string, command: Command, args: string[]): { values: Record<string, unknown>, positionals: string[] } {
  try {
    return parseArgs({ args, options: command.options, allowPositionals: true, strict: true })
  } catch (error) {
    throw usageError((error as Error).message, name)
  }
}

function usageError (message: string, command?: string): CliError {
  return new CliError(`${message.replace(/\.$/, '')}. Run svc-manifest ${command === undefined ? '' : `${command} `}--help.`)
}

function oneLine (text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}

/** `--timeout <seconds>` in milliseconds: a decimal number of seconds above 0, as `setTimeout` can hold it. */
function timeoutOf (command: string, values: Record<string, unknown>, fallback: number): number {
  const text = values.timeout as string | undefined
  if (text === undefined) return fallback
  const ms = Math.round(Number(text) * 1000)
  if (!/^(?:\d+\.?\d*|\.\d+)$/.test(text) || ms < 1 || ms > MAX_TIMEOUT_MS) {
    throw usageError(`--timeout takes a number of seconds from 0.001 to ${Math.floor(MAX_TIMEOUT_MS / 1000)}; got "${text}"`, command)
  }
  return ms
}

function plural (count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`
}

async function fetchCommand ([url]: string[], values: Record<string, unknown>): Promise<number> {
  if (!isUrl(url)) throw usageError(`fetch takes an http(s) URL; got "${url}"`, 'fetch')
  // As served: fields the spec leaves out stay out, fields it does not know stay in.
  print(prettyJson((await loadVerified(url, timeoutOf('fetch', values, DEFAULT_DOWNLOAD_TIMEOUT_MS), false, values.token as string | undefined)).served))
  return EXIT_OK
}

async function checkCommand ([source]: string[], values: Record<string, unknown>): Promise<number> {
  const { manifest, checksumMethod } = await loadVerified(source, timeoutOf('check', values, DEFAULT_DOWNLOAD_TIMEOUT_MS), values.strict === true)
  const { svc, surf, commands, checksum } = manifest
  const layout = surf === undefined ? `layout ${svc}` : `Surf ${surf}, read as layout ${svc}`
  const how = checksumMethod === 'surf' ? ' (computed as Surf does: JSON.stringify of the commands, keys sorted)' : ''
  print(`${source}: valid manifest, ${layout}, ${plural(Object.keys(commands).length, 'command')}, checksum ${checksum}${how}`)
  return EXIT_OK
}

async function diffCommand ([beforeSource, afterSource]: string[], values: Record<string, unknown>): Promise<number> {
  const timeout = timeoutOf('diff', values, DEFAULT_DOWNLOAD_TIMEOUT_MS)
  const [{ manifest: before }, { manifest: after }] = await Promise.all([loadVerified(beforeSource, timeout), loadVerified(afterSource, timeout)])
  const diff = diffManifests(before, after)
  print(values.json === true ? prettyJson(diff) : formatDiff(diff))
  return diff.breaking.length > 0 ? EXIT_FAILED : EXIT_OK
}

async function call (positionals: string[], values: Record<string, unknown>, signal?: AbortSignal): Promise<number> {
  return await callCommand(positionals, values, timeoutOf('call', values, DEFAULT_DOWNLOAD_TIMEOUT_MS), signal)
}

async function mcp (positionals: string[], values: Record<string, unknown>): Promise<number> {
  return await mcpCommand(positionals, values, timeoutOf('mcp', values, DEFAULT_DOWNLOAD_TIMEOUT_MS))
}

async function events (positionals: string[], values: Record<string, unknown>, signal?: AbortSignal): Promise<number> {
  return await eventsCommand(positionals, values, timeoutOf('events', values, DEFAULT_DOWNLOAD_TIMEOUT_MS), signal)
}

async function watch (positionals: string[], values: Record<string, unknown>, signal?: AbortSignal): Promise<number> {
  return await watchCommand(positionals, values, timeoutOf('watch', values, DEFAULT_DOWNLOAD_TIMEOUT_MS), signal)
}

async function generateCommand ([modulePath]: string[], values: Record<string, unknown>): Promise<number> {
  const manifest = await generateManifest(modulePath, timeoutOf('generate', values, DEFAULT_GENERATE_TIMEOUT_MS), values.all === true)
  const out = values.out as string | undefined
  if (out === undefined) {
    print(prettyJson(manifest))
    return EXIT_OK
  }
  try {
    await writeFile(out, prettyJson(manifest))
  } catch (error) {
    throw new CliError(`cannot write ${out}: ${(error as Error).message}`)
  }
  print(`wrote ${out}: ${plural(Object.keys(manifest.commands).length, 'command')}, checksum ${manifest.checksum}`)
  return EXIT_OK
}
