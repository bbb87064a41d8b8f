/**
 * Hostile answers of upstream servers, for fuzzing what the gateway does with them: an MCP server's lists and
 * error pages (HostileMcpServer.ts) and a provider's fine-tuning job list (HostileProvider below). Built from
 * the same hostile values as the request mutations (HostileValues.ts), plus control characters in names, each
 * with a label so that a failure says what the upstream sent.
 */
import fc from "fast-check"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import type { HostileBehaviour } from "../HostileMcpServer.ts"
import {
  hostileString,
  hostileStructure,
  type JsonNode,
  type Labelled,
  leaf,
  raw,
  toNode,
  writeJson
} from "./HostileValues.ts"
import { type Answer, problemWith } from "./RawHttp.ts"

const labelled = <A>(label: string, value: A): Labelled<A> => ({ label, value })

/** Names a terminal, a log line or a store would trip on. */
const controlName = fc.constantFrom(
  labelled("ANSI escape in a name", "tool\u001b[31mred\u001b[0m"),
  labelled("C0 controls in a name", "a\u0001\u0002\u0007\u0008b"),
  labelled("DEL and C1 in a name", "x\u007f\u0085\u009fy"),
  labelled("newline and tab in a name", "line\nbreak\ttab\r")
)

/** A string for a name: hostile text, control characters, or a plain one. */
const hostileName: fc.Arbitrary<Labelled<string>> = fc.oneof(
  { weight: 3, arbitrary: hostileString },
  { weight: 1, arbitrary: controlName },
  { weight: 1, arbitrary: fc.constant(labelled("plain", "plain")) }
)

/** Any value where a string belongs: hostile text mostly, sometimes a wrong type or structure. */
const hostileField: fc.Arbitrary<Labelled<JsonNode>> = fc.oneof(
  { weight: 3, arbitrary: hostileName.map(({ label, value }) => labelled(label, leaf(value))) },
  { weight: 1, arbitrary: hostileStructure }
)

const object = (entries: ReadonlyArray<readonly [string, JsonNode]>): JsonNode => ({ _tag: "Object", entries })

/** An input schema: an object schema with hostile keys and values, or a hostile structure in its place. */
const hostileSchema: fc.Arbitrary<Labelled<JsonNode>> = fc.oneof(
  fc.tuple(hostileName, hostileField).map(([key, value]) =>
    labelled(
      `schema with property ${key.label}: ${value.label}`,
      object([["type", leaf("object")], ["properties", object([[key.value, value.value]])]])
    )
  ),
  hostileStructure.map(({ label, value }) =>
    labelled(`schema with properties ${label}`, object([["type", leaf("object")], ["properties", value]]))
  ),
  hostileStructure.map(({ label, value }) => labelled(`schema ${label}`, value))
)

/** One listed tool, prompt, resource or template, with hostile fields. */
const hostileItem = (list: string) =>
  fc.tuple(hostileField, hostileField, hostileSchema).map(([name, description, schema]) => {
    const key = list === "tools/list" ? "name" : list === "prompts/list" ? "name" : list === "resources/list"
      ? "uri"
      : "uriTemplate"
    const entries: Array<readonly [string, JsonNode]> = [[key, name.value], ["name", name.value], [
      "description",
      description.value
    ]]
    if (list === "tools/list") entries.push(["inputSchema", schema.value])
    if (list === "prompts/list") {
      entries.push(["arguments", {
        _tag: "Array",
        items: [object([["name", name.value], ["description", description.value]])]
      }])
    }
    return labelled(
      `{${key}: ${name.label}, description: ${description.label}, schema: ${schema.label}}`,
      object(entries)
    )
  })

const LISTS = {
  "tools/list": "tools",
  "prompts/list": "prompts",
  "resources/list": "resources",
  "resources/templates/list": "resourceTemplates"
} as const

/** The `result` of one list method: hostile items, a wrong type for the list, or a hostile cursor. */
const hostileResult = (method: keyof typeof LISTS): fc.Arbitrary<Labelled<string>> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.array(hostileItem(method), { minLength: 1, maxLength: 3 }).map((items) =>
        labelled(
          `${method}: [${items.map((i) => i.label).join(", ")}]`,
          writeJson(object([[LISTS[method], { _tag: "Array", items: items.map((i) => i.value) }]]))
        )
      )
    },
    {
      weight: 1,
      arbitrary: hostileStructure.map(({ label, value }) =>
        labelled(`${method}: list is ${label}`, writeJson(object([[LISTS[method], value]])))
      )
    },
    {
      weight: 1,
      arbitrary: hostileString.map(({ label, value }) =>
        labelled(
          `${method}: cursor ${label}`,
          writeJson(object([[LISTS[method], toNode([])], ["nextCursor", leaf(value)]]))
        )
      )
    }
  )

/** Text that is not the JSON-RPC answer at all. */
const brokenAnswer = fc.constantFrom(
  labelled("invalid JSON", "{\"jsonrpc\":\"2.0\",\"id\":"),
  labelled("not JSON", "<html>\u0000</html>"),
  labelled("JSON of the wrong type", "[1,2,3]"),
  labelled(
    "an error with a hostile message",
    "{\"jsonrpc\":\"2.0\",\"id\":1,\"error\":{\"code\":-1,\"message\":\"bad\\u0000\\ud800\"}}"
  ),
  labelled("deep JSON", `${"[".repeat(10_000)}${"]".repeat(10_000)}`)
)

/** What a hostile MCP server answers, for a sync, a test and a health check. */
export const hostileMcpBehaviour: fc.Arbitrary<Labelled<HostileBehaviour>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(...(Object.keys(LISTS) as Array<keyof typeof LISTS>)).chain((method) =>
      hostileResult(method).map(({ label, value }) => labelled(label, { results: { [method]: value } }))
    )
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom("tools/list", "resources/list"), brokenAnswer).map(([method, answer]) =>
      labelled(`${method} answers ${answer.label}`, { answers: { [method]: answer.value } })
    )
  },
  {
    weight: 2,
    arbitrary: fc.tuple(fc.constantFrom(400, 404, 500, 503), hostileName).map(([status, body]) =>
      labelled(`every request fails ${status} with ${body.label}`, { failWith: { status, body: body.value } })
    )
  }
)

/** A fine-tuning job with one hostile field. */
const hostileJob = fc.tuple(
  fc.constantFrom("id", "model", "status", "fine_tuned_model", "hyperparameters", "error", "user_provided_suffix"),
  hostileField
).map(([field, value]) => {
  const base: ReadonlyArray<readonly [string, JsonNode]> = [
    ["id", leaf("ftjob-1")],
    ["object", leaf("fine_tuning.job")],
    ["status", leaf("succeeded")]
  ]
  return labelled(
    `job with ${field}: ${value.label}`,
    object([...base.filter(([key]) => key !== field), [field, value.value]])
  )
})

/** A provider's answer: its status, content type and raw body. */
export interface ProviderAnswer {
  readonly status: number
  readonly contentType: string
  readonly body: string
}

/** What a hostile provider answers to `GET /fine_tuning/jobs`: hostile jobs, a wrong shape, or no JSON at all. */
export const hostileProviderAnswer: fc.Arbitrary<Labelled<ProviderAnswer>> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.array(hostileJob, { minLength: 1, maxLength: 3 }).map((jobs) =>
      labelled(jobs.map((j) => j.label).join(", "), {
        status: 200,
        contentType: "application/json",
        body: writeJson(
          object([["object", leaf("list")], ["data", { _tag: "Array", items: jobs.map((j) => j.value) }], [
            "has_more",
            leaf(false)
          ]])
        )
      })
    )
  },
  {
    weight: 1,
    arbitrary: hostileStructure.map(({ label, value }) =>
      labelled(`data is ${label}`, {
        status: 200,
        contentType: "application/json",
        body: writeJson(object([["object", leaf("list")], ["data", value], ["has_more", leaf(false)]]))
      })
    )
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      hostileString,
      fc.constant(labelled("deep JSON", raw(`${"[".repeat(10_000)}${"]".repeat(10_000)}`).text))
    ).map(({ label, value }) =>
      labelled(`body ${label}`, { status: 200, contentType: "application/json", body: value })
    )
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom(400, 401, 404, 429), hostileName).map(([status, body]) =>
      labelled(`${status} with ${body.label}`, { status, contentType: "application/json", body: body.value })
    )
  }
)

export interface HostileProvider {
  readonly baseUrl: string
  answer: ProviderAnswer
  readonly close: () => Promise<void>
}

/** A provider on 127.0.0.1 that answers every request with `answer`, whatever was asked. */
export const startHostileProvider = async (): Promise<HostileProvider> => {
  const state = {
    answer: {
      status: 200,
      contentType: "application/json",
      body: "{\"object\":\"list\",\"data\":[],\"has_more\":false}"
    }
  }
  const server = createServer((request, response) => {
    request.resume()
    response.writeHead(state.answer.status, { "content-type": state.answer.contentType }).end(state.answer.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get answer() {
      return state.answer
    },
    set answer(value: ProviderAnswer) {
      state.answer = value
    },
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(() => resolve()))
    }
  }
}

/**
 * What is wrong with the gateway's answer to a call that reached a hostile upstream: a 5xx but the 502 and 504
 * the contract gives for an upstream that cannot be used (in the envelope), or a 4xx outside the envelope but
 * a provider's own refusal passed through as it came (`passedThrough`, its status).
 */
export const upstreamProblemWith = (answer: Answer, passedThrough?: number): string | undefined => {
  if (answer.status === passedThrough) return undefined
  if (answer.status === 502 || answer.status === 504) {
    // The envelope is judged as for any refusal.
    const problem = problemWith({ ...answer, status: 400 })
    return problem === undefined ? undefined : problem.replace("answered 400", `answered ${answer.status}`)
  }
  return problemWith(answer)
}

const UNSTORABLE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/** The first string (or key) in a JSON value that a store would refuse, with where it is; undefined when none. */
export const unstorableIn = (value: unknown, path = "$"): string | undefined => {
  if (typeof value === "string") {
    return UNSTORABLE.test(value)
      ? `${path}: ${JSON.stringify(value.slice(0, 60))}`
      : undefined
  }
  if (typeof value !== "object" || value === null) return undefined
  for (const [key, inner] of Object.entries(value)) {
    if (UNSTORABLE.test(key)) return `${path}: key ${JSON.stringify(key)}`
    const found = unstorableIn(inner, `${path}.${key}`)
    if (found !== undefined) return found
  }
  return undefined
}

const deep = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`

/** The upstream answers behind past failures: tried first on every run, so that these are found every time. */
export const classicMcpBehaviours: ReadonlyArray<Labelled<HostileBehaviour>> = [
  labelled("error page with NUL", { failWith: { status: 503, body: "down\u0000" } }),
  labelled("tool named with NUL and an ANSI escape", {
    results: { "tools/list": "{\"tools\":[{\"name\":\"a\\u0000\\u001b[31m\",\"inputSchema\":{\"type\":\"object\"}}]}" }
  }),
  labelled("lone surrogate in a description", {
    results: { "prompts/list": "{\"prompts\":[{\"name\":\"p\",\"description\":\"\\ud800\"}]}" }
  }),
  labelled("10,000-deep input schema", {
    results: {
      "tools/list": `{"tools":[{"name":"deep","inputSchema":{"type":"object","properties":{"a":${deep(10_000)}}}}]}`
    }
  }),
  labelled("600,000-character resource URI", {
    results: { "resources/list": JSON.stringify({ resources: [{ uri: `file:///${"x".repeat(600_000)}`, name: "x" }] }) }
  })
]

const listing = (job: string) => `{"object":"list","data":[${job}],"has_more":false}`

export const classicProviderAnswers: ReadonlyArray<Labelled<ProviderAnswer>> = [
  labelled("job with a 10,000-deep error", {
    status: 200,
    contentType: "application/json",
    body: listing(`{"id":"ftjob-1","error":${deep(10_000)}}`)
  }),
  labelled("job with NUL and a lone surrogate", {
    status: 200,
    contentType: "application/json",
    body: listing("{\"id\":\"a\\u0000\",\"model\":\"\\ud800\"}")
  }),
  labelled("invalid JSON", { status: 200, contentType: "application/json", body: "{\"object\":" }),
  labelled("a refusal with NUL", { status: 401, contentType: "text/plain", body: "no\u0000" })
]
