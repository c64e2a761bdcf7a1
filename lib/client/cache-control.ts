/**
 * How long a response stays fresh, in milliseconds, from its `Cache-Control` and `Age` headers:
 * `max-age` minus `Age`; 0 (always revalidate) without `max-age` or with `no-cache` or `no-store`.
 */
export function freshnessLifetime (headers: Headers): number {
  const directives = (headers.get('cache-control') ?? '').toLowerCase().split(',').map((directive) => directive.trim())
  if (directives.includes('no-cache') || directives.includes('no-store')) return 0
  const maxAge = directives.find((directive) => directive.startsWith('max-age='))
  const seconds = Number(maxAge?.slice('max-age='.length))
  if (!Number.isFinite(seconds)) return 0
  const age = Number(headers.get('age')) || 0
  return Math.max(0, seconds - age) * 1000
}
