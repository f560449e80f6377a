# Edict's controllers in one image; the argument names the controller to run:
#   admission-controller | background-controller | reports-controller | cleanup-controller
# Multi-stage: the build stage installs everything and bundles the four apps; the runtime stage
# holds only production dependencies and the bundles, runs as a non-root user, and needs no
# writable root filesystem (the chart mounts an emptyDir on /tmp).

FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npx nest build admission-controller \
 && npx nest build background-controller \
 && npx nest build reports-controller \
 && npx nest build cleanup-controller \
 && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist/apps ./dist/apps
COPY --from=build /src/docker/entrypoint.mjs ./docker/entrypoint.mjs
# The CRDs, for tools that read them from the image (the chart installs its own copy from files/crds/).
COPY --from=build /src/charts/edict/files/crds ./charts/edict/files/crds
# A numeric non-root user, so Kubernetes' runAsNonRoot can check it.
USER 65532:65532
EXPOSE 9443 8000
ENTRYPOINT ["node", "/app/docker/entrypoint.mjs"]
CMD ["admission-controller"]
