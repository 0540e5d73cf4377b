package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// runBinary runs `switchboard args...` to the end and returns its exit code and output.
func runBinary(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "DATABASE_URL=") // only --database-url counts
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// linkIDs lists every link of the key's workspace.
func (r *replica) linkIDs(t *testing.T, key string) map[string]bool {
	t.Helper()
	ids := map[string]bool{}
	after := ""
	for {
		var page struct {
			Data []struct {
				ID string `json:"id"`
			} `json:"data"`
			HasMore    bool   `json:"has_more"`
			NextCursor string `json:"next_cursor"`
		}
		r.mustREST(t, key, http.MethodGet, "/api/v1/links?limit=100&after="+url.QueryEscape(after), nil, &page)
		for _, l := range page.Data {
			ids[l.ID] = true
		}
		if !page.HasMore {
			return ids
		}
		after = page.NextCursor
	}
}

// A backup taken while the server writes, restored into a fresh directory, holds every row
// written before the backup began; restore refuses to run under the live server.
func TestBackupUnderLoadRestoresEveryRow(t *testing.T) {
	dir := t.TempDir()
	db := "sqlite://" + filepath.Join(dir, "data", "sb.db")
	r := startReplica(t, "A", db)
	o := signUp(t, r)

	// The writer: links created one after another through the API, each id recorded once
	// the server has answered (committed).
	var mu sync.Mutex
	var created []string
	var writeErr error
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		client := &http.Client{Timeout: 10 * time.Second}
		for n := 0; ; n++ {
			select {
			case <-stop:
				return
			default:
			}
			body, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("https://example.com/%d", n), "slug": fmt.Sprintf("bk-%d", n)})
			req, _ := http.NewRequest(http.MethodPost, r.base+"/api/v1/links", bytes.NewReader(body))
			req.Header.Set("Authorization", "Bearer "+o.key)
			req.Header.Set("Content-Type", "application/json")
			resp, err := client.Do(req)
			if err != nil {
				writeErr = err
				return
			}
			var l linkObject
			err = json.NewDecoder(resp.Body).Decode(&l)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK || l.ID == "" {
				writeErr = fmt.Errorf("create link %d: %d %v", n, resp.StatusCode, err)
				return
			}
			mu.Lock()
			created = append(created, l.ID)
			mu.Unlock()
		}
	}()
	stopWriter := func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		wg.Wait()
		if writeErr != nil {
			t.Fatalf("writer: %v", writeErr)
		}
	}
	defer stopWriter()
	written := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), created...)
	}
	waitFor(t, 20*time.Second, "50 links written", func() bool { return len(written()) >= 50 })

	backup := filepath.Join(dir, "backups", "sb-backup.db")
	if err := os.MkdirAll(filepath.Dir(backup), 0o755); err != nil {
		t.Fatal(err)
	}
	before := written()
	code, stdout, stderr := runBinary(t, "backup", "--database-url", db, backup)
	if code != 0 || !strings.Contains(stdout, "Backed up ") || !strings.Contains(stdout, backup) {
		t.Fatalf("backup: exit %d\n%s%s", code, stdout, stderr)
	}
	t.Logf("%s(%d links written before it began)", stdout, len(before))
	// The writes go on after the backup (it did not stop them).
	waitFor(t, 20*time.Second, "more links after the backup", func() bool { return len(written()) >= len(before)+20 })

	// Under the live server, restore refuses and the database is left alone.
	code, stdout, stderr = runBinary(t, "restore", "--database-url", db, backup)
	if code != 1 || !strings.Contains(stderr, "in use") || !strings.Contains(stderr, "stop it") || stdout != "" {
		t.Fatalf("restore under a live server: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	stopWriter()
	all := written()
	if got := r.linkIDs(t, o.key); len(got) != len(all) {
		t.Fatalf("the live server lists %d links, %d were written", len(got), len(all))
	}

	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		t.Fatal("no exit within 30s of SIGTERM")
	}

	fresh := "sqlite://" + filepath.Join(t.TempDir(), "restored", "sb.db")
	code, stdout, stderr = runBinary(t, "restore", "--database-url", fresh, backup)
	if code != 0 || !strings.Contains(stdout, "Restored "+backup) {
		t.Fatalf("restore: exit %d\n%s%s", code, stdout, stderr)
	}
	r2 := startReplica(t, "restored", fresh)
	got := r2.linkIDs(t, o.key) // the key was created before the backup: it is there too
	for _, id := range before {
		if !got[id] {
			t.Fatalf("link %s, written before the backup, is missing after the restore (%d of %d there)", id, len(got), len(before))
		}
	}
	isWritten := map[string]bool{}
	for _, id := range all {
		isWritten[id] = true
	}
	for id := range got {
		if !isWritten[id] {
			t.Fatalf("the restored database has a link %s nobody wrote", id)
		}
	}
	t.Logf("%d links written in all, %d before the backup, %d in it", len(all), len(before), len(got))
	// The restored server takes writes.
	r2.mustREST(t, o.key, http.MethodPost, "/api/v1/links", map[string]any{"url": "https://example.com/after", "slug": "after-restore"}, nil)
}
