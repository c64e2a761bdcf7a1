// Defect: the client read any body whole, 50 MB included. Now it reads at most `maxBodySize` bytes
// (default 8 MiB, counted after content decoding), chunk by chunk, and stops the download at the limit.
import { once } from 'node:events'
import type { ServerResponse } from 'node:http'
import { gzipSync } from 'node:zlib'
import t from 'tap'
import { createManifestClient } from '../../lib/client/index.js'
import { manifestOf, rawServer, sendJson } from '../helpers/raw-server.js'
import { cli, oneLine } from '../helpers/cli.js'

const MiB = 1024 * 1024

/** Streams `total` bytes of JSON-ish padding at the pace the client reads; resolves to the bytes written. */
async function stream (response: ServerResponse, total: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  let written = 0
  while (written < total && !response.destroyed) {
    written += chunk.length
    if (!response.write(chunk)) await Promise.race([once(response, 'drain'), once(response, 'close')])
  }
  if (!response.destroyed) response.end()
  return written
}

t.test('a 50 MB body without a length: refused with SVC_CLIENT_BODY_TOO_LARGE before the server sent it all', async (t) => {
  const sent: Promise<number>[] = []
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    sent.push(stream(response, 50 * MiB))
  })
  const error = await createManifestClient({ url: `${origin}/svc.json` }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_BODY_TOO_LARGE')
  t.equal(error.message, `GET ${origin}/svc.json answered with a body that sent more than 8388608 bytes, over the limit of 8388608 bytes (maxBodySize); refused`)
  const written = await sent[0]
  t.ok(written < 24 * MiB, `the client hung up after ${(written / MiB).toFixed(1)} MiB of 50`)
})

t.test('a declared Content-Length over the limit is refused before reading', async (t) => {
  const sent: Promise<number>[] = []
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(50 * MiB) })
    sent.push(stream(response, 50 * MiB))
  })
  const error = await createManifestClient({ url: `${origin}/svc.json` }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_BODY_TOO_LARGE')
  t.match(error.message, `answered with a body that declares ${50 * MiB} bytes, over the limit of 8388608 bytes`)
  t.ok(await sent[0] < 24 * MiB)
})

t.test('the limit counts decoded bytes: a small gzip that inflates past it is refused', async (t) => {
  const bomb = gzipSync(Buffer.alloc(9 * MiB, 0x20))
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(bomb.length) })
    response.end(bomb)
  })
  t.ok(bomb.length < 64 * 1024, `${bomb.length} bytes on the wire`)
  const error = await createManifestClient({ url: `${origin}/svc.json` }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_BODY_TOO_LARGE')
})

t.test('maxBodySize sets the limit; a body of exactly the limit is read', async (t) => {
  const body = JSON.stringify(manifestOf())
  const { origin } = await rawServer(t, (request, response) => sendJson(response, body))
  const url = `${origin}/svc.json`
  const size = Buffer.byteLength(body)
  t.equal((await createManifestClient({ url, maxBodySize: size }).get()).status, 'fetched')
  const error = await createManifestClient({ url, maxBodySize: size - 1 }).get().catch((error) => error)
  t.equal(error.code, 'SVC_CLIENT_BODY_TOO_LARGE')
  t.match(error.message, `sent more than ${size - 1} bytes, over the limit of ${size - 1} bytes (maxBodySize)`)
})

t.test('svc-manifest fetch of a huge body: exit 2 with one line', async (t) => {
  const { origin } = await rawServer(t, (request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' })
    stream(response, 50 * MiB).catch(() => {})
  })
  const run = await cli('fetch', `${origin}/svc.json`)
  t.equal(run.code, 2)
  oneLine(t, run.stderr, 'over the limit of 8388608 bytes (maxBodySize); refused')
})
