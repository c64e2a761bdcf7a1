import Fastify from 'fastify'
import t from 'tap'
import svcManifest, { type SvcManifestOptions } from '../../lib/index.js'
import { requiredOptions } from '../helpers/app.js'

async function register (options: Record<string, unknown>): Promise<unknown> {
  const app = Fastify()
  try {
    await app.register(svcManifest, { ...requiredOptions, ...options } as unknown as SvcManifestOptions)
    await app.ready()
    await app.close()
    return undefined
  } catch (error) {
    return error
  }
}

t.test('realtime: redis, heartbeat, maxBufferBytes, connectTimeout, commandTimeout and broker, and nothing else', async (t) => {
  t.equal(await register({ realtime: {} }), undefined)
  t.equal(await register({ realtime: { heartbeat: 0.01, maxBufferBytes: 1, connectTimeout: 1 } }), undefined)
  t.equal(await register({ realtime: { connectTimeout: 2147483647 } }), undefined)
  t.equal(await register({ realtime: { commandTimeout: 1 } }), undefined)
  t.equal(await register({ realtime: { commandTimeout: 2147483647 } }), undefined)
  const cases: Array<[unknown, RegExp]> = [
    [true, /"realtime" must be an object \{ redis\?, heartbeat\?, maxBufferBytes\?, connectTimeout\?, commandTimeout\?, broker\? \}; got true/],
    [{ colour: 'red' }, /"realtime.colour" must be absent \(realtime takes redis, heartbeat, maxBufferBytes, connectTimeout, commandTimeout and broker\)/],
    [{ heartbeat: 0 }, /"realtime.heartbeat" must be a number of seconds above 0 and at most 2147483; got 0/],
    [{ heartbeat: '15' }, /"realtime.heartbeat" must be a number of seconds/],
    [{ heartbeat: 1e9 }, /"realtime.heartbeat" must be/],
    [{ heartbeat: Number.NaN }, /"realtime.heartbeat" must be/],
    [{ maxBufferBytes: 0 }, /"realtime.maxBufferBytes" must be a whole number of bytes, 1 or more; got 0/],
    [{ maxBufferBytes: 1.5 }, /"realtime.maxBufferBytes" must be/],
    [{ connectTimeout: 0 }, /"realtime.connectTimeout" must be a whole number of milliseconds, 1 or more and at most 2147483647 \(e.g. 5000 for 5 s\); got 0/],
    [{ connectTimeout: 2.5 }, /"realtime.connectTimeout" must be a whole number of milliseconds/],
    [{ connectTimeout: -1 }, /"realtime.connectTimeout" must be/],
    [{ connectTimeout: '5000' }, /"realtime.connectTimeout" must be .*; got "5000"/],
    [{ connectTimeout: 2147483648 }, /"realtime.connectTimeout" must be/],
    [{ connectTimeout: Number.POSITIVE_INFINITY }, /"realtime.connectTimeout" must be/],
    [{ connectTimeout: Number.NaN }, /"realtime.connectTimeout" must be/],
    [{ commandTimeout: 0 }, /"realtime.commandTimeout" must be a whole number of milliseconds, 1 or more and at most 2147483647 \(e.g. 2000 for 2 s\); got 0/],
    [{ commandTimeout: 2.5 }, /"realtime.commandTimeout" must be a whole number of milliseconds/],
    [{ commandTimeout: -1 }, /"realtime.commandTimeout" must be/],
    [{ commandTimeout: '2000' }, /"realtime.commandTimeout" must be .*; got "2000"/],
    [{ commandTimeout: 2147483648 }, /"realtime.commandTimeout" must be/],
    [{ commandTimeout: Number.NaN }, /"realtime.commandTimeout" must be/],
    [{ redis: 'localhost:6379' }, /"realtime.redis" must be a Redis URL such as "redis:\/\/127.0.0.1:6379" \(redis: or rediss:\); got "localhost:6379"/],
    [{ redis: 'http://127.0.0.1:6379' }, /"realtime.redis" must be a Redis URL/],
    [{ redis: 6379 }, /"realtime.redis" must be a Redis URL/]
  ]
  for (const [realtime, message] of cases) {
    t.match(await register({ realtime }), { code: 'FST_SVC_INVALID_OPTION', message }, JSON.stringify(realtime) ?? String(realtime))
  }
})

t.test('auth.subject must be a function', async (t) => {
  t.match(await register({ auth: { type: 'bearer', description: 'Tokens', verify: () => true, subject: 'sub' } }), {
    code: 'FST_SVC_INVALID_OPTION',
    message: /"auth.subject" must be a function \(credential\) => subject string; got "sub"/
  })
  t.match(await register({ auth: { type: 'bearer', description: 'Tokens', scope: 'x' } }), {
    message: /"auth.scope" must be absent \(auth takes type, description, verify, subject, scheme, scopes and authorizationServers\)/
  })
})
