package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/switchboard-dev/switchboard/backend/store"
	"github.com/switchboard-dev/switchboard/backend/store/storetest"
)

// SIGTERM is a clean stop: the process exits 0 and flushes what it buffers (the API key's
// last use, kept in memory between the minutely flushes) before closing the database.
func TestSigtermStopsCleanlyAndFlushes(t *testing.T) {
	for _, d := range storetest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			db := storetest.URL(t, d)
			r := startReplica(t, "A", db)
			o := signUp(t, r)
			if code, raw := r.rest(t, o.key, http.MethodGet, "/api/v1/me", nil); code != http.StatusOK {
				t.Fatalf("GET /api/v1/me: %d %s", code, raw)
			}
			if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			select {
			case <-r.done:
			case <-time.After(30 * time.Second):
				t.Fatal("no exit within 30s of SIGTERM")
			}
			if code := r.cmd.ProcessState.ExitCode(); code != 0 {
				t.Fatalf("exit code %d:\n%s", code, r.logs.String())
			}

			ctx := context.Background()
			st, err := store.Open(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Close()
			sum := sha256.Sum256([]byte(o.key)) // the store keeps only this
			key, err := st.APIKeyByHash(ctx, hex.EncodeToString(sum[:]))
			if err != nil {
				t.Fatal(err)
			}
			if key.LastUsedAt == nil {
				t.Fatal("last use was not flushed at shutdown")
			}
		})
	}
}
