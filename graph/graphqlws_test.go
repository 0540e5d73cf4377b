package graph_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/graph"
)

// TestGraphQLWSLibraryClient drives the handler with the graphql-ws library the console
// uses (from the console's node_modules), so the protocol is checked by a client we did
// not write. Outside CI it is skipped when Node or the console's dependencies are not
// installed; in CI (make test installs them first) their absence is a failure.
func TestGraphQLWSLibraryClient(t *testing.T) {
	skip := t.Skip
	if os.Getenv("CI") != "" {
		skip = t.Fatal
	}
	node, err := exec.LookPath("node")
	if err != nil {
		skip("node not installed")
	}
	modules, _ := filepath.Abs("../frontend/node_modules")
	if _, err := os.Stat(filepath.Join(modules, "graphql-ws", "package.json")); err != nil {
		skip("console dependencies not installed (npm ci in frontend/)")
	}
	script, _ := filepath.Abs("testdata/graphql-ws-client.mjs")

	eachDialect(t, graph.Options{PingInterval: 200 * time.Millisecond}, func(t *testing.T, h *harness) {
		token, ws := h.owner(t)
		_, key := h.createKey(t, token, "events:read")
		after := h.lastEventID(t, token)
		newKey, _ := h.createKey(t, token) // the event the client must receive

		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, node, script, modules, "ws"+strings.TrimPrefix(h.url(), "http"), key, after)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("graphql-ws client: %v\n%s", err, out)
		}
		sc := bufio.NewScanner(strings.NewReader(string(out)))
		var lines []string
		for sc.Scan() {
			lines = append(lines, sc.Text())
		}
		if len(lines) != 2 {
			t.Fatalf("client printed %q", out)
		}
		var first struct {
			Data struct{ Events event }
		}
		if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
			t.Fatal(err)
		}
		e := first.Data.Events
		if e.Type != "api_key.created" || e.WorkspaceID != ws || !strings.Contains(jsonString(e.Data), newKey) {
			t.Fatalf("event = %+v", e)
		}
		if !strings.Contains(lines[1], ws) {
			t.Fatalf("query after a second of pings: %s", lines[1])
		}
	})
}
