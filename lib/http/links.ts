/**
 * The RFC 8288 `Link` header that the manifest's 200 and 304 carry: one entry per endpoint the plugin
 * serves, so clients find them without a change to the wire format. `pluginRoutes` adds a route's relation
 * as it adds the route, while the plugin registers; the header is joined once, when the manifest response
 * is prepared.
 */
export class EndpointLinks {
  private readonly entries: Array<{ path: string, rel: string }> = []

  /** `path` is an absolute URL path such as `/svc/execute`; `rel` a registered or extension relation type. */
  add (path: string, rel: string): void {
    this.entries.push({ path, rel })
  }

  /** The path of the first endpoint added with `rel`, if any: where the documents that describe the service send readers. */
  pathOf (rel: string): string | undefined {
    return this.entries.find((entry) => entry.rel === rel)?.path
  }

  /** The header value. The events stream is always on, so it always names at least that. */
  header (): string {
    return this.entries.map(({ path, rel }) => `<${path}>; rel="${rel}"`).join(', ')
  }
}
