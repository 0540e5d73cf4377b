package domain

import (
	"testing"
	"time"
)

// FirstIDAt bounds the ids made from a time on; IDTime reads the time back.
func TestFirstIDAtAndIDTime(t *testing.T) {
	at := time.Date(2026, 11, 24, 3, 0, 0, 123e6, time.UTC)
	made := NewID(PrefixEvent) // now: long after at
	first, next := FirstIDAt(PrefixEvent, at), FirstIDAt(PrefixEvent, time.Now().Add(time.Second))
	if !(first < made && made < next) {
		t.Fatalf("bounds: %s < %s < %s does not hold", first, made, next)
	}
	if got, ok := IDTime(first, PrefixEvent); !ok || !got.Equal(at) {
		t.Fatalf("IDTime(%s) = %v %v, want %v", first, got, ok, at)
	}
	if got, ok := IDTime(made, PrefixEvent); !ok || time.Since(got) > time.Minute || time.Since(got) < 0 {
		t.Fatalf("IDTime of a new id: %v", got)
	}
	if _, ok := IDTime("evt_"+"!!!!!!!!!!!!!!!!!!!!!!!!!!", PrefixEvent); ok {
		t.Fatal("a malformed id has a time")
	}
}
