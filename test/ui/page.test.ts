import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'puppeteer-core'
import t from 'tap'
import { DEMO_TOKEN } from '../../examples/shop/app.js'
import { launchBrowser, runShop, watchedPage } from '../helpers/browser.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'

// The human page of the demo shop in Debian's chromium: what a visitor sees and does, end to end.
uiAssetsBuilt()
const browser = await launchBrowser(t)

/** The screenshot of docs/ui.md, written only when asked: `SVC_UI_SCREENSHOT=1 npx tap test/ui/page.test.ts`. */
const SCREENSHOT = process.env.SVC_UI_SCREENSHOT === '1' ? fileURLToPath(new URL('../../docs/ui.png', import.meta.url)) : undefined

const card = (name: string): string => `details[data-command="${name}"]`

async function loaded (page: Page, url: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle0' })
  await page.waitForSelector('#commands')
}

async function open (page: Page, name: string): Promise<void> {
  await page.click(`${card(name)} > summary`)
  await page.waitForSelector(`${card(name)} form.call`)
}

/** Runs the command with what its form holds, and waits for the status line of its answer. */
async function run (page: Page, name: string): Promise<string> {
  await page.$eval(`${card(name)} .outcome`, (element) => element.replaceChildren())
  await page.click(`${card(name)} button[type="submit"]`)
  const status = await page.waitForSelector(`${card(name)} .outcome .status:is(.succeeded, .failed)`)
  return await status!.evaluate((element) => element.textContent ?? '')
}

const text = async (page: Page, selector: string): Promise<string> => await page.$eval(selector, (element) => element.textContent ?? '')

t.test('the page loads with no console error and no CSP violation, and shows the service', async (t) => {
  const { app, ui } = await runShop(t)
  const { page, problems } = await watchedPage(t, browser)
  await loaded(page, ui)
  // The icon the page names, fetched as a browser fetches it: a missing one would be a console error.
  const iconStatus = await page.evaluate(async () => {
    const link = document.querySelector<HTMLLinkElement>('link[rel="icon"]')
    return link === null ? 0 : (await fetch(link.href)).status
  })
  t.equal(iconStatus, 200, 'the page names its own icon, and it is served')
  t.same(problems, [], 'nothing in the console')
  t.equal(await page.title(), 'Shop — service manifest')
  t.equal(await text(page, 'header h1'), 'Shop')
  const facts = await text(page, '.service-facts')
  t.match(facts, /Version\s*2\.3\.0/)
  t.match(facts, /Layout\s*1\.0/)
  t.match(facts, app.svc.publicManifest.checksum, 'the checksum of the public manifest')
  t.same(await page.$$eval('.tag-group h3', (headings) => headings.map((heading) => heading.textContent)), ['cart', 'catalogue'], 'commands grouped by tag')
  t.same(await page.$$eval('details.command', (cards) => cards.map((element) => (element as HTMLElement).dataset.command)), ['cart.add', 'cart.get', 'cart.remove', 'search'])
  t.match(await text(page, `${card('cart.get')} summary`), /token required/, 'auth is shown')
  await page.type('#commands input[type="search"]', 'catalogue')
  t.same(await page.$$eval('details.command:not([hidden])', (cards) => cards.map((element) => (element as HTMLElement).dataset.command)), ['search'], 'the filter keeps what matches')
  t.match(await text(page, '#commands [role="status"]'), /1 of 4 commands match/)
  t.same(problems, [], 'still nothing in the console')
})

t.test('every response of the page carries its security headers', async (t) => {
  const { ui } = await runShop(t)
  const { page } = await watchedPage(t, browser)
  const headers = new Map<string, Record<string, string>>()
  page.on('response', (response) => { if (response.url().includes('/svc/ui')) headers.set(new URL(response.url()).pathname, response.headers()) })
  await loaded(page, ui)
  // Headless chromium may or may not ask for the icon: the page, its script and its stylesheet it loads.
  for (const path of ['/svc/ui', '/svc/ui/app.css', '/svc/ui/app.js']) t.ok(headers.has(path), `${path} was loaded`)
  for (const [path, each] of headers) {
    t.match(each['content-security-policy'], /^default-src 'self'/, path)
    t.equal(each['x-content-type-options'], 'nosniff', path)
    t.equal(each['referrer-policy'], 'no-referrer', path)
  }
})

t.test('a command runs through execute and its result shows, with the same call as curl and as a pipeline step', async (t) => {
  const { ui, origin } = await runShop(t)
  const { page, problems } = await watchedPage(t, browser)
  await loaded(page, ui)
  await open(page, 'search')
  t.equal(await page.$eval(`${card('search')} .field-number input`, (input) => (input as HTMLInputElement).value), '10', 'the default is filled in')
  await page.type(`${card('search')} .field-text input`, 'tea')
  t.match(await run(page, 'search'), /^200 OK/)
  const result = JSON.parse(await text(page, `${card('search')} .outcome pre.json`))
  t.same(result.map((product: { sku: string }) => product.sku), ['mug', 'tea-black', 'tea-green'])
  const [curl, step] = await page.$$eval(`${card('search')} .same-call pre`, (blocks) => blocks.map((block) => block.textContent ?? ''))
  t.equal(curl, `curl -s '${origin}/svc/execute' \\\n  -H 'content-type: application/json' \\\n  -d '{"command":"search","params":{"q":"tea","limit":10}}'`)
  t.same(JSON.parse(step), { command: 'search', params: { q: 'tea', limit: 10 } })
  t.same(problems, [])
})

t.test('an auth command answers 401 without a token and succeeds with the demo token, kept in sessionStorage only', async (t) => {
  const { ui } = await runShop(t)
  const { page, problems } = await watchedPage(t, browser)
  await loaded(page, ui)
  await open(page, 'cart.get')
  t.match(await run(page, 'cart.get'), /^401 Unauthorized/)
  const refused = JSON.parse(await text(page, `${card('cart.get')} .outcome pre.json`))
  t.match(refused, { ok: false, error: { code: 'UNAUTHORIZED', status: 401 } }, 'the error envelope is shown')
  t.match(await text(page, `${card('cart.get')} .outcome`), /www-authenticate: Bearer realm="Shop"/, 'with the challenge')
  // The browser logs the 401 of a fetch as a failed resource; that one is expected.
  t.same(problems.filter((problem) => !/status of 401/.test(problem)), [])

  await page.type('form.token input', DEMO_TOKEN)
  t.match(await run(page, 'cart.get'), /^200 OK/)
  t.same(JSON.parse(await text(page, `${card('cart.get')} .outcome pre.json`)), { items: [], total: 0 })
  t.match(await text(page, `${card('cart.get')} .same-call pre`), /-H "authorization: Bearer \$TOKEN"/, 'curl names the token, never shows it')
  t.notMatch(await text(page, `${card('cart.get')} .same-call`), DEMO_TOKEN)

  const stored = await page.evaluate(() => ({ session: sessionStorage.getItem('svc-ui:token'), local: localStorage.length, cookie: document.cookie }))
  t.same(stored, { session: DEMO_TOKEN, local: 0, cookie: '' })
  await loaded(page, ui)
  t.equal(await page.$eval('form.token input', (input) => (input as HTMLInputElement).value), DEMO_TOKEN, 'the tab keeps it across a reload')
  await page.click('form.token button')
  t.equal(await page.evaluate(() => sessionStorage.getItem('svc-ui:token')), null, 'Forget removes it')
})

t.test('the form follows the descriptors: array items added and removed, enums as selects, nested objects', async (t) => {
  const { ui, origin } = await runShop(t, {}, (app) => {
    app.post('/labels', {
      svc: {
        description: 'Prints labels',
        params: {
          type: 'object',
          properties: {
            skus: { type: 'array', items: { type: 'string' }, description: 'What to print' },
            size: { type: 'string', enum: ['small', 'large'], default: 'small' },
            layout: { type: 'object', properties: { columns: { type: 'number', minimum: 1 }, border: { type: 'boolean' } } }
          },
          required: ['skus']
        }
      }
    }, async (request) => request.body)
  })
  const { page, problems } = await watchedPage(t, browser)
  // The manifest as DESIGN §4 describes it (items, enum, properties), served to the page over the real one.
  const served = await fetch(`${origin}/.well-known/svc.json`)
  const manifest = await served.json() as { commands: Record<string, { params: Record<string, unknown> }> }
  Object.assign(manifest.commands.labels.params, {
    skus: { type: 'array', required: true, description: 'What to print', minItems: 1, items: { type: 'string' } },
    size: { type: 'string', required: false, default: 'small', enum: ['small', 'large'] },
    layout: { type: 'object', required: false, properties: { columns: { type: 'number', required: true, minimum: 1 }, border: { type: 'boolean', required: false } } }
  })
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    const answered = request.url().endsWith('/.well-known/svc.json')
      ? request.respond({ status: 200, contentType: 'application/json', headers: { link: served.headers.get('link') ?? '' }, body: JSON.stringify(manifest) })
      : request.continue()
    answered.catch((error: Error) => problems.push(`interception: ${error.message}`))
  })
  await loaded(page, ui)
  await open(page, 'labels')
  const labels = card('labels')
  t.same(await page.$$eval(`${labels} select option`, (options) => options.map((option) => option.textContent)).then((texts) => texts.slice(0, 3)), ['— not set —', 'small', 'large'], 'the enum is a select')
  t.equal(await page.$eval(`${labels} select`, (select) => (select as HTMLSelectElement).selectedOptions[0].textContent), 'small', 'its default chosen')
  t.equal(await page.$$eval(`${labels} .items li`, (items) => items.length), 1, 'minItems items to start with')
  await page.type(`${labels} .items li input`, 'mug')
  await page.click(`${labels} button.add`)
  t.equal(await page.evaluate(() => document.activeElement?.getAttribute('type')), 'text', 'focus moves to the new item')
  await page.keyboard.type('kettle')
  await page.click(`${labels} button.add`)
  await page.keyboard.type('tea-black')
  await page.click(`${labels} .items li:nth-child(2) button.remove`)
  t.match(await run(page, 'labels'), /^200 OK/)
  t.same(JSON.parse(await text(page, `${labels} .outcome pre.json`)), { skus: ['mug', 'tea-black'], size: 'small' }, 'the optional object left out')

  await page.select(`${labels} fieldset.object select`, 'true')
  await page.click(`${labels} button[type="submit"]`)
  const asked = await page.waitForSelector(`${labels} .outcome .problems`)
  t.match(await asked!.evaluate((element) => element.textContent), /layout\.columns is required/, 'a required field of a given object is asked for, and nothing sent')
  await page.type(`${labels} fieldset.object input[type="number"]`, '2')
  t.match(await run(page, 'labels'), /^200 OK/)
  t.same(JSON.parse(await text(page, `${labels} .outcome pre.json`)), { skus: ['mug', 'tea-black'], size: 'small', layout: { columns: 2, border: true } })
  t.same(problems, [])
})

t.test('HTML in service text is shown as text, never parsed', async (t) => {
  const hostile = '<img src=x onerror="window.svcInjected = 1">'
  const { ui } = await runShop(t, {}, (app) => {
    app.get('/hostile', {
      svc: { description: hostile, tags: ['<b>tag</b>'], params: { type: 'object', properties: { '<i>q</i>': { type: 'string', description: hostile } } } }
    }, async () => ({ html: hostile }))
  })
  const { page, problems } = await watchedPage(t, browser)
  await loaded(page, ui)
  t.match(await text(page, `${card('hostile')} summary`), hostile, 'the description, as typed')
  await open(page, 'hostile')
  t.match(await text(page, `${card('hostile')} label`), '<i>q</i>')
  t.match(await text(page, `${card('hostile')} .hint`), hostile)
  t.match(await run(page, 'hostile'), /^200 OK/)
  t.same(JSON.parse(await text(page, `${card('hostile')} .outcome pre.json`)), { html: hostile })
  t.same(await page.evaluate(() => ({
    images: document.querySelectorAll('img').length,
    italics: document.querySelectorAll('i, b').length,
    injected: typeof (window as unknown as { svcInjected?: number }).svcInjected
  })), { images: 0, italics: 0, injected: 'undefined' })
  t.same(problems, [], 'no request for "x", no blocked inline handler')
})

t.test('at 360 px wide and with the keyboard alone', async (t) => {
  const { ui } = await runShop(t)
  const { page, problems } = await watchedPage(t, browser, 360, 740)
  await loaded(page, ui)
  // Tab to the search command, open it, fill it in, run it: no mouse.
  let focused = ''
  for (let presses = 0; presses < 40 && focused !== 'search'; presses++) {
    await page.keyboard.press('Tab')
    focused = await page.evaluate(() => document.activeElement?.closest<HTMLElement>('details.command')?.dataset.command ?? '')
  }
  t.equal(focused, 'search', 'the search command is reached with Tab')
  await page.keyboard.press('Enter')
  await page.waitForSelector(`${card('search')} form.call`)
  await page.keyboard.press('Tab')
  await page.keyboard.type('mug')
  await page.keyboard.press('Enter')
  await page.waitForSelector(`${card('search')} .outcome .status.succeeded`)
  t.match(await text(page, `${card('search')} .outcome pre.json`), /Tea mug/)

  const unlabelled = await page.$$eval('input, select, textarea', (controls) => controls
    .filter((control) => (control as HTMLInputElement).labels?.length === 0 && !control.hasAttribute('aria-label'))
    .map((control) => control.outerHTML))
  t.same(unlabelled, [], 'every control has a label')
  const width = await page.evaluate(() => document.documentElement.scrollWidth)
  t.ok(width <= 360, `no horizontal scrolling at 360 px (${width} px)`)
  t.same(problems, [])
})

t.test('the screenshot of docs/ui.md', { skip: SCREENSHOT === undefined ? 'set SVC_UI_SCREENSHOT=1 to write docs/ui.png' : false }, async (t) => {
  const { ui } = await runShop(t)
  const { page } = await watchedPage(t, browser, 1100, 1400)
  await loaded(page, ui)
  await page.type('form.token input', DEMO_TOKEN)
  await open(page, 'search')
  await page.type(`${card('search')} .field-text input`, 'tea')
  await run(page, 'search')
  // From the top of the page to the end of the search command's same call: what a first visit looks like.
  const bottom = await page.$eval(`${card('search')} .same-call`, (element) => element.getBoundingClientRect().bottom + window.scrollY)
  await page.screenshot({ path: SCREENSHOT as string, clip: { x: 0, y: 0, width: 1100, height: Math.ceil(bottom) + 24 }, captureBeyondViewport: true })
  const png = readFileSync(SCREENSHOT as string)
  t.equal(png.subarray(1, 4).toString('latin1'), 'PNG', `wrote ${SCREENSHOT}, a PNG`)
  t.same([png.readUInt32BE(16), png.readUInt32BE(20)], [1100, Math.ceil(bottom) + 24], 'of the clip: the page down to the search command\'s same call')
})
