import type { ManifestClient } from '../client/client.js'
import { CommandError } from '../client/invoke.js'
import type { ReadManifest } from '../manifest/types.js'
import { escapeControls } from './escape.js'
import { connectTo, isUrl } from './load.js'
import { CliError, EXIT_FAILED, EXIT_OK, prettyJson, print } from './output.js'

/**
 * `svc-manifest call <url> <command> [name=value ...] [--params JSON] [--token T]`: calls a command through
 * the service's execute endpoint and prints its result as JSON. `<url>` is the manifest's URL, or just the
 * service's origin (the manifest is then at `/.well-known/svc.json`, else Surf's `/.well-known/surf.json`).
 */
export async function callCommand ([source, command, ...assignments]: string[], values: Record<string, unknown>, timeout: number): Promise<number> {
  if (!isUrl(source)) throw usage(`call takes the http(s) URL of a manifest or a service; got "${source}"`)
  const params = readParamsOption(values.params as string | undefined)
  const given = assignments.map(readAssignment)
  const { client, manifest } = await connect(source, timeout)
  const declared = manifest.commands[command]?.params ?? {}
  for (const [name, text] of given) params[name] = typedValue(text, Object.hasOwn(declared, name) ? declared[name].type : undefined)
  let result: unknown
  try {
    result = await client.execute(command, params, { token: values.token as string | undefined })
  } catch (error) {
    if (!(error instanceof CommandError)) throw new CliError((error as Error).message)
    const cause = error.cause === undefined ? '' : `, ${error.cause as string}`
    throw new CliError(`${command} failed: ${error.code} (${error.status}${cause}): ${escapeControls(error.message)}`, EXIT_FAILED)
  }
  print(prettyJson(result instanceof Blob ? await base64Of(result) : result))
  return EXIT_OK
}

function usage (message: string): CliError {
  return new CliError(`${message}. Run svc-manifest call --help.`)
}

/** A client for the service at `source` and its verified manifest; a failure to get it is exit 2. */
export async function connect (source: string, timeout: number): Promise<{ client: ManifestClient, manifest: ReadManifest }> {
  try {
    const { client, result } = await connectTo(source, timeout)
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
