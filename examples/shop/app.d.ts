// Types of app.js, for TypeScript code that imports the example (its test does).
import type { FastifyInstance } from 'fastify'

export declare const DEMO_TOKEN: 'demo-token'
/** The shop keeper's token: it alone sees the hidden command `admin.sales`. */
export declare const ADMIN_TOKEN: 'admin-token'

export interface ShopOptions {
  /** Manifest layout: '1.0' (default) or '0.5.0'. */
  layout?: '1.0' | '0.5.0'
  /** The address the shop is reached at, served as the manifest's baseUrl. Default 'http://127.0.0.1:3000'. */
  baseUrl?: string
  /** Serve every command as an MCP tool at /mcp. Default false. */
  mcp?: boolean
  /** Serve the human page at /svc/ui. Default false (server.js turns it on). */
  ui?: boolean
  /** Serve /.well-known/api-catalog and /llms.txt. Default false (server.js turns it on). */
  discovery?: boolean
  /** A redis:// URL: events and channel states fan out to every instance on the same Redis. */
  redis?: string
  /**
   * Add `orders.live` (a stream of orders) and `report.build` (a job that reports its progress), which take
   * a few seconds: `true` spaces their steps 600 ms apart, `{ tick }` that many milliseconds. Default false
   * (server.js turns it on).
   */
  longRunning?: boolean | { tick: number }
  /** Add `products`: the catalogue a page at a time (paginated, rate-limited). Default false (server.js turns it on). */
  products?: boolean
}

export declare function buildShop (options?: ShopOptions): Promise<FastifyInstance>
export default buildShop
