/**
 * The prompts' administrative use cases (prompts, their versions and labels, partials, labels), each with its
 * audit record in the change's unit of work (`AuditedUseCase`). A record names the resource the change is
 * about and keeps the input in the API's casing, as the caller gave it.
 */
import type { AuditedUseCase } from "../audit/AuditedUseCase.ts"
import type { PromptsShape } from "./PromptsShape.ts"

/** The workspace resources a change returns, under which it is recorded. */
const resource = <A extends { readonly id: string; readonly workspace_id: string | null }>(requestedId?: string) => ({
  resourceId: (changed: A) => changed.id,
  workspaceId: (changed: A) => changed.workspace_id,
  requestedId
})

export const auditedPrompts = (raw: PromptsShape, useCases: AuditedUseCase["Service"]): PromptsShape => ({
  ...raw,
  create: (principal, input) =>
    useCases.run(
      { useCase: "prompts.create", actor: principal, resourceId: (version) => version.prompt_id, body: input },
      raw.create(principal, input)
    ),
  update: (principal, promptId, input) =>
    useCases.run(
      {
        useCase: "prompts.update",
        actor: principal,
        resourceId: ({ prompt }) => prompt.id,
        workspaceId: ({ prompt }) => prompt.workspace_id,
        body: input
      },
      raw.update(principal, promptId, input)
    ),
  publish: (principal, promptId, version) =>
    useCases.run(
      { useCase: "prompts.makeDefault", actor: principal, ...resource(), body: { version } },
      raw.publish(principal, promptId, version)
    ),
  setLabel: (principal, promptId, label, version) =>
    useCases.run(
      {
        useCase: "prompts.setLabel",
        actor: principal,
        resourceId: (moved) => moved.prompt_id,
        body: { label, version }
      },
      raw.setLabel(principal, promptId, label, version)
    ),
  setVersionLabel: (principal, promptId, versionRef, labelId) =>
    useCases.run(
      {
        useCase: "prompts.setVersionLabel",
        actor: principal,
        resourceId: ({ version }) => version.prompt_id,
        body: { label_id: labelId }
      },
      raw.setVersionLabel(principal, promptId, versionRef, labelId)
    ),
  remove: (principal, promptId) =>
    useCases.run(
      { useCase: "prompts.delete", actor: principal, ...resource(), body: null },
      raw.remove(principal, promptId)
    ),
  createPartial: (principal, input) =>
    useCases.run(
      {
        useCase: "prompts.createPartial",
        actor: principal,
        resourceId: ({ partial }) => partial.id,
        workspaceId: ({ partial }) => partial.workspace_id,
        body: input
      },
      raw.createPartial(principal, input)
    ),
  updatePartial: (principal, partialId, change, workspaceId) =>
    useCases.run(
      {
        useCase: "prompts.updatePartial",
        actor: principal,
        resourceId: ({ partial }) => partial.id,
        workspaceId: ({ partial }) => partial.workspace_id,
        requestedId: partialId,
        body: change
      },
      raw.updatePartial(principal, partialId, change, workspaceId)
    ),
  publishPartial: (principal, partialId, version, workspaceId) =>
    useCases.run(
      {
        useCase: "prompts.publishPartial",
        actor: principal,
        resourceId: ({ partial }) => partial.id,
        workspaceId: ({ partial }) => partial.workspace_id,
        requestedId: partialId,
        body: { version }
      },
      raw.publishPartial(principal, partialId, version, workspaceId)
    ),
  deletePartial: (principal, partialId, workspaceId) =>
    useCases.run(
      { useCase: "prompts.deletePartial", actor: principal, ...resource(partialId), body: null },
      raw.deletePartial(principal, partialId, workspaceId)
    ),
  createLabel: (principal, input) =>
    useCases.run(
      { useCase: "labels.create", actor: principal, ...resource(), body: input },
      raw.createLabel(principal, input)
    ),
  updateLabel: (principal, labelId, change) =>
    useCases.run(
      { useCase: "labels.update", actor: principal, ...resource(labelId), body: change },
      raw.updateLabel(principal, labelId, change)
    ),
  deleteLabel: (principal, labelId) =>
    useCases.run(
      { useCase: "labels.delete", actor: principal, ...resource(labelId), body: null },
      raw.deleteLabel(principal, labelId)
    )
})
