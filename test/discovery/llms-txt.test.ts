import { Type } from '@sinclair/typebox'
import Fastify, { type FastifyInstance } from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { readyApp, requiredOptions } from '../helpers/app.js'
import { audienceShop } from '../helpers/audiences.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'

// GET /llms.txt (discovery: true): the public manifest as Markdown for a language model, after the
// llms.txt convention (llmstxt.org): H1, blockquote, text, then sections.

uiAssetsBuilt()

const LLMS = '/llms.txt'

const FIXTURE_OPTIONS: Partial<SvcManifestOptions> = {
  svc: '0.5.0',
  discovery: true,
  about: 'A tea shop. Search the catalogue without a token.',
  auth: { type: 'bearer', description: 'A session token', scheme: 'Token', verify: () => ({ sub: 'ann' }) },
  types: { Product: Type.Object({ sku: Type.String({ pattern: '^[a-z-]+$' }), price: Type.Number({ minimum: 0 }) }, { description: 'A product' }) },
  events: {
    'cart.updated': { description: 'Cart contents changed', data: Type.Object({ items: Type.Array(Type.String()) }) },
    'shop.opened': { description: 'The shop opened' }
  },
  channels: { cart: { description: 'Real-time cart state' } }
}

/** Commands with every field llms.txt shows: tags, params with constraints, auth, scopes, hints, examples, stream. */
function fixtureRoutes (app: FastifyInstance): void {
  app.post('/cart/items', {
    svc: {
      name: 'cart.add',
      description: 'Add an item\nto the cart',
      tags: ['cart'],
      auth: 'required',
      scopes: ['cart:write'],
      params: Type.Object({
        sku: Type.String({ description: 'Product SKU', minLength: 1 }),
        quantity: Type.Optional(Type.Integer({ default: 1, minimum: 1, maximum: 10 })),
        size: Type.Optional(Type.Union([Type.Literal('s'), Type.Literal('m')])),
        gift: Type.Optional(Type.Object({ note: Type.String({ maxLength: 200 }), email: Type.Optional(Type.String({ format: 'email' })) })),
        'we`ird': Type.Optional(Type.Boolean())
      }),
      returns: Type.Ref('Product'),
      hints: { idempotent: false, sideEffects: true },
      examples: [{ title: 'One mug', params: { sku: 'mug' }, result: { sku: 'mug', price: 8 } }, { params: { sku: 'tea', quantity: 2 } }]
    }
  }, async () => ({}))
  app.get('/search', {
    svc: {
      description: 'Search the catalogue',
      tags: ['search', 'catalogue'],
      auth: 'optional',
      params: Type.Object({ q: Type.String() }),
      returns: Type.Array(Type.Object({ sku: Type.String(), tags: Type.Array(Type.Array(Type.Object({ label: Type.String() }))) })),
      deprecated: true
    }
  }, async () => [])
  app.get('/orders/live', { svc: { name: 'orders.live', description: 'New orders as they come', tags: ['orders'], stream: true } }, async () => '')
  app.get('/orders', {
    svc: {
      name: 'orders.list',
      description: 'Orders, a page at a time',
      tags: ['orders'],
      params: Type.Object({ cursor: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer()) }),
      paginated: true,
      rateLimit: { maxRequests: 10, windowMs: 60000 }
    }
  }, async () => ({ items: [] }))
  app.get('/returns', {
    svc: {
      name: 'returns.list',
      description: 'Returns, a page at a time',
      tags: ['orders'],
      params: Type.Object({ offset: Type.Optional(Type.Integer()), limit: Type.Optional(Type.Integer()) }),
      paginated: { style: 'offset', defaultLimit: 10, maxLimit: 50, items: 'returns', total: 'count' }
    }
  }, async () => ({ returns: [] }))
  app.get('/health', { svc: { description: 'Health', hints: { idempotent: true, sideEffects: false } } }, async () => ({}))
}

const FIXTURE_TEXT = `# Shop

> Demo shop

A tea shop. Search the catalogue without a token.

## How to call

Call a command by its name: \`POST https://shop.example/svc/execute\` with \`content-type: application/json\` and the body \`{"command": "<name>", "params": {…}}\`. The answer is \`{"ok": true, "result": …}\`, or \`{"ok": false, "error": {"code": …, "message": …, "status": …}}\` with the HTTP status of the failure. Add \`"stream": true\` to read a command marked as streaming piece by piece (Server-Sent Events).

Several calls in one request: \`POST https://shop.example/svc/pipeline\` with \`{"steps": [{"command": "<name>", "params": {…}}, …]}\`; the answer holds one result per step that ran.

Commands with auth \`required\` need the header \`Authorization: Token <token>\` (A session token); with auth \`optional\`, a token is checked when one is sent. A refused token answers 401.

## Documents

- [Service manifest](https://shop.example/.well-known/svc.json): the same as JSON, with every type; its \`checksum\` changes when a command does
- [API catalog](https://shop.example/.well-known/api-catalog): where these documents are, as an RFC 9727 linkset

## cart

### cart.add

Add an item to the cart

- Auth: required (scopes \`cart:write\`)
- Params:
  - \`sku\` (string, required): Product SKU. minLength \`1\`
  - \`quantity\` (number, optional): default \`1\`, minimum \`1\`, maximum \`10\`
  - \`size\` (string, optional): enum \`["s","m"]\`
  - \`gift\` (object, optional)
    - \`note\` (string, required): maxLength \`200\`
    - \`email\` (string, optional): format \`email\`
  - \`\` we\`ird \`\` (boolean, optional)
- Returns: Product
- Idempotent: no
- Side effects: yes
- Example (One mug): params \`{"sku":"mug"}\` → result \`{"sku":"mug","price":8}\`
- Example: params \`{"sku":"tea","quantity":2}\`

## catalogue

### search

Search the catalogue

- Auth: optional
- Params:
  - \`q\` (string, required)
- Returns: array of object
  - \`sku\` (string, required)
  - \`tags\` (array of array of object, required)
    - \`label\` (string, required)
- Deprecated: prefer another command

## orders

### orders.list

Orders, a page at a time

- Auth: none
- Params:
  - \`cursor\` (string, optional)
  - \`limit\` (number, optional)
- Rate limit: at most 10 requests per 60000 ms
- Paginated (cursor): the items are in the result's \`items\`, the count across pages in \`total\` when given; send the result's \`nextCursor\` back as \`cursor\` for the next page, until it is null or absent; \`limit\` is 20 unless sent, at most 100

### orders.live

New orders as they come

- Auth: none
- Params: none
- Streams its result: call it with \`"stream": true\` to read the pieces as they come

### returns.list

Returns, a page at a time

- Auth: none
- Params:
  - \`offset\` (number, optional)
  - \`limit\` (number, optional)
- Paginated (offset): the items are in the result's \`returns\`, the count across pages in \`count\` when given; send \`offset\` (the items read so far) for the next page, until a page has fewer items than \`limit\`; \`limit\` is 10 unless sent, at most 50

## search

### search

Search the catalogue

- Auth: optional
- Params:
  - \`q\` (string, required)
- Returns: array of object
  - \`sku\` (string, required)
  - \`tags\` (array of array of object, required)
    - \`label\` (string, required)
- Deprecated: prefer another command

## Other commands

### health

Health

- Auth: none
- Params: none
- Idempotent: yes
- Side effects: no

## Events

Read them as Server-Sent Events: \`GET https://shop.example/svc/events\` (every event), or \`?events=<name>,<name>\` for some. With a token, also the events addressed to its subject.

### cart.updated

Cart contents changed

- Data:
  - \`items\` (array of string, required)

### shop.opened

The shop opened

## Channels

Watch one key's state as Server-Sent Events: \`GET https://shop.example/svc/channels/<channel>/<key>\`; the latest state comes first, then each new one.

- \`cart\`: Real-time cart state

## Types

- \`Product\` (object): A product
  - \`sku\` (string, required): pattern \`^[a-z-]+$\`
  - \`price\` (number, required): minimum \`0\`
`

t.test('llms.txt of an app with tags, params, constraints, auth, events, channels and types', async (t) => {
  const app = await readyApp(t, FIXTURE_OPTIONS, fixtureRoutes)
  const response = await app.inject({ method: 'GET', url: LLMS })
  t.equal(response.statusCode, 200)
  t.equal(response.headers['content-type'], 'text/markdown; charset=utf-8')
  t.equal(response.headers['cache-control'], 'public, max-age=300')
  t.equal(response.body, FIXTURE_TEXT)
})

t.test('HEAD, ETag and 304; the same app gives the same ETag on every instance', async (t) => {
  const app = await readyApp(t, FIXTURE_OPTIONS, fixtureRoutes)
  const other = await readyApp(t, FIXTURE_OPTIONS, fixtureRoutes)
  const get = await app.inject({ method: 'GET', url: LLMS })
  t.match(get.headers.etag, /^"[\w-]+"$/)
  t.equal((await other.inject({ method: 'GET', url: LLMS })).headers.etag, get.headers.etag, 'a hash of the text, which has no build time')
  const head = await app.inject({ method: 'HEAD', url: LLMS })
  t.equal(head.statusCode, 200)
  t.equal(head.body, '')
  t.equal(head.headers['content-length'], String(get.rawPayload.length))
  t.equal(head.headers.etag, get.headers.etag)
  for (const method of ['GET', 'HEAD'] as const) {
    const notModified = await app.inject({ method, url: LLMS, headers: { 'if-none-match': get.headers.etag as string } })
    t.equal(notModified.statusCode, 304, method)
    t.equal(notModified.body, '')
    t.equal(notModified.headers.etag, get.headers.etag)
  }
})

t.test('no auth, no calls by name, no tags, no events: it says so and leaves those sections out', async (t) => {
  const app = await readyApp(t, { discovery: true, invoke: false }, (app) => {
    app.get('/health', { svc: { description: 'Health' } }, async () => ({}))
  })
  t.equal((await app.inject({ method: 'GET', url: LLMS })).body, `# Shop

> Demo shop

## How to call

This service does not offer calls by name: its commands are its own HTTP routes.

No command needs a credential.

## Documents

- [Service manifest](https://shop.example/.well-known/svc.json): the same as JSON, with every type; its \`checksum\` changes when a command does
- [API catalog](https://shop.example/.well-known/api-catalog): where these documents are, as an RFC 9727 linkset

## Commands

### health

Health

- Auth: none
- Params: none
`)
})

t.test('mcp and ui on: the MCP endpoint and the page are named; an empty about and no channel leave no trace', async (t) => {
  const app = await readyApp(t, { discovery: true, svc: '0.5.0', about: '', mcp: true, ui: true, events: { 'shop.opened': { description: 'The shop opened' } } })
  const text = (await app.inject({ method: 'GET', url: LLMS })).body
  t.match(text, /^# Shop\n\n> Demo shop\n\n## How to call\n/)
  t.match(text, '\nRead them as Server-Sent Events: `GET https://shop.example/svc/events` (every event), or `?events=<name>,<name>` for some.\n', 'without auth, nothing about tokens')
  t.match(text, '\nThe same commands are MCP tools at https://shop.example/mcp (Streamable HTTP).\n')
  t.match(text, '\n- [Page](https://shop.example/svc/ui): the commands for people, each one to try\n')
  t.notMatch(text, '## Channels')
})

t.test('invoke off but mcp on: calls go through MCP; the auth scheme is Bearer by default', async (t) => {
  const app = await readyApp(t, { discovery: true, invoke: false, mcp: true, auth: { type: 'bearer', description: 'JWT', verify: () => ({}) } })
  const text = (await app.inject({ method: 'GET', url: LLMS })).body
  t.match(text, '## How to call\n\nThe same commands are MCP tools at https://shop.example/mcp (Streamable HTTP).\n\n' +
    'Commands with auth `required` need the header `Authorization: Bearer <token>` (JWT);')
  t.notMatch(text, 'does not offer calls by name')
})

t.test('hidden commands: llms.txt and the API catalog are made from the public view, whoever asks', async (t) => {
  const app = await audienceShop(t, { options: { discovery: true } })
  for (const headers of [{}, { authorization: 'Bearer admin-token' }]) {
    const text = (await app.inject({ method: 'GET', url: '/llms.txt', headers })).body
    t.match(text, /### catalog\.list/)
    t.match(text, /### orders\.list/)
    t.notMatch(text, /admin\.stats|ops\.restart|Sales statistics|Restart a worker/, 'no word of a hidden command')
  }
  const seen = await app.inject({ method: 'GET', url: '/.well-known/svc.json', headers: { authorization: 'Bearer admin-token' } })
  t.ok('admin.stats' in seen.json().commands, 'the admin still sees it in its manifest view')
})

t.test('after a rejected ready(), neither document is served', async (t) => {
  const app = Fastify()
  t.teardown(() => app.close())
  // Ajv would refuse the schema first; what is tested here is the plugin's own refusal.
  app.setValidatorCompiler(() => () => true)
  await app.register(svcManifest, { ...requiredOptions, discovery: true })
  app.post('/x', { svc: { description: 'X', params: { type: 'object', properties: { 'a\ud800': { type: 'string' } } } } }, async () => ({}))
  await t.rejects(Promise.resolve(app.ready()), { code: 'FST_SVC_INVALID_JSON_VALUE' })
  for (const url of ['/llms.txt', '/.well-known/api-catalog']) {
    const response = await app.inject({ url })
    t.equal(response.statusCode, 500, url)
    t.equal(response.json().code, 'FST_SVC_NOT_READY', url)
  }
})
