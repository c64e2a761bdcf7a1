import jwt from '@fastify/jwt'
import Fastify from 'fastify'
import t, { type Test } from 'tap'
import svcManifest from '../../lib/index.js'
import { fetchManifest, readyApp, requiredOptions } from '../helpers/app.js'
import { execute } from '../helpers/invoke.js'

const verify = async (token: string): Promise<unknown> => {
  if (token === 'reader') return { sub: 'r', scope: 'articles:read profile' }
  if (token === 'writer') return { sub: 'w', scp: ['articles:read', 'articles:write'] }
  if (token === 'azure') return { sub: 'a', scp: 'articles:write articles:read' }
  if (token === 'listed') return { sub: 'l', scopes: ['articles:write', 'articles:read'] }
  if (token === 'bare') return { sub: 'b' }
  return null
}

async function app (t: Test, auth: Record<string, unknown> = {}) {
  return readyApp(t, { auth: { type: 'bearer', description: 'JWT', verify, scheme: 'Token', ...auth } as never }, (app) => {
    app.get('/feed', { svc: { description: 'Feed', auth: 'optional' } }, async (request) => ({ who: request.svcCredential }))
    app.post('/articles', { svc: { description: 'Write', auth: 'required', scopes: ['articles:write', 'articles:read'] } }, async () => ({ ok: true }))
    app.get('/drafts', { svc: { description: 'Drafts', auth: 'optional', scopes: ['articles:write'] } }, async (request) => ({ who: request.svcCredential }))
  })
}

t.test('auth.scheme: "Token" is read from Authorization and named in the challenge', async (t) => {
  const server = await app(t)
  const ok = await server.inject({ method: 'POST', url: '/articles', headers: { authorization: 'token writer' } })
  t.equal(ok.statusCode, 200, 'case-insensitive scheme')
  const bearer = await server.inject({ method: 'POST', url: '/articles', headers: { authorization: 'Bearer writer' } })
  t.equal(bearer.statusCode, 401)
  t.equal(bearer.headers['www-authenticate'], 'Token realm="Shop"')
  t.match(bearer.json(), { code: 'FST_SVC_UNAUTHORIZED', message: 'Missing credential. Send "Authorization: Token <token>".' })
  const wrong = await server.inject({ method: 'POST', url: '/articles', headers: { authorization: 'Token nope' } })
  t.equal(wrong.headers['www-authenticate'], 'Token realm="Shop", error="invalid_token"')
  t.equal(wrong.json().message, 'The token was refused.')
})

t.test('auth: "optional" runs without a credential, and refuses a bad one', async (t) => {
  const server = await app(t)
  const anonymous = await server.inject({ url: '/feed' })
  t.same(anonymous.json(), { who: null })
  const head = await server.inject({ method: 'HEAD', url: '/feed', headers: { authorization: 'Token nope' } })
  t.equal(head.statusCode, 401, 'the HEAD twin is guarded too')
  const known = await server.inject({ url: '/feed', headers: { authorization: 'Token bare' } })
  t.same(known.json(), { who: { sub: 'b' } })
  const refused = await server.inject({ url: '/feed', headers: { authorization: 'Token nope' } })
  t.equal(refused.statusCode, 401)
  t.same((await fetchManifest(server)).commands.feed.auth, 'optional')
})

t.test('svc.scopes: every scope, from scope, scp (array or string) or scopes; missing → 403 insufficient_scope', async (t) => {
  const server = await app(t)
  for (const token of ['writer', 'azure', 'listed']) {
    t.equal((await server.inject({ method: 'POST', url: '/articles', headers: { authorization: `Token ${token}` } })).statusCode, 200, token)
  }
  for (const token of ['reader', 'bare']) {
    const response = await server.inject({ method: 'POST', url: '/articles', headers: { authorization: `Token ${token}` } })
    t.equal(response.statusCode, 403, token)
    t.equal(response.headers['www-authenticate'], 'Token realm="Shop", error="insufficient_scope", scope="articles:write articles:read"')
    t.match(response.json(), { statusCode: 403, code: 'FST_SVC_INSUFFICIENT_SCOPE', message: /lacks the scope/ })
  }
  t.same((await server.inject({ url: '/drafts' })).json(), { who: null }, 'optional: scopes apply only when a credential is sent')
  t.equal((await server.inject({ url: '/drafts', headers: { authorization: 'Token reader' } })).statusCode, 403)
  const through = await execute(server, 'articles', {}, { authorization: 'Token reader' })
  t.match(through.json(), { ok: false, error: { code: 'FORBIDDEN' } }, 'through execute, the route\'s own answer')
  t.same((await fetchManifest(server)).commands.articles.requiredScopes, ['articles:write', 'articles:read'])
})

t.test('auth.scopes(credential) decides the granted scopes', async (t) => {
  const server = await app(t, { scopes: (credential: { sub: string }) => credential.sub === 'b' ? ['articles:write', 'articles:read'] : 'nope' })
  t.equal((await server.inject({ method: 'POST', url: '/articles', headers: { authorization: 'Token bare' } })).statusCode, 200)
  t.equal((await server.inject({ method: 'POST', url: '/articles', headers: { authorization: 'Token writer' } })).statusCode, 403, 'a result that is not an array grants nothing')
})

t.test('auth.authorizationServers: every challenge names the resource metadata (RFC 9728)', async (t) => {
  const server = await app(t, { authorizationServers: ['https://id.example'] })
  const response = await server.inject({ method: 'POST', url: '/articles' })
  t.equal(response.headers['www-authenticate'], 'Token realm="Shop", resource_metadata="https://shop.example/.well-known/oauth-protected-resource"')
  const manifest = await fetchManifest(server)
  t.same(manifest.auth, { type: 'bearer', description: 'JWT', scheme: 'Token' }, 'the manifest serves its scheme, never verify nor the other options')
})

t.test('without verify, @fastify/jwt finds the token itself (its extractToken applies)', async (t) => {
  const server = Fastify()
  await server.register(svcManifest, { ...requiredOptions, auth: { type: 'bearer', description: 'JWT', scheme: 'Token' } })
  await server.register(jwt, { secret: 'shh', verify: { extractToken: (request) => request.headers.authorization?.replace(/^Token /i, '') } })
  server.get('/me', { svc: { description: 'Me', auth: 'required' } }, async (request) => ({ who: (request.svcCredential as { sub: string }).sub }))
  server.get('/maybe', { svc: { description: 'Maybe', auth: 'optional' } }, async (request) => ({ who: request.svcCredential }))
  await server.ready()
  const token = server.jwt.sign({ sub: 'jake' })
  t.same((await server.inject({ url: '/me', headers: { authorization: `Token ${token}` } })).json(), { who: 'jake' })
  const missing = await server.inject({ url: '/me' })
  t.equal(missing.statusCode, 401)
  t.equal(missing.headers['www-authenticate'], 'Token realm="Shop"')
  const bad = await server.inject({ url: '/me', headers: { authorization: 'Token abc.def.ghi' } })
  t.equal(bad.headers['www-authenticate'], 'Token realm="Shop", error="invalid_token"')
  t.same((await server.inject({ url: '/maybe' })).json(), { who: null })
  const plain = Fastify()
  await plain.register(svcManifest, { ...requiredOptions, auth: { type: 'bearer', description: 'JWT' } })
  await plain.register(jwt, { secret: 'shh' })
  plain.get('/maybe', { svc: { description: 'Maybe', auth: 'optional' } }, async (request) => ({ who: request.svcCredential }))
  t.same((await plain.inject({ url: '/maybe' })).json(), { who: null }, 'no header: nothing sent')
  t.equal((await plain.inject({ url: '/maybe', headers: { authorization: 'Bearer x.y.z' } })).statusCode, 401)
})

const badAuth: [Record<string, unknown>, RegExp][] = [
  [{ scheme: 'To ken' }, /"auth\.scheme" must be a scheme word/],
  [{ scopes: ['a'] }, /"auth\.scopes" must be a function/],
  [{ authorizationServers: [] }, /"auth\.authorizationServers" must be a non-empty array/],
  [{ authorizationServers: ['http://id.example'] }, /"auth\.authorizationServers\[0\]" must be/],
  [{ authorizationServers: ['https://id.example?x=1'] }, /"auth\.authorizationServers\[0\]" must be/],
  [{ authorizationServers: [1] }, /"auth\.authorizationServers\[0\]" must be/]
]
for (const [auth, message] of badAuth) {
  t.test(`auth ${JSON.stringify(auth)} is refused`, async (t) => {
    await t.rejects(readyApp(t, { auth: { type: 'bearer', description: 'JWT', verify, ...auth } as never }), { code: 'FST_SVC_INVALID_OPTION', message })
  })
}

t.test('svc.scopes: needs auth, and scope tokens', async (t) => {
  const options = { auth: { type: 'bearer' as const, description: 'JWT', verify } }
  await t.rejects(readyApp(t, options, (app) => { app.get('/x', { svc: { description: 'X', scopes: ['a'] } }, async () => ({})) }), { code: 'FST_SVC_INVALID_ROUTE_OPTION', message: /svc\.scopes must be set together with svc\.auth/ })
  await t.rejects(readyApp(t, options, (app) => { app.get('/x', { svc: { description: 'X', auth: 'required', scopes: ['a b'] } }, async () => ({})) }), { message: /svc\.scopes must be a non-empty array of scope strings/ })
  await t.rejects(readyApp(t, options, (app) => { app.get('/x', { svc: { description: 'X', auth: 'required', scopes: [] } }, async () => ({})) }), { message: /svc\.scopes must be/ })
  await t.rejects(readyApp(t, options, (app) => { app.get('/x', { svc: { description: 'X', auth: 'required', scopes: [1 as never] } }, async () => ({})) }), { message: /svc\.scopes must be/ })
  await t.rejects(readyApp(t, {}, (app) => { app.get('/x', { svc: { description: 'X', auth: 'optional' } }, async () => ({})) }), { code: 'FST_SVC_AUTH_NOT_CONFIGURED' })
})
