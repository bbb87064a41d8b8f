declare module "wontache" {
  type Compiled = (view: unknown, options?: { readonly partials?: Record<string, Compiled> }) => string
  const mustache: (template: string) => Compiled
  export default mustache
}
