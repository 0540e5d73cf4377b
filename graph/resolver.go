package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"

	"github.com/switchboard-dev/switchboard/backend/service"
	"github.com/switchboard-dev/switchboard/backend/service/automation"
	"github.com/switchboard-dev/switchboard/backend/service/links"
	"github.com/switchboard-dev/switchboard/backend/service/messaging"
	"github.com/switchboard-dev/switchboard/graph/generated"
)

// Resolver is the root of the resolvers. Each resolver takes the actor from the context,
// calls one service method and converts its result; rules live in the service.
type Resolver struct {
	svc   *service.Service
	opts  Options
	msg   *messaging.Messaging   // the messaging surface (graph/messaging.go)
	links *links.Links           // the short-link surface (graph/links.go)
	auto  *automation.Automation // inbound publishing endpoints (graph/automation.go)
}

var _ generated.ResolverRoot = (*Resolver)(nil)

func (r *Resolver) Query() generated.QueryResolver               { return &queryResolver{r} }
func (r *Resolver) Mutation() generated.MutationResolver         { return &mutationResolver{r} }
func (r *Resolver) Subscription() generated.SubscriptionResolver { return &subscriptionResolver{r} }
func (r *Resolver) Viewer() generated.ViewerResolver             { return &viewerResolver{r} }
func (r *Resolver) Link() generated.LinkResolver                 { return &linkResolver{r} }
func (r *Resolver) ChannelConfigField() generated.ChannelConfigFieldResolver {
	return &channelConfigFieldResolver{r}
}

type (
	queryResolver        struct{ *Resolver }
	mutationResolver     struct{ *Resolver }
	subscriptionResolver struct{ *Resolver }
	viewerResolver       struct{ *Resolver }
	linkResolver         struct{ *Resolver }
	// channelConfigFieldResolver encodes a setting's default (any JSON value).
	channelConfigFieldResolver struct{ *Resolver }
)

// actor is the caller (the zero Actor when signed out; the service then answers
// unauthenticated).
func actor(ctx context.Context) service.Actor {
	a, _ := service.ActorFrom(ctx)
	return a
}

// ptr returns a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// optional returns nil for the zero value, else a pointer to it.
func optional[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// deref returns *p, or the zero value for nil.
func deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// nullFields names the fields of the input object argument arg that the operation gave as
// null (in the query or through a variable), by the service's names (messagesPerSecond is
// messages_per_second), for an update's Remove: the GraphQL side of REST's nullFields. What
// null does to each field is the service's rule. gqlgen decodes null like an absent field
// unless the field is omittable; the argument is read here as gqlgen reads it before
// decoding, so the two agree, and every field of the input is covered.
func nullFields(ctx context.Context, arg string) map[string]bool {
	out := map[string]bool{}
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || fc.Field.Field == nil || fc.Field.Definition == nil {
		return out
	}
	in, _ := fc.Field.ArgumentMap(graphql.GetOperationContext(ctx).Variables)[arg].(map[string]any)
	for name, v := range in {
		if v == nil {
			out[snakeCase(name)] = true
		}
	}
	return out
}

// snakeCase turns a GraphQL field name into the service's ("eventTypes" → "event_types"),
// the reverse of camelCase.
func snakeCase(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
