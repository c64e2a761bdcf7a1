import type { ElementHandle, Page } from 'puppeteer-core'
import t from 'tap'
import { DEMO_TOKEN } from '../../examples/shop/app.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'
import { launchBrowser, runShop, watchedPage } from '../helpers/browser.js'

// The events and channel panels of the demo shop's page, in Debian's chromium: frames the server sends
// show up as they arrive, read through fetch with the visitor's token.
uiAssetsBuilt()
const browser = await launchBrowser(t)

async function loaded (page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle0' })
  await page.waitForSelector('#events')
}

/** The status line of a panel, once it says `expected`. */
async function statusSays (page: Page, panel: string, expected: RegExp): Promise<string> {
  const handle = await page.waitForFunction((selector, pattern) => {
    const text = document.querySelector(`${selector} [role="status"]`)?.textContent ?? ''
    return new RegExp(pattern).test(text) ? text : false
  }, {}, panel, expected.source)
  return await handle.jsonValue() as string
}

async function frameTexts (page: Page, panel: string): Promise<string[]> {
  return await page.$$eval(`${panel} .frames li`, (items) => items.map((item) => item.textContent ?? ''))
}

async function click (page: Page, selector: string): Promise<void> {
  const button = await page.waitForSelector(selector) as ElementHandle<HTMLButtonElement>
  await button.click()
}

t.test('an event the server emits appears in the events panel', async (t) => {
  const { app, ui } = await runShop(t)
  const { page, problems } = await watchedPage(t, browser)
  await loaded(page, ui)
  t.match(await page.$eval('#events', (panel) => panel.textContent), /cart\.updated — Cart contents changed/, 'the declared events are listed')

  // The shop has auth: without a token the stream is refused, and the page says so.
  await click(page, '#events .row button')
  t.match(await statusSays(page, '#events', /Refused/), /Refused: 401/)
  t.match((await frameTexts(page, '#events'))[0], /UNAUTHORIZED|Unauthorized/)
  t.same(problems.filter((problem) => !/status of 401/.test(problem)), [])

  await page.type('form.token input', DEMO_TOKEN)
  await click(page, '#events .row button')
  await statusSays(page, '#events', /^Subscribed/)
  app.svc.emit('cart.updated', { items: ['mug', '<b>kettle</b>'] })
  await page.waitForSelector('#events .frames li.frame')
  const [frame] = await frameTexts(page, '#events')
  t.match(frame, /cart\.updated #1/, 'its name and id')
  t.same(JSON.parse(await page.$eval('#events .frames li.frame pre', (pre) => pre.textContent ?? '')), { items: ['mug', '<b>kettle</b>'] }, 'its data')
  t.equal(await page.$$eval('#events b', (bold) => bold.length), 0, 'as text')

  app.svc.emit('cart.updated', { items: [] })
  await page.waitForFunction(() => document.querySelectorAll('#events .frames li.frame').length === 2)
  t.match((await frameTexts(page, '#events'))[0], /cart\.updated #2/, 'the newest first')

  await click(page, '#events .row button')
  await statusSays(page, '#events', /^Stopped/)
  t.same(problems.filter((problem) => !/status of 401/.test(problem)), [], 'nothing in the console')
})

t.test('layout 0.5.0: the channel panel watches a key', async (t) => {
  const { app, ui } = await runShop(t, { layout: '0.5.0' })
  const { page, problems } = await watchedPage(t, browser)
  await loaded(page, ui)
  await page.type('form.token input', DEMO_TOKEN)
  await page.waitForSelector('#channels')
  await click(page, '#channels .row button')
  t.match(await statusSays(page, '#channels', /key/), /Type the key/, 'a key is needed')
  await page.type('#channels input[type="text"]', 'demo-user')
  await click(page, '#channels .row button')
  await statusSays(page, '#channels', /^Subscribed/)
  await page.waitForSelector('#channels .frames li.frame')
  t.match((await frameTexts(page, '#channels'))[0], /version 0/, 'the state before any publish')
  await app.svc.publish('cart', 'demo-user', { items: [{ sku: 'mug', quantity: 2 }], total: 16 })
  await page.waitForFunction(() => document.querySelectorAll('#channels .frames li.frame').length === 2)
  t.match((await frameTexts(page, '#channels'))[0], /version 1/)
  t.same(JSON.parse(await page.$eval('#channels .frames li.frame pre', (pre) => pre.textContent ?? '')), { items: [{ sku: 'mug', quantity: 2 }], total: 16 })
  await click(page, '#channels .row button')
  await statusSays(page, '#channels', /^Stopped/)
  t.same(problems, [])
})

t.test('layout 1.0 has no channel panel', async (t) => {
  const { ui } = await runShop(t)
  const { page } = await watchedPage(t, browser)
  await loaded(page, ui)
  t.equal(await page.$('#channels'), null)
})
