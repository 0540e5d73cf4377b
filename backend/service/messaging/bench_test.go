package messaging_test

import (
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/switchboard-dev/switchboard/backend/channels/sandbox"
	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/backend/store"
)

// BenchmarkAcceptSend measures accepting sends (the work behind POST .../messages → 202)
// on PostgreSQL, 64 at a time, to a spread of chats of one instance. The HTTP figure that
// counts comes from scripts/bench-messages.sh against the real binary.
func BenchmarkAcceptSend(b *testing.B) {
	e := newEnv(b, store.Postgres, service.Config{}, sandbox.New())
	in, err := e.m.Instances.Create(e.ctx, e.a, messaging.CreateInstanceInput{Name: "bench",
		Config: map[string]any{"auto_pair": true}, Connect: true, MessagesPerSecond: ptr(1)})
	if err != nil {
		b.Fatal(err)
	}
	e.waitStatus(in.ID, "connected")
	var n atomic.Int64
	b.SetParallelism(32)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			i := n.Add(1)
			_, err := e.m.Messages.Send(e.ctx, e.a, in.ID, messaging.SendInput{To: fmt.Sprintf("+1555%07d", i%1000+1000),
				ContentInput: messaging.ContentInput{Text: "benchmark"}})
			if err != nil {
				b.Error(err)
				return
			}
		}
	})
}
