import t, { type Test } from 'tap'
import { readyApp } from '../helpers/app.js'

const verify = async (token: string): Promise<unknown> => token === 'good' ? { sub: 'u', scope: 'cart:write' } : null

async function app (t: Test, auth: Record<string, unknown>, baseUrl = 'https://shop.example/api/') {
  return readyApp(t, { baseUrl, mcp: true, auth: { type: 'bearer', description: 'JWT', verify, ...auth } as never }, (app) => {
    app.get('/me', { svc: { description: 'Me', auth: 'required' } }, async () => ({ ok: true }))
    app.post('/cart', { svc: { description: 'Add', auth: 'required', scopes: ['cart:write', 'cart:read'] } }, async () => ({ ok: true }))
    app.delete('/cart', { svc: { name: 'cart.empty', description: 'Empty', auth: 'required', scopes: ['cart:write'] } }, async () => ({ ok: true }))
  })
}

t.test('with authorizationServers: the URL a 401 names serves the protected resource metadata (RFC 9728)', async (t) => {
  const server = await app(t, { authorizationServers: ['https://id.example', 'https://login.example/tenant'] })
  const refused = await server.inject({ url: '/me' })
  t.equal(refused.statusCode, 401)
  const named = /resource_metadata="([^"]+)"/.exec(refused.headers['www-authenticate'] as string)?.[1]
  t.equal(named, 'https://shop.example/.well-known/oauth-protected-resource', 'the challenge names the document at the origin\'s root')
  const response = await server.inject({ url: new URL(named as string).pathname })
  t.equal(response.statusCode, 200, 'public: no credential needed')
  t.match(response.headers['content-type'], /^application\/json/)
  t.match(response.headers['cache-control'], /^public, max-age=\d+$/)
  t.same(response.json(), {
    resource: 'https://shop.example',
    authorization_servers: ['https://id.example', 'https://login.example/tenant'],
    bearer_methods_supported: ['header'],
    scopes_supported: ['cart:read', 'cart:write']
  }, 'the resource is the origin the metadata URL was made from; the scopes the commands require, once each')
  const mcp = await server.inject({ method: 'POST', url: '/mcp', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, payload: {} })
  t.not(mcp.statusCode, 401, 'the MCP endpoint itself takes no credential: only commands with auth do')
})

t.test('without scopes on any command, scopes_supported is left out', async (t) => {
  const server = await readyApp(t, { auth: { type: 'bearer', description: 'JWT', verify, authorizationServers: ['https://id.example'] } as never }, (app) => {
    app.get('/me', { svc: { description: 'Me', auth: 'required' } }, async () => ({ ok: true }))
  })
  t.same((await server.inject({ url: '/.well-known/oauth-protected-resource' })).json(), {
    resource: 'https://shop.example',
    authorization_servers: ['https://id.example'],
    bearer_methods_supported: ['header']
  })
})

t.test('without authorizationServers (or without auth), nothing is served there', async (t) => {
  const server = await app(t, {})
  t.equal((await server.inject({ url: '/.well-known/oauth-protected-resource' })).statusCode, 404)
  t.notMatch((await server.inject({ url: '/me' })).headers['www-authenticate'], /resource_metadata/)
  const open = await readyApp(t, {}, () => {})
  t.equal((await open.inject({ url: '/.well-known/oauth-protected-resource' })).statusCode, 404)
})
