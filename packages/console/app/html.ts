/** Preact's `h` bound to htm: markup as tagged templates, no JSX and no build step. */
import htm from "htm"
import { h } from "preact"

export const html = htm.bind(h)
