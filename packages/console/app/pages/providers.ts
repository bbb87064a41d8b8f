/**
 * The provider credentials a workspace's calls name: virtual keys (virtualKeys.ts) and configs (configs.ts).
 */
import { html } from "../html.ts"
import { can } from "../session.ts"
import { PageHeader } from "../ui/common.ts"
import { Configs } from "./configs.ts"
import { VirtualKeys } from "./virtualKeys.ts"

export const ProvidersPage = () =>
  html`<${PageHeader} title="Virtual keys & configs" />
    ${can("virtual_keys.list") ? html`<${VirtualKeys} />` : null}
    ${can("configs.list") ? html`<${Configs} />` : null}`
