/**
 * The HTTP contract of gateway-control: groups, endpoints and their Schemas. The OpenAPI document is
 * generated from this definition.
 */
import {
  ApiKey,
  AuditRecord,
  GatewayConfig,
  JsonObject,
  McpAuthType,
  McpIntegrationStatus,
  McpTransport,
  OrganisationRole,
  Partial,
  Prompt,
  PromptLabel,
  PromptType,
  PromptVersion,
  SecretMapping,
  User,
  VirtualKey,
  Workspace,
  WorkspaceMember,
  WorkspaceRole
} from "@gateway-control/domain"
import { Schema } from "effect"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { BadGateway, CommonErrors, GatewayTimeout, ServiceUnavailable } from "./ApiErrors.ts"
import { InstantQuery, RequestInputRules } from "./InputRules.ts"
import { ApiKeyAuth } from "./Security.ts"

export const HealthStatus = Schema.Struct({ status: Schema.Literal("ok") })

/** `page_size` (1–1000) and `current_page` (from 0), shared by list endpoints. */
export const PagingQuery = {
  page_size: Schema.optionalKey(
    Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1000 })).annotate({
      description: "Items per page, 1 to 1000; default 100."
    })
  ),
  current_page: Schema.optionalKey(
    Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Page number from 0; default 0." })
  )
}

export const listOf = <S extends Schema.Top>(item: S) =>
  Schema.Struct({
    object: Schema.Literal("list"),
    data: Schema.Array(item),
    total: Schema.Int,
    has_more: Schema.Boolean
  })

export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("healthz", "/healthz", { success: HealthStatus }).annotate(
    OpenApi.Description,
    "Liveness: the process answers."
  ),
  HttpApiEndpoint.get("readyz", "/readyz", { success: HealthStatus, error: ServiceUnavailable }).annotate(
    OpenApi.Description,
    "Readiness: the store answers."
  )
) {}

// Every /v1 group declares `RequestInputRules` and then `ApiKeyAuth`: HttpApi runs the middleware declared last
// first, so the key is checked before the body is read and held to the input rules (InputRules.ts).

export const CreateWorkspace = Schema.Struct({
  name: Schema.String,
  slug: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000)))
})

export const CreatedWorkspace = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  object: Schema.Literal("workspace")
}).annotate({ httpApiStatus: 201 })

export class WorkspacesGroup extends HttpApiGroup.make("workspaces")
  .add(
    HttpApiEndpoint.post("create", "/workspaces", {
      payload: CreateWorkspace,
      success: CreatedWorkspace,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("list", "/workspaces", {
      query: PagingQuery,
      success: listOf(Workspace),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("get", "/workspaces/:workspaceId", {
      params: { workspaceId: Schema.String },
      success: Workspace,
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

const created = <S extends Schema.Top>(schema: S) => schema.annotate({ httpApiStatus: 201 })

export const CreateApiKey = Schema.Struct({
  name: Schema.String,
  scopes: Schema.Array(Schema.String),
  description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000))),
  workspace_id: Schema.optionalKey(Schema.String),
  user_id: Schema.optionalKey(Schema.String),
  expires_at: Schema.optionalKey(Schema.String)
})

export class ApiKeysGroup extends HttpApiGroup.make("apiKeys")
  .add(
    HttpApiEndpoint.post("create", "/api-keys/:type/:subType", {
      params: { type: Schema.String, subType: Schema.String },
      payload: CreateApiKey,
      success: created(Schema.Struct({ id: Schema.String, key: Schema.String, object: Schema.Literal("api-key") })),
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "Creates an API key: organisation/service (admin key), workspace/service or workspace/user. The plaintext key is returned only here."
    ),
    HttpApiEndpoint.get("list", "/api-keys", {
      query: { workspace_id: Schema.optionalKey(Schema.String), ...PagingQuery },
      success: listOf(ApiKey),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("get", "/api-keys/:id", {
      params: { id: Schema.String },
      success: ApiKey,
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("revoke", "/api-keys/:id", {
      params: { id: Schema.String },
      success: Schema.Struct({
        id: Schema.String,
        object: Schema.Literal("api-key"),
        status: Schema.Literal("revoked")
      }),
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export class UsersGroup extends HttpApiGroup.make("users")
  .add(
    HttpApiEndpoint.post("create", "/users", {
      payload: Schema.Struct({
        email: Schema.String,
        name: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(255))),
        role: OrganisationRole
      }),
      success: created(Schema.Struct({ id: Schema.String, object: Schema.Literal("user") })),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("list", "/users", { query: PagingQuery, success: listOf(User), error: CommonErrors }),
    HttpApiEndpoint.post("addMember", "/workspaces/:workspaceId/members", {
      params: { workspaceId: Schema.String },
      payload: Schema.Struct({ user_id: Schema.String, role: WorkspaceRole }),
      success: created(Schema.Struct({
        object: Schema.Literal("workspace-member"),
        workspace_id: Schema.String,
        user_id: Schema.String,
        role: WorkspaceRole
      })),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("listMembers", "/workspaces/:workspaceId/members", {
      params: { workspaceId: Schema.String },
      query: PagingQuery,
      success: listOf(WorkspaceMember),
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("removeMember", "/workspaces/:workspaceId/members/:userId", {
      params: { workspaceId: Schema.String, userId: Schema.String },
      success: Schema.Struct({
        object: Schema.Literal("workspace-member"),
        workspace_id: Schema.String,
        user_id: Schema.String,
        deleted: Schema.Literal(true)
      }),
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export class ScopesGroup extends HttpApiGroup.make("scopes")
  .add(
    HttpApiEndpoint.get("list", "/scopes", {
      success: Schema.Struct({ object: Schema.Literal("list"), data: Schema.Array(Schema.String) }),
      error: CommonErrors
    }).annotate(OpenApi.Description, "Every scope a key can carry.")
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export class AuditLogsGroup extends HttpApiGroup.make("auditLogs")
  .add(
    HttpApiEndpoint.get("list", "/audit-logs", {
      query: {
        start_time: Schema.optionalKey(InstantQuery),
        end_time: Schema.optionalKey(InstantQuery),
        workspace_id: Schema.optionalKey(Schema.String),
        user_id: Schema.optionalKey(Schema.String),
        action: Schema.optionalKey(Schema.String),
        resource_type: Schema.optionalKey(Schema.String),
        response_status_code: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 100, maximum: 599 }))),
        ...PagingQuery
      },
      success: Schema.Struct({
        object: Schema.Literal("list"),
        records: Schema.Array(AuditRecord),
        total: Schema.Int,
        has_more: Schema.Boolean
      }),
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "Audit records of the organisation, newest first (admin key with audit_logs.list)."
    )
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

const promptFields = {
  name: Schema.String,
  slug: Schema.optionalKey(Schema.String),
  workspace_id: Schema.optionalKey(Schema.String),
  string: Schema.String,
  parameters: Schema.optionalKey(JsonObject),
  model: Schema.optionalKey(Schema.String),
  type: Schema.optionalKey(PromptType),
  is_raw_template: Schema.optionalKey(Schema.Boolean),
  version_description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000))),
  template_metadata: Schema.optionalKey(JsonObject)
}

export const CreatePrompt = Schema.Struct(promptFields)
export const UpdatePrompt = Schema.Struct({
  ...promptFields,
  name: Schema.optionalKey(Schema.String),
  string: Schema.optionalKey(Schema.String)
})
const VersionRef = Schema.Struct({ version: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)) })
const PromptRef = { promptId: Schema.String }
const VersionCreated = {
  id: Schema.String,
  slug: Schema.String,
  version_id: Schema.String,
  version: Schema.Int
}

export const PromptDetailsJson = Schema.Struct({
  ...Prompt.fields,
  object: Schema.Literal("prompt"),
  versions: Schema.Array(PromptVersion),
  labels: Schema.Array(PromptLabel)
})

export const RenderResponse = Schema.Struct({ success: Schema.Literal(true), data: JsonObject })

export class PromptsGroup extends HttpApiGroup.make("prompts")
  .add(
    HttpApiEndpoint.post("createPartial", "/prompts/partials", {
      payload: Schema.Struct({
        name: Schema.String,
        slug: Schema.optionalKey(Schema.String),
        string: Schema.String,
        workspace_id: Schema.optionalKey(Schema.String),
        version_description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000)))
      }),
      success: created(Schema.Struct(VersionCreated)),
      error: CommonErrors
    }),
    HttpApiEndpoint.put("updatePartial", "/prompts/partials/:partialId", {
      params: { partialId: Schema.String },
      payload: Schema.Struct({
        string: Schema.String,
        version_description: Schema.optionalKey(Schema.String.check(Schema.isMaxLength(1000)))
      }),
      success: Schema.Struct(VersionCreated),
      error: CommonErrors
    }).annotate(OpenApi.Description, "Adds a version to the partial and publishes it."),
    HttpApiEndpoint.get("getPartial", "/prompts/partials/:partialId", {
      params: { partialId: Schema.String },
      success: Schema.Struct({
        ...Partial.fields,
        object: Schema.Literal("prompt-partial"),
        string: Schema.String,
        version_id: Schema.String
      }),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("listPartials", "/prompts/partials", {
      query: { workspace_id: Schema.optionalKey(Schema.String), ...PagingQuery },
      success: listOf(Partial),
      error: CommonErrors
    }),
    HttpApiEndpoint.post("create", "/prompts", {
      payload: CreatePrompt,
      success: created(Schema.Struct({ ...VersionCreated, object: Schema.Literal("prompt") })),
      error: CommonErrors
    }),
    HttpApiEndpoint.put("update", "/prompts/:promptId", {
      params: PromptRef,
      payload: UpdatePrompt,
      success: Schema.Struct(VersionCreated),
      error: CommonErrors
    }).annotate(OpenApi.Description, "Creates a new immutable version; it does not publish it."),
    HttpApiEndpoint.put("makeDefault", "/prompts/:promptId/makeDefault", {
      params: PromptRef,
      payload: VersionRef,
      success: Schema.Struct({ id: Schema.String, published_version: Schema.Int }),
      error: CommonErrors
    }),
    HttpApiEndpoint.put("setLabel", "/prompts/:promptId/labels/:label", {
      params: { promptId: Schema.String, label: Schema.String },
      payload: VersionRef,
      success: PromptLabel,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("get", "/prompts/:promptId", {
      params: PromptRef,
      success: PromptDetailsJson,
      error: CommonErrors
    }),
    HttpApiEndpoint.get("list", "/prompts", {
      query: { workspace_id: Schema.optionalKey(Schema.String), ...PagingQuery },
      success: listOf(Prompt),
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("delete", "/prompts/:promptId", {
      params: PromptRef,
      success: Schema.Struct({ id: Schema.String, object: Schema.Literal("prompt"), deleted: Schema.Literal(true) }),
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export const McpIntegrationJson = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  slug: Schema.String,
  owner_id: Schema.NullOr(Schema.String),
  status: McpIntegrationStatus,
  url: Schema.String,
  description: Schema.NullOr(Schema.String),
  workspace_id: Schema.NullOr(Schema.String),
  workspaces_count: Schema.Int,
  configurations: JsonObject,
  created_at: Schema.String,
  last_updated_at: Schema.String,
  secret_mappings: Schema.Array(SecretMapping),
  auth_type: McpAuthType,
  transport: McpTransport,
  global_workspace_access: Schema.Boolean,
  workspace_ids: Schema.Array(Schema.String)
})

export const McpServerJson = Schema.Struct({
  id: Schema.String,
  slug: Schema.String,
  name: Schema.String,
  status: Schema.String,
  description: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  mcp_integration_id: Schema.String,
  workspace_id: Schema.String,
  mcp_integration_details: Schema.optionalKey(
    Schema.Struct({
      id: Schema.String,
      slug: Schema.String,
      status: Schema.String,
      url: Schema.String,
      transport: Schema.String,
      auth_type: Schema.String,
      configurations: JsonObject
    }).annotate({ description: "Present for service keys (organisation-service, workspace-service) only." })
  )
})

const integrationFields = {
  name: Schema.String,
  url: Schema.String,
  auth_type: McpAuthType,
  transport: McpTransport,
  slug: Schema.optionalKey(Schema.String),
  description: Schema.optionalKey(Schema.String),
  workspace_id: Schema.optionalKey(Schema.String),
  organisation_id: Schema.optionalKey(Schema.String),
  configurations: Schema.optionalKey(JsonObject),
  secret_mappings: Schema.optionalKey(Schema.Array(SecretMapping)),
  global_workspace_access: Schema.optionalKey(Schema.Boolean),
  workspace_ids: Schema.optionalKey(Schema.Array(Schema.String))
}

const pagedList = <S extends Schema.Top>(item: S) =>
  Schema.Struct({ data: Schema.Array(item), total: Schema.Int, has_more: Schema.Boolean })

/**
 * Rendering, a group of its own because it is served by a lean route of the HTTP adapter (handlers/Render.ts)
 * rather than by HttpApi: this definition documents it and types clients.
 */
export class PromptRenderGroup extends HttpApiGroup.make("promptRendering")
  .add(
    HttpApiEndpoint.post("render", "/prompts/:promptId/render", {
      params: PromptRef,
      payload: JsonObject.annotate({
        description:
          "variables (object, required), stream (boolean), and any chat-completion or completion field at the root."
      }),
      success: RenderResponse,
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "Renders a saved prompt into a chat completion or completion request body. `promptId` is the prompt's id or slug, optionally with @N, @latest or @label. Headers: x-service-missing-variables, x-service-deprecated-fields."
    )
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export class McpGroup extends HttpApiGroup.make("mcp")
  .add(
    HttpApiEndpoint.post("createIntegration", "/mcp-integrations", {
      payload: Schema.Struct(integrationFields),
      success: created(Schema.Struct({ id: Schema.String, slug: Schema.String })),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("listIntegrations", "/mcp-integrations", {
      query: {
        organisation_id: Schema.optionalKey(Schema.String),
        workspace_id: Schema.optionalKey(Schema.String),
        type: Schema.optionalKey(Schema.Literals(["workspace", "organisation", "all"])),
        status: Schema.optionalKey(McpIntegrationStatus),
        search: Schema.optionalKey(Schema.String),
        ...PagingQuery
      },
      success: pagedList(McpIntegrationJson),
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "MCP integrations of the organisation or workspace. organisation_id is required with an admin key."
    ),
    HttpApiEndpoint.get("getIntegration", "/mcp-integrations/:id", {
      params: { id: Schema.String },
      success: McpIntegrationJson,
      error: CommonErrors
    }),
    HttpApiEndpoint.put("updateIntegration", "/mcp-integrations/:id", {
      params: { id: Schema.String },
      payload: Schema.Struct(
        Object.fromEntries(
          Object.entries(integrationFields).map(([k, v]) => [k, Schema.optionalKey(v as any)])
        ) as any as typeof integrationFields
      ),
      success: McpIntegrationJson,
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("archiveIntegration", "/mcp-integrations/:id", {
      params: { id: Schema.String },
      success: McpIntegrationJson,
      error: CommonErrors
    }).annotate(OpenApi.Description, "Archives the integration: hidden from lists unless status=archived is asked."),
    HttpApiEndpoint.post("createServer", "/mcp-servers", {
      payload: Schema.Struct({
        name: Schema.String,
        mcp_integration_id: Schema.String,
        workspace_id: Schema.optionalKey(Schema.String),
        description: Schema.optionalKey(Schema.String),
        slug: Schema.optionalKey(Schema.String)
      }),
      success: created(Schema.Struct({ id: Schema.String, slug: Schema.String })),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("getServer", "/mcp-servers/:mcpServerId", {
      params: { mcpServerId: Schema.String },
      query: { workspace_id: Schema.optionalKey(Schema.String) },
      success: McpServerJson,
      error: CommonErrors
    }).annotate(
      OpenApi.Description,
      "One MCP server by UUID or slug (a slug is looked up in the caller's workspace, or workspace_id with an admin key)."
    ),
    HttpApiEndpoint.get("listServers", "/mcp-servers", {
      query: {
        workspace_id: Schema.optionalKey(Schema.String),
        search: Schema.optionalKey(Schema.String),
        ...PagingQuery
      },
      success: pagedList(McpServerJson),
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

export const FineTuningJobList = Schema.Struct({
  object: Schema.Literal("list"),
  data: Schema.Array(JsonObject),
  has_more: Schema.Boolean
})

export class ProvidersGroup extends HttpApiGroup.make("providers")
  .add(
    HttpApiEndpoint.get("listFineTuningJobs", "/fine_tuning/jobs", {
      query: {
        limit: Schema.optionalKey(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 100 }))),
        after: Schema.optionalKey(Schema.String)
      },
      success: FineTuningJobList,
      error: [...CommonErrors, BadGateway, GatewayTimeout]
    }).annotate(
      OpenApi.Description,
      "Lists fine-tuning jobs at the provider chosen by x-service-virtual-key, x-service-provider with Authorization, x-service-config, or those with x-service-custom-host. A non-2xx answer of the provider is passed through."
    ),
    HttpApiEndpoint.post("createVirtualKey", "/virtual-keys", {
      payload: Schema.Struct({
        name: Schema.String,
        slug: Schema.optionalKey(Schema.String),
        provider: Schema.String,
        key: Schema.String,
        custom_host: Schema.optionalKey(Schema.String),
        workspace_id: Schema.optionalKey(Schema.String)
      }),
      success: created(
        Schema.Struct({ id: Schema.String, slug: Schema.String, object: Schema.Literal("virtual-key") })
      ),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("listVirtualKeys", "/virtual-keys", {
      query: { workspace_id: Schema.optionalKey(Schema.String), ...PagingQuery },
      success: listOf(VirtualKey),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("getVirtualKey", "/virtual-keys/:id", {
      params: { id: Schema.String },
      success: VirtualKey,
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("deleteVirtualKey", "/virtual-keys/:id", {
      params: { id: Schema.String },
      success: Schema.Struct({
        id: Schema.String,
        object: Schema.Literal("virtual-key"),
        deleted: Schema.Literal(true)
      }),
      error: CommonErrors
    }),
    HttpApiEndpoint.post("createConfig", "/configs", {
      payload: Schema.Struct({
        name: Schema.String,
        slug: Schema.optionalKey(Schema.String),
        config: JsonObject.annotate({
          description:
            "provider + api_key, or virtual_key; optionally custom_host and request_timeout (ms). One target at most."
        }),
        workspace_id: Schema.optionalKey(Schema.String)
      }),
      success: created(Schema.Struct({ id: Schema.String, slug: Schema.String })),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("listConfigs", "/configs", {
      query: { workspace_id: Schema.optionalKey(Schema.String), ...PagingQuery },
      success: listOf(GatewayConfig),
      error: CommonErrors
    }),
    HttpApiEndpoint.get("getConfig", "/configs/:id", {
      params: { id: Schema.String },
      success: GatewayConfig,
      error: CommonErrors
    }),
    HttpApiEndpoint.delete("deleteConfig", "/configs/:id", {
      params: { id: Schema.String },
      success: Schema.Struct({ id: Schema.String, object: Schema.Literal("config"), deleted: Schema.Literal(true) }),
      error: CommonErrors
    })
  )
  .middleware(RequestInputRules)
  .middleware(ApiKeyAuth)
  .prefix("/v1")
{}

/** What HttpApi serves: every group but rendering, which a lean route serves. */
export class ServedApi extends HttpApi.make("gateway-control")
  .add(SystemGroup)
  .add(WorkspacesGroup)
  .add(ApiKeysGroup)
  .add(UsersGroup)
  .add(ScopesGroup)
  .add(AuditLogsGroup)
  .add(PromptsGroup)
  .add(McpGroup)
  .add(ProvidersGroup)
{}

/** The whole contract: what the OpenAPI document and the reference page describe. */
export class GatewayApi extends HttpApi.make("gateway-control")
  .addHttpApi(ServedApi)
  .add(PromptRenderGroup)
  .annotateMerge(
    OpenApi.annotations({
      title: "gateway-control",
      version: "2.0.0",
      description:
        "Control plane of an LLM API gateway: prompt rendering, MCP registry, fine-tuning job listing and API-key administration."
    })
  )
{}
