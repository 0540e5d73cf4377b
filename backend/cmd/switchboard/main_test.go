package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/app"
)

func TestHelpListsEverySetting(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"help"}, &out, &out); err != nil {
		t.Fatal(err)
	}
	for _, s := range app.Settings {
		if !strings.Contains(out.String(), s.Env) {
			t.Errorf("--help does not mention %s", s.Env)
		}
	}
	for _, flag := range []string{"--addr", "--database-url", "--base-url"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("--help does not mention %s", flag)
		}
	}
}

func TestHelpFlagSucceeds(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"serve", "--help"}, {"migrate", "-h"}} {
		var out bytes.Buffer
		if err := run(args, &out, &out); err != nil || !strings.Contains(out.String(), "DATABASE_URL") {
			t.Fatalf("%v: %v\n%s", args, err, out.String())
		}
	}
}

func TestVersionAndUnknownCommand(t *testing.T) {
	var out bytes.Buffer
	if err := run([]string{"version"}, &out, &out); err != nil || !strings.HasPrefix(out.String(), "switchboard ") {
		t.Fatalf("version: %q %v", out.String(), err)
	}
	if err := run([]string{"frobnicate"}, &out, &out); err == nil {
		t.Fatal("an unknown command succeeded")
	}
}

func TestMigrateOnAFreshSQLiteFile(t *testing.T) {
	var out bytes.Buffer
	db := "sqlite://" + t.TempDir() + "/m.db"
	if err := run([]string{"migrate", "--database-url", db}, &out, &out); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out.String())
	}
	if err := run([]string{"migrate", "--database-url", db}, &out, &out); err != nil {
		t.Fatalf("second migrate is not a no-op: %v", err)
	}
}
