import { Type } from '@sinclair/typebox'
import type { FastifyInstance } from 'fastify'
import type { Test } from 'tap'
import { readyApp } from './app.js'
import { listening } from './net.js'

/** Seven teas, two of them green: what the paginated commands of `pagedApp` list. */
export const TEAS = ['assam', 'darjeeling', 'sencha', 'earl-grey', 'gyokuro', 'oolong', 'rooibos']
export const GREEN = new Set(['sencha', 'gyokuro'])

/**
 * An app with a list in both of Surf's pagination styles, each filtered by `green`:
 * - `teas` (cursor, Surf's defaults): `{ items, nextCursor }`, the cursor being the next index;
 * - `articles` (offset): RealWorld's `{ articles, articlesCount }`, with `defaultLimit` 3.
 * `calls` records the query of every page asked for.
 */
export async function pagedApp (t: Test): Promise<{ app: FastifyInstance, origin: string, calls: Array<Record<string, unknown>> }> {
  const calls: Array<Record<string, unknown>> = []
  const pick = (green: boolean | undefined): string[] => TEAS.filter((tea) => green === undefined || GREEN.has(tea) === green)
  const app = await readyApp(t, {}, (app) => {
    app.get('/teas', {
      svc: { description: 'List the teas, a page at a time', paginated: true },
      schema: { querystring: Type.Object({ green: Type.Optional(Type.Boolean()), cursor: Type.Optional(Type.String()), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })) }) }
    }, async (request) => {
      const { green, cursor, limit } = request.query as { green?: boolean, cursor?: string, limit: number }
      calls.push({ ...request.query as object })
      const all = pick(green)
      const start = cursor === undefined ? 0 : Number(cursor)
      const end = start + limit
      return end < all.length ? { items: all.slice(start, end), nextCursor: String(end) } : { items: all.slice(start), nextCursor: null }
    })
    app.get('/articles', {
      svc: { description: 'List the articles', paginated: { style: 'offset', defaultLimit: 3, maxLimit: 10, items: 'articles', total: 'articlesCount' } },
      schema: { querystring: Type.Object({ green: Type.Optional(Type.Boolean()), offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })), limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10, default: 3 })) }) }
    }, async (request) => {
      const { green, offset, limit } = request.query as { green?: boolean, offset: number, limit: number }
      calls.push({ ...request.query as object })
      const all = pick(green)
      return { articles: all.slice(offset, offset + limit), articlesCount: all.length }
    })
    app.get('/menu', { svc: { description: 'Not paginated' } }, async () => ({ items: TEAS }))
  })
  const origin = await listening(t, app)
  return { app, origin, calls }
}
