//go:build !unix

package store

// lockFile does nothing where flock is not available: Restore still refuses a database
// another connection has open (probeUnused).
func lockFile(string) (func(), error) { return func() {}, nil }

// syncDir does nothing: directories cannot be synced here.
func syncDir(string) error { return nil }
