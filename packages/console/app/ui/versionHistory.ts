/**
 * The versions of a prompt or a partial: a table of them, a side-by-side diff of any two (A and B), and
 * publishing one. Both pages show their versions through this one component; what differs is how a version
 * reads as lines to compare and whether labels point at versions.
 */
import { useMemo, useState } from "preact/hooks"
import { html } from "../html.ts"
import { navigate } from "../router.ts"
import { diffLines } from "../template.ts"
import { ConfirmButton, when } from "./common.ts"

export interface VersionLike {
  readonly version: number
  readonly created_at: string
  readonly version_description: string | null
}

const DiffView = <V extends VersionLike>(
  { left, right, linesOf }: {
    readonly left: V
    readonly right: V
    readonly linesOf: (version: V) => ReadonlyArray<string>
  }
) => {
  const rows = useMemo(() => diffLines(linesOf(left), linesOf(right)), [left, right])
  const changed = rows.filter((r) => r.kind === "changed").length
  return html`<section aria-label="Diff">
    <p class="muted" role="status">${
    changed === 0 ? "The two versions are the same." : `${changed} changed line${changed === 1 ? "" : "s"}.`
  }</p>
    <div class="table-wrap"><table class="diff">
      <caption class="visually-hidden">Version ${left.version} beside version ${right.version}</caption>
      <thead><tr><th scope="col">Version ${left.version}</th><th scope="col">Version ${right.version}</th></tr></thead>
      <tbody>${
    rows.map((row) =>
      row.kind === "same"
        ? html`<tr><td><pre>${row.left}</pre></td><td><pre>${row.right}</pre></td></tr>`
        : html`<tr class="changed">
            <td class=${row.left === undefined ? "empty" : "removed"}><pre>${row.left ?? ""}</pre></td>
            <td class=${row.right === undefined ? "empty" : "added"}><pre>${row.right ?? ""}</pre></td>
          </tr>`
    )
  }</tbody>
    </table></div>
  </section>`
}

export const VersionHistory = <V extends VersionLike>(
  props: {
    /** What the versions are of, for the table's caption. */
    readonly name: string
    /** Newest first. */
    readonly versions: ReadonlyArray<V>
    readonly published: number
    /** A version to mark, such as the one just saved. */
    readonly highlighted?: number
    /** The version as the lines the diff compares. */
    readonly linesOf: (version: V) => ReadonlyArray<string>
    /** The labels pointing at the version, for resources that have labels. */
    readonly labelsOf?: (version: V) => ReadonlyArray<string>
    /** Publishes a version; absent when the key may not. */
    readonly onPublish?: (version: number) => Promise<void>
    /** What publishing `version` changes, and for which callers: asked before it is done. */
    readonly publishQuestion: (version: number) => string
    /** The success message once `version` is published. */
    readonly publishDone: (version: number) => string
  }
) => {
  const [compare, setCompare] = useState<{ left?: number; right?: number }>({})
  const { versions, labelsOf, onPublish } = props
  const byNumber = new Map(versions.map((v) => [v.version, v]))
  const left = byNumber.get(compare.left ?? versions[1]?.version ?? -1)
  const right = byNumber.get(compare.right ?? versions[0]?.version ?? -1)

  /** The radio button that puts version `version` on one side of the diff. */
  const compareChoice = (side: "left" | "right", letter: string, chosen: V | undefined, version: number) =>
    html`<label><input type="radio" name=${side} checked=${chosen?.version === version}
      onChange=${() =>
      setCompare({
        ...compare,
        [side]: version
      })} /> ${letter}<span class="visually-hidden"> version ${version}</span></label>`

  return html`
    <div class="table-wrap"><table class="cards">
      <caption class="visually-hidden">Versions of ${props.name}</caption>
      <thead><tr>
        <th scope="col">Version</th><th scope="col">Created</th><th scope="col">Description</th>
        ${labelsOf === undefined ? null : html`<th scope="col">Labels</th>`}
        <th scope="col">Compare</th><th scope="col">Publish</th>
      </tr></thead>
      <tbody>${
    versions.map((v) =>
      html`<tr class=${v.version === props.highlighted ? "highlight" : ""}>
          <td data-label="Version">v${v.version}${
        v.version === props.published ? html` <span class="badge">published</span>` : null
      }</td>
          <td data-label="Created">${when(v.created_at)}</td>
          <td data-label="Description">${v.version_description ?? ""}</td>
          ${
        labelsOf === undefined
          ? null
          : html`<td data-label="Labels">${labelsOf(v).map((l) => html`<span class="badge label">${l}</span> `)}</td>`
      }
          <td class="compare" data-label="Compare">${compareChoice("left", "A", left, v.version)}${
        compareChoice("right", "B", right, v.version)
      }</td>
          <td data-label="">${
        v.version === props.published || onPublish === undefined
          ? null
          : html`<${ConfirmButton} label=${`Publish v${v.version}`} danger=${false}
              question=${props.publishQuestion(v.version)} done=${props.publishDone(v.version)}
              onConfirm=${() => onPublish(v.version)} />`
      }</td>
        </tr>`
    )
  }</tbody>
    </table></div>
    ${
    left !== undefined && right !== undefined && left !== right
      ? html`<h2>Diff: version ${left.version} → version ${right.version}</h2>
          <${DiffView} left=${left} right=${right} linesOf=${props.linesOf} />`
      : html`<p class="muted">Choose two different versions (A and B) to compare.</p>`
  }`
}

/** Deletes a prompt or a partial with all its versions, once confirmed, then shows `then`. */
export const DeleteVersioned = (
  props: {
    readonly kind: string
    readonly name: string
    readonly remove: () => Promise<unknown>
    readonly then: string
  }
) =>
  html`<${ConfirmButton} label="Delete" question=${`Delete the ${props.kind} ${props.name} with all its versions?`}
    onConfirm=${async () => {
    await props.remove()
    navigate(props.then)
  }} />`
