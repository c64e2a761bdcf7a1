import { readFileSync } from 'node:fs'
import { isDeepStrictEqual } from 'node:util'
import type { Test } from 'tap'
import { rawServer, type RawServer } from './raw-server.js'

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/surf/${name}`, import.meta.url), 'utf8')

/** The manifest a real Surf server served (test/fixtures/surf/README.md), as its exact text. */
export const SURF_MANIFEST_TEXT = fixture('manifest.json')
export const SURF_TOKEN = 'secret-token'

interface Answer {
  request: unknown
  authorization?: string
  status: number
  body: unknown
}
const answers = JSON.parse(fixture('answers.json')) as { execute: Answer[], notFound: { status: number, body: unknown } }

export interface SurfServer extends RawServer {
  /** Bodies of the POSTs received, by path. */
  posts: Array<{ path: string, body: unknown, authorization?: string }>
}

/**
 * Surf's HTTP surface as captured: its manifest at `/.well-known/surf.json` (another text when `manifest`
 * gives one, with `link` when given), its
 * recorded answers at `/surf/execute`, and its 404 everywhere else. A request it holds no answer for fails
 * the test with a 500.
 */
export async function surfServer (t: Test, options: { link?: string, manifest?: () => string } = {}): Promise<SurfServer> {
  const posts: SurfServer['posts'] = []
  const server = await rawServer(t, (request, response) => {
    const path = request.url!.split('?')[0]
    const reply = (status: number, body: unknown, headers: Record<string, string> = {}): void => {
      response.writeHead(status, { 'content-type': 'application/json', ...headers })
      response.end(typeof body === 'string' ? body : JSON.stringify(body))
    }
    if (path === '/.well-known/surf.json' && request.method === 'GET') {
      const manifest = options.manifest?.() ?? SURF_MANIFEST_TEXT
      const etag = `"${(JSON.parse(manifest) as { checksum: string }).checksum}"`
      reply(200, manifest, { etag, 'cache-control': 'public, max-age=300', ...(options.link === undefined ? {} : { link: options.link }) })
      return
    }
    if (request.method !== 'POST') {
      reply(answers.notFound.status, answers.notFound.body)
      return
    }
    let text = ''
    request.on('data', (chunk: Buffer) => { text += chunk.toString() })
    request.on('end', () => {
      const body = JSON.parse(text) as { command: string, params?: Record<string, unknown> }
      const authorization = request.headers.authorization
      posts.push({ path, body, ...(authorization === undefined ? {} : { authorization }) })
      const asked = { command: body.command, ...(body.params === undefined || Object.keys(body.params).length === 0 ? {} : { params: body.params }) }
      const recorded = answers.execute.filter((entry) => isDeepStrictEqual(entry.request, asked))
      // The answer to this very credential, else the one recorded without any (Surf ignores a token a command does not need).
      const answer = recorded.find((entry) => entry.authorization === authorization) ?? recorded.find((entry) => entry.authorization === undefined)
      if (path !== '/surf/execute' && !path.endsWith('/execute')) reply(answers.notFound.status, answers.notFound.body)
      else if (answer === undefined) reply(500, { ok: false, error: { code: 'NO_RECORDED_ANSWER', message: text } })
      else reply(answer.status, answer.body)
    })
  })
  return { ...server, posts }
}
