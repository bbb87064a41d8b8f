/**
 * Store writes that take the policy's proof. A service wraps each store it writes to with `grantedWrites`,
 * naming for every write method the action (or actions) that permit it; the wrapped method takes, first, an
 * `AccessGrant` of one of those actions. Only `ensureAllowed` makes grants, so a write cannot be reached by a
 * path that skipped the policy, nor with the grant of another action (a read's, say): the shape of the Effect
 * examples' `policyRequire`/`policyUse`.
 *
 * The check is the type system's: the grant is not looked at when the write runs. Two paths write without a
 * grant, through `ApiKeys.issue`: bootstrap's (access/Bootstrap.ts), which runs before any principal exists, and
 * token exchange's (trust-policies/TokenExchange.ts), where no key asks and the matched trust policy (written
 * under the policy) is the authority; both run inside an audited use case. Audit records, which say what happened rather than
 * change what may happen, are not access-controlled writes either, nor are the MCP health checker's status
 * writes (mcp/McpHealth.ts), which record what it observed on no principal's behalf.
 */
import { Effect } from "effect"
import { ActiveUseCase, WriteOutsideUseCase } from "../audit/ActiveUseCase.ts"
import type { AccessGrant, Action } from "./Policy.ts"

/** For each write method of a store `S`: the action, or the actions, whose grant permits it. */
export type WritePermits<S> = { readonly [K in keyof S]?: Action | ReadonlyArray<Action> }

/** The actions named for one write. */
export type Permitted<P> = P extends ReadonlyArray<infer A extends Action> ? A : P extends Action ? P : never

/** A write method that takes, before its own arguments, a grant of one of the actions `A`. */
export type GrantedWrite<A extends Action, F> = F extends (...args: infer Args) => infer R
  ? (grant: AccessGrant<A>, ...args: Args) => R
  : never

/** The store `S` with the writes named in `P` taking a grant first; its other methods as they were. */
export type Granted<S, P extends WritePermits<S>> =
  & Omit<S, keyof P>
  & { readonly [K in keyof P & keyof S]: GrantedWrite<Permitted<P[K]>, S[K]> }

/** A write method of a store: every store method returns an Effect. */
type StoreWrite = (...args: Array<unknown>) => Effect.Effect<unknown, unknown, unknown>

/**
 * The store, its writes named in `permits` requiring a grant of the actions given for each. The action names
 * are for the type only. At run time a wrapped write checks that an audited use case is running on its fiber
 * (`ActiveUseCase`, set by `AuditedUseCase`), and dies otherwise: a change no record describes is a bug of
 * the path that made it, caught on its first run by any test of that path.
 */
export const grantedWrites = <S extends object, const P extends WritePermits<S>>(
  store: S,
  permits: P
): Granted<S, P> => {
  const target: object = store
  const writes = Object.fromEntries(
    Object.keys(permits).map((method) => {
      const write: StoreWrite = Reflect.get(target, method)
      const guarded = (_grant: AccessGrant<Action>, ...args: Array<unknown>) =>
        ActiveUseCase.use((active) =>
          active === null ? Effect.die(new WriteOutsideUseCase(method)) : Reflect.apply(write, store, args)
        )
      return [method, guarded]
    })
  )
  return { ...store, ...writes } as Granted<S, P>
}
