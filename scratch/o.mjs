import Fastify from 'fastify'
import { Type } from '@sinclair/typebox'
import svcManifest from '../dist/index.js'
const app = Fastify()
await app.register(svcManifest, { name: 'Shop', description: 'Demo shop', version: '2.3.0', baseUrl: 'https://shop.example' })
app.get('/search', { svc: { description: 'Search the catalogue', params: Type.Object({ q: Type.String(), limit: Type.Optional(Type.Integer({ default: 10 })) }), returns: Type.Array(Type.String()), hints: { idempotent: true, sideEffects: false } } }, async () => [])
await app.ready()
console.log((await app.inject('/.well-known/svc.json')).body)
