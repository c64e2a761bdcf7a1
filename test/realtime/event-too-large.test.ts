import t, { type Test } from 'tap'
import type { SvcManifestOptions } from '../../lib/index.js'
import { startInstance, startRedis, type ServiceInstance as Instance } from '../helpers/redis.js'
import { pause, subscribe } from '../helpers/sse.js'

/**
 * Defect: one 2 MiB event disconnected every subscriber, those reading included (its frame alone was over
 * `realtime.maxBufferBytes`), while `emit()` returned normally. Now `emit()` and `publish()` refuse an
 * event or a state whose frame is larger than `maxBufferBytes` with FST_SVC_PAYLOAD_TOO_LARGE, and
 * nothing is delivered.
 */

/** The longest id a stream writes, as frames are counted: 16 digits. */
const LONGEST_ID = '9007199254740991'
/** Bytes of a `news` frame around its JSON payload. */
const NEWS_FRAME = Buffer.byteLength(`id: ${LONGEST_ID}\nevent: news\ndata: \n\n`)
/** Bytes of a channel frame around its state's JSON. */
const STATE_FRAME = Buffer.byteLength(`id: ${LONGEST_ID}\nevent: state\ndata: {"version":${LONGEST_ID},"state":}\n\n`)

/** A service with a `news` event and a `cart` channel; `realtime.redis` shares it with the instances on that URL. */
async function start (t: Test, { redis, ...realtime }: SvcManifestOptions['realtime'] = {}): Promise<Instance> {
  return await startInstance(t, redis, {
    svc: '0.5.0',
    events: { news: { description: 'News' } },
    channels: { cart: { description: 'Cart' } },
    realtime
  }, { logLevel: 'warn' })
}

/** A JSON string payload whose `news` frame is exactly `bytes` long, made of `unit` (1 to 4 bytes each). */
function newsOf (bytes: number, unit = 'x'): string {
  const room = bytes - NEWS_FRAME - 2
  const each = Buffer.byteLength(unit)
  if (room % each !== 0) throw new Error(`${bytes} bytes cannot be made of ${each}-byte units`)
  return unit.repeat(room / each)
}

const drops = (instance: Instance) => instance.logs.filter((line) => /does not read/.test(String(line.msg)))

t.test('emit: a 2 MiB event is refused at the call; the reading subscribers stay and get what follows', async (t) => {
  const shop = await start(t)
  const readers = await Promise.all([subscribe(shop.origin, '/svc/events'), subscribe(shop.origin, '/svc/events?events=news')])
  const blob = 'x'.repeat(2 * 1024 * 1024)
  t.throws(() => shop.app.svc.emit('news', { blob }), {
    code: 'FST_SVC_PAYLOAD_TOO_LARGE',
    statusCode: 500,
    message: `Payload too large: app.svc.emit("news"): its frame is ${NEWS_FRAME + blob.length + 11} bytes, more than realtime.maxBufferBytes (1048576), past which a stream is disconnected. Nothing was delivered. Send less (e.g. an id the subscriber fetches), or raise realtime.maxBufferBytes.`
  })
  // Each frame in its own turn, as a subscriber that reads sees them: frames emitted together queue together.
  shop.app.svc.emit('news', { after: true })
  for (const reader of readers) await reader.frameCount(1)
  const largest = newsOf(1024 * 1024)
  shop.app.svc.emit('news', largest)
  for (const reader of readers) {
    const frames = await reader.frameCount(2)
    t.same(frames.map((frame) => frame.data), [{ after: true }, largest], 'the refused event never arrived; a frame of exactly 1 MiB did')
    t.equal(reader.ended, false, 'still connected')
  }
  await pause(50)
  t.same(drops(shop), [], 'nobody was disconnected')
  for (const reader of readers) reader.close()
})

t.test('the limit is in UTF-8 bytes of the frame with the longest id: exactly maxBufferBytes passes, one byte over does not', async (t) => {
  const maxBufferBytes = 4096
  const shop = await start(t, { maxBufferBytes })
  const reader = await subscribe(shop.origin, '/svc/events')
  // ASCII (1 byte each), '€' (3 bytes, one UTF-16 unit), '😀' (4 bytes, two units) with 'é' (2 bytes).
  const fits = [newsOf(maxBufferBytes), newsOf(maxBufferBytes, '€'), newsOf(maxBufferBytes - 3, '😀é') + 'xxx']
  for (const [index, payload] of fits.entries()) {
    t.doesNotThrow(() => shop.app.svc.emit('news', payload), `${payload.length} UTF-16 units, ${Buffer.byteLength(payload)} bytes of string`)
    await reader.frameCount(index + 1)
  }
  const over = fits.map((payload) => payload + 'x')
  for (const payload of over) {
    t.throws(() => shop.app.svc.emit('news', payload), { code: 'FST_SVC_PAYLOAD_TOO_LARGE', message: /its frame is 4097 bytes, more than realtime.maxBufferBytes \(4096\)/ })
  }
  t.ok(over[1].length < maxBufferBytes / 2, 'counted in bytes, not in string length')
  shop.app.svc.emit('news', 'last')
  t.same((await reader.frameCount(fits.length + 1)).map((frame) => frame.data), [...fits, 'last'], 'what fits arrives whole, what does not never does')
  await pause(50)
  t.equal(reader.frames.length, fits.length + 1)
  t.same(drops(shop), [])
  reader.close()
})

t.test('publish: a state whose frame is larger is refused at the call; nothing is stored; watchers stay', async (t) => {
  const maxBufferBytes = 4096
  const shop = await start(t, { maxBufferBytes })
  const watcher = await subscribe(shop.origin, '/svc/channels/cart/alice')
  await watcher.frameCount(1)
  const fits = 'x'.repeat(maxBufferBytes - STATE_FRAME - 2)
  t.equal(await shop.app.svc.publish('cart', 'alice', fits), 1, 'exactly maxBufferBytes')
  await watcher.frameCount(2)
  t.throws(() => shop.app.svc.publish('cart', 'alice', fits + 'x'), {
    code: 'FST_SVC_PAYLOAD_TOO_LARGE',
    message: /^Payload too large: app.svc.publish\("cart"\): the state's frame is 4097 bytes, more than realtime.maxBufferBytes \(4096\), past which a stream is disconnected. Nothing was stored or delivered./
  }, 'thrown by the call, like its other mistakes')
  t.throws(() => shop.app.svc.publish('cart', 'bob', { blob: 'x'.repeat(2 * 1024 * 1024) }), { code: 'FST_SVC_PAYLOAD_TOO_LARGE' })
  t.equal(await shop.app.svc.publish('cart', 'alice', { small: true }), 2, 'the refused state took no version')
  t.same((await watcher.frameCount(3)).map((frame) => frame.data), [
    { version: 0, state: null }, { version: 1, state: fits }, { version: 2, state: { small: true } }
  ])
  const bob = await subscribe(shop.origin, '/svc/channels/cart/bob')
  t.same((await bob.frameCount(1))[0].data, { version: 0, state: null }, 'nothing was stored for bob')
  t.equal(watcher.ended, false)
  t.same(drops(shop), [])
  watcher.close()
  bob.close()
})

t.test('instances with different limits: what is too large for this one is logged there and not delivered; its subscribers stay', async (t) => {
  const redis = await startRedis()
  t.teardown(() => redis.stop())
  const large = await start(t, { redis: redis.url })
  const small = await start(t, { redis: redis.url, maxBufferBytes: 4096 })
  const reader = await subscribe(small.origin, '/svc/events')
  const watcher = await subscribe(small.origin, '/svc/channels/cart/alice')
  await watcher.frameCount(1)

  large.app.svc.emit('news', 'x'.repeat(10_000))
  t.equal(await large.app.svc.publish('cart', 'alice', 'x'.repeat(10_000)), 1)
  large.app.svc.emit('news', 'small')
  t.equal(await large.app.svc.publish('cart', 'alice', 'small'), 2)
  t.same((await reader.frameCount(1)).map((frame) => frame.data), ['small'])
  t.same((await watcher.frameCount(2)).map((frame) => frame.data), [{ version: 0, state: null }, { version: 2, state: 'small' }])
  const refused = small.logs.filter((line) => /larger than realtime.maxBufferBytes here; not delivered/.test(String(line.msg)))
  t.match(refused, [
    { level: 40, event: 'news', bytes: NEWS_FRAME + 10_002, limit: 4096 },
    { level: 40, topic: 'svc:Shop/channel/cart/alice', bytes: STATE_FRAME + 10_002, limit: 4096 }
  ])
  t.equal(reader.ended || watcher.ended, false, 'still connected')
  t.same(drops(small), [])
  reader.close()
  watcher.close()
})
