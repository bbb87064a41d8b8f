/**
 * Fake secret managers on loopback, for the secret reference tests (no Vault server can be installed from the
 * package registries this project uses, and AWS is not reachable from tests):
 *
 * - a Vault that implements, as Vault's documentation gives them, the KV v2 read
 *   (`GET /v1/<mount>/data/<path>` with `X-Vault-Token`, answering `{"data": {"data": {...}, "metadata": {...}}}`)
 *   and the AppRole login (`POST /v1/auth/approle/login` with `{"role_id", "secret_id"}`, answering
 *   `{"auth": {"client_token", ...}}`); refusals as Vault answers them, `{"errors": [...]}` with 400/403/404;
 * - an AWS endpoint that speaks Secrets Manager's JSON protocol (`X-Amz-Target: secretsmanager.GetSecretValue`)
 *   and STS's query protocol (`Action=AssumeRole`, an XML answer), as the AWS SDK calls them, checking the
 *   access key named in each request's SigV4 `Authorization` header;
 * - Microsoft Entra's client-credentials token endpoint and Azure Key Vault's secret read (REST, api-version 7.4).
 *
 * Each records the requests it received (headers and body), so tests can say what reached it.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type Server } from "node:http"
import type { AddressInfo } from "node:net"

export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: string
}

export interface FakeServer {
  readonly origin: string
  readonly host: string
  readonly received: Array<Received>
  readonly close: () => Promise<void>
}

const listen = (server: Server, received: Array<Received>): Promise<FakeServer> =>
  new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        origin: `http://127.0.0.1:${port}`,
        host: `127.0.0.1:${port}`,
        received,
        close: () =>
          new Promise((done) => {
            server.closeAllConnections()
            server.close(() => done())
          })
      })
    })
  })

const readBody = async (request: IncomingMessage) => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

export interface FakeVault extends FakeServer {
  /** The root token: reads anything. */
  readonly rootToken: string
  readonly roleId: string
  readonly secretId: string
  /** Tokens AppRole logins issued. */
  readonly issued: Array<string>
}

/** A Vault with KV v2 at mount `secret` holding `secrets` (path → fields), and one AppRole. */
export const startFakeVault = (secrets: Record<string, Record<string, string>>): Promise<FakeVault> => {
  const received: Array<Received> = []
  const rootToken = `hvs.${randomBytes(12).toString("hex")}`
  const roleId = `role-${randomBytes(6).toString("hex")}`
  const secretId = `sid-${randomBytes(12).toString("hex")}`
  const issued: Array<string> = []
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(json))
    }
    const path = (req.url ?? "").split("?")[0]!
    if (req.method === "POST" && path === "/v1/auth/approle/login") {
      let login: { role_id?: unknown; secret_id?: unknown } = {}
      try {
        login = JSON.parse(body)
      } catch {
        return answer(400, { errors: ["failed to parse JSON input"] })
      }
      if (login.role_id !== roleId || login.secret_id !== secretId) {
        return answer(400, { errors: ["invalid role or secret ID"] })
      }
      const token = `hvs.${randomBytes(12).toString("hex")}`
      issued.push(token)
      return answer(200, {
        request_id: randomBytes(8).toString("hex"),
        lease_id: "",
        renewable: false,
        lease_duration: 0,
        data: null,
        auth: {
          client_token: token,
          accessor: randomBytes(8).toString("hex"),
          policies: ["default", "read-secrets"],
          lease_duration: 2764800,
          renewable: true
        }
      })
    }
    const read = /^\/v1\/secret\/data\/(.+)$/.exec(path)
    if (req.method === "GET" && read !== null) {
      const token = req.headers["x-vault-token"]
      if (token !== rootToken && !issued.includes(String(token))) return answer(403, { errors: ["permission denied"] })
      const data = secrets[decodeURIComponent(read[1]!)]
      if (data === undefined) return answer(404, { errors: [] })
      return answer(200, {
        request_id: randomBytes(8).toString("hex"),
        lease_id: "",
        renewable: false,
        lease_duration: 0,
        data: {
          data,
          metadata: { created_time: "2026-01-01T00:00:00Z", deletion_time: "", destroyed: false, version: 1 }
        }
      })
    }
    return answer(404, { errors: [] })
  })
  return listen(server, received).then((fake) => ({ ...fake, rootToken, roleId, secretId, issued }))
}

export interface FakeAws extends FakeServer {
  readonly accessKeyId: string
  readonly secretAccessKey: string
  readonly roleArn: string
  readonly externalId: string
  /** The access key of the temporary credentials AssumeRole hands out. */
  readonly assumedKeyId: string
}

/** The access key a SigV4 `Authorization` header names: `Credential=<key>/<date>/<region>/<service>/aws4_request`. */
const accessKeyOf = (authorization: string | undefined) => /Credential=([^/]+)\//.exec(authorization ?? "")?.[1]

/** Secrets Manager (`secrets`: name → SecretString) and STS, on one endpoint. */
export const startFakeAws = (secrets: Record<string, string>): Promise<FakeAws> => {
  const received: Array<Received> = []
  const accessKeyId = `AKIA${randomBytes(8).toString("hex").toUpperCase()}`
  const secretAccessKey = randomBytes(20).toString("base64")
  const assumedKeyId = `ASIA${randomBytes(8).toString("hex").toUpperCase()}`
  const roleArn = "arn:aws:iam::123456789012:role/gateway-secrets"
  const externalId = `ext-${randomBytes(4).toString("hex")}`
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
    const key = accessKeyOf(req.headers.authorization)
    const target = req.headers["x-amz-target"]
    if (target === "secretsmanager.GetSecretValue") {
      const error = (status: number, type: string, message: string) => {
        res.writeHead(status, { "content-type": "application/x-amz-json-1.1", "x-amzn-errortype": type })
        res.end(JSON.stringify({ __type: type, message }))
      }
      if (key !== accessKeyId && key !== assumedKeyId) {
        return error(400, "UnrecognizedClientException", "The security token included in the request is invalid.")
      }
      if (key === assumedKeyId && req.headers["x-amz-security-token"] === undefined) {
        return error(400, "UnrecognizedClientException", "The security token is missing.")
      }
      const { SecretId } = JSON.parse(body) as { SecretId: string }
      const value = secrets[SecretId]
      if (value === undefined) {
        return error(400, "ResourceNotFoundException", "Secrets Manager can't find the specified secret.")
      }
      res.writeHead(200, { "content-type": "application/x-amz-json-1.1" })
      return res.end(JSON.stringify({
        ARN: `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${SecretId}-AbCdEf`,
        Name: SecretId,
        SecretString: value,
        VersionId: "00000000-0000-4000-8000-000000000001",
        VersionStages: ["AWSCURRENT"],
        CreatedDate: 1767225600
      }))
    }
    const form = new URLSearchParams(body)
    if (form.get("Action") === "AssumeRole") {
      const refuse = (code: string, message: string) => {
        res.writeHead(403, { "content-type": "text/xml" })
        res.end(
          `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type>` +
            `<Code>${code}</Code><Message>${message}</Message></Error><RequestId>r</RequestId></ErrorResponse>`
        )
      }
      if (key !== accessKeyId) {
        return refuse("InvalidClientTokenId", "The security token included in the request is invalid.")
      }
      if (form.get("RoleArn") !== roleArn || form.get("ExternalId") !== externalId) {
        return refuse("AccessDenied", "Not authorized to perform sts:AssumeRole")
      }
      res.writeHead(200, { "content-type": "text/xml" })
      return res.end(
        `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>` +
          `<Credentials><AccessKeyId>${assumedKeyId}</AccessKeyId><SecretAccessKey>tmp-secret</SecretAccessKey>` +
          `<SessionToken>tmp-session</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>` +
          `<AssumedRoleUser><Arn>${roleArn}/gateway-control</Arn><AssumedRoleId>AROA:gateway-control</AssumedRoleId>` +
          `</AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>` +
          `</AssumeRoleResponse>`
      )
    }
    res.writeHead(400, { "content-type": "application/json" })
    res.end(JSON.stringify({ __type: "UnknownOperationException" }))
  })
  return listen(server, received).then((fake) => ({
    ...fake,
    accessKeyId,
    secretAccessKey,
    roleArn,
    externalId,
    assumedKeyId
  }))
}

export interface FakeAzure extends FakeServer {
  readonly tenantId: string
  readonly clientId: string
  readonly clientSecret: string
}

/**
 * Microsoft Entra's token endpoint (`POST /<tenant>/oauth2/v2.0/token`, the client-credentials grant for scope
 * `https://vault.azure.net/.default`) and a Key Vault (`GET /secrets/<name>?api-version=7.4` with the bearer
 * token, answering `{"value", "id", "attributes"}`), on one server.
 */
export const startFakeAzure = (secrets: Record<string, string>): Promise<FakeAzure> => {
  const received: Array<Received> = []
  const tenantId = randomBytes(8).toString("hex")
  const clientId = randomBytes(8).toString("hex")
  const clientSecret = randomBytes(16).toString("base64")
  const tokens: Array<string> = []
  const server = createServer(async (req, res) => {
    const body = await readBody(req)
    received.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body })
    const answer = (status: number, json: unknown) => {
      res.writeHead(status, { "content-type": "application/json" })
      res.end(JSON.stringify(json))
    }
    const [path, search] = (req.url ?? "").split("?")
    if (req.method === "POST" && path === `/${tenantId}/oauth2/v2.0/token`) {
      const form = new URLSearchParams(body)
      if (
        form.get("grant_type") !== "client_credentials" || form.get("client_id") !== clientId ||
        form.get("client_secret") !== clientSecret || form.get("scope") !== "https://vault.azure.net/.default"
      ) {
        return answer(401, { error: "invalid_client", error_description: "AADSTS7000215: Invalid client secret." })
      }
      const token = randomBytes(16).toString("hex")
      tokens.push(token)
      return answer(200, { token_type: "Bearer", expires_in: 3599, access_token: token })
    }
    const read = /^\/secrets\/([^/]+)$/.exec(path ?? "")
    if (req.method === "GET" && read !== null && new URLSearchParams(search).get("api-version") === "7.4") {
      if (!tokens.includes((req.headers.authorization ?? "").replace(/^Bearer /, ""))) {
        return answer(401, { error: { code: "Unauthorized", message: "AKV10000: Request is missing a Bearer token." } })
      }
      const value = secrets[decodeURIComponent(read[1]!)]
      if (value === undefined) {
        return answer(404, {
          error: { code: "SecretNotFound", message: `A secret with (name/id) ${read[1]} was not found.` }
        })
      }
      return answer(200, { value, id: `https://vault/secrets/${read[1]}/1`, attributes: { enabled: true } })
    }
    return answer(404, { error: { code: "NotFound", message: "Not found." } })
  })
  return listen(server, received).then((fake) => ({ ...fake, tenantId, clientId, clientSecret }))
}
