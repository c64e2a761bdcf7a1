import t from 'tap'
import { ADMIN_TOKEN, DEMO_TOKEN } from '../../examples/shop/app.js'
import { launchBrowser, runShop, watchedPage } from '../helpers/browser.js'
import { uiAssetsBuilt } from '../helpers/ui-assets.js'

// The page in chromium: the hidden admin.sales appears once the shop keeper's token is entered.
uiAssetsBuilt()
const browser = await launchBrowser(t)

t.test('the page shows the commands the entered token may see', async (t) => {
  const { app, ui } = await runShop(t)
  const { page, problems } = await watchedPage(t, browser)
  const commands = async (): Promise<string[]> => await page.$$eval('details.command', (cards) => cards.map((card) => (card as HTMLElement).dataset.command as string))
  const checksum = async (): Promise<string> => await page.$eval('.service-facts .checksum', (element) => element.textContent ?? '')
  await page.goto(ui, { waitUntil: 'networkidle0' })
  await page.waitForSelector('#commands')
  t.same(await commands(), ['cart.add', 'cart.get', 'cart.remove', 'search'], 'the public commands')

  const enter = async (token: string): Promise<void> => {
    await page.$eval('form.token input', (input) => { (input as HTMLInputElement).value = '' })
    await page.type('form.token input', token)
    await page.keyboard.press('Tab')
  }
  await enter(ADMIN_TOKEN)
  await page.waitForSelector('details.command[data-command="admin.sales"]')
  t.same(await commands(), ['admin.sales', 'cart.add', 'cart.get', 'cart.remove', 'search'], 'the shop keeper\'s view')
  t.not(await checksum(), app.svc.publicManifest.checksum, 'the view\'s own checksum')
  t.equal(await page.evaluate(() => document.activeElement?.tagName), 'BUTTON', 'the focus moved on as the visitor did, the token box kept')
  await page.click('details.command[data-command="admin.sales"] > summary')
  // The card's form is made when it opens, on its toggle event.
  await page.waitForSelector('details.command[data-command="admin.sales"] form.call button[type="submit"]')
  await page.click('details.command[data-command="admin.sales"] button[type="submit"]')
  const status = await page.waitForSelector('details.command[data-command="admin.sales"] .outcome .status:is(.succeeded, .failed)')
  t.match(await status!.evaluate((element) => element.textContent ?? ''), /200/, 'and runs it')

  await page.reload({ waitUntil: 'networkidle0' })
  await page.waitForSelector('details.command[data-command="admin.sales"]')
  t.pass('the token kept in the tab reads the view again after a reload')

  await enter(DEMO_TOKEN)
  await page.waitForFunction(() => document.querySelector('details.command[data-command="admin.sales"]') === null)
  t.same(await commands(), ['cart.add', 'cart.get', 'cart.remove', 'search'], 'another token, another view')

  await enter('not-a-token')
  const alert = await page.waitForSelector('#app [role="alert"]')
  t.match(await alert!.evaluate((element) => element.textContent ?? ''), /could not be loaded with this token: .*401/)
  t.same(await commands(), ['cart.add', 'cart.get', 'cart.remove', 'search'], 'the public commands under the alert')

  await page.click('form.token button')
  await page.waitForFunction(() => document.querySelector('#app [role="alert"]') === null)
  t.equal(await checksum(), app.svc.publicManifest.checksum, 'Forget: the public view again')
  t.same(problems.filter((problem) => !problem.includes('401')), [], 'nothing else in the console')
})
