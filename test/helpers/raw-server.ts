import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { Test } from 'tap'
import { checksumOf, type Manifest } from '../../lib/client/index.js'

export interface RawServer {
  origin: string
  /** Requests received, by path. */
  requests: string[]
}

/**
 * A bare `node:http` server on 127.0.0.1 that answers with `handler`: for servers that misbehave on
 * purpose (never answer, stall, redirect, send too much), which a Fastify app would not let a test do.
 * Open sockets are destroyed at teardown, so a handler that never ends its response cannot hang the test.
 */
export async function rawServer (t: Test, handler: (request: IncomingMessage, response: ServerResponse) => void): Promise<RawServer> {
  const requests: string[] = []
  const server = createServer((request, response) => {
    requests.push(request.url!)
    handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as { port: number }
  return { origin: `http://127.0.0.1:${port}`, requests }
}

/** A valid layout 1.0 manifest holding `commands`, with their checksum. */
export function manifestOf (commands: Manifest['commands'] = { search: { description: 'Search' } }, fields: Partial<Manifest> = {}): Manifest {
  return {
    svc: '1.0',
    name: 'Shop',
    description: 'Demo shop',
    version: '2.3.0',
    baseUrl: 'https://shop.example',
    commands,
    events: {},
    types: {},
    checksum: checksumOf(commands),
    updatedAt: '2025-01-01T00:00:00.000Z',
    ...fields
  } as Manifest
}

/** Sends `body` as JSON with `headers`. */
export function sendJson (response: ServerResponse, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', ...headers })
  response.end(typeof body === 'string' ? body : JSON.stringify(body))
}
