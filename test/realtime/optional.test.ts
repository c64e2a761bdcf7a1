import t from 'tap'
import { FST_SVC_MISSING_DEPENDENCY } from '../../lib/index.js'
import { importOptional } from '../../lib/util/optional.js'

t.test('a missing optional peer is FST_SVC_MISSING_DEPENDENCY with the install command', async (t) => {
  const error = await importOptional('svc-manifest-no-such-package', 'realtime.redis').then(() => undefined, (error: unknown) => error)
  t.ok(error instanceof FST_SVC_MISSING_DEPENDENCY)
  t.match(error, {
    code: 'FST_SVC_MISSING_DEPENDENCY',
    message: 'Missing dependency: realtime.redis needs the package "svc-manifest-no-such-package", which is not installed. Run: npm install svc-manifest-no-such-package'
  })
})

t.test('a present package that fails to load is not reported as missing: the error says why it failed', async (t) => {
  const inner = new URL('../fixtures/optional/needs-missing.mjs', import.meta.url).href
  const missingInner = await importOptional(inner, 'realtime.redis').then(() => undefined, (error: Error) => error)
  t.match(missingInner, { code: 'FST_SVC_MISSING_DEPENDENCY', message: /which is installed but failed to load \(Cannot find package 'svc-manifest-no-such-inner-package'/ })
  t.match(missingInner?.cause, { message: /Cannot find package 'svc-manifest-no-such-inner-package'/ }, 'the reason is its cause')
  const broken = new URL('../fixtures/optional/throws.mjs', import.meta.url).href
  await t.rejects(importOptional(broken, 'realtime.redis'), { code: 'FST_SVC_MISSING_DEPENDENCY', message: /which is installed but failed to load \(broken on import\)\. Run: npm install / })
})

t.test('an installed package is returned', async (t) => {
  const module = await importOptional<{ default: unknown }>('mqemitter-redis', 'realtime.redis')
  t.type(module.default, 'function')
})
