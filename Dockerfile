# Production image: build the console and the binary, run as an unprivileged user.
FROM node:20-bookworm AS console
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY schema.graphqls /src/schema.graphqls
COPY frontend/ ./
RUN mkdir -p /src/backend/web/dist && npm run build

FROM golang:1.26-bookworm AS binary
WORKDIR /src
COPY go.work go.work.sum ./
COPY backend/go.mod backend/go.sum backend/
COPY graph/go.mod graph/go.sum graph/
RUN cd backend && go mod download && cd ../graph && go mod download
COPY backend/ backend/
COPY graph/ graph/
COPY --from=console /src/backend/web/dist/ backend/web/dist/
RUN cd backend && CGO_ENABLED=0 go build -trimpath -o /out/switchboard ./cmd/switchboard

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=binary /out/switchboard /switchboard
ENV SWITCHBOARD_ADDR=:8080
EXPOSE 8080
ENTRYPOINT ["/switchboard", "serve"]
