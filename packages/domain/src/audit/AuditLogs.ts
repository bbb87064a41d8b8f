/**
 * Reading the audit log: the one query an API caller may make of it. Apart from `Audit` so that an edge which
 * only lists records (the HTTP API's `auditLogs` group) holds no service that writes them.
 */
import { Context, Effect, Layer } from "effect"
import type { Principal } from "../access/Principal.ts"
import type { Forbidden, NotFound } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { Audit } from "./AuditLog.ts"
import type { AuditFilters, AuditRecord } from "./AuditRecord.ts"

export class AuditLogs extends Context.Service<
  AuditLogs,
  {
    /** The records of the principal's organisation, newest first; needs `audit_logs.list`. */
    readonly list: (
      principal: Principal,
      filters: AuditFilters,
      page: PageRequest
    ) => Effect.Effect<Page<AuditRecord>, Forbidden | NotFound | StoreError>
  }
>()("@gateway-control/AuditLogs") {
  static readonly layer = Layer.effect(
    AuditLogs,
    Effect.map(Effect.service(Audit), (audit) => AuditLogs.of({ list: audit.list }))
  )
}
