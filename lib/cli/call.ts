import type { ManifestClient } from '../client/client.js'
import { CommandError } from '../client/invoke.js'
import type { ReadManifest } from '../manifest/types.js'
import { escapeControls } from './escape.js'
import { connectTo, isUrl } from './load.js'
import { CliError, EXIT_FAILED, EXIT_INTERRUPTED, EXIT_OK, EXIT_TERMINATED, prettyJson, print } from './output.js'
import { untilInterrupted } from './streams.js'

/**
 * `svc-manifest call <url> <command> [name=value ...] [--params JSON] [--token T] [--stream | --all-pages]`: calls a command
 * through the service's execute endpoint and prints its result as JSON. `<url>` is the manifest's URL, or
 * just the service's origin (the manifest is then at `/.well-known/svc.json`, else Surf's
 * `/.well-known/surf.json`). With `--stream`, a streamed execute: one JSON line per piece as it arrives,
 * then `{"result":…}`; Ctrl-C (or `signal`, for a program running the CLI) cancels the call on the server.
 * With `--all-pages`, every item of a paginated command, page by page, one JSON line each.
 */
export async function callCommand ([source, command, ...assignments]: string[], values: Record<string, unknown>, timeout: number, signal?: AbortSignal): Promise<number> {
  if (!isUrl(source)) throw usage(`call takes the http(s) URL of a manifest or a service; got "${source}"`)
  const params = readParamsOption(values.params as string | undefined)
  const given = assignments.map(readAssignment)
  const token = values.token as string | undefined
  if (values['all-pages'] === true) {
    if (values.stream === true) throw usage('--all-pages and --stream do not go together: --all-pages reads whole pages')
    return await printAllPages(source, command, params, given, token, timeout)
  }
  if (values.stream !== true) {
    const { client, manifest } = await connect(source, timeout, undefined, token)
    typeParams(params, given, manifest, command)
    let result: unknown
    try {
      result = await client.execute(command, params, { token })
    } catch (error) {
      throw failure(command, error)
    }
    print(prettyJson(await printable(result)))
    return EXIT_OK
  }
  // Handlers are in place before the first request: an interruption at any point cancels what was sent.
  const end = signal === undefined ? untilInterrupted() : { signal, release: () => {} }
  let code = EXIT_OK
  try {
    const { client, manifest } = await connect(source, timeout, end.signal, token)
    typeParams(params, given, manifest, command)
    const pieces = client.stream(command, params, { token, signal: end.signal })
    let step = await pieces.next()
    for (; step.done !== true; step = await pieces.next()) print(JSON.stringify(await printable(step.value)))
    if (step.value !== null) print(JSON.stringify({ result: await printable(step.value) }))
  } catch (error) {
    if (!end.signal.aborted) throw failure(command, error)
    code = end.signal.reason === 'SIGTERM' ? EXIT_TERMINATED : EXIT_INTERRUPTED
  } finally {
    // A program running main() keeps its own Ctrl-C.
    end.release()
  }
  return code
}

/** `--all-pages`: every item of a paginated command, one JSON line each, as the pages come. */
async function printAllPages (source: string, command: string, params: Record<string, unknown>, given: Array<[string, string]>, token: string | undefined, timeout: number): Promise<number> {
  const { client, manifest } = await connect(source, timeout, undefined, token)
  typeParams(params, given, manifest, command)
  try {
    for await (const item of client.paginate(command, params, { token })) print(JSON.stringify(item))
  } catch (error) {
    throw failure(command, error)
  }
  return EXIT_OK
}

/** Types the `name=value` params as the manifest declares them, over `--params`. */
function typeParams (params: Record<string, unknown>, given: Array<[string, string]>, manifest: ReadManifest, command: string): void {
  const declared = manifest.commands[command]?.params ?? {}
  for (const [name, text] of given) params[name] = typedValue(text, Object.hasOwn(declared, name) ? declared[name].type : undefined)
}

/** A command that failed is exit 1, with its code, status, the route's own code and its message; anything else exit 2. */
function failure (command: string, error: unknown): CliError {
  if (error instanceof CliError) return error
  if (!(error instanceof CommandError)) return new CliError((error as Error).message)
  const cause = error.cause === undefined ? '' : `, ${error.cause as string}`
  return new CliError(`${command} failed: ${error.code} (${error.status}${cause}): ${escapeControls(error.message)}`, EXIT_FAILED)
}

/** A value as JSON shows it: bytes (a binary result, a piece that is not UTF-8) as base64. */
async function printable (value: unknown): Promise<unknown> {
  if (value instanceof Blob) return await base64Of(value)
  if (value instanceof Uint8Array) return { encoding: 'base64', data: Buffer.from(value).toString('base64') }
  return value
}

function usage (message: string): CliError {
  return new CliError(`${message}. Run svc-manifest call --help.`)
}

/** A client for the service at `source` and its verified manifest; a failure to get it is exit 2. */
export async function connect (source: string, timeout: number, signal?: AbortSignal, token?: string): Promise<{ client: ManifestClient, manifest: ReadManifest }> {
  try {
    const { client, result } = await connectTo(source, timeout, signal, token)
    return { client, manifest: result.manifest }
  } catch (error) {
    throw new CliError((error as Error).message)
  }
}

function readParamsOption (text: string | undefined): Record<string, unknown> {
  if (text === undefined) return {}
  let params: unknown
  try {
    params = JSON.parse(text)
  } catch (error) {
    throw usage(`--params is not JSON: ${(error as Error).message}`)
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) throw usage('--params must be a JSON object such as \'{"q":"tea"}\'')
  return params as Record<string, unknown>
}

function readAssignment (assignment: string): [string, string] {
  const equals = assignment.indexOf('=')
  if (equals < 1) throw usage(`"${assignment}" is not name=value`)
  return [assignment.slice(0, equals), assignment.slice(equals + 1)]
}

/**
 * A value typed as the manifest declares the param: a `string` param takes the text as it is; any other
 * (number, boolean, array, object, a registered type, or an undeclared param) takes it as JSON when it
 * parses, else as text, and the route's validation decides.
 */
function typedValue (text: string, type: string | undefined): unknown {
  if (type === 'string') return text
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

async function base64Of (blob: Blob): Promise<{ encoding: 'base64', contentType: string, result: string }> {
  return { encoding: 'base64', contentType: blob.type, result: Buffer.from(await blob.arrayBuffer()).toString('base64') }
}
