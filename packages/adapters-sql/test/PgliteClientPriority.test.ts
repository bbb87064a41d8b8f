/**
 * PGlite's one lock serves a request's statement before background work's (the last-used-at flush, the rotation
 * sweep, health checks), and still keeps every transaction whole. Logic, not timing: who runs in which order
 * once the lock is let go.
 */
import { BackgroundWork, inBackground } from "@gateway-control/domain"
import { Deferred, Effect, Fiber } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { describe, expect, it } from "vitest"
import { makePriorityLock } from "../src/internal/PriorityLock.ts"
import * as PgliteClient from "../src/PgliteClient.ts"

/** Waits until `done` holds, yielding to the other fibers in between. */
const until = (done: () => boolean): Effect.Effect<void> =>
  Effect.suspend(() => (done() ? Effect.void : Effect.andThen(Effect.yieldNow, until(done))))

describe("the priority lock", () => {
  it("hands the lock to a request queued behind background waiters first, then to them in order", async () => {
    const order: Array<string> = []
    const program = Effect.gen(function*() {
      const lock = makePriorityLock()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(Effect.scoped(Effect.andThen(lock.take(false), Deferred.await(release))))
      yield* until(() => lock.waiting().requests === 0)
      const enter = (name: string, background: boolean) =>
        Effect.forkChild(Effect.scoped(Effect.andThen(lock.take(background), Effect.sync(() => order.push(name)))))
      const fibers = []
      for (let i = 0; i < 5; i++) fibers.push(yield* enter(`background ${i}`, true))
      fibers.push(yield* enter("request a", false))
      fibers.push(yield* enter("request b", false))
      yield* until(() => lock.waiting().background === 5 && lock.waiting().requests === 2)
      expect(order).toEqual([])
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.joinAll(fibers)
    })
    await Effect.runPromise(program)
    expect(order).toEqual([
      "request a",
      "request b",
      "background 0",
      "background 1",
      "background 2",
      "background 3",
      "background 4"
    ])
  })

  it("lets a request that arrives between two background statements go before the second", async () => {
    const order: Array<string> = []
    const program = Effect.gen(function*() {
      const lock = makePriorityLock()
      const first = yield* Deferred.make<void>()
      const statement = (name: string, background: boolean, hold?: Deferred.Deferred<void>) =>
        Effect.scoped(Effect.gen(function*() {
          yield* lock.take(background)
          order.push(name)
          if (hold !== undefined) yield* Deferred.await(hold)
        }))
      const background1 = yield* Effect.forkChild(statement("background 1", true, first))
      yield* until(() => order.length === 1)
      const background2 = yield* Effect.forkChild(statement("background 2", true))
      const request = yield* Effect.forkChild(statement("request", false))
      yield* until(() => lock.waiting().background === 1 && lock.waiting().requests === 1)
      yield* Deferred.succeed(first, undefined)
      yield* Fiber.joinAll([background1, background2, request])
    })
    await Effect.runPromise(program)
    expect(order).toEqual(["background 1", "request", "background 2"])
  })

  it("passes the turn on when a waiter is interrupted, and frees the lock when its holder fails", async () => {
    const order: Array<string> = []
    const program = Effect.gen(function*() {
      const lock = makePriorityLock()
      const release = yield* Deferred.make<void>()
      const holder = yield* Effect.forkChild(
        Effect.scoped(Effect.andThen(lock.take(false), Effect.andThen(Deferred.await(release), Effect.fail("boom"))))
      )
      yield* until(() => lock.waiting().requests === 0)
      const quitter = yield* Effect.forkChild(Effect.scoped(lock.take(false)))
      const waiter = yield* Effect.forkChild(
        Effect.scoped(Effect.andThen(lock.take(true), Effect.sync(() => order.push("background"))))
      )
      yield* until(() => lock.waiting().requests === 1 && lock.waiting().background === 1)
      yield* Fiber.interrupt(quitter)
      expect(lock.waiting()).toEqual({ requests: 0, background: 1 })
      yield* Deferred.succeed(release, undefined)
      expect(yield* Effect.exit(Fiber.join(holder))).toMatchObject({ _tag: "Failure" })
      yield* Fiber.join(waiter)
      // Free again: a new taker gets it at once.
      yield* Effect.scoped(Effect.andThen(lock.take(false), Effect.sync(() => order.push("after"))))
    })
    await Effect.runPromise(program)
    expect(order).toEqual(["background", "after"])
  })
})

describe("PGlite's client", () => {
  it("runs a request's statement queued behind background statements first, and keeps transactions whole", async () => {
    const program = Effect.gen(function*() {
      const { client: sql, lock } = yield* PgliteClient.make({ backgroundWork: BackgroundWork })
      yield* sql`CREATE TABLE ran (n serial PRIMARY KEY, name text NOT NULL)`
      const inside = yield* Deferred.make<void>()
      const finish = yield* Deferred.make<void>()
      // A request's transaction holds the lock; what queues meanwhile must not see its row before it commits.
      const transaction = yield* Effect.forkChild(sql.withTransaction(Effect.gen(function*() {
        yield* sql`INSERT INTO ran (name) VALUES ('transaction')`
        yield* Deferred.succeed(inside, undefined)
        yield* Deferred.await(finish)
      })))
      yield* Deferred.await(inside)
      const seen: Array<number> = []
      const background = []
      for (let i = 0; i < 10; i++) {
        background.push(
          yield* Effect.forkChild(inBackground(Effect.gen(function*() {
            const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ran`
            seen.push(rows[0]!.n)
            yield* sql`INSERT INTO ran (name) VALUES (${`background ${i}`})`
          })))
        )
      }
      yield* until(() => lock.waiting().background === 10)
      const request = yield* Effect.forkChild(sql`INSERT INTO ran (name) VALUES ('request')`)
      yield* until(() => lock.waiting().requests === 1)
      yield* Deferred.succeed(finish, undefined)
      yield* Fiber.joinAll([transaction, request, ...background])
      const rows = yield* sql<{ readonly name: string }>`SELECT name FROM ran ORDER BY n`
      return { names: rows.map((row) => row.name), seen }
    })
    const { names, seen } = await Effect.runPromise(
      program.pipe(Effect.scoped, Effect.provide(Reactivity.layer))
    )
    expect(names[0]).toBe("transaction")
    expect(names[1]).toBe("request")
    expect(names.slice(2).sort()).toEqual(Array.from({ length: 10 }, (_, i) => `background ${i}`).sort())
    // Every background read came after the transaction's commit: it never ran inside it.
    expect(seen.every((count) => count >= 2)).toBe(true)
  }, 120_000)
  it(
    "gives the event loop a turn before each statement, inside a transaction too, a request's as background work's",
    async () => {
      // A macrotask chain counts the loop's turns: PGlite's query continues through promises alone, so without the
      // turn a whole transaction ran in one, and no socket was read until it ended.
      const turnsDuring = <E>(statements: Effect.Effect<void, E>) =>
        Effect.gen(function*() {
          let turns = 0
          let ticking = true
          const tick = () => {
            turns++
            if (ticking) setImmediate(tick)
          }
          setImmediate(tick)
          yield* Effect.promise(() => new Promise<void>((resolve) => setImmediate(resolve)))
          const before = turns
          yield* statements
          ticking = false
          return turns - before
        })
      const program = Effect.gen(function*() {
        const { client: sql } = yield* PgliteClient.make({ backgroundWork: BackgroundWork })
        yield* sql`CREATE TABLE ran (n serial PRIMARY KEY, name text NOT NULL)`
        const sixStatements = sql.withTransaction(Effect.gen(function*() {
          for (let i = 0; i < 4; i++) yield* sql`INSERT INTO ran (name) VALUES (${`statement ${i}`})`
        }))
        const background = yield* turnsDuring(inBackground(sixStatements))
        const request = yield* turnsDuring(sixStatements)
        const rows = yield* sql<{ readonly n: number }>`SELECT count(*)::int AS n FROM ran`
        return { background, request, rows: rows[0]!.n }
      })
      const { background, request, rows } = await Effect.runPromise(
        program.pipe(Effect.scoped, Effect.provide(Reactivity.layer))
      )
      expect(rows).toBe(8)
      // BEGIN, four inserts and COMMIT: a turn before each.
      expect(background).toBeGreaterThanOrEqual(6)
      expect(request).toBeGreaterThanOrEqual(6)
    },
    120_000
  )
})
