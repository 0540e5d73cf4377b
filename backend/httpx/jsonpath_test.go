package httpx_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/httpx"
)

// PathAt names the value a decoding type error points at by its whole path, map keys and
// array indexes included, which encoding/json's error leaves out.
func TestPathAtNamesTheValueOfATypeError(t *testing.T) {
	type item struct {
		Tags []string `json:"tags"`
	}
	var dst struct {
		Attributes map[string]string `json:"attributes"`
		Labels     []string          `json:"labels"`
		Items      []item            `json:"items"`
		Name       string            `json:"name"`
	}
	for body, want := range map[string]string{
		`{"attributes":{"plan":"pro","seats":5}}`:                "attributes.seats",
		`{"labels":["a","b",3]}`:                                 "labels[2]",
		`{"items":[{"tags":["x"]},{"tags":["y",{"z":1}]}]}`:      "items[1].tags[1]",
		`{"name":"ok","attributes":{"a.b":true}}`:                "attributes.a.b",
		`{"labels":["a"],"name":{"first":"Ada"}}`:                "name",
		` { "attributes" : { "plan" : [ 1 ] } , "labels" : [] }`: "attributes.plan",
	} {
		err := json.Unmarshal([]byte(body), &dst)
		var typeErr *json.UnmarshalTypeError
		if !errors.As(err, &typeErr) {
			t.Fatalf("%s: %v, want a type error", body, err)
		}
		if got := httpx.PathAt([]byte(body), typeErr.Offset); got != want {
			t.Errorf("%s: PathAt = %q, want %q", body, got, want)
		}
	}
}
