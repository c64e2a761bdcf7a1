// An agent holding only the manifest of a RealWorld-style app calls every one of its commands through
// execute: the manifest must say enough to build a valid call for each (DESIGN §4, §8).
import t, { type Test } from 'tap'
import { buildRealWorldApp } from '../fixtures/realworld/app.js'
import { type Command, CREATE, DELETE, type Field, READ, runAgent, UPDATE } from '../fixtures/realworld/agent.js'
import { listening } from '../helpers/net.js'

interface ManifestCommand { params?: Record<string, Field>, auth?: string }

/** The verb `names: { style: 'rest' }` ends a name with says where a call goes in the agent's order. */
function rankOf (name: string): number {
  const verb = name.slice(name.lastIndexOf('.') + 1)
  return verb === 'create' ? CREATE : verb === 'update' ? UPDATE : verb === 'delete' ? DELETE : READ
}

/** The target of a `Link` header's relation, resolved against `base`. */
function linkTarget (link: string | null, rel: string, base: string): string | undefined {
  const match = (link ?? '').split(',').map((part) => /<([^>]*)>\s*;\s*rel="([^"]*)"/.exec(part.trim())).find((found) => found?.[2] === rel)
  return match === undefined || match === null ? undefined : new URL(match[1], base).href
}

/** Starts the app, fetches its manifest over HTTP and lets the agent call every command through execute. */
async function agentOverExecute (t: Test) {
  const app = await buildRealWorldApp()
  const origin = await listening(t, app)

  const response = await fetch(`${origin}/.well-known/svc.json`)
  t.equal(response.status, 200)
  const manifest = await response.json() as { commands: Record<string, ManifestCommand>, types: Record<string, Field>, auth?: { type: string, scheme?: string } }
  const executeUrl = linkTarget(response.headers.get('link'), 'svc-execute', origin)
  t.ok(executeUrl, 'the manifest names its execute endpoint in Link')
  // The scheme a credential is sent with: the manifest's, else what a 401's challenge names (RFC 6750).
  let scheme = manifest.auth?.scheme ?? 'Bearer'
  const learned: string[] = []

  const commands: Command[] = Object.entries(manifest.commands).map(([name, command]) => ({
    name, rank: rankOf(name), depth: name.split('.').length, params: command.params ?? {}
  }))
  const run = await runAgent(commands, manifest.types, async (command, params, token) => {
    for (let attempt = 0; ; attempt++) {
      const answer = await fetch(executeUrl ?? `${origin}/svc/execute`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { authorization: `${scheme} ${token}` }) },
        body: JSON.stringify({ command, params })
      })
      const body = await answer.json() as { ok: boolean, result?: unknown, error?: { code: string, message: string } }
      const challenged = /^([A-Za-z0-9!#$%&'*+.^_`|~-]+)/.exec(answer.headers.get('www-authenticate') ?? '')?.[1]
      if (answer.status === 401 && attempt === 0 && challenged !== undefined && challenged.toLowerCase() !== scheme.toLowerCase()) {
        learned.push(`the manifest's auth does not name its scheme: "${scheme}" was refused, the challenge asked for "${challenged}"`)
        scheme = challenged
        continue
      }
      return body.ok ? { ok: true, result: body.result } : { ok: false, error: `${body.error?.code}: ${body.error?.message}` }
    }
  })
  run.gaps.unshift(...learned)
  return { manifest, run }
}

t.test('from the manifest alone, an agent calls every command through execute', async (t) => {
  const { manifest, run } = await agentOverExecute(t)
  t.ok(Object.keys(manifest.commands).length >= 15, `the app has ${Object.keys(manifest.commands).length} commands`)
  t.same(run.calls.map((call) => call.command).sort(), Object.keys(manifest.commands).sort(), 'every command was called once')
  t.same(run.failures, {}, 'every command answered ok: true')
  t.same(run.gaps, [], 'the manifest described every field the agent had to fill')
  t.comment(`called ${run.calls.length - Object.keys(run.failures).length} of ${run.calls.length}: ${run.calls.map((call) => `${call.command}${call.outcome.ok ? '' : ' (failed)'}`).join(', ')}`)
})

t.test('the calls did what they say: the agent\'s article, comment and follow are there, then gone', async (t) => {
  const { run } = await agentOverExecute(t)
  const result = (command: string) => run.calls.find((call) => call.command === command)?.outcome
  t.match(result('articles.create'), { ok: true, result: { article: { slug: String, tagList: [String], favorited: false } } })
  t.match(result('articles.favorite.create'), { ok: true, result: { article: { favorited: true, favoritesCount: 1 } } })
  t.match(result('articles.comments.list'), { ok: true, result: { comments: [{ id: Number }] } })
  t.match(result('profiles.follow.create'), { ok: true, result: { profile: { following: true } } })
  // It answers one object, { articles, articlesCount }, and no route has items below it: a singleton to the rest style.
  t.match(result('articles.feed.get'), { ok: true, result: { articlesCount: 1 } })
  t.match(result('articles.delete'), { ok: true, result: null })
  const order = run.calls.map((call) => call.command)
  t.ok(order.indexOf('articles.comments.delete') < order.indexOf('articles.delete'), 'the comment is deleted before its article')
  t.ok(order.indexOf('articles.create') < order.indexOf('articles.comments.create'), 'the article exists before it is commented on')
})
