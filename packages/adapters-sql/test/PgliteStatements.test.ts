/**
 * Statements on PGlite: a text with parameters parsed once and run in one call each (internal/pgliteStatements.ts),
 * with the answers PGlite's own `query` gives.
 */
import { PGlite, types } from "@electric-sql/pglite"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makePgliteStatements } from "../src/internal/pgliteStatements.ts"

// The client's parsers: timestamps and int8 as their text (PgliteClient.ts).
const parsers = {
  [types.TIMESTAMPTZ]: (value: string) => value,
  [types.INT8]: (value: string) => value
}

let db: PGlite
beforeEach(async () => {
  db = await PGlite.create()
  await db.exec(`CREATE TABLE t (id text PRIMARY KEY, n int8, at timestamptz, tags text[], doc jsonb, ok boolean);
    INSERT INTO t SELECT 'k' || i, i, '2026-11-28T00:00:00Z', ARRAY['a', 'b,c'], '{"a": [1, 2]}', i % 2 = 0
      FROM generate_series(1, 50) i`)
})
afterEach(() => db.close())

/** The statements the session holds parsed, by text. */
const held = async () =>
  (await db.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements ORDER BY statement")).rows
    .map((row) => row.statement)

describe("PGlite statements", () => {
  it("answer what PGlite's query answers, in both row modes, for every kind of parameter the stores send", async () => {
    const statements = makePgliteStatements(db, parsers)
    const cases: ReadonlyArray<readonly [string, ReadonlyArray<unknown>]> = [
      ["SELECT * FROM t WHERE id = $1", ["k7"]],
      ["SELECT id, n FROM t WHERE id = ANY($1) ORDER BY id", [["k1", "k2", "k30"]]],
      ["SELECT id FROM t WHERE doc @> $1 AND ok = $2 AND n > $3 ORDER BY n LIMIT 3", [{ a: [2] }, true, 10]],
      ["SELECT $1::text AS missing, count(*) AS rows FROM t WHERE tags && $2", [null, ["b,c"]]],
      ["UPDATE t SET at = $2, tags = $3 WHERE id = $1 RETURNING *", ["k3", "2026-11-29T10:00:00Z", ["x", "y z"]]],
      // A `Date`, a float, a numeric as text, a bigint: what a store may send besides text, arrays and JSON.
      ["SELECT $1::timestamptz AS at, $2::float8 AS f, $3::numeric AS num, $4::int8 AS big", [
        new Date("2026-11-28T12:34:56.789Z"),
        1.5,
        "12.30",
        9007199254740993n
      ]],
      ["SELECT count(*) AS rows FROM t", []]
    ]
    for (const [text, params] of cases) {
      for (const rowMode of ["object", "array"] as const) {
        const expected = await db.query(text, [...params], { rowMode, parsers })
        const actual = await statements.run(text, params, rowMode)
        expect(actual.rows, `${text} (${rowMode})`).toEqual(expected.rows)
        expect(actual.fields).toEqual(expected.fields)
        expect(actual.affectedRows).toEqual(expected.affectedRows)
      }
    }
  })

  it("parse a text once, however often and with whatever parameters it runs; a text without any is not kept", async () => {
    const statements = makePgliteStatements(db, parsers)
    for (let i = 1; i <= 20; i++) {
      expect((await statements.run("SELECT n FROM t WHERE id = $1", [`k${i}`], "object")).rows).toEqual([{ n: `${i}` }])
    }
    await statements.run("SELECT count(*) FROM t", [], "object")
    expect(await held()).toEqual(["SELECT n FROM t WHERE id = $1"])
  })

  it("keep at most their capacity, closing the least recently used", async () => {
    const statements = makePgliteStatements(db, parsers, 2)
    const texts = ["SELECT n FROM t WHERE id = $1", "SELECT ok FROM t WHERE id = $1", "SELECT doc FROM t WHERE id = $1"]
    await statements.run(texts[0], ["k1"], "object")
    await statements.run(texts[1], ["k1"], "object")
    await statements.run(texts[0], ["k2"], "object") // the first is now the most recently used
    await statements.run(texts[2], ["k1"], "object")
    expect(await held()).toEqual([texts[2], texts[0]].sort())
    // The one closed is parsed again when it comes back.
    expect((await statements.run(texts[1], ["k2"], "object")).rows).toEqual([{ ok: true }])
  })

  it("parse a kept text again when a schema change altered its result type", async () => {
    const statements = makePgliteStatements(db, parsers)
    const text = "SELECT * FROM t WHERE id = $1"
    expect(Object.keys((await statements.run(text, ["k1"], "object")).rows[0])).not.toContain("label")
    await db.exec("ALTER TABLE t ADD COLUMN label text DEFAULT 'new'")
    expect((await statements.run(text, ["k1"], "object")).rows[0]).toMatchObject({ id: "k1", label: "new" })
    expect(await held()).toEqual([text])
  })

  it("fail with PostgreSQL's error, keep no text that does not parse, and leave the session usable", async () => {
    const statements = makePgliteStatements(db, parsers)
    await expect(statements.run("SELEC n FROM t WHERE id = $1", ["k1"], "object")).rejects.toMatchObject({
      code: "42601"
    })
    await statements.run("BEGIN", [], "object")
    await expect(statements.run("INSERT INTO t (id) VALUES ($1)", ["k1"], "object")).rejects.toMatchObject({
      code: "23505",
      constraint: "t_pkey"
    })
    // The transaction is aborted, as after any failed statement in it, until it is rolled back.
    await expect(statements.run("SELECT n FROM t WHERE id = $1", ["k1"], "object")).rejects.toMatchObject({
      code: "25P02"
    })
    await statements.run("ROLLBACK", [], "object")
    expect((await statements.run("SELECT n FROM t WHERE id = $1", ["k1"], "object")).rows).toEqual([{ n: "1" }])
    expect(await held()).toEqual(["INSERT INTO t (id) VALUES ($1)", "SELECT n FROM t WHERE id = $1"])
  })
})
