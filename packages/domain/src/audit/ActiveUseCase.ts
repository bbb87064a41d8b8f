/**
 * The audited use case running on this fiber, if any. `AuditedUseCase` sets it around a use case's change;
 * store writes (`grantedWrites`) refuse to run without it, so nothing is changed on a path that is not
 * audited, whichever edge called.
 */
import { Context } from "effect"
import type { UseCaseName } from "./UseCases.ts"

export const ActiveUseCase: Context.Reference<UseCaseName | null> = Context.Reference<UseCaseName | null>(
  "@gateway-control/ActiveUseCase",
  { defaultValue: () => null }
)

/** The defect of a write attempted outside any audited use case: a bug of the caller's path, never input. */
export class WriteOutsideUseCase extends Error {
  readonly write: string
  constructor(write: string) {
    super(`The store write '${write}' ran outside an audited use case`)
    this.write = write
  }
}
