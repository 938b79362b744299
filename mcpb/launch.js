// Entry point of the toolservers .mcpb bundles (copied to server/index.js by scripts/build-mcpb.mjs).
// Claude Desktop fills the manifest's env from user_config. A host may pass an optional setting the
// user left blank as the literal placeholder `${user_config.name}` instead of an empty value: such
// values are dropped here so the server falls back to its defaults. Then the bundled CLI runs with
// the arguments as given.
for (const [name, value] of Object.entries(process.env)) {
  if (value !== undefined && /^\$\{user_config\.[^}]*\}$/.test(value.trim())) delete process.env[name];
}
await import('./cli.js');
