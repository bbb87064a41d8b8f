import { Conflict, type Page, type PageRequest } from "@gateway-control/domain"
import { Effect, Option } from "effect"
import type { MemoryState } from "./MemoryState.ts"

/** Rows keyed by id, with optional unique secondary keys; every write goes through `MemoryState.write`. */
export class Table<A> {
  readonly rows = new Map<string, A>()
  readonly unique = new Map<string, string>()
  readonly state: MemoryState
  readonly uniqueKeys: (row: A) => ReadonlyArray<string>

  constructor(state: MemoryState, uniqueKeys: (row: A) => ReadonlyArray<string> = () => []) {
    this.state = state
    this.uniqueKeys = uniqueKeys
  }

  get(id: string): Option.Option<A> {
    return Option.fromUndefinedOr(this.rows.get(id))
  }

  byUnique(key: string): Option.Option<A> {
    const id = this.unique.get(key)
    return id === undefined ? Option.none() : this.get(id)
  }

  /** Inserts the row; returns the first unique key already taken instead, writing nothing. */
  insert(id: string, row: A): Effect.Effect<string | undefined> {
    return this.state.write(() => {
      const keys = this.uniqueKeys(row)
      const taken = keys.find((key) => this.unique.has(key))
      if (taken !== undefined || this.rows.has(id)) return [taken ?? id, () => {}] as const
      this.rows.set(id, row)
      for (const key of keys) this.unique.set(key, id)
      return [
        undefined,
        () => {
          this.rows.delete(id)
          for (const key of keys) this.unique.delete(key)
        }
      ] as const
    })
  }

  /** Replaces the row with id; unique keys must not change. Returns false when there was no row. */
  replace(id: string, update: (row: A) => A): Effect.Effect<boolean> {
    return this.replaceWhen(id, () => true, update)
  }

  /** Replaces the row with id when `condition` holds for it; false when it did not, or there was no row. */
  replaceWhen(id: string, condition: (row: A) => boolean, update: (row: A) => A): Effect.Effect<boolean> {
    return this.state.write(() => {
      const previous = this.rows.get(id)
      if (previous === undefined || !condition(previous)) return [false, () => {}] as const
      this.rows.set(id, update(previous))
      return [true, () => void this.rows.set(id, previous)] as const
    })
  }

  /**
   * Replaces the row with id by `row`, whose unique keys may differ: answers the first of them another row
   * holds instead (writing nothing), else whether there was a row to replace.
   */
  rekey(id: string, row: A): Effect.Effect<string | boolean> {
    return this.state.write((): readonly [string | boolean, () => void] => {
      const previous = this.rows.get(id)
      if (previous === undefined) return [false, () => {}] as const
      const before = this.uniqueKeys(previous)
      const after = this.uniqueKeys(row)
      const taken = after.find((key) => this.unique.has(key) && this.unique.get(key) !== id)
      if (taken !== undefined) return [taken, () => {}] as const
      const swap = (from: ReadonlyArray<string>, to: ReadonlyArray<string>, value: A) => {
        for (const key of from) this.unique.delete(key)
        for (const key of to) this.unique.set(key, id)
        this.rows.set(id, value)
      }
      swap(before, after, row)
      return [true, () => swap(after, before, previous)] as const
    })
  }

  delete(id: string): Effect.Effect<boolean> {
    return this.state.write(() => {
      const previous = this.rows.get(id)
      if (previous === undefined) return [false, () => {}] as const
      const keys = this.uniqueKeys(previous)
      this.rows.delete(id)
      for (const key of keys) this.unique.delete(key)
      return [
        true,
        () => {
          this.rows.set(id, previous)
          for (const key of keys) this.unique.set(key, id)
        }
      ] as const
    })
  }

  /** Filters, orders by created_at then id, and pages. */
  page(
    predicate: (row: A) => boolean,
    request: PageRequest,
    order: (a: A, b: A) => number = byCreationWhereKnown
  ): Page<A> {
    const matching: Array<A> = []
    for (const row of this.rows.values()) if (predicate(row)) matching.push(row)
    matching.sort(order)
    return { items: matching.slice(request.offset, request.offset + request.limit), total: matching.length }
  }
}

/** What an insert that found `taken` (a unique key already in use) answers: `Conflict`, or nothing when none was. */
export const conflictOn = (taken: string | undefined, message: string, param: string | null) =>
  taken === undefined ? Effect.void : Effect.fail(new Conflict({ message, param }))

/** Is the row the organisation's, and of the named workspace when one is named? */
export const inScope = (
  row: { readonly organisation_id: string; readonly workspace_id: string | null },
  organisationId: string,
  workspaceId: string | null
): boolean => row.organisation_id === organisationId && (workspaceId === null || row.workspace_id === workspaceId)

export const byCreation = (
  a: { readonly created_at: string; readonly id: string },
  b: { readonly created_at: string; readonly id: string }
): number => a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

const isCreated = (row: unknown): row is { readonly created_at: string; readonly id: string } =>
  typeof row === "object" && row !== null && "created_at" in row && "id" in row &&
  typeof row.created_at === "string" && typeof row.id === "string"

/** `byCreation` for rows that have created_at and id; other rows keep their insertion order. */
const byCreationWhereKnown = (a: unknown, b: unknown): number => isCreated(a) && isCreated(b) ? byCreation(a, b) : 0
