// Package domain holds what Switchboard is: its entities, scopes, event types and the
// error type every layer speaks. It imports nothing of ours, so any package may import it.
package domain
