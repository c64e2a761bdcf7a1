import { PassThrough } from 'node:stream'
import type { ElementHandle, Page } from 'puppeteer-core'
import t from 'tap'
import { DEMO_TOKEN } from '../../examples/shop/app.js'
import { launchBrowser, runShop, watchedPage, type ShopApp } from '../helpers/browser.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'
import { card, opened, spoken, text } from '../helpers/ui-page.js'

// A `stream: true` command run from the page, in Debian's chromium: its pieces show while the route is
// still writing, its progress moves a bar, Stop cancels the call on the server, and the final result shows.
uiAssetsBuilt()
const browser = await launchBrowser(t)

/** A promise and what settles it, for a route that waits for the test. */
function gate<T = void> (): { promise: Promise<T>, open: (value: T) => void } {
  let open!: (value: T) => void
  const promise = new Promise<T>((resolve) => { open = resolve })
  return { promise, open }
}

/** Within `ms`, or the test fails saying what it waited for. */
async function within<T> (promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms) })
  try {
    return await Promise.race([promise, late])
  } finally {
    clearTimeout(timer)
  }
}

const pieceTexts = async (page: Page, name: string): Promise<string[]> =>
  await page.$$eval(`${card(name)} .pieces li`, (items) => items.map((item) => item.textContent ?? ''))

t.test('pieces show as they arrive, progress moves the bar, and the final result shows', async (t) => {
  const last = gate()
  const { ui, origin } = await runShop(t, {}, (app: ShopApp) => {
    // SSE written by the route as it goes; the last piece waits for the test.
    app.get('/feed', { svc: { name: 'feed', description: 'A feed that waits before its last piece', stream: true } }, async (request, reply) => {
      const body = new PassThrough()
      reply.type('text/event-stream').send(body)
      body.write('data: {"n":1}\n\n')
      request.svc.progress(1, { total: 2, message: 'first half' })
      body.write('data: {"n":2}\n\n')
      await last.promise
      request.svc.progress(2, { total: 2, message: 'all of it' })
      body.write('data: last <b>piece</b>\n\n')
      body.end('event: result\ndata: {"pieces":3}\n\n')
      return reply
    })
  })
  const { page, problems } = await watchedPage(t, browser)
  const bodies: Array<string | undefined> = []
  page.on('request', (request) => { if (request.url().endsWith('/svc/execute')) bodies.push(request.postData()) })
  await opened(page, ui, 'feed')
  t.match(await text(page, `${card('feed')} summary`), /streams/, 'the card says it streams')
  t.match(await page.$eval(`${card('feed')} .same-call pre`, (pre) => pre.textContent ?? ''), `curl -sN '${origin}/svc/execute'`, 'curl reads the stream as it comes')
  t.match(await page.$eval(`${card('feed')} .same-call pre`, (pre) => pre.textContent ?? ''), '"stream":true')

  await page.click(`${card('feed')} button[type="submit"]`)
  await page.waitForFunction((selector) => document.querySelectorAll(`${selector} .pieces li`).length === 2, {}, card('feed'))
  t.same(bodies, [JSON.stringify({ command: 'feed', params: {}, stream: true })], 'asked for a streamed execute')
  t.same((await pieceTexts(page, 'feed')).map((piece) => JSON.parse(piece)), [{ n: 1 }, { n: 2 }], 'two pieces while the route still waits')
  await page.waitForFunction((selector) => document.querySelector(`${selector} .progress-text`)?.textContent === '1 of 2 · first half', {}, card('feed'))
  t.same(await page.$eval(`${card('feed')} progress`, (bar) => [bar.value, bar.max]), [1, 2], 'the bar at its first report')
  t.notMatch(await text(page, `${card('feed')} .outcome .status`), /Done/, 'not done yet')
  t.equal(await page.$eval(`${card('feed')} button[type="submit"]`, (run) => (run as HTMLButtonElement).disabled), true, 'Run is off while it runs')

  const stop = await page.$(`${card('feed')} button.stop`) as ElementHandle
  t.match(await spoken(page, stop), { role: 'button', name: 'Stop' }, 'Stop is a button named Stop')
  t.match(await spoken(page, await page.$(`${card('feed')} progress`) as ElementHandle), { role: 'progressbar', name: 'Progress', description: '1 of 2 · first half' }, 'the bar is named, its message describes it')
  t.equal(await page.$eval(`${card('feed')} .pieces`, (list) => list.getAttribute('aria-live')), 'polite', 'pieces are announced politely')

  last.open()
  await page.waitForSelector(`${card('feed')} .outcome .status.succeeded`)
  t.match(await text(page, `${card('feed')} .outcome .status`), /^Done · 3 pieces · \d+ ms$/)
  t.same(await pieceTexts(page, 'feed'), ['{"n":1}', '{"n":2}', 'last <b>piece</b>'], 'every piece, text as text')
  t.equal(await page.$$eval(`${card('feed')} b`, (bold) => bold.length), 0, 'never as markup')
  t.same(JSON.parse(await text(page, `${card('feed')} .final pre.json`)), { pieces: 3 }, 'the final result')
  t.same(await page.$eval(`${card('feed')} progress`, (bar) => [bar.value, bar.max]), [2, 2], 'the bar full')
  t.equal(await page.$eval(`${card('feed')} button.stop`, (button) => (button as HTMLButtonElement).hidden), true, 'Stop goes with the run')
  t.equal(await page.$eval(`${card('feed')} button[type="submit"]`, (run) => (run as HTMLButtonElement).disabled), false)
  t.same(problems, [])
})

t.test('Stop aborts the request, and the route\'s request.svc.signal aborts', async (t) => {
  const aborted = gate<unknown>()
  const { ui } = await runShop(t, {}, (app: ShopApp) => {
    app.post('/jobs', { svc: { name: 'job', description: 'A job that runs until it is stopped', stream: true } }, async (request) => {
      const { signal } = request.svc
      signal.addEventListener('abort', () => aborted.open(signal.reason))
      request.svc.progress(1, { message: 'started' })
      await new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
    })
  })
  const { page, problems } = await watchedPage(t, browser)
  await opened(page, ui, 'job')
  await page.click(`${card('job')} button[type="submit"]`)
  await page.waitForFunction((selector) => document.querySelector(`${selector} .progress-text`)?.textContent === '1 · started', {}, card('job'))
  t.equal(await page.$eval(`${card('job')} progress`, (bar) => bar.position), -1, 'no total: the bar says only that work goes on')

  await page.focus(`${card('job')} button.stop`)
  await page.keyboard.press('Enter')
  const reason = await within(aborted.promise, 5000, 'abort of the route\'s signal') as Error
  t.match(reason.message, /caller went away/, 'the server cancelled the call')
  await page.waitForSelector(`${card('job')} .outcome .status.stopped`)
  t.match(await text(page, `${card('job')} .outcome .status`), /^Stopped after 0 pieces · \d+ ms: the call was cancelled\.$/)
  t.equal(await page.evaluate(() => (document.activeElement as HTMLElement).textContent), 'Run', 'the focus goes back to Run')
  t.same(problems, [], 'an aborted stream is no error')
})

t.test('a refusal before the stream shows its envelope; a deadline mid-stream ends it with its error', async (t) => {
  const { ui } = await runShop(t, {}, (app: ShopApp) => {
    app.get('/watch', { svc: { name: 'watch', description: 'Writes one line, then nothing', stream: true, auth: 'required', timeout: 500 } }, async (_request, reply) => {
      const body = new PassThrough()
      body.write('{"seen":1}\n')
      return reply.type('application/x-ndjson').send(body)
    })
  })
  const { page, problems } = await watchedPage(t, browser)
  await opened(page, ui, 'watch')
  await page.click(`${card('watch')} button[type="submit"]`)
  await page.waitForSelector(`${card('watch')} .outcome .status.failed`)
  t.match(await text(page, `${card('watch')} .outcome .status`), /^401 Unauthorized/)
  t.match(JSON.parse(await text(page, `${card('watch')} .outcome pre.json`)), { ok: false, error: { code: 'UNAUTHORIZED' } }, 'the envelope, as for a buffered call')
  t.match(await text(page, `${card('watch')} .outcome`), /www-authenticate: Bearer/)

  await page.type('form.token input', DEMO_TOKEN)
  await page.click(`${card('watch')} button[type="submit"]`)
  await page.waitForSelector(`${card('watch')} .outcome .status.failed`)
  t.match(await text(page, `${card('watch')} .outcome .status`), /^504 TIMEOUT · 1 piece · \d+ ms$/)
  t.same((await pieceTexts(page, 'watch')).map((piece) => JSON.parse(piece)), [{ seen: 1 }], 'the piece before it')
  t.match(JSON.parse(await text(page, `${card('watch')} .final pre.json`)), { type: 'error', error: { code: 'TIMEOUT', status: 504 } })
  t.same(problems.filter((problem) => !/status of 401/.test(problem)), [])
})

t.test('the demo: orders.live and report.build run streamed, search still buffered', async (t) => {
  const { ui } = await runShop(t, { longRunning: { tick: 60 } })
  const { page, problems } = await watchedPage(t, browser)
  const bodies: unknown[] = []
  page.on('request', (request) => { if (request.url().endsWith('/svc/execute')) bodies.push(JSON.parse(request.postData() ?? 'null')) })
  await opened(page, ui, 'orders.live')
  await page.$eval(`${card('orders.live')} .field-number input`, (input) => { (input as HTMLInputElement).value = '3' })
  await page.click(`${card('orders.live')} button[type="submit"]`)
  await page.waitForSelector(`${card('orders.live')} .outcome .status.succeeded`)
  t.same((await pieceTexts(page, 'orders.live')).map((piece) => JSON.parse(piece).sku), ['kettle', 'mug', 'tea-black'])

  await page.click(`${card('report.build')} > summary`)
  await page.waitForSelector(`${card('report.build')} form.call`)
  await page.$eval(`${card('report.build')} .field-number input`, (input) => { (input as HTMLInputElement).value = '2' })
  await page.click(`${card('report.build')} button[type="submit"]`)
  await page.waitForSelector(`${card('report.build')} .outcome .status.succeeded`)
  t.equal(await text(page, `${card('report.build')} .progress-text`), '2 of 2 · day 2 of 2')
  t.match(JSON.parse(await text(page, `${card('report.build')} .final pre.json`)), { days: 2, revenue: Number })

  await page.click(`${card('search')} > summary`)
  await page.waitForSelector(`${card('search')} form.call`)
  await page.type(`${card('search')} .field-text input`, 'mug')
  await page.click(`${card('search')} button[type="submit"]`)
  await page.waitForSelector(`${card('search')} .outcome .status.succeeded`)
  t.same(bodies, [
    { command: 'orders.live', params: { count: 3 }, stream: true },
    { command: 'report.build', params: { days: 2 }, stream: true },
    { command: 'search', params: { q: 'mug', limit: 10 } }
  ], 'only the commands declared stream are streamed')
  t.equal(await page.$(`${card('search')} .pieces`), null, 'a buffered call shows its answer as before')
  t.same(problems, [])
})
