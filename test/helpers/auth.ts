import type { SvcAuthOptions } from '../../lib/index.js'

/**
 * The suite's bearer tokens and the credential each stands for: alice, bob and admin are users (the `sub`
 * a channel key is checked against), robot-token is a credential without a subject. Any other token is refused.
 */
export const TOKENS: Record<string, Record<string, unknown>> = {
  'alice-token': { sub: 'alice' },
  'bob-token': { sub: 'bob' },
  'admin-token': { sub: 'admin' },
  'robot-token': { role: 'robot' }
}

/** `auth.verify` over TOKENS: the token's credential, or undefined (refused). */
export const verifyToken = (token: string): Record<string, unknown> | undefined => TOKENS[token]

/** `auth` for a service whose users are TOKENS. */
export const tokenAuth: SvcAuthOptions = { type: 'bearer', description: 'Demo tokens', verify: verifyToken }

/** The Authorization header that sends `token`. */
export const bearer = (token: string): { authorization: string } => ({ authorization: `Bearer ${token}` })
