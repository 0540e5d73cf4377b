package httpx_test

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/domain"
	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// A key given twice is refused by its whole path; the same key in two objects is not.
func TestNoDuplicateKeys(t *testing.T) {
	for body, want := range map[string]string{
		`{"url":"a","url":"b"}`:                            "url",
		`{"links":[{"slug":"a"},{"slug":"b","slug":"c"}]}`: "links[1].slug",
		`{"a":{"b":{"c":1,"c":2}}}`:                        "a.b.c",
		`[{"x":1},{"x":1,"x":2}]`:                          "[1].x",
		`{"a":{"k":1},"b":{"k":1}}`:                        "",
		`{"k":1} {"k":1}`:                                  "",
		`"scalar"`:                                         "",
		`{"broken":`:                                       "",
	} {
		err := httpx.NoDuplicateKeys([]byte(body))
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v, want none", body, err)
			}
			continue
		}
		var de *domain.Error
		if !errors.As(err, &de) || de.Param != want {
			t.Errorf("%s: %v, want a duplicate at %s", body, err, want)
		}
	}
}

// Deep nesting is refused at MaxJSONDepth, cheaply: a 210 KB body of 2,000 objects, each
// under a 100-character key, once took hundreds of megabytes (every value's whole path was
// built and kept), before authentication on /graphql.
func TestDeepJSONIsRefusedCheaply(t *testing.T) {
	nest := func(depth, keyLen int) []byte {
		key := `"` + strings.Repeat("a", keyLen) + `":`
		return []byte(strings.Repeat("{"+key, depth) + "1" + strings.Repeat("}", depth))
	}
	if err := httpx.NoDuplicateKeys(nest(httpx.MaxJSONDepth, 10)); err != nil {
		t.Fatalf("%d levels: %v", httpx.MaxJSONDepth, err)
	}
	if err := httpx.NoDuplicateKeys(nest(httpx.MaxJSONDepth+1, 10)); !domain.IsCode(err, domain.CodeInvalid) {
		t.Fatalf("%d levels: %v, want refused", httpx.MaxJSONDepth+1, err)
	}
	body := nest(2000, 100)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := httpx.NoDuplicateKeys(body); err == nil {
		t.Fatal("2,000 levels accepted")
	}
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 20<<20 {
		t.Fatalf("refusing a %d KB body allocated %d MB", len(body)>>10, grew>>20)
	}
}
