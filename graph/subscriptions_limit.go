package graph

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// MaxSubscriptionsPerConnection caps the live subscriptions one websocket carries at once.
// Each costs a live stream in the service (about 40 KB: a 256-event buffer and goroutines),
// and with no cap one connection opened 20,000 and grew the server by 775 MB. A console page
// uses one or two; 100 leaves an integration ample room to multiplex, and the workspace's
// own cap (service.MaxLiveStreamsPerWorkspace) still bounds many connections together.
const MaxSubscriptionsPerConnection = 100

// connSubscriptions counts a websocket connection's live subscriptions. initWebsocket puts
// one in the connection's context, which every operation on it inherits.
type connSubscriptions struct{ n atomic.Int64 }

type connSubscriptionsKey struct{}

func withConnSubscriptions(ctx context.Context) context.Context {
	return context.WithValue(ctx, connSubscriptionsKey{}, &connSubscriptions{})
}

// acquire takes a slot, or reports false when the connection already has its maximum.
func (c *connSubscriptions) acquire() bool {
	if c.n.Add(1) > MaxSubscriptionsPerConnection {
		c.n.Add(-1)
		return false
	}
	return true
}

func (c *connSubscriptions) release() { c.n.Add(-1) }

// errTooManySubscriptions answers a subscribe beyond the connection's cap; the connection
// and its other subscriptions carry on.
func errTooManySubscriptions() *gqlerror.Error {
	return transportError("RATE_LIMITED", "connection_subscription_limit_reached",
		fmt.Sprintf("this connection already has %d subscriptions open; complete one before starting another, or open another connection", MaxSubscriptionsPerConnection))
}

// limitSubscriptionsPerConnection refuses a subscription beyond the connection's cap, and
// frees its slot when it ends: when its last response is out (before the client is sent
// "complete", so a client may subscribe again at once), or else when its context ends (a
// panic, the connection closed), so the slot cannot leak.
func limitSubscriptionsPerConnection(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
	op := graphql.GetOperationContext(ctx).Operation
	subs, ok := ctx.Value(connSubscriptionsKey{}).(*connSubscriptions)
	if op == nil || op.Operation != ast.Subscription || !ok {
		return next(ctx)
	}
	if !subs.acquire() {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{errTooManySubscriptions()}})
	}
	release := sync.OnceFunc(subs.release)
	context.AfterFunc(ctx, release)
	responses := next(ctx)
	return func(ctx context.Context) *graphql.Response {
		r := responses(ctx)
		if r == nil {
			release()
		}
		return r
	}
}
