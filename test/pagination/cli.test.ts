import t from 'tap'
import { cli, spawned } from '../helpers/cli.js'
import { GREEN, pagedApp, TEAS } from '../helpers/pages.js'

const lines = (stdout: string): unknown[] => stdout.trim().split('\n').map((line) => JSON.parse(line))

t.test('call --all-pages prints every item of every page, one JSON line each', async (t) => {
  const { origin, calls } = await pagedApp(t)
  const run = await cli('call', origin, 'teas', 'limit=2', 'green=false', '--all-pages')
  t.equal(run.code, 0, run.stderr)
  t.same(lines(run.stdout), TEAS.filter((tea) => !GREEN.has(tea)))
  t.equal(calls.length, 3)
  const offsets = await cli('call', origin, 'articles', '--params', '{"limit":4}', '--all-pages')
  t.same(lines(offsets.stdout), TEAS)
})

t.test('call --all-pages refuses a command that is not paginated, and --stream beside it', async (t) => {
  const { origin } = await pagedApp(t)
  const menu = await cli('call', origin, 'menu', '--all-pages')
  t.equal(menu.code, 2)
  t.match(menu.stderr, /Shop has no paginated command "menu"/)
  t.equal(menu.stdout, '')
  const both = await cli('call', origin, 'teas', '--all-pages', '--stream')
  t.equal(both.code, 2)
  t.match(both.stderr, /--all-pages and --stream do not go together/)
  const failed = await cli('call', origin, 'teas', 'limit=0', '--all-pages')
  t.equal(failed.code, 1, 'a page the service refuses fails the call')
  t.match(failed.stderr, /teas failed: INVALID_PARAMS \(400/)
})

t.test('the built CLI, spawned', async (t) => {
  const { origin } = await pagedApp(t)
  const run = await spawned(['call', `${origin}/.well-known/svc.json`, 'articles', 'green=true', '--all-pages'])
  t.equal(run.code, 0, run.stderr)
  t.same(lines(run.stdout), [...GREEN])
})
