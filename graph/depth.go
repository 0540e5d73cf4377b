package graph

import (
	"context"
	"strings"

	"github.com/99designs/gqlgen/graphql"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

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
	if depth := selectionDepth(opCtx.Operation.SelectionSet, opCtx.Doc.Fragments, d.max+1, map[string]bool{}); depth > d.max {
		err := gqlerror.Errorf("operation nests %d levels deep, more than the limit of %d", depth, d.max)
		err.Extensions = map[string]any{"code": "DEPTH_LIMIT_EXCEEDED"}
		return err
	}
	return nil
}

// selectionDepth is the depth of set, counting up to stop. Fragments being expanded are in
// visiting, so a cycle (which validation has refused already) cannot recurse forever.
func selectionDepth(set ast.SelectionSet, fragments ast.FragmentDefinitionList, stop int, visiting map[string]bool) int {
	if stop <= 0 {
		return 0
	}
	deepest := 0
	for _, sel := range set {
		d := 0
		switch sel := sel.(type) {
		case *ast.Field:
			if strings.HasPrefix(sel.Name, "__") {
				continue
			}
			d = 1 + selectionDepth(sel.SelectionSet, fragments, stop-1, visiting)
		case *ast.InlineFragment:
			d = selectionDepth(sel.SelectionSet, fragments, stop, visiting)
		case *ast.FragmentSpread:
			if f := fragments.ForName(sel.Name); f != nil && !visiting[sel.Name] {
				visiting[sel.Name] = true
				d = selectionDepth(f.SelectionSet, fragments, stop, visiting)
				delete(visiting, sel.Name)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
