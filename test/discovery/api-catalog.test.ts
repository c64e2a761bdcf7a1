import Fastify from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { parseLinks } from '../../lib/manifest/invocation.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { listening } from '../helpers/net.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'

// RFC 9727: with `discovery: true`, GET /.well-known/api-catalog answers a JSON linkset (RFC 9264 §4.2)
// naming the manifest, the page and the MCP endpoint; HEAD answers the `api-catalog` Link header.

uiAssetsBuilt()

const CATALOG = '/.well-known/api-catalog'
const MANIFEST = '/.well-known/svc.json'
const CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"'
const CATALOG_LINK = '</.well-known/api-catalog>; rel="api-catalog"'

/**
 * The shape RFC 9264 §4.2 gives a JSON linkset: an object whose only member is `linkset`, an array of
 * link context objects, each with an `anchor` URI and, per relation type, an array of target objects that
 * each have an `href` URI (and optional string attributes such as `type` and `title`).
 */
function linksetProblems (document: unknown): string[] {
  const problems: string[] = []
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return ['not an object']
  if (Object.keys(document).join() !== 'linkset') problems.push(`members ${Object.keys(document).join()}`)
  const contexts = (document as { linkset: unknown }).linkset
  if (!Array.isArray(contexts) || contexts.length === 0) return [...problems, 'linkset is not a non-empty array']
  for (const context of contexts as Array<Record<string, unknown>>) {
    if (typeof context.anchor !== 'string' || !URL.canParse(context.anchor)) problems.push(`anchor ${String(context.anchor)}`)
    for (const [rel, targets] of Object.entries(context)) {
      if (rel === 'anchor') continue
      if (!Array.isArray(targets) || targets.length === 0) {
        problems.push(`${rel} is not a non-empty array`)
        continue
      }
      for (const target of targets as Array<Record<string, unknown>>) {
        if (typeof target.href !== 'string' || !URL.canParse(target.href)) problems.push(`${rel} href ${String(target.href)}`)
        for (const [key, value] of Object.entries(target)) if (typeof value !== 'string') problems.push(`${rel}.${key} is not a string`)
      }
    }
  }
  return problems
}

async function catalogOf (t: Test, app: Awaited<ReturnType<typeof readyApp>>) {
  const response = await app.inject({ method: 'GET', url: CATALOG })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], CATALOG_TYPE)
  const body = response.json()
  t.same(linksetProblems(body), [], 'an RFC 9264 JSON linkset')
  return { response, body }
}

t.test('the catalog names the manifest and llms.txt at baseUrl\'s origin, anchored at baseUrl', async (t) => {
  const app = await readyApp(t, { discovery: true })
  const { response, body } = await catalogOf(t, app)
  t.strictSame(body, {
    linkset: [{
      anchor: 'https://shop.example',
      'service-desc': [{ href: 'https://shop.example/.well-known/svc.json', type: 'application/json' }],
      describedby: [{ href: 'https://shop.example/llms.txt', type: 'text/markdown' }]
    }]
  })
  t.equal(response.headers.link, CATALOG_LINK, 'its GET names it too')
  t.equal(response.headers['cache-control'], 'public, max-age=300')
  t.match(response.headers.etag, /^"[\w-]+"$/)
})

t.test('HEAD answers the api-catalog Link header RFC 9727 §2 requires, without a body', async (t) => {
  const app = await readyApp(t, { discovery: true })
  const get = await app.inject({ method: 'GET', url: CATALOG })
  const head = await app.inject({ method: 'HEAD', url: CATALOG })
  t.equal(head.statusCode, 200)
  t.equal(head.headers.link, CATALOG_LINK)
  t.same(parseLinks(head.headers.link as string), [{ target: CATALOG, rels: ['api-catalog'] }])
  t.equal(head.headers['content-type'], CATALOG_TYPE)
  t.equal(head.headers.etag, get.headers.etag)
  t.equal(head.headers['content-length'], String(get.rawPayload.length), 'the length of the body it leaves out')
  t.equal(head.body, '')
})

t.test('If-None-Match with its ETag: 304 on GET and HEAD, with the ETag and the Link header', async (t) => {
  const app = await readyApp(t, { discovery: true })
  const { etag } = (await app.inject({ method: 'GET', url: CATALOG })).headers
  for (const method of ['GET', 'HEAD'] as const) {
    for (const ifNoneMatch of [etag as string, `W/${etag as string}`, `"other", ${etag as string}`]) {
      const response = await app.inject({ method, url: CATALOG, headers: { 'if-none-match': ifNoneMatch } })
      t.equal(response.statusCode, 304, `${method} ${ifNoneMatch}`)
      t.equal(response.body, '')
      t.equal(response.headers.etag, etag)
      t.equal(response.headers.link, CATALOG_LINK)
      t.equal(response.headers['content-length'], undefined, 'no content-length: 0 on a 304')
    }
  }
  t.equal((await app.inject({ method: 'GET', url: CATALOG, headers: { 'if-none-match': '"stale"' } })).statusCode, 200)
})

t.test('ui and mcp on: service-doc is the page, and the MCP endpoint is an item; paths as configured', async (t) => {
  const app = await readyApp(t, {
    discovery: true,
    baseUrl: 'https://api.example:8443/shop',
    path: '/meta/svc.json',
    basePath: '/api',
    ui: true,
    mcp: { path: '/agents/mcp' }
  })
  const { body } = await catalogOf(t, app)
  t.strictSame(body, {
    linkset: [{
      anchor: 'https://api.example:8443/shop',
      'service-desc': [{ href: 'https://api.example:8443/meta/svc.json', type: 'application/json' }],
      'service-doc': [{ href: 'https://api.example:8443/api/ui', type: 'text/html' }],
      describedby: [{ href: 'https://api.example:8443/llms.txt', type: 'text/markdown' }],
      item: [{ href: 'https://api.example:8443/agents/mcp', title: 'MCP endpoint (Streamable HTTP): every command as a tool' }]
    }]
  })
})

t.test('the manifest\'s Link header names the catalog and llms.txt, on its 200 and its 304', async (t) => {
  const app = await readyApp(t, { discovery: true, invoke: false })
  const response = await app.inject({ method: 'GET', url: MANIFEST })
  const link = '</svc/events>; rel="svc-events", </.well-known/api-catalog>; rel="api-catalog", </llms.txt>; rel="describedby"'
  t.equal(response.headers.link, link)
  const notModified = await app.inject({ method: 'GET', url: MANIFEST, headers: { 'if-none-match': response.headers.etag as string } })
  t.equal(notModified.statusCode, 304)
  t.equal(notModified.headers.link, link)
})

t.test('discovery off (the default): both answer 404 and the manifest names neither', async (t) => {
  for (const options of [{}, { discovery: false }]) {
    const app = await readyApp(t, { ...options, invoke: false })
    for (const url of [CATALOG, '/llms.txt']) {
      for (const method of ['GET', 'HEAD'] as const) t.equal((await app.inject({ method, url })).statusCode, 404, `${method} ${url}`)
    }
    t.equal((await app.inject({ method: 'GET', url: MANIFEST })).headers.link, '</svc/events>; rel="svc-events"')
  }
})

t.test('discovery must be true or false', async (t) => {
  await t.rejects(async () => { await Fastify().register(svcManifest, { ...requiredOptions, discovery: 'yes' } as never) }, {
    code: 'FST_SVC_INVALID_OPTION',
    message: /"discovery" must be true or false; got "yes"/
  })
})

t.test('with discovery on, an app route at either path is refused by Fastify', async (t) => {
  for (const url of [CATALOG, '/llms.txt']) {
    const app = Fastify()
    t.teardown(() => app.close())
    await app.register(svcManifest, { ...requiredOptions, discovery: true })
    t.throws(() => app.get(url, async () => 'mine'), { code: 'FST_ERR_DUPLICATED_ROUTE' }, url)
  }
})

t.test('an app-wide cookie never reaches the public documents', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  app.addHook('onSend', async (_request, reply) => { reply.header('set-cookie', 'session=abc') })
  await app.register(svcManifest, { ...requiredOptions, discovery: true })
  await app.ready()
  for (const url of [CATALOG, '/llms.txt']) {
    t.equal((await app.inject({ method: 'GET', url })).headers['set-cookie'], undefined, url)
  }
})

t.test('over HTTP: GET, HEAD and 304 as a client sees them', async (t) => {
  const app = Fastify()
  await app.register(svcManifest, { ...requiredOptions, discovery: true })
  const origin = await listening(t, app)
  const response = await fetch(`${origin}${CATALOG}`, { headers: { accept: 'application/linkset+json' } })
  t.equal(response.status, 200)
  t.equal(response.headers.get('content-type'), CATALOG_TYPE)
  const body = await response.json() as { linkset: Array<{ 'service-desc': Array<{ href: string }> }> }
  t.equal(body.linkset[0]['service-desc'][0].href, 'https://shop.example/.well-known/svc.json')
  const head = await fetch(`${origin}${CATALOG}`, { method: 'HEAD' })
  t.equal(head.status, 200)
  t.equal(head.headers.get('link'), CATALOG_LINK)
  const notModified = await fetch(`${origin}${CATALOG}`, { headers: { 'if-none-match': response.headers.get('etag') as string } })
  t.equal(notModified.status, 304)
  const llms = await fetch(`${origin}/llms.txt`)
  t.equal(llms.status, 200)
  t.equal(llms.headers.get('content-type'), 'text/markdown; charset=utf-8')
  t.match(await llms.text(), /^# Shop\n\n> Demo shop\n/)
  t.equal((await fetch(`${origin}/llms.txt`, { headers: { 'if-none-match': llms.headers.get('etag') as string } })).status, 304)
})
