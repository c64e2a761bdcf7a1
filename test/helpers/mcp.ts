import { PassThrough } from 'node:stream'
import { Client, ReadBuffer, serializeMessage, StreamableHTTPClientTransport, type CallToolResult, type JSONRPCMessage, type Tool, type Transport } from '@modelcontextprotocol/client'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { Ajv } from 'ajv'
import { Ajv2020 } from 'ajv/dist/2020.js'
import ajvFormats from 'ajv-formats'
import type { Test } from 'tap'
import { main } from '../../lib/cli/main.js'

/**
 * The SDK's own v2 client, connected over Streamable HTTP to `url`; `headers` go with every request. It
 * negotiates (`versionNegotiation: 'auto'`: `server/discover`, then 2026-07-28 without a handshake, where the
 * server speaks it); `protocolVersions` (2025 ones) makes it open with the 2025 handshake, offering the
 * first of them.
 */
export async function httpClient (t: Test, url: string, headers: Record<string, string> = {}, protocolVersions?: string[]): Promise<Client> {
  const options = protocolVersions === undefined ? { versionNegotiation: { mode: 'auto' as const } } : { supportedProtocolVersions: protocolVersions }
  const client = new Client({ name: 'test-client', version: '1.0.0' }, options)
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  if (protocolVersions === undefined) await client.connect(transport)
  else await client.connect(transport, { prior: { kind: 'legacy' } })
  t.teardown(() => client.close())
  return client
}

/** The SDK's v1 client (`@modelcontextprotocol/sdk`), which stops at the 2025 revisions: `initialize` with 2025-11-25, then requests. */
export async function legacyHttpClient (t: Test, url: string, headers: Record<string, string> = {}): Promise<V1Client> {
  const client = new V1Client({ name: 'legacy-client', version: '1.0.0' })
  await client.connect(new V1StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  t.teardown(() => client.close())
  return client
}

/** The text of a tool result's one text content, parsed as JSON. */
export function textJson (result: CallToolResult | Record<string, unknown>): unknown {
  const content = (result as CallToolResult).content
  if (content.length !== 1 || content[0].type !== 'text') throw new Error(`expected one text content, got ${JSON.stringify(content)}`)
  return JSON.parse(content[0].text)
}

// ajv-formats is CommonJS: imported from ESM, its plugin function is the `default` of module.exports.
const addFormats = ajvFormats.default

export const DRAFT_07 = 'http://json-schema.org/draft-07/schema#'

/**
 * Compiles a tool's input schema with Ajv in strict mode: as JSON Schema draft-07 (the dialect Fastify's
 * validator reads), and also as 2020-12 (MCP's default dialect) when it does not name draft-07 as its own.
 * A schema that either refuses throws here.
 */
export function compileInputSchema (tool: Tool): (value: unknown) => boolean {
  if (tool.inputSchema.$schema !== DRAFT_07) addFormats(new Ajv2020({ strict: true })).compile(tool.inputSchema)
  const validate = addFormats(new Ajv({ strict: true })).compile(tool.inputSchema)
  return (value) => validate(value)
}

/** `svc-manifest mcp …` run in-process: its protocol streams, and what it wrote to stderr. */
export interface InProcessCli {
  /** Resolves to the exit code once the command ends. */
  exit: Promise<number>
  stderr: () => string
  /** The client end of its stdio. */
  transport: Transport
}

/** Runs the CLI's main in this process with the stdio of an MCP server: a transport for the client end. */
export function inProcessCli (...args: string[]): InProcessCli {
  const toServer = new PassThrough()
  const fromServer = new PassThrough()
  let stderr = ''
  const exit = main(args, { stdin: toServer, stdout: (text) => fromServer.write(text), stderr: (text) => { stderr += text } })
  return { exit, stderr: () => stderr, transport: new StreamTransport(fromServer, toServer) }
}

/**
 * The client end of a stdio MCP server running in this process: what `StdioClientTransport` does over a
 * child's pipes, over two in-memory streams, with the SDK's own framing.
 */
class StreamTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private readonly buffer = new ReadBuffer()

  constructor (private readonly input: PassThrough, private readonly output: PassThrough) {}

  async start (): Promise<void> {
    this.input.on('data', (chunk: Buffer) => {
      this.buffer.append(chunk)
      for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message)
    })
  }

  async send (message: JSONRPCMessage): Promise<void> {
    this.output.write(serializeMessage(message))
  }

  /** Ends the server's input, as a client closing the pipe does. */
  async close (): Promise<void> {
    this.output.end()
    this.onclose?.()
  }
}
