import type { Page } from 'puppeteer-core'
import t from 'tap'
import { launchBrowser, runShop, watchedPage } from '../helpers/browser.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'

// The human page shows how a paginated command pages, and walks to the next page, in Debian's chromium.
uiAssetsBuilt()
const browser = await launchBrowser(t)

const card = 'details[data-command="products"]'
const text = async (page: Page, selector: string): Promise<string> => await page.$eval(selector, (element) => element.textContent ?? '')
const skus = async (page: Page): Promise<string[]> => (JSON.parse(await text(page, `${card} .outcome pre.json`)) as { items: Array<{ sku: string }> }).items.map(({ sku }) => sku)

t.test('a paginated command: its pages and rate limit are shown, and Next page asks for the page after', async (t) => {
  const { ui } = await runShop(t, { products: true })
  const { page, problems } = await watchedPage(t, browser)
  await page.goto(ui, { waitUntil: 'networkidle0' })
  await page.waitForSelector('#commands')
  t.match(await text(page, `${card} summary`), /pages/, 'a badge says it pages')
  await page.click(`${card} > summary`)
  await page.waitForSelector(`${card} form.call`)
  const facts = await text(page, `${card} .facts`)
  t.match(facts, /PagesCursor pages of 2 items unless limit says otherwise \(at most 10\): items in "items", the next page's cursor in "nextCursor"/)
  t.match(facts, /Rate limit60 requests per 60 s\./)

  await page.click(`${card} button[type="submit"]`)
  await page.waitForSelector(`${card} .outcome .status.succeeded`)
  t.same(await skus(page), ['kettle', 'mug'])
  await page.click(`${card} button.next-page`)
  await page.waitForFunction((selector) => document.querySelector(selector)?.textContent?.includes('tea-black') === true, {}, `${card} .outcome pre.json`)
  t.same(await skus(page), ['tea-black', 'tea-green'])
  const cursor = await page.$$eval(`${card} form.call .field`, (fields) => fields
    .filter((field) => field.querySelector('label')?.textContent?.startsWith('cursor') === true)
    .map((field) => field.querySelector('input')?.value))
  t.same(cursor, ['2'], 'the form holds the cursor it sent')
  t.equal(await page.$(`${card} button.next-page`), null, 'the last page offers no next one')
  t.same(problems, [], 'nothing in the console')
})
