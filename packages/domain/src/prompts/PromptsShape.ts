/**
 * What the prompts service offers (Prompts.ts): its queries, its render and its audited use cases
 * (PromptsUseCases.ts). Apart from both, which build it, so that neither imports the other.
 */
import type { Effect } from "effect"
import type { Principal } from "../access/Principal.ts"
import type { Conflict } from "../shared/Errors.ts"
import type { Page, PageRequest } from "../shared/Paging.ts"
import type { Label } from "./Label.ts"
import type { LabelChange, LabelFailure, LabelInput } from "./Labels.ts"
import type { Partial, PartialVersion, Prompt, PromptLabel, PromptVersion } from "./Prompt.ts"
import type { PromptDraft } from "./PromptInputs.ts"
import type { PartialChange, PartialInput } from "./PromptPartials.ts"
import type { Rendered } from "./PromptRenderer.ts"
import type { PromptDetails, PromptInput, PromptVersionView } from "./PromptTemplates.ts"
import type { Failure } from "./TemplateResources.ts"

/** Those in a workspace, or with an admin key and no workspace given, in the whole organisation. */
type ListInWorkspace<A> = (
  principal: Principal,
  workspaceId: string | undefined,
  page: PageRequest,
  /** Part of the name, any case. */
  search?: string
) => Effect.Effect<Page<A>, Failure>

/** Those of a workspace (or organisation, as `ListInWorkspace`), or of the one collection `collectionId` names. */
type ListInCollection<A> = (
  principal: Principal,
  workspaceId: string | undefined,
  page: PageRequest,
  collectionId?: string,
  /** Prompts only: part of the name or slug, any case. */
  search?: string
) => Effect.Effect<Page<A>, Failure>

/** A partial with the version a call made or read. */
interface PartialAndVersion {
  readonly partial: Partial
  readonly version: PartialVersion
}

/** A partial's reference (id, or slug in `workspaceId`, else the caller's workspace) and what is done with it. */
type OnPartial<Args extends ReadonlyArray<unknown>, A, E> = (
  principal: Principal,
  partialId: string,
  ...args: [...Args, workspaceId?: string]
) => Effect.Effect<A, E>

export interface PromptsShape {
  readonly create: (
    principal: Principal,
    input: PromptInput
  ) => Effect.Effect<PromptVersion & { readonly slug: string }, Failure | Conflict>
  readonly update: (
    principal: Principal,
    promptId: string,
    input: PromptInput
  ) => Effect.Effect<{ readonly prompt: Prompt; readonly version: PromptVersion }, Failure | Conflict>
  readonly publish: (principal: Principal, promptId: string, version: number) => Effect.Effect<Prompt, Failure>
  readonly setLabel: (
    principal: Principal,
    promptId: string,
    label: string,
    version: number
  ) => Effect.Effect<PromptLabel, Failure | Conflict>
  readonly listVersions: (
    principal: Principal,
    promptId: string
  ) => Effect.Effect<ReadonlyArray<PromptVersionView>, Failure>
  /** `versionRef` is the version's id or number. */
  readonly getVersion: (
    principal: Principal,
    promptId: string,
    versionRef: string
  ) => Effect.Effect<PromptVersionView, Failure>
  /** Points the label `labelId` names at the version. */
  readonly setVersionLabel: (
    principal: Principal,
    promptId: string,
    versionRef: string,
    labelId: string
  ) => Effect.Effect<PromptVersionView, Failure>
  /** `promptId` is an id, or a slug looked up in `workspaceId` (ResourceLookup.ts). */
  readonly get: (principal: Principal, promptId: string, workspaceId?: string) => Effect.Effect<PromptDetails, Failure>
  readonly list: ListInCollection<Prompt>
  readonly remove: (principal: Principal, promptId: string) => Effect.Effect<Prompt, Failure>
  readonly render: (
    principal: Principal,
    promptRef: string,
    body: Record<string, unknown>
  ) => Effect.Effect<Rendered, Failure>
  /** Renders an unsaved edit of the version `promptRef` names (PromptRenderer.ts). */
  readonly renderDraft: (
    principal: Principal,
    promptRef: string,
    draft: PromptDraft,
    body: Record<string, unknown>
  ) => Effect.Effect<Rendered, Failure>
  readonly createPartial: (
    principal: Principal,
    input: PartialInput
  ) => Effect.Effect<PartialAndVersion, Failure | Conflict>
  /** A new template (a new version, published), and the partial's name, description or status. */
  readonly updatePartial: OnPartial<[change: PartialChange], PartialAndVersion, Failure | Conflict>
  readonly publishPartial: OnPartial<[version: number], PartialAndVersion, Failure>
  readonly getPartial: OnPartial<[], PartialAndVersion, Failure>
  readonly listPartialVersions: OnPartial<[], ReadonlyArray<PartialVersion>, Failure>
  readonly deletePartial: OnPartial<[], Partial, Failure>
  readonly listPartials: ListInCollection<Partial>
  readonly createLabel: (principal: Principal, input: LabelInput) => Effect.Effect<Label, LabelFailure>
  readonly getLabel: (principal: Principal, labelId: string) => Effect.Effect<Label, Failure>
  readonly listLabels: ListInWorkspace<Label>
  readonly updateLabel: (
    principal: Principal,
    labelId: string,
    change: LabelChange
  ) => Effect.Effect<Label, LabelFailure>
  readonly deleteLabel: (principal: Principal, labelId: string) => Effect.Effect<Label, Failure>
}
