import type { ManifestClient } from '../client/client.js'
import { manifestServerInfo, manifestTools } from '../mcp/manifest-tools.js'
import { loadStdioSdk, type McpStdioSdk } from '../mcp/sdk.js'
import { createToolServer, toolResultOf, type CallOutcome } from '../mcp/tools.js'
import { connect } from './call.js'
import { isUrl } from './load.js'
import { CliError, EXIT_FAILED, EXIT_OK, printError, protocolStreams } from './output.js'

/**
 * `svc-manifest mcp <url> [--token T]`: an MCP server on stdio for any service that serves a manifest.
 * Its tools are the manifest's commands; each call goes through the service's execute endpoint. Stdout
 * carries the protocol and nothing else: what the command has to say goes to stderr. It serves until its
 * input ends.
 */
export async function mcpCommand ([source]: string[], values: Record<string, unknown>, timeout: number): Promise<number> {
  if (!isUrl(source)) throw new CliError(`mcp takes the http(s) URL of a manifest or a service; got "${source}". Run svc-manifest mcp --help.`)
  const { input, output } = protocolStreams()
  const token = values.token as string | undefined
  const sdk = await loadSdk()
  // With a token, the tools are that credential's view of the commands.
  const { client, manifest } = await connect(source, timeout, undefined, token)
  const { tools, byTool, problems } = manifestTools(manifest)
  if (problems.length > 0) throw new CliError(`${client.url}: some commands cannot be MCP tools:`, EXIT_FAILED, problems)
  const ended = new Promise<void>((resolve) => input.once('end', resolve))
  // The SDK's stdio entry: the opening message picks the revision (2026-07-28's discover, or a 2025 initialize).
  const handle = sdk.serveStdio(() => createToolServer(sdk, manifestServerInfo(manifest), () => ({ tools, byTool }), async (command, args) => {
    return toolResultOf(await outcomeOf(client, command, args, token))
  }), { transport: new sdk.StdioServerTransport(input, output) })
  const version = manifest.version === undefined ? '' : ` ${manifest.version}`
  printError(`svc-manifest mcp: ${tools.length} tools of ${manifest.name}${version} (${client.url}) on stdio`)
  await ended
  await handle.close()
  return EXIT_OK
}

async function loadSdk (): Promise<McpStdioSdk> {
  try {
    return await loadStdioSdk()
  } catch (error) {
    throw new CliError((error as Error).message)
  }
}

/** A call through the execute endpoint, as execute answered it: the same outcome the plugin's own MCP endpoint turns into a tool result. */
async function outcomeOf (client: ManifestClient, command: string, args: Record<string, unknown>, token: string | undefined): Promise<CallOutcome> {
  try {
    const result = await client.execute(command, args, { token })
    // Bytes that are neither JSON nor text arrive as a Blob.
    if (result instanceof Blob) return { ok: true, result: Buffer.from(await result.arrayBuffer()).toString('base64'), encoding: 'base64', contentType: result.type }
    return { ok: true, result }
  } catch (error) {
    // A CommandError carries the service's error object; a ManifestClientError says why the call got no answer.
    const { code, message, status, cause } = error as { code: string, message: string, status?: number, cause?: unknown }
    const failure: CallOutcome = { ok: false, error: { code, message } }
    if (status !== undefined) failure.error.status = status
    if (typeof cause === 'string') failure.error.cause = cause
    return failure
  }
}
