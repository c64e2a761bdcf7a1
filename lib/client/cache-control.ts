/**
 * RFC 9111 §1.2.2: a delta-seconds value larger than a cache can represent counts as 2^31 seconds, so a
 * huge `max-age` is a long lifetime, never an infinite one.
 */
const MAX_DELTA_SECONDS = 2 ** 31

/**
 * How long a response stays fresh, in milliseconds, from its `Cache-Control` and `Age` headers:
 * `max-age` minus `Age`; 0 (always revalidate) without a valid `max-age`, with more than one, or with
 * `no-cache` or `no-store`. Both values are delta-seconds, digits only (RFC 9111 §1.2.2): `max-age=1e3`,
 * `max-age=0x10` or `max-age=-1` is no `max-age`, and an `Age` that is not digits (negative, say) counts as 0.
 */
export function freshnessLifetime (headers: Headers): number {
  const directives = (headers.get('cache-control') ?? '').toLowerCase().split(',').map((directive) => directive.trim())
  if (directives.includes('no-cache') || directives.includes('no-store')) return 0
  const maxAges = directives.filter((directive) => directive.startsWith('max-age='))
  // RFC 9111 §4.2.1: with conflicting duplicates a cache may consider the response stale.
  if (maxAges.length !== 1) return 0
  // §5.2: recipients accept the quoted-string form of an argument too.
  const seconds = deltaSeconds(maxAges[0].slice('max-age='.length).replace(/^"(.*)"$/, '$1'))
  if (seconds === undefined) return 0
  const age = deltaSeconds(headers.get('age')?.trim()) ?? 0
  return Math.max(0, seconds - age) * 1000
}

function deltaSeconds (text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) return undefined
  return Math.min(Number(text), MAX_DELTA_SECONDS)
}
