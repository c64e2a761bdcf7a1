import { writeFile } from 'node:fs/promises'
import { parseArgs, type ParseArgsConfig } from 'node:util'
import { diffManifests } from '../client/diff.js'
import { callCommand } from './call.js'
import { generateManifest } from './generate.js'
import { isUrl, loadVerified } from './load.js'
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

const help: Options = { help: { type: 'boolean', short: 'h' } }

const COMMANDS: Record<string, Command> = {
  fetch: { positionals: ['url'], options: help, run: fetchCommand },
  check: { positionals: ['url|file'], options: help, run: checkCommand },
  diff: { positionals: ['before', 'after'], options: { ...help, json: { type: 'boolean' } }, run: diffCommand },
  generate: { positionals: ['module'], options: { ...help, out: { type: 'string', short: 'o' } }, run: generateCommand },
  call: { positionals: ['url', 'command'], variadic: true, options: { ...help, params: { type: 'string' }, token: { type: 'string' } }, run: callCommand },
  events: { positionals: ['url'], options: { ...help, events: { type: 'string' }, token: { type: 'string' } }, run: eventsCommand },
  watch: { positionals: ['url', 'channel', 'key'], options: { ...help, token: { type: 'string' } }, run: watchCommand }
}

/**
 * Runs `svc-manifest` with the arguments after the program name; resolves to the exit code. Output goes to
 * the process's streams, or to `output` when another program runs the CLI in-process. `signal` ends the
 * streaming commands (`events`, `watch`); without it they end on SIGINT or SIGTERM.
 */
export async function main (args: string[], output: CliOutput = processOutput, signal?: AbortSignal): Promise<number> {
  return await writingTo(output, async () => {
    try {
      return await dispatch(args, signal)
    } catch (error) {
      const failure = error instanceof CliError ? error : new CliError(`unexpected error: ${(error as Error).message}`)
      printError(`svc-manifest: ${oneLine(failure.message)}`)
      for (const line of failure.details) printError(`  ${line}`)
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
  return new CliError(`${message}. Run svc-manifest ${command === undefined ? '' : `${command} `}--help.`)
}

function oneLine (text: string): string {
  return text.replace(/\s*\n\s*/g, ' ')
}

async function fetchCommand ([url]: string[]): Promise<number> {
  if (!isUrl(url)) throw usageError(`fetch takes an http(s) URL; got "${url}"`, 'fetch')
  print(prettyJson(await loadVerified(url)))
  return EXIT_OK
}

async function checkCommand ([source]: string[]): Promise<number> {
  const { svc, commands, checksum } = await loadVerified(source)
  print(`${source}: valid manifest, layout ${svc}, ${Object.keys(commands).length} commands, checksum ${checksum}`)
  return EXIT_OK
}

async function diffCommand ([beforeSource, afterSource]: string[], values: Record<string, unknown>): Promise<number> {
  const [before, after] = await Promise.all([loadVerified(beforeSource), loadVerified(afterSource)])
  const diff = diffManifests(before, after)
  print(values.json === true ? prettyJson(diff) : formatDiff(diff))
  return diff.breaking.length > 0 ? EXIT_FAILED : EXIT_OK
}

async function generateCommand ([modulePath]: string[], values: Record<string, unknown>): Promise<number> {
  const manifest = await generateManifest(modulePath)
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
  print(`wrote ${out}: ${Object.keys(manifest.commands).length} commands, checksum ${manifest.checksum}`)
  return EXIT_OK
}
