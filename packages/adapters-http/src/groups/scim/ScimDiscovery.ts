/**
 * What the service provider says of itself (RFC 7644 §4, RFC 7643 §5–7): its configuration, resource types and
 * the attributes of the schemas it serves. Static: what this gateway supports.
 */
import { SCIM_GROUP_SCHEMA, SCIM_USER_SCHEMA } from "@gateway-control/domain"

const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse"

export const serviceProviderConfig = {
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"],
  documentationUri: "https://github.com/gateway-control/gateway-control#scim",
  patch: { supported: true },
  bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
  filter: { supported: true, maxResults: 1000 },
  changePassword: { supported: false },
  sort: { supported: false },
  etag: { supported: false },
  authenticationSchemes: [{
    type: "oauthbearertoken",
    name: "SCIM token",
    description: "A bearer token an organisation admin creates at POST /v1/admin/scim-tokens.",
    primary: true
  }],
  meta: { resourceType: "ServiceProviderConfig" }
}

const resourceType = (id: string, endpoint: string, schema: string, description: string) => ({
  schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
  id,
  name: id,
  endpoint,
  description,
  schema,
  meta: { resourceType: "ResourceType" }
})

const RESOURCE_TYPES = [
  resourceType("User", "/Users", SCIM_USER_SCHEMA, "A user of the organisation: userName is their email."),
  resourceType("Group", "/Groups", SCIM_GROUP_SCHEMA, "A group whose members get the roles its role mapping names.")
]

export const resourceTypes = {
  schemas: [LIST],
  totalResults: RESOURCE_TYPES.length,
  startIndex: 1,
  itemsPerPage: RESOURCE_TYPES.length,
  Resources: RESOURCE_TYPES
}

const attribute = (
  name: string,
  type: string,
  options: { readonly required?: boolean; readonly multiValued?: boolean; readonly subAttributes?: Array<unknown> } = {}
) => ({
  name,
  type,
  multiValued: options.multiValued ?? false,
  required: options.required ?? false,
  caseExact: false,
  mutability: "readWrite",
  returned: "default",
  uniqueness: name === "userName" ? "server" : "none",
  ...(options.subAttributes === undefined ? {} : { subAttributes: options.subAttributes })
})

const SCHEMAS = [
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: SCIM_USER_SCHEMA,
    name: "User",
    description: "A user of the organisation.",
    attributes: [
      attribute("userName", "string", { required: true }),
      attribute("name", "complex", {
        subAttributes: [
          attribute("formatted", "string"),
          attribute("givenName", "string"),
          attribute("familyName", "string")
        ]
      }),
      attribute("displayName", "string"),
      attribute("active", "boolean"),
      attribute("emails", "complex", {
        multiValued: true,
        subAttributes: [attribute("value", "string"), attribute("type", "string"), attribute("primary", "boolean")]
      })
    ],
    meta: { resourceType: "Schema" }
  },
  {
    schemas: ["urn:ietf:params:scim:schemas:core:2.0:Schema"],
    id: SCIM_GROUP_SCHEMA,
    name: "Group",
    description: "A group of users.",
    attributes: [
      attribute("displayName", "string", { required: true }),
      attribute("members", "complex", {
        multiValued: true,
        subAttributes: [attribute("value", "string"), attribute("display", "string")]
      })
    ],
    meta: { resourceType: "Schema" }
  }
]

export const schemas = {
  schemas: [LIST],
  totalResults: SCHEMAS.length,
  startIndex: 1,
  itemsPerPage: SCHEMAS.length,
  Resources: SCHEMAS
}
