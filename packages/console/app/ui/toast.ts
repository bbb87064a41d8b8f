/**
 * Success messages: `notify("Version 2 published")` shows a short message at the bottom of the screen for a few
 * seconds, announced politely to screen readers (`role="status"`), and dismissable.
 */
import { signal } from "@preact/signals"
import { html } from "../html.ts"

interface Toast {
  readonly id: number
  readonly message: string
}

const toasts = signal<ReadonlyArray<Toast>>([])
let next = 0

const dismiss = (id: number) => {
  toasts.value = toasts.value.filter((t) => t.id !== id)
}

/** Shows `message` as a success toast for `ms` milliseconds (6 s unless given). */
export const notify = (message: string, ms = 6000) => {
  const id = ++next
  toasts.value = [...toasts.value.slice(-2), { id, message }]
  setTimeout(() => dismiss(id), ms)
}

export const Toasts = () =>
  html`<div class="toasts" role="status" aria-live="polite">
    ${
    toasts.value.map((t) =>
      html`<div class="toast" key=${t.id}>
        <span>${t.message}</span>
        <button type="button" class="link" aria-label=${`Dismiss: ${t.message}`} onClick=${() =>
        dismiss(t.id)}>×</button>
      </div>`
    )
  }
  </div>`
