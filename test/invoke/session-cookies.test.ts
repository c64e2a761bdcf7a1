import fastifyCookie from '@fastify/cookie'
import fastifySession from '@fastify/session'
import type { FastifyInstance } from 'fastify'
import t from 'tap'
import { readyApp } from '../helpers/app.js'
import { execute, pipeline } from '../helpers/invoke.js'

declare module 'fastify' {
  interface Session { user?: string }
}

/**
 * Defect found adopting the official Fastify demo: its app-wide session plugin (@fastify/session, whose
 * default saves every new session) ran for the outer execute request too and added its own, empty session
 * cookie after the one the log-in route set. A client keeps the last cookie of a name, so every call after
 * the log-in was refused. The cookie a command's route sets wins over the outer request's of the same name.
 */
async function sessionApp (t: Parameters<typeof readyApp>[0]): Promise<FastifyInstance> {
  return await readyApp(t, {}, async (app) => {
    await app.register(fastifyCookie)
    await app.register(fastifySession, { secret: 'a secret with at least 32 characters', cookie: { secure: false } })
    // A hook of the outer request's own, as a CSRF plugin on the API's paths would be.
    app.addHook('onRequest', async (request, reply) => { if (request.url === '/svc/execute') reply.setCookie('csrf', 'token') })
    app.post('/login', { svc: { description: 'Logs in', params: { type: 'object', properties: { user: { type: 'string' } }, required: ['user'] } } }, async (request) => {
      request.session.user = (request.body as { user: string }).user
      return { ok: true }
    })
    app.get('/me', { svc: { description: 'Who is logged in' } }, async (request, reply) => {
      if (request.session.user === undefined) return await reply.code(401).send({ message: 'Log in first' })
      reply.setCookie('seen', 'yes')
      return { user: request.session.user }
    })
  })
}

/** The names of the cookies a response sets, each as often as it is set. */
function names (setCookie: string | string[] | undefined): string[] {
  return [setCookie ?? []].flat().map((cookie) => cookie.slice(0, cookie.indexOf('='))).sort()
}

/** What a browser's cookie jar keeps of a response: the last `Set-Cookie` of each name. */
function jar (setCookie: string | string[] | undefined): string {
  const kept = new Map<string, string>()
  for (const cookie of [setCookie ?? []].flat()) {
    const pair = cookie.split(';')[0]
    kept.set(pair.slice(0, pair.indexOf('=')), pair)
  }
  return [...kept.values()].join('; ')
}

t.test('a session cookie set by a command\'s route is the one the caller keeps, through execute', async (t) => {
  const app = await sessionApp(t)
  const login = await execute(app, 'login', { user: 'ada' })
  t.equal(login.statusCode, 200)
  t.same(names(login.headers['set-cookie']), ['csrf', 'sessionId'], 'one session cookie, the route\'s')
  const me = await execute(app, 'me', undefined, { cookie: jar(login.headers['set-cookie']) })
  t.same(me.json(), { ok: true, result: { user: 'ada' } }, 'the next call is logged in')
  t.same(names(me.headers['set-cookie']), ['csrf', 'seen', 'sessionId'], 'cookies of other names, the outer request\'s or the route\'s, are kept')

  const direct = await app.inject({ method: 'GET', url: '/me', headers: { cookie: jar(login.headers['set-cookie']) } })
  t.same(direct.json(), { user: 'ada' }, 'and so is a direct call of the route')
})

t.test('the same through a pipeline: the step\'s cookie wins', async (t) => {
  const app = await sessionApp(t)
  const login = await pipeline(app, { steps: [{ command: 'login', params: { user: 'grace' } }] })
  t.same(names(login.headers['set-cookie']), ['sessionId'])
  const me = await execute(app, 'me', undefined, { cookie: jar(login.headers['set-cookie']) })
  t.same(me.json(), { ok: true, result: { user: 'grace' } })
})
