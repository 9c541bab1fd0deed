# Rondo: the API (with or without workers) and worker-only processes, one image.
#
#   docker build -t rondo .
#   docker run -p 3000:3000 -e DATABASE_URL=... -e JWT_SECRET_FILE=... -e ENCRYPTION_KEY_FILE=... rondo
#   docker run ... rondo node --max-old-space-size=160 --import tsx src/worker.ts     # a worker
#
# The server runs precompiled (dist/server.mjs, built below by esbuild, which tsx brings);
# the workers, the CLI and the migrations run their TypeScript through tsx, a production
# dependency: no dev dependencies.
# The command is node itself in exec form, so `docker stop`'s SIGTERM reaches node (PID 1),
# which drains requests and jobs and exits 0 (docs/operations.md, "Graceful shutdown").

ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# the web app's sources: npm ci builds them into web/dist (the prepare script; Vite is a dependency)
COPY web ./web
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000 \
    HOST=0.0.0.0
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY . .
COPY --from=deps /app/web/dist ./web/dist
RUN node scripts/build-server.mjs
# The image runs as the unprivileged `node` user (uid 1000); /data holds the local object
# store, mail files and default key files when those are not configured elsewhere.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "--enable-source-maps", "dist/server.mjs"]
