package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

const codeDepthLimit = "DEPTH_LIMIT_EXCEEDED"

// depthLimit refuses operations whose selections nest deeper than max (fragments are
// followed; introspection fields are not counted, as the standard introspection query is
// deep by nature and is refused anyway when introspection is off).
type depthLimit struct{ max int }

var _ interface {
	graphql.HandlerExtension
	graphql.OperationContextMutator
} = depthLimit{}

func (depthLimit) ExtensionName() string                   { return "DepthLimit" }
func (depthLimit) Validate(graphql.ExecutableSchema) error { return nil }

func (d depthLimit) MutateOperationContext(_ context.Context, opCtx *graphql.OperationContext) *gqlerror.Error {
	if opCtx.Operation == nil {
		return nil
	}
	m := depthMeter{fragments: map[string]*ast.FragmentDefinition{}, cap: d.max + 1, memo: map[string]int{}, visiting: map[string]bool{}}
	for _, f := range opCtx.Doc.Fragments {
		m.fragments[f.Name] = f // names are unique: validation refused duplicates
	}
	if depth := m.depth(opCtx.Operation.SelectionSet); depth > d.max {
		err := gqlerror.Errorf("operation nests %d levels deep, more than the limit of %d", depth, d.max)
		err.Extensions = map[string]any{"code": codeDepthLimit}
		return err
	}
	return nil
}

// depthMeter measures selection depth, counting up to cap. A fragment's depth does not
// depend on where it is spread, so each is measured once (memo): the walk is linear in the
// document's size even when fragments spread others many times over. Fragments being
// measured are in visiting, so a cycle (which validation has refused already) cannot
// recurse forever.
type depthMeter struct {
	fragments map[string]*ast.FragmentDefinition
	cap       int
	memo      map[string]int
	visiting  map[string]bool
}

func (m *depthMeter) depth(set ast.SelectionSet) int {
	deepest := 0
	for _, sel := range set {
		d := 0
		switch sel := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(sel.Name, "__") {
				continue
			}
			d = min(1+m.depth(sel.SelectionSet), m.cap)
		case *ast.InlineFragment:
			d = m.depth(sel.SelectionSet)
		case *ast.FragmentSpread:
			d = m.fragment(sel.Name)
		}
		if deepest = max(deepest, d); deepest >= m.cap {
			return m.cap
		}
	}
	return deepest
}

func (m *depthMeter) fragment(name string) int {
	if d, ok := m.memo[name]; ok {
		return d
	}
	f := m.fragments[name]
	if f == nil || m.visiting[name] {
		return 0
	}
	m.visiting[name] = true
	d := m.depth(f.SelectionSet)
	delete(m.visiting, name)
	m.memo[name] = d
	return d
}
