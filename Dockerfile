# toolservers over Streamable HTTP. Build: docker build -t toolservers .
# Run:   docker run -p 3000:3000 -e TOOLSERVERS_SERVER_KEY=<long random key> toolservers
# See docs/deploy.md (and compose.yaml for replicas behind nginx with Redis).

# Node 22 LTS: the package runs on Node 20 too, but oidc-provider (OAuth mode) supports 22 and later,
# and request IDs (AsyncLocalStorage) cost less there.
ARG NODE_VERSION=22

# Build stage: every dependency, then tsc and the esbuild bundle (dist/cli.js + dist/chunks/).
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would also install the conformance test runner; the build runs below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.base.json ./
COPY scripts/bundle.mjs ./scripts/
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies and the bundle only, run as the unprivileged `node` user.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/cli.js /app/dist/cli.js.map ./dist/
COPY --from=build /app/dist/chunks ./dist/chunks
COPY LICENSE README.md ./
USER node
EXPOSE 3000
# Liveness through the server's own /health (slim images have no curl; node's fetch does it).
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "/app/dist/cli.js"]
# Every server on one port (/incidentops/mcp, /canvasapi/mcp). Binding beyond loopback needs a
# server key (TOOLSERVERS_SERVER_KEY) in key mode; see docs/deploy.md for OAuth and Redis.
CMD ["serve", "--host", "0.0.0.0", "--port", "3000"]
