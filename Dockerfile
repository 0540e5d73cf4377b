# Production image: build the console and the binary, run as an unprivileged user.
#   docker build --build-arg VERSION=$(git describe --tags --always --dirty) -t switchboard .
FROM node:20-bookworm AS console
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY schema.graphqls /src/schema.graphqls
COPY frontend/ ./
RUN mkdir -p /src/backend/web/dist && npm run build

FROM golang:1.26-bookworm AS binary
# VERSION is what `switchboard version` prints (main.version).
ARG VERSION=dev
WORKDIR /src
COPY go.work go.work.sum ./
COPY backend/go.mod backend/go.sum backend/
COPY graph/go.mod graph/go.sum graph/
RUN cd backend && go mod download && cd ../graph && go mod download
COPY backend/ backend/
COPY graph/ graph/
COPY --from=console /src/backend/web/dist/ backend/web/dist/
RUN cd backend && CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=${VERSION}" -o /out/switchboard ./cmd/switchboard

FROM gcr.io/distroless/static-debian12:nonroot
ARG VERSION=dev
LABEL org.opencontainers.image.title="switchboard" org.opencontainers.image.version="${VERSION}"
COPY --from=binary /out/switchboard /switchboard
# The nonroot user's home: without DATABASE_URL, the SQLite file goes to ./data here.
WORKDIR /home/nonroot
ENV SWITCHBOARD_ADDR=:8080
EXPOSE 8080
# The image has no shell or curl: the binary asks its own /readyz (on SWITCHBOARD_ADDR), so
# the container is healthy when the database answers, not merely when the process runs.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["/switchboard", "healthcheck"]
ENTRYPOINT ["/switchboard", "serve"]
