import Fastify from 'fastify'
import t from 'tap'
import svcManifest from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

const REQUESTS = 1000

t.test(`${REQUESTS} concurrent requests, good and bad tokens, verifier resolving after random delays`, async (t) => {
  const app = Fastify()
  const tokens = new Map<string, { user: number }>()
  let handled = 0
  await app.register(svcManifest, {
    ...requiredOptions,
    auth: {
      type: 'bearer',
      description: 'Opaque token',
      verify: async (token) => {
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 10)))
        return tokens.get(token)
      }
    }
  })
  app.get('/cart/items', { svc: { description: 'Items', auth: 'required' } }, async (request) => {
    handled++
    // Yield once more so that requests interleave inside the handler as well.
    await new Promise((resolve) => setImmediate(resolve))
    return { credential: request.svcCredential }
  })
  await app.ready()

  const requests = Array.from({ length: REQUESTS }, (_, user) => {
    const good = user % 3 !== 0
    const token = `token-${user}`
    if (good) tokens.set(token, { user })
    return { user, good, token }
  })
  const responses = await Promise.all(requests.map(({ token }) =>
    app.inject({ url: '/cart/items', headers: { authorization: `Bearer ${token}` } })))

  let wrong = 0
  responses.forEach((response, index) => {
    const { user, good } = requests[index]
    const ok = good
      ? response.statusCode === 200 && response.json().credential?.user === user
      : response.statusCode === 401 && response.headers['www-authenticate'] === 'Bearer realm="Shop", error="invalid_token"'
    if (!ok) wrong++
  })
  t.equal(wrong, 0, 'every good request saw its own credential and every bad one was refused')
  t.equal(handled, requests.filter(({ good }) => good).length, 'only good requests reached the handler')
})
