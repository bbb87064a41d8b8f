/**
 * The store contract for secret references: slugs unique per organisation, found by id and slug, listed with
 * the manager and name filters, replaced (login secrets as given, encrypted) and deleted.
 */
import { Effect, Option } from "effect"
import { expect, it } from "vitest"
import { SecretReference, SecretReferenceStore, type StoredSecretReference } from "../../src/index.ts"
import { at, type Harness, uid } from "./ContractHarness.ts"

export const secretReferenceContract = ({ exit, freshOrganisation, run }: Harness) => {
  const reference = (
    organisationId: string,
    slug: string,
    managerType: SecretReference["manager_type"] = "hashicorp_vault"
  ): StoredSecretReference => {
    const now = at()
    return {
      record: new SecretReference({
        id: uid(),
        organisation_id: organisationId,
        name: `Reference ${slug}`,
        slug,
        description: null,
        manager_type: managerType,
        auth_config: { vault_auth_type: "token", vault_addr: "https://vault.example", vault_token: "********" },
        secret_path: "secret/openai",
        secret_key: "api_key",
        allow_all_workspaces: true,
        allowed_workspaces: [],
        tags: { team: "ml" },
        status: "ACTIVE",
        created_by: "user-1",
        created_at: now,
        last_updated_at: now
      }),
      encryptedAuth: { vault_token: "v1:sealed" }
    }
  }
  const references = <A, E>(use: (store: SecretReferenceStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.flatMap(Effect.service(SecretReferenceStore), use)

  it("keeps slugs unique per organisation, finds by id and slug, filters, replaces and deletes", async () => {
    const [org, other] = [await freshOrganisation(), await freshOrganisation()]
    const first = reference(org.id, "vault-prod")
    const aws = reference(org.id, "aws-prod", "aws_sm")
    const elsewhere = reference(other.id, "vault-prod")
    await run(Effect.forEach([first, aws, elsewhere], (r) => references((s) => s.insert(r))))
    expect(JSON.stringify(await exit(references((s) => s.insert(reference(org.id, "vault-prod")))))).toContain(
      "Conflict"
    )
    const read = await run(references((s) =>
      Effect.all({
        one: s.get(first.record.id),
        bySlug: s.findBySlug(org.id, "vault-prod"),
        all: s.list(org.id, {}, { limit: 10, offset: 0 }),
        aws: s.list(org.id, { managerType: "aws_sm" }, { limit: 10, offset: 0 }),
        search: s.list(org.id, { search: "VAULT" }, { limit: 10, offset: 0 }),
        page: s.list(org.id, {}, { limit: 1, offset: 1 })
      })
    ))
    expect(Option.getOrThrow(read.one)).toEqual(first)
    expect(Option.getOrThrow(read.bySlug).record.id).toBe(first.record.id)
    expect(read.all).toEqual({ items: [first.record, aws.record], total: 2 })
    expect(read.aws.items.map((r) => r.id)).toEqual([aws.record.id])
    expect(read.search.items.map((r) => r.id)).toEqual([first.record.id])
    expect(read.page).toEqual({ items: [aws.record], total: 2 })

    const replaced: StoredSecretReference = {
      record: new SecretReference({
        ...first.record,
        secret_path: "secret/other",
        allow_all_workspaces: false,
        allowed_workspaces: ["w-1"],
        tags: null
      }),
      encryptedAuth: { vault_token: "v1:resealed" }
    }
    expect(await run(references((s) => s.update(replaced)))).toBe(true)
    expect(
      JSON.stringify(
        await exit(
          references((s) =>
            s.update({ ...replaced, record: new SecretReference({ ...replaced.record, slug: "aws-prod" }) })
          )
        )
      )
    ).toContain("Conflict")
    expect(Option.getOrThrow(await run(references((s) => s.get(first.record.id))))).toEqual(replaced)
    expect(await run(references((s) => s.delete(first.record.id)))).toBe(true)
    expect(await run(references((s) => s.delete(first.record.id)))).toBe(false)
    expect(Option.isNone(await run(references((s) => s.findBySlug(org.id, "vault-prod"))))).toBe(true)
  })
}
