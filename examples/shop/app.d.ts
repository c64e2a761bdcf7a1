// Types of app.js, for TypeScript code that imports the example (its test does).
import type { FastifyInstance } from 'fastify'

export declare const DEMO_TOKEN: 'demo-token'

export interface ShopOptions {
  /** Manifest layout: '1.0' (default) or '0.5.0'. */
  layout?: '1.0' | '0.5.0'
  /** Serve every command as an MCP tool at /mcp. Default false. */
  mcp?: boolean
}

export declare function buildShop (options?: ShopOptions): Promise<FastifyInstance>
export default buildShop
