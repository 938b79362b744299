// oidc-provider ships no type declarations (and @types/oidc-provider is not a dependency): the
// few parts this package uses are typed where they are used (see provider.ts).
declare module 'oidc-provider';
