package domain

import "time"

// Clock is injected wherever time matters, so tests never sleep.
type Clock interface{ Now() time.Time }

// SystemClock is the real clock, in UTC with millisecond precision (what the API shows).
type SystemClock struct{}

func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }
