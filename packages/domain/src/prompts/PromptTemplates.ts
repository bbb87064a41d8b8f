/**
 * Prompt templates as a principal manages them: create, add versions, publish, label, read, list and delete.
 * Every saved version is checked to render, so that a render fails only for what its request gives.
 */
import { Effect, Option } from "effect"
import { grantedWrites } from "../access/GrantedWrites.ts"
import type { Principal } from "../access/Principal.ts"
import { InvalidRequest, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import { BUILT_IN_LABELS } from "./Label.ts"
import type { Labels } from "./Labels.ts"
import { checkRequest, NULL_MEANS_DEFAULT } from "./ModelRequest.ts"
import { noEscape, type RenderOptions, stepBudget } from "./Mustache.ts"
import { Prompt, PromptLabel, PromptStore, type PromptType, PromptVersion } from "./Prompt.ts"
import type { PromptInput } from "./PromptInputs.ts"
import type { RenderCache } from "./RenderCache.ts"
import { compileVersion, parseMessages, renderValue } from "./TemplateCompiler.ts"
import { allowed, type TemplateResources, validateName, validateTemplateText } from "./TemplateResources.ts"

export type { PromptInput } from "./PromptInputs.ts"

export interface PromptDetails {
  readonly prompt: Prompt
  readonly versions: ReadonlyArray<PromptVersion>
  readonly labels: ReadonlyArray<PromptLabel>
}

/** A version with the names of the labels that point at it. */
export interface PromptVersionView {
  readonly version: PromptVersion
  readonly labels: ReadonlyArray<string>
}

/**
 * The probe renders a chat template against no data and no partials: no section can iterate over a list, so
 * its work is bounded by the template's size and needs no step limit.
 */
const probeOptions: RenderOptions = { escape: noEscape }

/** A chat template's messages hold at least one whose content is text that is not blank, or parts. */
const hasMessageWithContent = (string: string) =>
  (parseMessages(string) ?? []).some((message) => {
    const content = (message as { readonly content?: unknown }).content
    return typeof content === "string" ? content.trim() !== "" : Array.isArray(content) && content.length > 0
  })

/**
 * Saved parameters must make a body that can render: checked now, with a stand-in template. A prompt names its
 * model (`model`, or `parameters.model`), and a chat template has a message with content.
 */
const checkSaved = Effect.fnUntraced(function*(
  what: string,
  version: Pick<PromptVersion, "string" | "parameters" | "model" | "type" | "is_raw_template">
) {
  const compiled = yield* compileVersion(what, version)
  const probe: Record<string, unknown> = { ...version.parameters }
  delete probe.stream
  delete probe.stream_options
  probe.model = version.model ?? (typeof probe.model === "string" ? probe.model : "model-chosen-at-render")
  for (const key of NULL_MEANS_DEFAULT) if (probe[key] === null) delete probe[key]
  if (compiled.kind === "chat") {
    probe.messages = compiled.raw
      ? [{ role: "user", content: "" }]
      : renderValue(compiled.messages!, {}, probeOptions, { length: 0, budget: stepBudget(probeOptions) })
  } else {
    probe.prompt = ""
  }
  const { violation } = checkRequest(compiled.kind, probe)
  if (violation !== undefined) {
    const param = violation.param.startsWith("messages") ? "string" : `parameters.${violation.param}`
    return yield* InvalidRequest.of(`${what} could never render: ${violation.message}`, param)
  }
  const savedModel = version.model ?? version.parameters.model
  if (typeof savedModel !== "string" || savedModel.trim() === "") {
    return yield* InvalidRequest.of(
      `${what} needs a model: give model, or parameters.model (a render may still choose another).`,
      "model"
    )
  }
  if (compiled.kind === "chat" && !compiled.raw && !hasMessageWithContent(version.string)) {
    return yield* InvalidRequest.of(`${what} needs at least one message with content.`, "string")
  }
})

/** Portkey's version fields that go beside `parameters`; they are saved in them. */
const PARAMETER_FIELDS = ["functions", "tools", "tool_choice"] as const

/**
 * The parameters a new version saves: those given (else `base`), with Portkey's `functions`, `tools` and
 * `tool_choice` put in; one given both there and in `parameters`, with two values, is refused by name.
 */
const savedParameters = (input: PromptInput, base: Record<string, unknown>) =>
  Effect.gen(function*() {
    const parameters: Record<string, unknown> = input.parameters === undefined ? { ...base } : { ...input.parameters }
    for (const field of PARAMETER_FIELDS) {
      const value = input[field]
      if (value === undefined) continue
      const inParameters = input.parameters?.[field]
      if (inParameters !== undefined && JSON.stringify(inParameters) !== JSON.stringify(value)) {
        return yield* InvalidRequest.of(`${field} is given twice (also in parameters), with two values.`, field)
      }
      parameters[field] = value
    }
    return parameters
  })

/** `template_metadata`, or Portkey's `prompt_metadata` (an update's name for it); two values are refused. */
const templateMetadataOf = (input: PromptInput) =>
  input.template_metadata !== undefined && input.prompt_metadata !== undefined &&
    JSON.stringify(input.template_metadata) !== JSON.stringify(input.prompt_metadata)
    ? Effect.fail(
      InvalidRequest.of("prompt_metadata and template_metadata are given with two values.", "prompt_metadata")
    )
    : Effect.succeed(input.template_metadata ?? input.prompt_metadata)

/** `is_raw_template` as a boolean (Portkey's update sends 0 or 1). */
const rawOf = (value: PromptInput["is_raw_template"]) => value === undefined ? undefined : value === true || value === 1

/** The fields of an update that make a new version; an update with none of them changes the prompt only. */
const VERSION_FIELDS = [
  "string",
  "parameters",
  "model",
  "type",
  "is_raw_template",
  "template_metadata",
  "prompt_metadata",
  "version_description",
  "virtual_key",
  ...PARAMETER_FIELDS
] as const

const detectType = (input: PromptInput): PromptType =>
  input.type ?? (input.string !== undefined && parseMessages(input.string) !== undefined ? "chat" : "completion")

export const makePromptTemplates = (
  resources: TemplateResources,
  { promptChanged }: RenderCache,
  { ensureLabelFor, labelForPrompt }: Pick<Labels, "ensureLabelFor" | "labelForPrompt">
) =>
  Effect.gen(function*() {
    const prompts = grantedWrites(yield* PromptStore, {
      insert: "prompts.create",
      addVersion: "prompts.update",
      update: "prompts.update",
      setPublished: "prompts.publish",
      // Creating a prompt sets its built-in labels; publishing moves a label.
      setLabel: ["prompts.create", "prompts.publish"],
      delete: "prompts.delete"
    })
    const crypto = yield* PlatformCrypto
    const { collectionInWorkspace, existingVersion, findPrompt, listPlace, newResource } = resources

    const create = Effect.fn("Prompts.create")(function*(principal: Principal, input: PromptInput) {
      const { creating, fields } = yield* newResource(principal, input)
      const prompt = new Prompt(fields)
      const now = prompt.created_at
      const version = new PromptVersion({
        id: crypto.uuid(),
        prompt_id: prompt.id,
        version: 1,
        string: input.string!,
        parameters: yield* savedParameters(input, {}),
        model: input.model ?? null,
        type: detectType(input),
        is_raw_template: rawOf(input.is_raw_template) ?? false,
        version_description: input.version_description ?? null,
        template_metadata: { ...input.template_metadata },
        virtual_key: input.virtual_key ?? null,
        created_at: now
      })
      yield* checkSaved(`prompt '${prompt.slug}'`, version)
      yield* prompts.insert(creating, prompt, version)
      yield* promptChanged(prompt.id)
      for (const label of BUILT_IN_LABELS) {
        yield* prompts.setLabel(
          creating,
          new PromptLabel({ prompt_id: prompt.id, label, version: 1, last_updated_at: now })
        )
      }
      return Object.assign(version, { slug: prompt.slug })
    })

    /**
     * Changes a prompt: `name` and `collection_id` (another collection of its workspace) change the prompt
     * itself; any version field adds a new, unpublished version, taking what it leaves out from the newest.
     */
    const update = Effect.fn("Prompts.update")(function*(principal: Principal, promptId: string, input: PromptInput) {
      const prompt = yield* findPrompt(principal, promptId)
      const updating = yield* allowed(principal, "prompts.update", prompt)
      if (input.workspace_id !== undefined && input.workspace_id !== prompt.workspace_id) {
        return yield* InvalidRequest.of("A prompt cannot move to another workspace.", "workspace_id")
      }
      if (input.patch === false) {
        return yield* InvalidRequest.of(
          "patch: false is not supported by this gateway: an update always takes the version fields it leaves out from the newest version (patch: true). Leave it out.",
          "patch"
        )
      }
      if (input.name !== undefined) yield* validateName(input.name)
      if (input.string !== undefined) yield* validateTemplateText(input.string)
      const collection = input.collection_id === undefined
        ? undefined
        : yield* collectionInWorkspace(principal, prompt, input.collection_id)
      const now = yield* nowIso
      const moved = collection !== undefined && collection.id !== prompt.collection_id
      const changed = input.name !== undefined || moved
        ? new Prompt({
          ...prompt,
          name: input.name?.trim() ?? prompt.name,
          collection_id: collection?.id ?? prompt.collection_id,
          last_updated_at: now
        })
        : prompt
      const latest = Option.getOrThrow(yield* prompts.latestVersion(prompt.id))
      const versioned = VERSION_FIELDS.some((field) => input[field] !== undefined)
      if (!versioned && (input.name !== undefined || collection !== undefined)) {
        if (changed !== prompt) yield* prompts.update(updating, changed)
        return { prompt: changed, version: latest }
      }
      const string = input.string ?? latest.string
      const templateMetadata = yield* templateMetadataOf(input)
      const version = new PromptVersion({
        id: crypto.uuid(),
        prompt_id: prompt.id,
        version: latest.version + 1,
        string,
        parameters: yield* savedParameters(input, latest.parameters),
        model: input.model ?? latest.model,
        type: input.type ?? (input.string === undefined ? latest.type : detectType({ string })),
        is_raw_template: rawOf(input.is_raw_template) ?? latest.is_raw_template,
        version_description: input.version_description ?? null,
        template_metadata: templateMetadata === undefined ? latest.template_metadata : { ...templateMetadata },
        virtual_key: input.virtual_key === undefined ? latest.virtual_key : input.virtual_key,
        created_at: now
      })
      yield* checkSaved(`prompt '${prompt.slug}'`, version)
      if (changed !== prompt) yield* prompts.update(updating, changed)
      yield* prompts.addVersion(updating, version)
      yield* promptChanged(prompt.id)
      return { prompt: changed, version }
    })

    const publish = Effect.fn("Prompts.publish")(function*(principal: Principal, promptId: string, version: number) {
      const prompt = yield* findPrompt(principal, promptId)
      const publishing = yield* allowed(principal, "prompts.publish", prompt)
      yield* existingVersion(prompt, version)
      const now = yield* nowIso
      yield* prompts.setPublished(publishing, prompt.id, version, now)
      yield* promptChanged(prompt.id)
      return new Prompt({ ...prompt, published_version: version, last_updated_at: now })
    })

    /** Points the label named `label` at the version: one the prompt's workspace has, else a new one there. */
    const setLabel = Effect.fn("Prompts.setLabel")(
      function*(principal: Principal, promptId: string, label: string, version: number) {
        const prompt = yield* findPrompt(principal, promptId)
        const publishing = yield* allowed(principal, "prompts.publish", prompt)
        yield* existingVersion(prompt, version)
        yield* ensureLabelFor(publishing, prompt, label)
        const record = new PromptLabel({ prompt_id: prompt.id, label, version, last_updated_at: yield* nowIso })
        yield* prompts.setLabel(publishing, record)
        yield* promptChanged(prompt.id)
        return record
      }
    )

    /** The versions with the labels pointing at each. */
    const viewsOf = Effect.fnUntraced(function*(prompt: Prompt, versions: ReadonlyArray<PromptVersion>) {
      const pointers = yield* prompts.labels(prompt.id)
      return versions.map((version): PromptVersionView => ({
        version,
        labels: pointers.filter((p) => p.version === version.version).map((p) => p.label)
      }))
    })

    /** The version `versionRef` names: its id, or its number. */
    const versionOf = Effect.fnUntraced(function*(prompt: Prompt, versionRef: string) {
      const versions = yield* prompts.versions(prompt.id)
      return yield* requireRow(
        Option.fromUndefinedOr(versions.find((v) => v.id === versionRef || String(v.version) === versionRef)),
        `version of prompt '${prompt.slug}'`,
        versionRef
      )
    })

    const listVersions = Effect.fn("Prompts.listVersions")(function*(principal: Principal, promptId: string) {
      const prompt = yield* findPrompt(principal, promptId)
      yield* allowed(principal, "prompts.read", prompt)
      return yield* viewsOf(prompt, yield* prompts.versions(prompt.id))
    })

    const getVersion = Effect.fn("Prompts.getVersion")(
      function*(principal: Principal, promptId: string, versionRef: string) {
        const prompt = yield* findPrompt(principal, promptId)
        yield* allowed(principal, "prompts.read", prompt)
        return (yield* viewsOf(prompt, [yield* versionOf(prompt, versionRef)]))[0]
      }
    )

    /** Points the label `labelId` names (one the prompt's workspace has) at the version. */
    const setVersionLabel = Effect.fn("Prompts.setVersionLabel")(
      function*(principal: Principal, promptId: string, versionRef: string, labelId: string) {
        const prompt = yield* findPrompt(principal, promptId)
        const publishing = yield* allowed(principal, "prompts.publish", prompt)
        const version = yield* versionOf(prompt, versionRef)
        const label = yield* labelForPrompt(principal, prompt, labelId)
        yield* prompts.setLabel(
          publishing,
          new PromptLabel({
            prompt_id: prompt.id,
            label: label.name,
            version: version.version,
            last_updated_at: yield* nowIso
          })
        )
        yield* promptChanged(prompt.id)
        return (yield* viewsOf(prompt, [version]))[0]
      }
    )

    const get = Effect.fn("Prompts.get")(function*(principal: Principal, promptId: string, workspaceId?: string) {
      const prompt = yield* findPrompt(principal, promptId, workspaceId)
      yield* allowed(principal, "prompts.read", prompt)
      const details: PromptDetails = {
        prompt,
        versions: yield* prompts.versions(prompt.id),
        labels: yield* prompts.labels(prompt.id)
      }
      return details
    })

    /** A page of the prompts where the list looks; with `search`, those whose name or slug holds it (any case). */
    const list = Effect.fn("Prompts.list")(
      function*(
        principal: Principal,
        workspaceId: string | undefined,
        page: PageRequest,
        collectionId?: string,
        search?: string
      ) {
        const place = yield* listPlace(principal, workspaceId, collectionId, "prompts.list")
        const term = search?.trim().toLowerCase()
        return yield* prompts.list(
          principal.organisationId,
          place.scope,
          page,
          place.collectionId,
          term === undefined || term === "" ? undefined : term
        )
      }
    )

    const remove = Effect.fn("Prompts.remove")(function*(principal: Principal, promptId: string) {
      const prompt = yield* findPrompt(principal, promptId)
      const deleting = yield* allowed(principal, "prompts.delete", prompt)
      yield* prompts.delete(deleting, prompt.id)
      yield* promptChanged(prompt.id)
      return prompt
    })

    return { create, update, publish, setLabel, listVersions, getVersion, setVersionLabel, get, list, remove }
  })
