/**
 * The audit log's origin of what a CLI command changes: the CLI, the command, and the OS user who ran it.
 * Provided to the change alone, never around a server: the HTTP edge names each request's own origin.
 */
import { cliCall, RequestContext } from "@gateway-control/domain"
import { Effect } from "effect"
import { userInfo } from "node:os"

const operatorName = (): string | null => {
  try {
    return userInfo().username
  } catch {
    return process.env.USER ?? null
  }
}

export const asOperator = (command: string) => Effect.provideService(RequestContext, cliCall(command, operatorName()))
