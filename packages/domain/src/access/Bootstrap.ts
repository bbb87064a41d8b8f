/**
 * First start of an empty store: one organisation, its owner, a default workspace and an admin key.
 *
 * The one path that writes without the policy's grant (access/GrantedWrites.ts): grants are made for a
 * principal, and a principal is an API key, of which an empty store has none. No grant is invented for it;
 * what keeps it from being a way around the policy is that it writes only into an empty store, under the
 * bootstrap lock, and that it is reached only from the server's start-up and CLI, never from a request.
 */
import { Context, Effect, Layer, Option, type Redacted } from "effect"
import { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import type { AuditActor } from "../audit/AuditRecord.ts"
import { ApiKeys } from "../credentials/ApiKeys.ts"
import type { InvalidRequest } from "../shared/Errors.ts"
import { AlreadyBootstrapped, type Conflict } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { checkEmail, checkName } from "../shared/Rules.ts"
import type { StoreError } from "../shared/StoreError.ts"
import { StoreTransaction } from "../shared/StoreTransaction.ts"
import { Organisation, User, Workspace, WorkspaceMember } from "./AccessModel.ts"
import { OrganisationStore, UserStore, WorkspaceMemberStore, WorkspaceStore } from "./AccessStores.ts"
import { ScopeNames } from "./Scopes.ts"

/** Whoever runs a bootstrap: no key and no organisation exist yet. */
const NO_ACTOR: AuditActor = { organisationId: null, keyId: null, userId: null }

export interface BootstrapInput {
  readonly organisationName: string
  readonly ownerEmail: string
}

export interface BootstrapResult {
  readonly organisation_id: string
  readonly workspace_id: string
  readonly user_id: string
  readonly api_key: Redacted.Redacted<string>
}

export class Bootstrap extends Context.Service<
  Bootstrap,
  {
    readonly run: (
      input: BootstrapInput
    ) => Effect.Effect<BootstrapResult, AlreadyBootstrapped | InvalidRequest | StoreError>
    /** Bootstraps only when the store is empty; `None` when it already had an organisation. */
    readonly ifEmpty: (
      input: BootstrapInput
    ) => Effect.Effect<Option.Option<BootstrapResult>, InvalidRequest | StoreError>
  }
>()("@gateway-control/Bootstrap") {
  static readonly layer = Layer.effect(
    Bootstrap,
    Effect.gen(function*() {
      const organisations = yield* OrganisationStore
      const workspaces = yield* WorkspaceStore
      const users = yield* UserStore
      const members = yield* WorkspaceMemberStore
      const apiKeys = yield* ApiKeys
      const transaction = yield* StoreTransaction
      const crypto = yield* PlatformCrypto
      const useCases = yield* AuditedUseCase

      const validate = (input: BootstrapInput) => {
        const organisationName = input.organisationName.trim()
        const ownerEmail = input.ownerEmail.trim().toLowerCase()
        return checkName(organisationName, "organisation_name").pipe(
          Effect.andThen(checkEmail(input.ownerEmail, "owner_email")),
          Effect.as({ organisationName, ownerEmail })
        )
      }

      /** The first organisation and everything in it, written with the stores' own (ungranted) writes. */
      const writeFirstOrganisation = Effect.fnUntraced(function*(organisationName: string, ownerEmail: string) {
        const now = yield* nowIso
        const organisation = new Organisation({
          id: crypto.uuid(),
          name: organisationName,
          created_at: now,
          last_updated_at: now
        })
        const owner = new User({
          id: crypto.uuid(),
          organisation_id: organisation.id,
          email: ownerEmail,
          name: null,
          role: "owner",
          created_at: now,
          last_updated_at: now
        })
        const workspace = new Workspace({
          id: crypto.uuid(),
          organisation_id: organisation.id,
          name: "Default",
          slug: "default",
          description: "Created at bootstrap.",
          created_at: now,
          last_updated_at: now
        })
        yield* organisations.insert(organisation)
        yield* users.insert(owner)
        yield* workspaces.insert(workspace)
        yield* members.upsert(
          new WorkspaceMember({
            workspace_id: workspace.id,
            user_id: owner.id,
            role: "manager",
            created_at: now,
            last_updated_at: now
          })
        )
        const issued = yield* apiKeys.issue({
          type: "organisation-service",
          name: "Bootstrap admin key",
          description: "Created at bootstrap with every scope.",
          organisationId: organisation.id,
          workspaceId: null,
          userId: owner.id,
          scopes: ScopeNames,
          expiresAt: null
        })
        return {
          organisation_id: organisation.id,
          workspace_id: workspace.id,
          user_id: owner.id,
          api_key: issued.plaintext
        } satisfies BootstrapResult
      })

      // A conflict here means a concurrent bootstrap won the race on an empty store.
      const raced = (conflict: Conflict) => Effect.die(conflict)

      /** The organisation already there, which a second bootstrap names in its refusal. */
      const alreadyBootstrapped = (existing: Organisation) => new AlreadyBootstrapped({ organisation_id: existing.id })

      // Audited like every use case; a bootstrap has no key yet, so its record is filed under the organisation
      // it creates, and a refused one under none (`audit unauthenticated` lists those).
      const run = Effect.fn("Bootstrap.run")(function*(input: BootstrapInput) {
        return yield* useCases.run(
          {
            useCase: "bootstrap.run",
            actor: NO_ACTOR,
            successActor: (result) => ({ organisationId: result.organisation_id, keyId: null, userId: null }),
            resourceId: (result) => result.organisation_id,
            workspaceId: null,
            body: { organisation_name: input.organisationName, owner_email: input.ownerEmail }
          },
          Effect.gen(function*() {
            const { organisationName, ownerEmail } = yield* validate(input)
            // Two processes starting on an empty store must not both bootstrap it.
            yield* transaction.lock("bootstrap")
            const existing = yield* organisations.first
            if (Option.isSome(existing)) return yield* alreadyBootstrapped(existing.value)
            return yield* writeFirstOrganisation(organisationName, ownerEmail)
          }).pipe(Effect.catchTag("Conflict", raced))
        )
      })

      // A store that has its organisation is left as it is, with no record: `serve` asks at every start.
      const ifEmpty = Effect.fn("Bootstrap.ifEmpty")(function*(input: BootstrapInput) {
        if (Option.isSome(yield* organisations.first)) return Option.none<BootstrapResult>()
        return yield* run(input).pipe(
          Effect.map(Option.some),
          Effect.catchTag("AlreadyBootstrapped", () => Effect.succeed(Option.none<BootstrapResult>()))
        )
      })

      return Bootstrap.of({ run, ifEmpty })
    })
  )
}
