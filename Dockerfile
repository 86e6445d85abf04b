# The service image: compiled JavaScript plus the files read at run time (api.yaml, cypher/,
# migrations/). It always talks to external stores (DATABASE_URL, NEO4J_URI).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

FROM node:20-bookworm-slim
ENV NODE_ENV=production SCARF_ANALYTICS=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY api.yaml ./
COPY cypher ./cypher
COPY sql ./sql
COPY catalogues ./catalogues
COPY migrations ./migrations
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 8080
CMD ["node", "dist/main.js"]
