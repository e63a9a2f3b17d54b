# The AgentForge GitHub App (`agentforge serve`).
# Node 24 runtime: the current LTS; the sources stay Node-20-compatible (see package.json engines).
# Run it with the flags of docs/deployment.md (src/doors/cli/docker-run-flags.ts): the sandbox
# needs user namespaces and a /proc it can mount, which Docker's defaults refuse.

# Build stage: every dependency, the compiler, and `npm run build` (src/ -> build/).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` (the build) needs the sources, copied below, and nothing here needs a
# native module (esbuild finds its binary in its platform package without its install script).
RUN npm ci --ignore-scripts
COPY tsconfig.json ./
COPY scripts/build-cli.mjs ./scripts/
COPY src ./src
RUN npm run build

# Runtime stage: production dependencies and the compiled JavaScript, no TypeScript.
FROM node:24-bookworm-slim

# git for checkouts and pushes; bubblewrap for the command sandbox (no network, read-only system,
# only the checkout writable); slirp4netns, iproute2 and util-linux (nsenter) for the setup phase's
# own network; ca-certificates for HTTPS to GitHub and the model endpoint.
RUN apt-get update \
 && apt-get install -y --no-install-recommends git bubblewrap slirp4netns iproute2 util-linux ca-certificates \
 && rm -rf /var/lib/apt/lists/*

WORKDIR /app

# Dependencies first, so a source change does not reinstall them. --ignore-scripts skips
# `prepare` (the build stage did it; its compiler is a dev dependency) and every install script;
# better-sqlite3's is then run on its own, with build tools removed in the same layer.
COPY package.json package-lock.json ./
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && npm ci --omit=dev --ignore-scripts \
 && npm rebuild better-sqlite3 \
 && npm cache clean --force \
 && apt-get purge -y python3 make g++ && apt-get autoremove -y \
 && rm -rf /var/lib/apt/lists/*

COPY bin ./bin
COPY --from=build /app/build ./build
COPY app.yml ./

# A non-root user owns only the data directory (queue, traces, repository cache).
RUN useradd --create-home --uid 10001 agentforge \
 && mkdir -p /data && chown agentforge:agentforge /data
USER agentforge

ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    AGENTFORGE_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

CMD ["node", "bin/agentforge.js", "serve"]
