/**
 * Secret references (Portkey's `/secret-references`) end to end: administered over HTTP (each answer valid by
 * Portkey's OpenAPI document), used by an MCP integration's `secret_mappings` against fake managers on
 * loopback (FakeSecretManagers.ts: Vault's KV v2 with token and AppRole logins, AWS Secrets Manager through
 * the AWS SDK with access keys and an assumed role), bound to the workspaces they allow, their logins bound to
 * where they are sent, each use audited; and the secret values never in the store, the logs, an answer or the
 * audit log.
 */
import { Logger, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_MCP_CONFIG, layerStore, providerRegistry } from "../src/App.ts"
import { type FreshDatabase, freshDatabase, postgresUrl, query } from "./support/Databases.ts"
import {
  type FakeAws,
  type FakeAzure,
  type FakeVault,
  startFakeAws,
  startFakeAzure,
  startFakeVault
} from "./support/FakeSecretManagers.ts"
import { checkPortkeyAnswer } from "./support/PortkeyOpenApi.ts"
import { type SdkMcpServer, startSdkMcpServer } from "./support/SdkMcpServer.ts"
import { errorOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const VAULT_SECRET = `vault-value-${randomBytes(8).toString("hex")}`
const APPROLE_SECRET = `approle-value-${randomBytes(8).toString("hex")}`
const AWS_SECRET = `aws-value-${randomBytes(8).toString("hex")}`
const AZURE_SECRET = `azure-value-${randomBytes(8).toString("hex")}`

describe("secret references", () => {
  let mcp: SdkMcpServer
  let vault: FakeVault
  let aws: FakeAws
  let azure: FakeAzure
  let server: TestServer
  let database: FreshDatabase | undefined
  const logged: Array<string> = []
  /** Every answer's body the tests read, to be searched for secrets at the end. */
  const answers: Array<string> = []
  let integrationCount = 0

  beforeAll(async () => {
    mcp = await startSdkMcpServer()
    vault = await startFakeVault({
      "mcp/github": { token: VAULT_SECRET, other: "x" },
      "mcp/approle": { token: APPROLE_SECRET }
    })
    azure = await startFakeAzure({ "mcp-token": AZURE_SECRET })
    aws = await startFakeAws({ "prod/mcp": JSON.stringify({ token: AWS_SECRET }), "prod/plain": AWS_SECRET })
    database = postgresUrl === undefined ? undefined : await freshDatabase(postgresUrl)
    server = await startTestServer({
      store: database === undefined ? "memory" : layerStore({
        kind: "postgres",
        url: Redacted.make(database.url),
        poolSize: 3,
        statementTimeoutMs: 30_000,
        connectTimeoutMs: 10_000
      }),
      providers: {
        registry: providerRegistry({
          providerBaseUrls: [],
          upstreamTimeoutMs: 10_000,
          trustedCustomHosts: [mcp.host, vault.host, aws.host, azure.host]
        }),
        masterKey: new Uint8Array(randomBytes(32))
      },
      mcp: { ...DEFAULT_MCP_CONFIG, timeoutMs: 5_000, healthIntervalMs: 0, secretCacheTtlMs: 0 },
      loggers: [Logger.make((options) => void logged.push(JSON.stringify([options.message, options.fiber.id])))]
    })
  }, 60_000)

  afterAll(async () => {
    await server?.close()
    await database?.drop()
    await Promise.all([mcp?.close(), vault?.close(), aws?.close(), azure?.close()])
  })

  const call = async (method: string, path: string, body?: unknown) => {
    const response = await server.send(method, path, body)
    const text = await response.text()
    answers.push(text)
    return { status: response.status, body: text.length === 0 ? undefined : JSON.parse(text) }
  }

  const createReference = async (body: Record<string, unknown>) => {
    const made = await call("POST", "/v1/secret-references", body)
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    checkPortkeyAnswer("POST", "/secret-references", made.body)
    return made.body as { id: string; slug: string }
  }

  /** An integration (in the default workspace unless told) sending the reference's value in `X-Token`; tested. */
  const testWith = async (reference: string, options: { secretKey?: string; workspaceId?: string } = {}) => {
    const n = ++integrationCount
    const integration = await call("POST", "/v1/mcp-integrations", {
      name: `Secrets ${n}`,
      url: mcp.httpUrl,
      transport: "http",
      auth_type: "headers",
      workspace_id: options.workspaceId ?? server.workspaceId,
      secret_mappings: [{
        target_field: "headers.X-Token",
        secret_reference_id: reference,
        secret_key: options.secretKey ?? "",
        value_format: "string"
      }]
    })
    expect(integration.status, JSON.stringify(integration.body)).toBe(201)
    const made = await call("POST", "/v1/mcp-servers", {
      name: `Secrets server ${n}`,
      slug: `secrets-${n}`,
      mcp_integration_id: integration.body.id,
      workspace_id: options.workspaceId ?? server.workspaceId
    })
    expect(made.status, JSON.stringify(made.body)).toBe(201)
    const before = mcp.initializations.length
    const tested = await call("POST", `/v1/mcp-servers/${made.body.id}/test`, {})
    const sent = mcp.initializations.slice(before).map((i) => i.headers["x-token"])
    return { tested, sent, integrationId: integration.body.id as string }
  }

  it("creates, lists, reads, changes and deletes references in Portkey's shapes, the login's secrets masked", async () => {
    const made = await createReference({
      name: "Vault GitHub",
      manager_type: "hashicorp_vault",
      auth_config: { vault_auth_type: "token", vault_addr: vault.origin, vault_token: vault.rootToken },
      secret_path: "secret/mcp/github",
      secret_key: "token",
      tags: { team: "platform" }
    })
    expect(made.slug).toBe("vault-github")
    const read = await call("GET", `/v1/secret-references/${made.slug}`)
    expect(read.status).toBe(200)
    checkPortkeyAnswer("GET", "/secret-references/{secretReferenceId}", read.body)
    expect(read.body).toMatchObject({
      id: made.id,
      manager_type: "hashicorp_vault",
      secret_path: "secret/mcp/github",
      secret_key: "token",
      allow_all_workspaces: true,
      status: "ACTIVE",
      object: "secret-reference",
      auth_config: { vault_auth_type: "token", vault_addr: vault.origin, vault_token: "********" }
    })
    const listed = await call("GET", "/v1/secret-references?manager_type=hashicorp_vault&search=github")
    expect(listed.status).toBe(200)
    checkPortkeyAnswer("GET", "/secret-references", listed.body)
    expect(listed.body.data.map((r: { id: string }) => r.id)).toEqual([made.id])
    expect((await call("GET", "/v1/secret-references?manager_type=aws_sm")).body.total).toBe(0)

    const changed = await call("PUT", `/v1/secret-references/${made.id}`, {
      description: "GitHub's token",
      auth_config: { vault_namespace: "platform" }
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    expect(changed.body.auth_config).toEqual({
      vault_auth_type: "token",
      vault_addr: vault.origin,
      vault_namespace: "platform",
      vault_token: "********"
    })

    // Bad input: a clear error naming the field, and nothing changes.
    const bad = await server.send("POST", "/v1/secret-references", {
      name: "No token",
      manager_type: "hashicorp_vault",
      auth_config: { vault_auth_type: "token", vault_addr: vault.origin },
      secret_path: "secret/x"
    })
    expect(bad.status).toBe(400)
    expect(await errorOf(bad)).toMatchObject({ param: "auth_config.vault_token" })
    const unknownField = await server.send("POST", "/v1/secret-references", {
      name: "Odd",
      manager_type: "aws_sm",
      auth_config: {
        aws_auth_type: "accessKey",
        aws_access_key_id: "a",
        aws_secret_access_key: "b",
        aws_region: "x",
        y: "z"
      },
      secret_path: "p"
    })
    expect(unknownField.status).toBe(400)
    expect(await errorOf(unknownField)).toMatchObject({ param: "auth_config.y" })
    // A login kind is one of the manager's own, not a name every object answers to (the fuzzer's 500).
    for (const kind of ["__proto__", "toString", "constructor"]) {
      const inherited = await server.send("POST", "/v1/secret-references", {
        name: "Inherited",
        manager_type: "hashicorp_vault",
        auth_config: { vault_auth_type: kind, vault_addr: vault.origin, vault_token: "t" },
        secret_path: "p"
      })
      expect(inherited.status, kind).toBe(400)
      expect(await errorOf(inherited)).toMatchObject({ param: "auth_config.vault_auth_type" })
    }
    const both = await server.send("POST", "/v1/secret-references", {
      name: "Both",
      manager_type: "file",
      secret_path: "p",
      allow_all_workspaces: true,
      allowed_workspaces: [server.workspaceId]
    })
    expect(both.status).toBe(400)
    expect((await call("GET", "/v1/secret-references")).body.total).toBe(1)

    const doomed = await createReference({ name: "Doomed", manager_type: "file", secret_path: "nothing" })
    const deleted = await call("DELETE", `/v1/secret-references/${doomed.slug}`)
    expect(deleted.body).toEqual({ id: doomed.id, object: "secret-reference", deleted: true })
    expect((await call("GET", `/v1/secret-references/${doomed.id}`)).status).toBe(404)
  })

  it("sends a Vault secret (token login, KV v2) to the MCP server, and audits each use", async () => {
    const { sent, tested } = await testWith("vault-github")
    expect(tested.status, JSON.stringify(tested.body)).toBe(200)
    expect(sent).toContain(VAULT_SECRET)
    const read = vault.received.filter((r) => r.url === "/v1/secret/data/mcp/github")
    expect(read.at(-1)?.headers["x-vault-token"]).toBe(vault.rootToken)
    expect(read.at(-1)?.headers["x-vault-namespace"]).toBe("platform")
    const audit = await call("GET", "/v1/audit-logs?resource_type=secret_reference&action=use")
    expect(audit.status, JSON.stringify(audit.body)).toBe(200)
    expect(audit.body.records.length).toBeGreaterThanOrEqual(1)
  })

  it("logs in to Vault with AppRole, and refuses when the login fails", async () => {
    await createReference({
      name: "Vault AppRole",
      manager_type: "hashicorp_vault",
      auth_config: {
        vault_auth_type: "approle",
        vault_addr: vault.origin,
        vault_role_id: vault.roleId,
        vault_secret_id: vault.secretId
      },
      secret_path: "secret/mcp/approle",
      secret_key: "token"
    })
    const { sent, tested } = await testWith("vault-approle")
    expect(tested.status, JSON.stringify(tested.body)).toBe(200)
    expect(sent).toContain(APPROLE_SECRET)
    expect(vault.issued.length).toBeGreaterThan(0)

    await createReference({
      name: "Vault wrong",
      manager_type: "hashicorp_vault",
      auth_config: {
        vault_auth_type: "approle",
        vault_addr: vault.origin,
        vault_role_id: "nobody",
        vault_secret_id: "x"
      },
      secret_path: "secret/mcp/approle"
    })
    const refused = await testWith("vault-wrong")
    expect(refused.tested.status).toBe(400)
    expect(refused.tested.body.error.message).toContain("invalid role or secret ID")
    expect(refused.sent).toEqual([])
  })

  it("fetches from AWS Secrets Manager through the SDK, with access keys and with an assumed role", async () => {
    await createReference({
      name: "AWS keys",
      manager_type: "aws_sm",
      auth_config: {
        aws_auth_type: "accessKey",
        aws_access_key_id: aws.accessKeyId,
        aws_secret_access_key: aws.secretAccessKey,
        aws_region: "eu-west-1",
        aws_endpoint: aws.origin
      },
      secret_path: "prod/mcp",
      secret_key: "token"
    })
    const byKeys = await testWith("aws-keys")
    expect(byKeys.tested.status, JSON.stringify(byKeys.tested.body)).toBe(200)
    expect(byKeys.sent).toContain(AWS_SECRET)

    await createReference({
      name: "AWS role",
      manager_type: "aws_sm",
      auth_config: {
        aws_auth_type: "assumedRole",
        aws_role_arn: aws.roleArn,
        aws_external_id: aws.externalId,
        aws_access_key_id: aws.accessKeyId,
        aws_secret_access_key: aws.secretAccessKey,
        aws_region: "eu-west-1",
        aws_endpoint: aws.origin,
        aws_sts_endpoint: aws.origin
      },
      secret_path: "prod/plain"
    })
    const byRole = await testWith("aws-role")
    expect(byRole.tested.status, JSON.stringify(byRole.tested.body)).toBe(200)
    expect(byRole.sent).toContain(AWS_SECRET)
    expect(aws.received.some((r) => r.body.includes("Action=AssumeRole"))).toBe(true)
    expect(aws.received.some((r) => (r.headers.authorization ?? "").includes(aws.assumedKeyId))).toBe(true)

    const missing = await createReference({
      name: "AWS missing",
      manager_type: "aws_sm",
      auth_config: {
        aws_auth_type: "accessKey",
        aws_access_key_id: aws.accessKeyId,
        aws_secret_access_key: aws.secretAccessKey,
        aws_region: "eu-west-1",
        aws_endpoint: aws.origin
      },
      secret_path: "prod/none"
    })
    const refused = await testWith(missing.id)
    expect(refused.tested.status).toBe(400)
    expect(refused.tested.body.error.message).toContain("ResourceNotFoundException")
  })

  it("fetches from Azure Key Vault with an Entra client-credentials token", async () => {
    const login = {
      azure_auth_mode: "entra",
      azure_entra_tenant_id: azure.tenantId,
      azure_entra_client_id: azure.clientId,
      azure_entra_client_secret: azure.clientSecret,
      azure_vault_url: azure.origin,
      azure_authority_host: azure.origin
    }
    await createReference({ name: "Azure", manager_type: "azure_kv", auth_config: login, secret_path: "mcp-token" })
    const fetched = await testWith("azure")
    expect(fetched.tested.status, JSON.stringify(fetched.tested.body)).toBe(200)
    expect(fetched.sent).toContain(AZURE_SECRET)

    await createReference({
      name: "Azure wrong",
      manager_type: "azure_kv",
      auth_config: { ...login, azure_entra_client_secret: "wrong" },
      secret_path: "mcp-token"
    })
    const refused = await testWith("azure-wrong")
    expect(refused.tested.status).toBe(400)
    expect(refused.tested.body.error.message).toContain("401")
    expect(refused.sent).toEqual([])
  })

  it("is used only by the workspaces it allows", async () => {
    const other = await call("POST", "/v1/admin/workspaces", { name: "Elsewhere", slug: "elsewhere" })
    expect(other.status, JSON.stringify(other.body)).toBe(201)
    await createReference({
      name: "Only elsewhere",
      manager_type: "hashicorp_vault",
      auth_config: { vault_auth_type: "token", vault_addr: vault.origin, vault_token: vault.rootToken },
      secret_path: "secret/mcp/github",
      secret_key: "token",
      allowed_workspaces: ["elsewhere"]
    })
    const here = await testWith("only-elsewhere")
    expect(here.tested.status).toBe(400)
    expect(here.tested.body.error.message).toContain("this workspace may not use")
    expect(here.sent).toEqual([])
    const there = await testWith("only-elsewhere", { workspaceId: other.body.id })
    expect(there.tested.status, JSON.stringify(there.tested.body)).toBe(200)
    expect(there.sent).toContain(VAULT_SECRET)
  })

  it("keeps a login's secrets for the address they were given for: a new address needs them again", async () => {
    const moved = await server.send("PUT", "/v1/secret-references/vault-github", {
      auth_config: { vault_addr: "https://vault.attacker.example" }
    })
    expect(moved.status).toBe(400)
    expect(await errorOf(moved)).toMatchObject({ param: "auth_config.vault_addr" })
    expect((await call("GET", "/v1/secret-references/vault-github")).body.auth_config.vault_addr).toBe(vault.origin)
    const resupplied = await call("PUT", "/v1/secret-references/vault-github", {
      auth_config: { vault_addr: `http://${vault.host}`, vault_token: vault.rootToken }
    })
    expect(resupplied.status, JSON.stringify(resupplied.body)).toBe(200)
    // An MCP integration naming the reference may not carry it to another URL without giving its mappings again.
    const { integrationId } = await testWith("vault-github")
    const carried = await server.send("PUT", `/v1/mcp-integrations/${integrationId}`, {
      url: "https://mcp.attacker.example/mcp"
    })
    expect(carried.status).toBe(400)
  })

  it("never puts a secret value or a login's secret in the store, the logs, an answer or the audit log", async () => {
    const secrets = [
      VAULT_SECRET,
      APPROLE_SECRET,
      AWS_SECRET,
      vault.rootToken,
      vault.secretId,
      aws.secretAccessKey,
      AZURE_SECRET,
      azure.clientSecret,
      ...vault.issued
    ]
    const audit = await call("GET", "/v1/audit-logs?page_size=100")
    expect(audit.status).toBe(200)
    const auditText = JSON.stringify(audit.body)
    expect(auditText).toContain("secret_reference")
    const places: Record<string, string> = { answers: answers.join("\n"), logs: logged.join("\n"), audit: auditText }
    if (database !== undefined) {
      const tables = await query<{ table_name: string }>(
        database.url,
        "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
      )
      const dumps = await Promise.all(
        tables.map(({ table_name }) =>
          query<{ row: unknown }>(database!.url, `SELECT to_jsonb(t) AS row FROM "${table_name}" t`)
        )
      )
      places["store"] = JSON.stringify(dumps)
      expect(places["store"]).toContain("secret_path")
    }
    for (const [place, text] of Object.entries(places)) {
      for (const secret of secrets) expect(text.includes(secret), `${place} holds a secret`).toBe(false)
    }
  })
})
