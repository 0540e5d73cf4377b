package graph

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"
)

func bomb(levels int) *ast.QueryDocument {
	var b strings.Builder
	b.WriteString("fragment F0 on Query { viewer { user { id } } }\n")
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "fragment F%d on Query { ...F%d ...F%d }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "query { ...F%d }\n", levels-1)
	doc, err := parser.ParseQuery(&ast.Source{Input: b.String()})
	if err != nil {
		panic(err)
	}
	return doc
}

// Both walks over fragments memoise them, so a thousand doubling levels (2^999 fields) are
// counted at once, without overflowing; without the memo these tests would never end.
func TestFragmentWalksAreLinear(t *testing.T) {
	doc := bomb(1000)
	err := DocumentLimits{MaxFields: 1, MaxAliases: 1, MaxSpreads: 1}.checkDocument(doc)
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("over %d fields", maxCount)) {
		t.Fatalf("checkDocument = %v", err)
	}

	m := depthMeter{fragments: map[string]*ast.FragmentDefinition{}, cap: 11, memo: map[string]int{}, visiting: map[string]bool{}}
	for _, f := range doc.Fragments {
		m.fragments[f.Name] = f
	}
	if d := m.depth(doc.Operations[0].SelectionSet); d != 3 {
		t.Fatalf("depth %d, want 3", d)
	}
}

// The counts are exact below saturation: fields and aliases through fragments, inline
// fragments and nesting.
func TestExpansionCounts(t *testing.T) {
	doc, err := parser.ParseQuery(&ast.Source{Input: `
		query A { a: viewer { ...U } b: viewer { ...U } ... on Query { __typename } }
		query B { scopes { presets { id } } }
		fragment U on Viewer { user { id n: name } }
		fragment Unused on Query { x: __typename }`})
	if err != nil {
		t.Fatal(err)
	}
	c := expander{fragments: map[string]*ast.FragmentDefinition{}, memo: map[string]expansion{}, visiting: map[string]bool{}}
	for _, f := range doc.Fragments {
		c.fragments[f.Name] = f
	}
	// A: a, b, __typename, and twice (user, id, name).
	if got, want := c.selections(doc.Operations[0].SelectionSet), (expansion{fields: 9, aliases: 4, spreads: 2}); got != want {
		t.Errorf("operation A: %+v, want %+v", got, want)
	}
	if got := (DocumentLimits{MaxFields: 13, MaxAliases: 5, MaxSpreads: 2}).checkDocument(doc); got != nil {
		t.Errorf("at the limits (9+3+1 fields, 4+1 aliases, 2 spreads): %v", got)
	}
	for _, l := range []DocumentLimits{
		{MaxFields: 12, MaxAliases: 5, MaxSpreads: 2},
		{MaxFields: 13, MaxAliases: 4, MaxSpreads: 2},
		{MaxFields: 13, MaxAliases: 5, MaxSpreads: 1},
	} {
		if l.checkDocument(doc) == nil {
			t.Errorf("%+v: accepted", l)
		}
	}
}
