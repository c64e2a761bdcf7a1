import { Type } from '@sinclair/typebox'
import type { ElementHandle } from 'puppeteer-core'
import t, { type Test } from 'tap'
import { launchBrowser, runShop, watchedPage, type ShopApp, type WatchedPage } from '../helpers/browser.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'
import { card, field, opened, spoken } from '../helpers/ui-page.js'

// The form's fields as a screen reader and a sighted visitor meet them, in Debian's chromium: the
// accessible name is the param's name alone, its type and marks are its description; JSON fields say
// under them when their text does not parse, and nothing is sent.
uiAssetsBuilt()
const browser = await launchBrowser(t)

/** Routes beside the shop's: nested objects and arrays, and fields typed as JSON. */
function moreRoutes (app: ShopApp): void {
  app.post('/orders', {
    svc: {
      description: 'Places an order',
      params: Type.Object({
        nickname: Type.String({ description: 'What to call you', minLength: 2 }),
        address: Type.Object({ city: Type.String(), zip: Type.Optional(Type.String()) }),
        lines: Type.Array(Type.Object({ sku: Type.String(), quantity: Type.Integer({ minimum: 1 }) }), { minItems: 1 })
      })
    }
  }, async (request) => request.body)
  app.post('/hooks/replay', {
    svc: {
      description: 'Replays a hook',
      // Objects and arrays without a described shape: the JSON text areas the plugin describes today.
      params: { type: 'object', properties: { payload: { type: 'object', description: 'The hook\'s body' }, tags: { type: 'array' } }, required: ['payload'] }
    }
  }, async (request) => request.body)
  app.post('/hooks/echo', {
    svc: {
      description: 'Echoes any JSON value',
      params: Type.Object({ value: Type.Unknown(), note: Type.Optional(Type.Any()) })
    }
  }, async (request) => request.body)
}

/** The shop with moreRoutes, in a new tab, `command`'s card open; `executed`: the body of every execute the page sends. */
async function withCommandOpen (t: Test, command: string): Promise<WatchedPage & { executed: string[] }> {
  const { ui } = await runShop(t, {}, moreRoutes)
  const { page, problems } = await watchedPage(t, browser)
  const executed: string[] = []
  page.on('request', (request) => { if (request.url().endsWith('/svc/execute')) executed.push(request.postData() ?? '') })
  await opened(page, ui, command)
  return { page, problems, executed }
}

/** The texts of a field's visible label (or legend), each as rendered: what a sighted visitor reads. */
async function seen (element: ElementHandle): Promise<string[]> {
  return await element.evaluate((control) => {
    const label = control instanceof HTMLFieldSetElement ? control.querySelector('legend') : (control as HTMLInputElement).labels?.[0]
    const texts: string[] = []
    const walker = document.createTreeWalker(label as Node, NodeFilter.SHOW_TEXT)
    for (let text = walker.nextNode(); text !== null; text = walker.nextNode()) {
      const box = (text.parentElement as HTMLElement).getBoundingClientRect()
      if (box.width > 1 && box.height > 1 && text.textContent?.trim() !== '') texts.push(text.textContent as string)
    }
    return texts
  })
}

t.test('a field\'s accessible name is its name alone; its type, bounds and required mark are its description', async (t) => {
  const { ui } = await runShop(t, {}, moreRoutes)
  const { page, problems } = await watchedPage(t, browser)
  await opened(page, ui, 'cart.add')

  const quantity = await field(page, card('cart.add'), 'quantity')
  t.same(await spoken(page, quantity), { role: 'spinbutton', name: 'quantity', description: 'number. ≥ 1 · default 1' })
  t.same(await seen(quantity), ['quantity', 'number'], 'the label shows the type')
  const sku = await field(page, card('cart.add'), 'sku')
  t.same(await spoken(page, sku), { role: 'textbox', name: 'sku', description: 'required, string.' })
  t.same(await seen(sku), ['sku', '*', 'string'], 'the required mark, to the eye a star')

  await page.click(`${card('cart.add')} > summary`)
  await page.click(`${card('orders')} > summary`)
  const orders = card('orders')
  await page.waitForSelector(`${orders} form.call`)
  const nickname = await field(page, orders, 'nickname')
  t.match(await spoken(page, nickname), { name: 'nickname', description: 'required, string. What to call you · at least 2 characters' })
  t.same(await seen(nickname), ['nickname', '*', 'string'])
  t.same(await spoken(page, await field(page, orders, 'address')), { role: 'group', name: 'address', description: 'required, object.' }, 'an inline object: its fieldset')
  t.same(await seen(await field(page, orders, 'address')), ['address', '*', 'object'])
  t.match(await spoken(page, await field(page, orders, 'city')), { name: 'city', description: 'required, string.' }, 'a property of it')
  t.match(await spoken(page, await field(page, orders, 'zip')), { name: 'zip', description: 'string.' })
  t.same(await spoken(page, await field(page, orders, 'lines')), { role: 'group', name: 'lines', description: 'required, array. at least 1 item' }, 'an array')
  t.same(await spoken(page, await field(page, orders, 'lines 1')), { role: 'group', name: 'lines 1', description: 'required, object.' }, 'its item')
  const itemQuantity = await field(page, `${orders} .items li:first-child`, 'quantity')
  t.same(await spoken(page, itemQuantity), { role: 'spinbutton', name: 'quantity', description: 'required, number. ≥ 1' }, 'a property of the item')

  // Every control and group on the page is named by the name shown first in its label, nothing more.
  const names = await page.$$eval(`${orders} form.call :is(input, select, textarea, fieldset)`, (controls) => controls.map((control) => {
    const ids = control.getAttribute('aria-labelledby') ?? ''
    return [ids.split(' ').length, document.getElementById(ids)?.className]
  }))
  t.ok(names.length >= 7 && names.every(([count, className]) => count === 1 && className === 'name'), 'named by the name alone')
  t.same(problems, [])
})

t.test('a JSON field says under it that its text does not parse, and Run sends nothing until it does', async (t) => {
  const { page, problems, executed } = await withCommandOpen(t, 'hooks.replay')
  const hooks = card('hooks.replay')
  const payload = await field(page, hooks, 'payload')
  t.same(await spoken(page, payload), { role: 'textbox', name: 'payload', description: 'required, object. The hook\'s body · JSON object' })

  await payload.type('{"a": 1,')
  const tags = await field(page, hooks, 'tags')
  await tags.focus()
  const message = await page.waitForSelector(`${hooks} .field-json .invalid:not(:empty)`)
  t.match(await message!.evaluate((element) => element.textContent), /^payload is not JSON: .+\.$/, 'said as the field is left')
  t.notMatch(await message!.evaluate((element) => element.textContent), /double quotes/, 'an object is never text in quotes')
  t.equal(await payload.evaluate((element) => element.getAttribute('aria-invalid')), 'true')
  t.match(await spoken(page, payload), { name: 'payload', description: /^required, object\. The hook's body · JSON object payload is not JSON: / }, 'and read with its description')
  t.equal(await message!.evaluate((element) => element.getAttribute('aria-live')), 'polite', 'and announced')

  await page.click(`${hooks} button[type="submit"]`)
  const listed = await page.waitForSelector(`${hooks} .outcome .problems`)
  t.match(await listed!.evaluate((element) => element.textContent), /payload is not JSON/)
  t.same(executed, [], 'nothing is sent')

  await payload.focus()
  await page.keyboard.type(' "b": [true]}')
  t.equal(await message!.evaluate((element) => element.textContent), '', 'the message goes as soon as the text parses')
  t.equal(await payload.evaluate((element) => element.getAttribute('aria-invalid')), null)
  t.same(await spoken(page, payload), { role: 'textbox', name: 'payload', description: 'required, object. The hook\'s body · JSON object' })

  await page.click(`${hooks} button[type="submit"]`)
  await page.waitForSelector(`${hooks} .outcome .status.succeeded`)
  t.same(JSON.parse(await page.$eval(`${hooks} .outcome pre.json`, (element) => element.textContent ?? '')), { payload: { a: 1, b: [true] } }, 'the optional one left empty is not sent')
  t.same(executed.map((body) => JSON.parse(body)), [{ command: 'hooks.replay', params: { payload: { a: 1, b: [true] } } }])
  t.same(problems, [])
})

t.test('a field that allows any JSON value is a JSON editor: a bare word is told to be quoted, a quoted one is sent as text', async (t) => {
  const { page, problems, executed } = await withCommandOpen(t, 'hooks.echo')
  const echo = card('hooks.echo')
  const value = await field(page, echo, 'value')
  t.match(await spoken(page, value), { role: 'textbox', name: 'value', description: /^required, any\./ })
  t.same(await seen(value), ['value', '*', 'any'])

  await value.type('hello')
  await (await field(page, echo, 'note')).focus()
  const message = await page.waitForSelector(`${echo} .field-json .invalid:not(:empty)`)
  t.match(await message!.evaluate((element) => element.textContent), /^value is not JSON: .+ Text is written in double quotes: "hello"\.$/)
  await page.click(`${echo} button[type="submit"]`)
  await page.waitForSelector(`${echo} .outcome .problems`)
  t.same(executed, [], 'nothing is sent while it does not parse')

  await value.click({ count: 3 })
  await page.keyboard.type('"hello"')
  await page.click(`${echo} button[type="submit"]`)
  await page.waitForSelector(`${echo} .outcome .status.succeeded`)
  t.same(executed.map((body) => JSON.parse(body)), [{ command: 'hooks.echo', params: { value: 'hello' } }], 'sent as a string; the empty optional one left out')
  t.same(problems, [])
})
