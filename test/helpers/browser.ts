import { existsSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import type { Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildShop, type ShopOptions } from '../../examples/shop/app.js'
import type { SvcRegistry } from '../../lib/index.js'

/** Debian's chromium (`apt-get install -y chromium`, as .ci/run does); CHROMIUM_PATH names another. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/**
 * A headless chromium for one test file, closed with it. puppeteer-core never downloads a browser: this
 * one is the system's. `--no-sandbox`: CI runs as root, where chromium's sandbox cannot start.
 */
export async function launchBrowser (t: Test): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`The page is tested in a real browser: no chromium at ${CHROMIUM}. Install it with \`apt-get install -y chromium\`, or set CHROMIUM_PATH.`)
  }
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run']
  })
  t.teardown(() => browser.close())
  return browser
}

export interface WatchedPage {
  page: Page
  /** Console errors and warnings, uncaught exceptions, failed requests and CSP violations, as they happen. */
  problems: string[]
}

/** A new tab, closed with the test, that records everything that would show as a problem in a browser's console. */
export async function watchedPage (t: Test, browser: Browser, width = 1100, height = 900): Promise<WatchedPage> {
  const page = await browser.newPage()
  t.teardown(() => page.close())
  // A step that waits longer than this has failed: the whole file stays well inside tap's limit.
  page.setDefaultTimeout(15_000)
  await page.setViewport({ width, height })
  const problems: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warn') problems.push(`console.${message.type()}: ${message.text()}`)
  })
  page.on('pageerror', (error) => problems.push(`uncaught: ${(error as Error).message}`))
  page.on('requestfailed', (request) => {
    // A stream the page stops on purpose is aborted; anything else that fails is a problem.
    if (request.failure()?.errorText !== 'net::ERR_ABORTED') problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`)
  })
  await page.exposeFunction('svcReportViolation', (text: string) => problems.push(`CSP violation: ${text}`))
  // Run in the page, as text: this module is type-checked for Node, without the DOM's globals.
  await page.evaluateOnNewDocument(`document.addEventListener('securitypolicyviolation', (event) => {
    window.svcReportViolation(event.violatedDirective + ' blocked ' + event.blockedURI)
  })`)
  return { page, problems }
}

/** The shop's app, with the plugin's decorator. */
export type ShopApp = FastifyInstance & { svc: SvcRegistry }

export interface RunningShop {
  app: ShopApp
  origin: string
  /** The page's URL. */
  ui: string
}

/**
 * The demo shop (examples/shop/app.js, which imports the package by name: dist/) with its page on, on a
 * real server on 127.0.0.1. `routes` adds routes before it listens.
 */
export async function runShop (t: Test, options: ShopOptions = {}, routes: (app: ShopApp) => void = () => {}): Promise<RunningShop> {
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  let app: ShopApp
  try {
    app = await buildShop({ ...options, baseUrl: origin, ui: true }) as ShopApp
  } catch (error) {
    if (/unknown option "ui"/.test((error as Error).message)) throw new Error('dist/ is older than lib/: run `npm run build` first.')
    throw error
  }
  routes(app)
  await app.listen({ host: '127.0.0.1', port })
  t.teardown(async () => {
    const closing = app.close()
    // Chromium keeps sockets to the server, some opened ahead of a request it may never send; the server
    // would wait for those until its headers timeout (60 s). The test is over: close them all.
    app.server.closeAllConnections()
    await closing
  })
  return { app, origin, ui: `${origin}/svc/ui` }
}

/** The manifest names its address before the server listens: a port that is free now. */
async function freePort (): Promise<number> {
  const probe = createServer()
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve))
  const { port } = probe.address() as AddressInfo
  await new Promise((resolve) => probe.close(resolve))
  return port
}
