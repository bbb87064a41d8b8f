/**
 * The provider credentials a workspace's calls name: virtual keys (virtualKeys.ts) and configs (configs.ts).
 */
import { html } from "../html.ts"
import { may } from "../session.ts"
import { PageHeader } from "../ui/common.ts"
import { Configs } from "./configs.ts"
import { VirtualKeys } from "./virtualKeys.ts"

export const ProvidersPage = () =>
  html`<${PageHeader} title="Virtual keys & configs" />
    ${may("virtual_keys.list") ? html`<${VirtualKeys} />` : null}
    ${may("configs.list") ? html`<${Configs} />` : null}`
