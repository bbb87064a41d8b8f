/**
 * Labels as a principal manages them (create, read, list, rename, delete), and as prompts use them: a prompt's
 * pointer names a label its workspace has (its own, the organisation's, or a built-in one).
 *
 * A name is unique among the labels any one workspace has: an organisation label's name is taken in every
 * workspace. So a pointer's name means one label, and a label's rename or deletion reaches exactly the
 * pointers that meant it.
 */
import { Effect, Option, Schema } from "effect"
import { OrganisationStore, WorkspaceStore } from "../access/AccessStores.ts"
import { grantedWrites } from "../access/GrantedWrites.ts"
import { type AccessGrant, ensureAllowed, ensureListScope, Target } from "../access/Policy.ts"
import type { Principal } from "../access/Principal.ts"
import { Conflict, type Forbidden, InvalidRequest, type NotFound, requireRow } from "../shared/Errors.ts"
import { nowIso } from "../shared/internal/time.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import { PlatformCrypto } from "../shared/PlatformCrypto.ts"
import type { StoreError } from "../shared/StoreError.ts"
import {
  BUILT_IN_LABELS,
  ColorCode,
  Label,
  type LabelChange,
  type LabelInput,
  LabelName,
  labelRequirement,
  LabelStore
} from "./Label.ts"
import { type Prompt, PromptStore } from "./Prompt.ts"
import type { RenderCache } from "./RenderCache.ts"

export type { LabelChange, LabelInput } from "./Label.ts"

type Failure = InvalidRequest | Forbidden | NotFound | StoreError

const isBuiltIn = (name: string): boolean => (BUILT_IN_LABELS as ReadonlyArray<string>).includes(name)
const isLabelName = Schema.is(LabelName)
const isColorCode = Schema.is(ColorCode)

/** Who may see a label: an organisation label is open to every workspace. */
const targetOf = (label: Label): Target =>
  label.workspace_id === null
    ? Target.shared(label.organisation_id, "every-workspace")
    : Target.workspace(label.organisation_id, label.workspace_id)

/** The actions that change labels, by level: organisation labels are admin keys' to change. */
const ACTIONS = {
  organisation: {
    create: "labels.create.organisation",
    update: "labels.update.organisation",
    delete: "labels.delete.organisation"
  },
  workspace: { create: "labels.create.workspace", update: "labels.update.workspace", delete: "labels.delete.workspace" }
} as const

const levelOf = (workspaceId: string | null) => workspaceId === null ? ACTIONS.organisation : ACTIONS.workspace

const checkFields = (change: LabelChange) => {
  if (change.name !== undefined && !isLabelName(change.name)) {
    return Effect.fail(InvalidRequest.of(labelRequirement("name"), "name"))
  }
  if (change.color_code !== undefined && change.color_code !== null && !isColorCode(change.color_code)) {
    return Effect.fail(InvalidRequest.of("color_code must be a colour as #rrggbb.", "color_code"))
  }
  return Effect.void
}

export const makeLabels = ({ labelChanged }: RenderCache) =>
  Effect.gen(function*() {
    const labels = grantedWrites(yield* LabelStore, {
      // A prompt's pointer may name a label that does not exist yet: publishing creates it in the prompt's workspace.
      insert: ["labels.create.organisation", "labels.create.workspace", "prompts.publish"],
      update: ["labels.update.organisation", "labels.update.workspace"],
      delete: ["labels.delete.organisation", "labels.delete.workspace"]
    })
    const pointers = grantedWrites(yield* PromptStore, {
      renameLabel: ["labels.update.organisation", "labels.update.workspace"],
      removeLabel: ["labels.delete.organisation", "labels.delete.workspace"]
    })
    const organisations = yield* OrganisationStore
    const workspaces = yield* WorkspaceStore
    const crypto = yield* PlatformCrypto

    /** The built-in label as the organisation has it: it has been there as long as the organisation. */
    const builtIn = Effect.fnUntraced(function*(organisationId: string, name: string) {
      const organisation = yield* requireRow(yield* organisations.get(organisationId), "organisation", organisationId)
      return new Label({
        id: name,
        organisation_id: organisation.id,
        workspace_id: null,
        name,
        description: "Built in: every organisation has it, and every new prompt points it at version 1.",
        color_code: null,
        created_at: organisation.created_at,
        last_updated_at: organisation.created_at
      })
    })

    /** `Conflict` unless `name` is free where a label of the workspace (null: the organisation) would be. */
    const ensureNameFree = Effect.fnUntraced(
      function*(organisationId: string, workspaceId: string | null, name: string, except?: string) {
        const clash = isBuiltIn(name) ||
          (yield* labels.withName(organisationId, name)).some((other) =>
            other.id !== except &&
            (workspaceId === null || other.workspace_id === null || other.workspace_id === workspaceId)
          )
        if (clash) {
          return yield* new Conflict({
            message: `A label named '${name}' already exists where this label would be.`,
            param: "name"
          })
        }
      }
    )

    /** Where a new label goes: the policy's grant to create it there, and its workspace (null: organisation). */
    const placement = Effect.fnUntraced(function*(principal: Principal, input: LabelInput) {
      if (input.workspace_id !== undefined || input.organisation_id === undefined) {
        const id = input.workspace_id ?? principal.workspaceId
        if (id === null) {
          return yield* InvalidRequest.of(
            "workspace_id or organisation_id is required with an admin key.",
            "workspace_id"
          )
        }
        const workspace = yield* requireRow(yield* workspaces.get(id), "workspace", id)
        const target = Target.workspace(workspace.organisation_id, workspace.id)
        const creating = yield* ensureAllowed(principal, ACTIONS.workspace.create, target, { type: "workspace", id })
        return { creating, organisationId: workspace.organisation_id, workspaceId: workspace.id as string | null }
      }
      const id = input.organisation_id
      const target = Target.organisation(id)
      const creating = yield* ensureAllowed(principal, ACTIONS.organisation.create, target, {
        type: "organisation",
        id
      })
      return { creating, organisationId: id, workspaceId: null }
    })

    const createLabel = Effect.fn("Prompts.createLabel")(function*(principal: Principal, input: LabelInput) {
      const { creating, organisationId, workspaceId } = yield* placement(principal, input)
      yield* checkFields(input)
      yield* ensureNameFree(organisationId, workspaceId, input.name)
      const now = yield* nowIso
      const label = new Label({
        id: crypto.uuid(),
        organisation_id: organisationId,
        workspace_id: workspaceId,
        name: input.name,
        description: input.description ?? null,
        color_code: input.color_code ?? null,
        created_at: now,
        last_updated_at: now
      })
      yield* labels.insert(creating, label)
      return label
    })

    /** The label `id` names (a built-in one's id is its name) and the policy's grant of reading it. */
    const readable = Effect.fnUntraced(function*(principal: Principal, id: string) {
      const label = isBuiltIn(id)
        ? yield* builtIn(principal.organisationId, id)
        : yield* requireRow(yield* labels.get(id), "label", id)
      yield* ensureAllowed(principal, "labels.read", targetOf(label), { type: "label", id })
      return label
    })

    const getLabel = Effect.fn("Prompts.getLabel")(function*(principal: Principal, id: string) {
      return yield* readable(principal, id)
    })

    /**
     * Built-in labels first, then the stored ones, paged as one list; with `search` (trimmed; blank is none), only
     * the labels whose name holds it, in any case: the few built-in ones here, the stored ones by the store.
     */
    const listLabels = Effect.fn("Prompts.listLabels")(
      function*(principal: Principal, workspaceId: string | undefined, page: PageRequest, search?: string) {
        const scope = yield* ensureListScope(workspaces, principal, workspaceId, "labels.list")
        const term = search?.trim() === "" ? undefined : search?.trim()
        const builtIns = (yield* Effect.forEach(BUILT_IN_LABELS, (name) => builtIn(principal.organisationId, name)))
          .filter((label) => term === undefined || label.name.toLowerCase().includes(term.toLowerCase()))
        const first = builtIns.slice(page.offset, page.offset + page.limit)
        const rest = page.limit - first.length
        const stored = yield* labels.list(principal.organisationId, scope, {
          limit: Math.max(rest, 1),
          offset: Math.max(page.offset - builtIns.length, 0)
        }, term)
        const listed: Page<Label> = {
          items: [...first, ...stored.items.slice(0, rest)],
          total: builtIns.length + stored.total
        }
        return listed
      }
    )

    /** A stored label and the grant of changing it; a built-in one is refused once the policy allows the change. */
    const changeable = Effect.fnUntraced(
      function*<V extends "update" | "delete">(principal: Principal, id: string, verb: V) {
        if (isBuiltIn(id)) {
          yield* ensureAllowed(principal, ACTIONS.organisation[verb], Target.organisation(principal.organisationId), {
            type: "label",
            id
          })
          return yield* InvalidRequest.of(
            `'${id}' is a built-in label: it cannot be renamed, changed or deleted.`,
            verb === "update" ? "name" : null
          )
        }
        const label = yield* requireRow(yield* labels.get(id), "label", id)
        const action: (typeof ACTIONS)[keyof typeof ACTIONS][V] = levelOf(label.workspace_id)[verb]
        const granted = yield* ensureAllowed(principal, action, targetOf(label), {
          type: "label",
          id
        })
        return { granted, label }
      }
    )

    const updateLabel = Effect.fn("Prompts.updateLabel")(
      function*(principal: Principal, id: string, change: LabelChange) {
        const { granted, label } = yield* changeable(principal, id, "update")
        yield* checkFields(change)
        const renamed = change.name !== undefined && change.name !== label.name
        if (renamed) yield* ensureNameFree(label.organisation_id, label.workspace_id, change.name!, label.id)
        const updated = new Label({
          ...label,
          name: change.name ?? label.name,
          description: change.description === undefined ? label.description : change.description,
          color_code: change.color_code === undefined ? label.color_code : change.color_code,
          last_updated_at: yield* nowIso
        })
        yield* labels.update(granted, updated)
        if (renamed) {
          yield* pointers.renameLabel(granted, label.organisation_id, label.workspace_id, label.name, updated.name)
          yield* labelChanged(label.organisation_id, label.workspace_id)
        }
        return updated
      }
    )

    const deleteLabel = Effect.fn("Prompts.deleteLabel")(function*(principal: Principal, id: string) {
      const { granted, label } = yield* changeable(principal, id, "delete")
      yield* labels.delete(granted, label.id)
      yield* pointers.removeLabel(granted, label.organisation_id, label.workspace_id, label.name)
      yield* labelChanged(label.organisation_id, label.workspace_id)
      return label
    })

    /** The label named `name` that the prompt's workspace has, if any. */
    const labelOf = Effect.fnUntraced(function*(prompt: Prompt, name: string) {
      if (isBuiltIn(name)) return Option.some(yield* builtIn(prompt.organisation_id, name))
      const named = yield* labels.withName(prompt.organisation_id, name)
      return Option.fromUndefinedOr(
        named.find((label) => label.workspace_id === null || label.workspace_id === prompt.workspace_id)
      )
    })

    /** Before a pointer names `name`: the label, created in the prompt's workspace when it has none so named. */
    const ensureLabelFor = Effect.fnUntraced(
      function*(publishing: AccessGrant<"prompts.publish">, prompt: Prompt, name: string) {
        if (!isLabelName(name)) return yield* InvalidRequest.of(labelRequirement("label"), "label")
        const found = yield* labelOf(prompt, name)
        if (Option.isSome(found)) return found.value
        const now = yield* nowIso
        const label = new Label({
          id: crypto.uuid(),
          organisation_id: prompt.organisation_id,
          workspace_id: prompt.workspace_id,
          name,
          description: null,
          color_code: null,
          created_at: now,
          last_updated_at: now
        })
        // A request creating the same label meanwhile makes this one a Conflict, to retry.
        yield* labels.insert(publishing, label)
        return label
      }
    )

    /** The label `id` names, which the principal may read and the prompt's workspace has. */
    const labelForPrompt = Effect.fnUntraced(function*(principal: Principal, prompt: Prompt, id: string) {
      const label = yield* readable(principal, id)
      if (
        label.organisation_id !== prompt.organisation_id ||
        (label.workspace_id !== null && label.workspace_id !== prompt.workspace_id)
      ) {
        return yield* InvalidRequest.of(
          `Label '${label.name}' belongs to another workspace than prompt '${prompt.slug}'.`,
          "label_id"
        )
      }
      return label
    })

    return {
      service: { createLabel, getLabel, listLabels, updateLabel, deleteLabel },
      ensureLabelFor,
      labelForPrompt
    }
  })

export type Labels = Effect.Success<ReturnType<typeof makeLabels>>
export type LabelFailure = Failure | Conflict
