/**
 * AI-provider integrations (Portkey's `/integrations` family) over HTTP: each provider type's configuration
 * checked, credentials write-only and masked, organisation-level ones shared with workspaces (which see them only
 * then), the stored-secret rule on a change of destination, allowed models, secret references instead of a key,
 * and every change audited without its secrets.
 */
import { ScopeNames } from "@gateway-control/domain"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { checkPortkeyAnswer, checkPortkeyIntegrationAnswer } from "./support/PortkeyOpenApi.ts"
import { errorOf, jsonOf, startTestServer, type TestServer } from "./support/TestServer.ts"

const OPENAI_KEY = "sk-integration-secret-0123456789"
const AWS_SECRET = "aws-secret-access-key-9876543210"
const SERVICE_ACCOUNT = {
  type: "service_account",
  project_id: "acme-prod-123",
  private_key: "-----BEGIN PRIVATE KEY-----\nvertex-private-key-material\n-----END PRIVATE KEY-----\n",
  client_email: "gateway@acme-prod-123.iam.gserviceaccount.com"
}

describe("integrations", () => {
  let server: TestServer
  let workspaceKey: string
  let otherWorkspaceId: string
  /** Every answer body read, searched for secrets at the end. */
  const answers: Array<string> = []

  const call = async (method: string, path: string, body?: unknown, key?: string) => {
    const response = await server.send(method, path, body, key)
    const text = await response.text()
    answers.push(text)
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }

  beforeAll(async () => {
    server = await startTestServer()
    const key = await call("POST", "/v1/api-keys/workspace/service", {
      name: "integrations",
      workspace_id: server.workspaceId,
      scopes: ScopeNames.filter((scope) => scope.startsWith("workspace_integrations."))
    })
    workspaceKey = key.body.key
    const other = await call("POST", "/v1/admin/workspaces", { name: "Other team" })
    otherWorkspaceId = other.body.id
  })
  afterAll(async () => {
    await server?.close()
  })

  it("creates an OpenAI integration at organisation level; reads mask its key and validate by Portkey's document", async () => {
    const created = await call("POST", "/v1/integrations", {
      name: "Production OpenAI",
      ai_provider_id: "openai",
      key: OPENAI_KEY,
      description: "prod",
      configurations: { openai_organization: "org-acme" }
    })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ slug: "production-openai", object: "integration" })
    checkPortkeyAnswer("post", "/integrations", created.body)
    const read = await call("GET", "/v1/integrations/production-openai")
    expect(read.status).toBe(200)
    expect(read.body).toMatchObject({
      id: created.body.id,
      ai_provider_id: "openai",
      workspace_id: null,
      masked_key: "sk-i****6789",
      configurations: { openai_organization: "org-acme" },
      status: "active",
      workspace_count: 0
    })
    checkPortkeyIntegrationAnswer("get", "/integrations/{slug}", read.body)
    const listed = await call("GET", "/v1/integrations?type=organisation")
    expect(listed.body.data.map((i: { slug: string }) => i.slug)).toContain("production-openai")
    for (const item of listed.body.data) checkPortkeyIntegrationAnswer("get", "/integrations/{slug}", item)
    checkPortkeyAnswer("get", "/integrations", { ...listed.body, data: [] })
  })

  it("checks each provider type's configuration, naming the field", async () => {
    const refusals: Array<[unknown, string]> = [
      [{ ai_provider_id: "openai" }, "key"],
      [{ ai_provider_id: "openai", key: "sk-x", configurations: { region: "x" } }, "configurations.region"],
      [
        { ai_provider_id: "openai", key: "sk-x", configurations: { custom_host: "ftp://x" } },
        "configurations.custom_host"
      ],
      [
        {
          ai_provider_id: "azure-openai",
          key: "k",
          configurations: { azure_auth_mode: "default", azure_resource_name: "acme" }
        },
        "configurations.azure_deployment_config"
      ],
      [
        {
          ai_provider_id: "azure-openai",
          key: "k",
          configurations: {
            azure_auth_mode: "default",
            azure_resource_name: "acme",
            azure_deployment_config: [{ azure_deployment_name: "gpt4o", azure_model_slug: "gpt-4o" }]
          }
        },
        "configurations.azure_deployment_config[0].azure_api_version"
      ],
      [
        {
          ai_provider_id: "azure-openai",
          configurations: {
            azure_auth_mode: "entra",
            azure_resource_name: "acme",
            azure_entra_tenant_id: "t",
            azure_entra_client_id: "c",
            azure_deployment_config: [{
              azure_api_version: "2024-10-21",
              azure_deployment_name: "gpt4o",
              azure_model_slug: "gpt-4o"
            }]
          }
        },
        "configurations.azure_entra_client_secret"
      ],
      [
        { ai_provider_id: "bedrock", configurations: { aws_auth_type: "accessKey", aws_region: "us-east-1" } },
        "configurations.aws_access_key_id"
      ],
      [
        { ai_provider_id: "bedrock", configurations: { aws_auth_type: "assumedRole", aws_region: "Mars" } },
        "configurations.aws_region"
      ],
      [
        {
          ai_provider_id: "bedrock",
          key: "k",
          configurations: {
            aws_auth_type: "assumedRole",
            aws_region: "us-east-1",
            aws_role_arn: "arn:aws:iam::123456789012:role/gw"
          }
        },
        "key"
      ],
      [
        {
          ai_provider_id: "vertex-ai",
          configurations: {
            vertex_auth_type: "serviceAccount",
            vertex_region: "us-central1",
            vertex_service_account_json: { type: "user" }
          }
        },
        "configurations.vertex_service_account_json.type"
      ]
    ]
    for (const [body, param] of refusals) {
      const response = await server.send("POST", "/v1/integrations", { name: "Refused", ...(body as object) })
      const error = await errorOf(response)
      expect({ status: error.status, param: error.param }, JSON.stringify(body)).toEqual({ status: 400, param })
    }
    const none = await call("GET", "/v1/integrations?page_size=100")
    expect(none.body.data.filter((i: { name: string }) => i.name === "Refused")).toEqual([])
  })

  it("keeps Azure, Bedrock and Vertex logins; their secret fields answered masked", async () => {
    const azure = await call("POST", "/v1/integrations", {
      name: "Azure",
      ai_provider_id: "azure-openai",
      key: "azure-api-key-secret-value",
      configurations: {
        azure_auth_mode: "default",
        azure_resource_name: "acme-openai",
        azure_deployment_config: [{
          azure_api_version: "2024-10-21",
          azure_deployment_name: "gpt4o",
          azure_model_slug: "gpt-4o",
          is_default: true
        }]
      }
    })
    expect(azure.status).toBe(201)
    const bedrock = await call("POST", "/v1/integrations", {
      name: "Bedrock",
      ai_provider_id: "bedrock",
      configurations: {
        aws_auth_type: "accessKey",
        aws_region: "us-east-1",
        aws_access_key_id: "AKIAIOSFODNN7EXAMPLE",
        aws_secret_access_key: AWS_SECRET
      }
    })
    expect(bedrock.status).toBe(201)
    const read = await call("GET", "/v1/integrations/bedrock")
    expect(read.body.configurations).toEqual({
      aws_auth_type: "accessKey",
      aws_region: "us-east-1",
      aws_access_key_id: "AKIAIOSFODNN7EXAMPLE",
      masked_aws_secret_access_key: "********"
    })
    expect(read.body.masked_key).toBeUndefined()
    const vertex = await call("POST", "/v1/integrations", {
      name: "Vertex",
      ai_provider_id: "vertex-ai",
      configurations: {
        vertex_auth_type: "serviceAccount",
        vertex_region: "us-central1",
        vertex_service_account_json: SERVICE_ACCOUNT
      }
    })
    expect(vertex.status).toBe(201)
    const vertexRead = await call("GET", "/v1/integrations/vertex")
    expect(vertexRead.body.configurations).toEqual({
      vertex_auth_type: "serviceAccount",
      vertex_region: "us-central1",
      masked_vertex_service_account_json: "********"
    })
    checkPortkeyIntegrationAnswer("get", "/integrations/{slug}", vertexRead.body)
    checkPortkeyIntegrationAnswer("get", "/integrations/{slug}", (await call("GET", "/v1/integrations/azure")).body)
    checkPortkeyIntegrationAnswer("get", "/integrations/{slug}", read.body)
  })

  it("a new destination needs the secrets again (the rule of stored secrets); the masked values sent back count as none", async () => {
    const moved = await server.send("PUT", "/v1/integrations/production-openai", {
      configurations: { custom_host: "https://proxy.example.com/v1" }
    })
    expect(await errorOf(moved)).toMatchObject({ status: 400, param: "configurations.custom_host" })
    const region = await server.send("PUT", "/v1/integrations/bedrock", {
      configurations: {
        aws_auth_type: "accessKey",
        aws_region: "eu-west-1",
        aws_access_key_id: "AKIAIOSFODNN7EXAMPLE",
        masked_aws_secret_access_key: "********"
      }
    })
    expect(await errorOf(region)).toMatchObject({ status: 400, param: "configurations.aws_region" })
    const renamed = await call("PUT", "/v1/integrations/bedrock", { name: "Bedrock (us)" })
    expect(renamed.status).toBe(200)
    expect(renamed.body.configurations.masked_aws_secret_access_key).toBe("********")
    const given = await call("PUT", "/v1/integrations/production-openai", {
      key: "sk-new-key-for-the-proxy-0000",
      configurations: { custom_host: "https://proxy.example.com/v1" }
    })
    expect(given.status).toBe(200)
    expect(given.body).toMatchObject({
      masked_key: "sk-n****0000",
      configurations: { custom_host: "https://proxy.example.com/v1" }
    })
    checkPortkeyAnswer("put", "/integrations/{slug}", given.body)
  })

  it("an organisation-level integration is open only to the workspaces it is shared with", async () => {
    const hidden = await server.send("GET", "/v1/integrations/azure", undefined, workspaceKey)
    expect(hidden.status).toBe(404)
    const refused = await server.send(
      "POST",
      "/v1/integrations",
      { name: "By a workspace key", ai_provider_id: "openai", key: "sk-x" },
      workspaceKey
    )
    expect(refused.status).toBe(403)
    const shared = await call("PUT", "/v1/integrations/azure/workspaces", {
      workspaces: [{
        id: server.workspaceId,
        enabled: true,
        usage_limits: [{ credit_limit: 10, periodic_reset: "monthly", alert_threshold: 8 }],
        rate_limits: [{ type: "requests", unit: "rpm", value: 100 }]
      }, { id: otherWorkspaceId, enabled: false }]
    })
    expect(shared.status).toBe(200)
    checkPortkeyAnswer("put", "/integrations/{slug}/workspaces", shared.body)
    const access = await call("GET", "/v1/integrations/azure/workspaces")
    expect(access.body).toEqual({
      total: 2,
      workspaces: [
        {
          id: server.workspaceId,
          enabled: true,
          usage_limits: [{ credit_limit: 10, periodic_reset: "monthly", alert_threshold: 8 }],
          rate_limits: [{ type: "requests", unit: "rpm", value: 100 }]
        },
        { id: otherWorkspaceId, enabled: false, usage_limits: null, rate_limits: null }
      ]
    })
    checkPortkeyAnswer("get", "/integrations/{slug}/workspaces", access.body)
    const seen = await call("GET", "/v1/integrations/azure", undefined, workspaceKey)
    expect(seen.status).toBe(200)
    expect(seen.body.workspace_count).toBe(1)
    const listed = await call("GET", "/v1/integrations", undefined, workspaceKey)
    expect(listed.body.data.map((i: { slug: string }) => i.slug)).toEqual(["azure"])
    const otherList = await call("GET", `/v1/integrations?workspace_id=${otherWorkspaceId}`)
    expect(otherList.body.data.map((i: { slug: string }) => i.slug)).toEqual([])
    // A workspace key may read what is shared with it, not change it.
    const change = await server.send("PUT", "/v1/integrations/azure", { name: "Mine" }, workspaceKey)
    expect(change.status).toBe(403)
    const global = await server.send("PUT", "/v1/integrations/azure/workspaces", {
      global_workspace_access: { enabled: true }
    })
    expect(await errorOf(global)).toMatchObject({ status: 400, param: "global_workspace_access.enabled" })
  })

  it("a workspace's own integration: its keys create, read and change it", async () => {
    const created = await call("POST", "/v1/integrations", {
      name: "Team Together",
      ai_provider_id: "together-ai",
      key: "together-key-0000000000",
      workspace_id: server.workspaceId
    }, workspaceKey)
    expect(created.status).toBe(201)
    const read = await call("GET", "/v1/integrations/team-together", undefined, workspaceKey)
    expect(read.body).toMatchObject({ workspace_id: server.workspaceId, workspace_count: 1 })
    const shareRefused = await server.send("PUT", "/v1/integrations/team-together/workspaces", {
      workspaces: [{ id: otherWorkspaceId, enabled: true }]
    })
    expect(await errorOf(shareRefused)).toMatchObject({ status: 400, param: "workspaces" })
    const deleted = await call("DELETE", "/v1/integrations/team-together", undefined, workspaceKey)
    expect(deleted.body).toEqual({ id: created.body.id, object: "integration", deleted: true })
    expect((await server.send("GET", "/v1/integrations/team-together", undefined)).status).toBe(404)
  })

  it("allowed models: merged in by slug, custom ones removed by slug", async () => {
    const put = await call("PUT", "/v1/integrations/production-openai/models", {
      allow_all_models: false,
      models: [
        { slug: "gpt-4o", enabled: true },
        { slug: "ft:gpt-4o:acme", enabled: true, is_custom: true, is_finetune: true, base_model_slug: "gpt-4o" }
      ]
    })
    expect(put.status).toBe(200)
    checkPortkeyAnswer("put", "/integrations/{slug}/models", put.body)
    const got = await call("GET", "/v1/integrations/production-openai/models")
    expect(got.body).toMatchObject({ total: 2, allow_all_models: false })
    checkPortkeyAnswer("get", "/integrations/{slug}/models", got.body)
    const notCustom = await server.send("DELETE", "/v1/integrations/production-openai/models?slugs=gpt-4o", undefined)
    expect(await errorOf(notCustom)).toMatchObject({ status: 400, param: "slugs" })
    const removed = await call("DELETE", "/v1/integrations/production-openai/models?slugs=ft:gpt-4o:acme")
    expect(removed.body.models.map((m: { slug: string }) => m.slug)).toEqual(["gpt-4o"])
    checkPortkeyAnswer("delete", "/integrations/{slug}/models", removed.body)
  })

  it("a key may come from a secret reference instead (secret_mappings)", async () => {
    const unknown = await server.send("POST", "/v1/integrations", {
      name: "Mapped",
      ai_provider_id: "openai",
      secret_mappings: [{ target_field: "key", secret_reference_id: "no-such-reference" }]
    })
    expect(await errorOf(unknown)).toMatchObject({ status: 400, param: "secret_mappings[0].secret_reference_id" })
    const reference = await call("POST", "/v1/secret-references", {
      name: "OpenAI in Vault",
      manager_type: "hashicorp_vault",
      auth_config: { vault_auth_type: "token", vault_addr: "https://vault.example.com", vault_token: "hvs.token" },
      secret_path: "secret/openai",
      secret_key: "api_key"
    })
    const both = await server.send("POST", "/v1/integrations", {
      name: "Mapped",
      ai_provider_id: "openai",
      key: "sk-both",
      secret_mappings: [{ target_field: "key", secret_reference_id: reference.body.slug }]
    })
    expect(await errorOf(both)).toMatchObject({ status: 400, param: "secret_mappings[0].target_field" })
    const mapped = await call("POST", "/v1/integrations", {
      name: "Mapped",
      ai_provider_id: "openai",
      secret_mappings: [{ target_field: "key", secret_reference_id: reference.body.slug }]
    })
    expect(mapped.status).toBe(201)
    const read = await call("GET", "/v1/integrations/mapped")
    expect(read.body.secret_mappings).toEqual([{ target_field: "key", secret_reference_id: reference.body.slug }])
    expect(read.body.masked_key).toBeUndefined()
  })

  it("Portkey's fields this gateway does not act on are refused by name, and nothing changes", async () => {
    const refusals: Array<[string, string, unknown, string]> = [
      ["POST", "/v1/integrations", {
        name: "Default",
        ai_provider_id: "openai",
        key: "sk-x",
        create_default_provider: true
      }, "create_default_provider"],
      ["POST", "/v1/integrations", {
        name: "Default",
        ai_provider_id: "openai",
        key: "sk-x",
        default_provider_slug: "d"
      }, "default_provider_slug"],
      ["POST", "/v1/integrations", {
        name: "Default",
        ai_provider_id: "openai",
        key: "sk-x",
        pricing_adjustments: { multiplier: { default: 0.8 } }
      }, "pricing_adjustments"],
      [
        "PUT",
        "/v1/integrations/azure",
        { pricing_adjustments: { multiplier: { default: 0.8 } } },
        "pricing_adjustments"
      ],
      ["PUT", "/v1/integrations/azure/workspaces", {
        workspaces: [{ id: otherWorkspaceId, enabled: true }],
        create_default_provider: true
      }, "create_default_provider"],
      ["PUT", "/v1/integrations/azure/workspaces", {
        workspaces: [{ id: otherWorkspaceId, enabled: true, reset_usage: true }]
      }, "workspaces[0].reset_usage"],
      ["PUT", "/v1/integrations/azure/models", {
        models: [{ slug: "gpt-4o", enabled: true, pricing_config: { type: "static" } }]
      }, "models[0].pricing_config"]
    ]
    for (const [method, path, body, param] of refusals) {
      const error = await errorOf(await server.send(method, path, body))
      expect({ status: error.status, param: error.param }, `${method} ${path}`).toEqual({ status: 400, param })
    }
    expect((await call("GET", "/v1/integrations?page_size=100")).body.data.map((i: { name: string }) => i.name)).not
      .toContain("Default")
    expect((await call("GET", "/v1/integrations/azure/workspaces")).body.total).toBe(2)
    const accepted = await call("PUT", "/v1/integrations/azure/workspaces", {
      create_default_provider: false,
      workspaces: [{ id: otherWorkspaceId, enabled: false, reset_usage: false, create_default_provider: false }]
    })
    expect(accepted.status).toBe(200)
  })

  it("every change is audited, and no secret is ever answered or audited", async () => {
    const audit = await call("GET", "/v1/audit-logs?resource_type=integration&page_size=100")
    const actions = new Set(audit.body.records.map((r: { action: string }) => r.action))
    expect([...actions].sort()).toEqual(["create", "delete", "delete_models", "share", "update", "update_models"])
    const everything = answers.join("\n")
    for (const secret of [OPENAI_KEY, AWS_SECRET, "vertex-private-key-material", "azure-api-key-secret-value"]) {
      expect(everything).not.toContain(secret)
    }
    expect(JSON.stringify(await jsonOf(await server.send("GET", "/v1/audit-logs?page_size=1000", undefined)))).not
      .toContain(OPENAI_KEY)
  })
})
