import type { ElementHandle, Page } from 'puppeteer-core'

// What the page's tests look up on the human page (/svc/ui) in chromium: a command's card, its form's
// fields, and what a screen reader is told of them. The functions handed to the page reach the document
// through an element: this module is type-checked for Node too, without the DOM's globals.

/** The selector of a command's card. */
export const card = (name: string): string => `details[data-command="${name}"]`

/** Loads the page at `url` and opens the card of command `name`, until its form shows. */
export async function opened (page: Page, url: string, name: string): Promise<void> {
  await page.goto(url, { waitUntil: 'networkidle0' })
  await page.waitForSelector('#commands')
  await page.click(`${card(name)} > summary`)
  await page.waitForSelector(`${card(name)} form.call`)
}

/** The role, accessible name and description chromium computes for an element, as a screen reader gets them. */
export async function spoken (page: Page, element: ElementHandle): Promise<{ role: string, name: string, description: string }> {
  const node = await page.accessibility.snapshot({ root: element, interestingOnly: false })
  return { role: String(node?.role), name: String(node?.name ?? ''), description: String(node?.description ?? '') }
}

/** The text of the first element that `selector` finds. */
export const text = async (page: Page, selector: string): Promise<string> => await page.$eval(selector, (element) => element.textContent ?? '')

/**
 * The field of `label` (its name as shown) in a command's form, the first within `scope` (a selector): its
 * control, or its fieldset.
 */
export async function field (page: Page, scope: string, label: string): Promise<ElementHandle> {
  const body = await page.$('body')
  const handle = await body!.evaluateHandle((root, scopeSelector, name) => {
    const document = root.ownerDocument
    const names = [...document.querySelectorAll(`${scopeSelector} .name`)]
    const span = names.find((element) => element.textContent === name && element.closest('form.call') !== null)
    const legend = span?.closest('legend')
    if (legend !== null && legend !== undefined) return legend.parentElement
    const labelFor = span?.closest('label')?.htmlFor
    return labelFor === undefined ? null : document.getElementById(labelFor)
  }, scope, label)
  const element = handle.asElement()
  if (element === null) throw new Error(`no field ${label} in ${scope}`)
  return element as ElementHandle
}
