package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/lexer"
	"github.com/vektah/gqlparser/v2/parser"
)

// Defaults of DocumentLimits.
const (
	DefaultMaxQueryBytes   = 32 << 10
	DefaultMaxQueryTokens  = 5000
	DefaultMaxQueryFields  = 1000
	DefaultMaxQueryAliases = 250
	DefaultMaxQuerySpreads = 500
)

// DocumentLimits bound a GraphQL document before gqlgen validates it or computes its
// complexity. Both of those expand every fragment spread in place, so their cost doubles
// with each level of a document such as
//
//	fragment F1 on Query { ...F0 ...F0 }  fragment F2 on Query { ...F1 ...F1 }  ...
//
// and a 1 KB request of 25 such levels costs seconds of CPU before any limit refuses it.
// These limits are checked in time linear in the document's size: the bytes, then the
// tokens (a lexer pass), then, on the parsed document, the fields, aliases and fragment
// spreads it selects once fragments are expanded, counted with one memoised walk per
// fragment. A zero field takes its default.
type DocumentLimits struct {
	// MaxBytes caps the query text (default 32 KiB).
	MaxBytes int
	// MaxTokens caps the query's lexical tokens (default 5000).
	MaxTokens int
	// MaxFields caps the fields selected once fragments are expanded, counting every
	// operation and every fragment no operation uses (default 1000).
	MaxFields int
	// MaxAliases caps the aliased fields, counted the same way (default 250).
	MaxAliases int
	// MaxSpreads caps the fragment spreads, counted the same way (default 500).
	MaxSpreads int
}

func (l *DocumentLimits) defaults() {
	for _, d := range []struct {
		v   *int
		def int
	}{
		{&l.MaxBytes, DefaultMaxQueryBytes},
		{&l.MaxTokens, DefaultMaxQueryTokens},
		{&l.MaxFields, DefaultMaxQueryFields},
		{&l.MaxAliases, DefaultMaxQueryAliases},
		{&l.MaxSpreads, DefaultMaxQuerySpreads},
	} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
}

// codeInvalid is the extensions.code of a refused document; its extensions.reason is
// query_too_large (bytes, tokens) or query_too_complex (fields, aliases, spreads).
const codeInvalid = "INVALID"

func init() {
	// An operation refused before it runs is answered like a parse or validation error:
	// HTTP 422 (400 for application/graphql-response+json), and an "error" message on a
	// websocket. gqlgen consults this registry only for errors that refuse an operation
	// before execution, so resolvers' INVALID errors are unaffected. gqlgen's complexity
	// extension documents a 422 but does not register its code, so it is registered here
	// too, with the depth limit's.
	for _, code := range []string{codeInvalid, "COMPLEXITY_LIMIT_EXCEEDED", codeDepthLimit} {
		errcode.RegisterErrorType(code, errcode.KindProtocol)
	}
}

// documentLimits is the gqlgen extension enforcing DocumentLimits. It runs as an
// OperationParameterMutator, the one hook gqlgen calls before it parses and validates.
type documentLimits struct {
	limits DocumentLimits
	// passed is gqlgen's query cache: a query in it was checked (and validated) before,
	// so the common case of a repeated console query costs one lookup, not a second parse.
	passed graphql.Cache[*ast.QueryDocument]
}

var _ interface {
	graphql.HandlerExtension
	graphql.OperationParameterMutator
} = documentLimits{}

func newDocumentLimits(l DocumentLimits, cache graphql.Cache[*ast.QueryDocument]) documentLimits {
	l.defaults()
	if cache == nil {
		cache = graphql.NoCache[*ast.QueryDocument]{}
	}
	return documentLimits{limits: l, passed: cache}
}

func (documentLimits) ExtensionName() string                   { return "DocumentLimits" }
func (documentLimits) Validate(graphql.ExecutableSchema) error { return nil }

func (d documentLimits) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if _, ok := d.passed.Get(ctx, p.Query); ok {
		return nil
	}
	return d.limits.check(p.Query)
}

// check returns the error refusing query, or nil. A query that does not lex or parse is
// let through: gqlgen's parser reports it as usual.
func (l DocumentLimits) check(query string) *gqlerror.Error {
	if len(query) > l.MaxBytes {
		return limitError("query_too_large", "the query is %d bytes long, more than the limit of %d", len(query), l.MaxBytes)
	}
	src := &ast.Source{Input: query}
	lex := lexer.New(src)
	for n := 0; ; n++ {
		tok, err := lex.ReadToken()
		if err != nil || tok.Kind == lexer.EOF {
			break
		}
		if n == l.MaxTokens {
			return limitError("query_too_large", "the query has more than %d tokens", l.MaxTokens)
		}
	}
	doc, err := parser.ParseQuery(src)
	if err != nil {
		return nil
	}
	return l.checkDocument(doc)
}

func (l DocumentLimits) checkDocument(doc *ast.QueryDocument) *gqlerror.Error {
	c := expander{
		fragments: make(map[string]*ast.FragmentDefinition, len(doc.Fragments)),
		memo:      make(map[string]expansion, len(doc.Fragments)),
		visiting:  map[string]bool{},
	}
	for _, f := range doc.Fragments {
		if _, dup := c.fragments[f.Name]; !dup {
			c.fragments[f.Name] = f
		}
	}
	var total expansion
	for _, op := range doc.Operations {
		total = total.plus(c.selections(op.SelectionSet))
	}
	// Validation walks every fragment definition, used or not (it refuses unused ones only
	// after the walk), so those count too; used ones are already in their operation's count.
	for _, f := range doc.Fragments {
		if _, used := c.memo[f.Name]; !used || c.fragments[f.Name] != f {
			total = total.plus(c.selections(f.SelectionSet))
		}
	}
	if c.cycle != "" {
		err := gqlerror.Errorf("Cannot spread fragment %q within itself.", c.cycle)
		errcode.Set(err, errcode.ValidationFailed)
		return err
	}
	for _, x := range []struct {
		what     string
		got, max int
	}{
		{"fields", total.fields, l.MaxFields},
		{"aliased fields", total.aliases, l.MaxAliases},
		{"fragment spreads", total.spreads, l.MaxSpreads},
	} {
		if x.got > x.max {
			return limitError("query_too_complex", "the query selects %s %s once its fragments are expanded, more than the limit of %d",
				countString(x.got), x.what, x.max)
		}
	}
	return nil
}

func limitError(reason, format string, args ...any) *gqlerror.Error {
	err := gqlerror.Errorf(format, args...)
	err.Extensions = map[string]any{"code": codeInvalid, "reason": reason}
	return err
}

// expansion counts what a selection set selects once its fragments are expanded. Counts
// saturate at maxCount, so a document of a thousand doubling levels cannot overflow them.
type expansion struct{ fields, aliases, spreads int }

const maxCount = 1 << 30

func (a expansion) plus(b expansion) expansion {
	return expansion{
		fields:  min(a.fields+b.fields, maxCount),
		aliases: min(a.aliases+b.aliases, maxCount),
		spreads: min(a.spreads+b.spreads, maxCount),
	}
}

func countString(n int) string {
	if n >= maxCount {
		return fmt.Sprintf("over %d", maxCount)
	}
	return fmt.Sprint(n)
}

// expander counts expansions, each fragment once (memo), so the walk is linear in the
// document's size however often its fragments are spread.
type expander struct {
	fragments map[string]*ast.FragmentDefinition
	memo      map[string]expansion
	visiting  map[string]bool
	cycle     string // a fragment that spreads itself, if any
}

func (c *expander) selections(set ast.SelectionSet) expansion {
	var e expansion
	for _, sel := range set {
		switch sel := sel.(type) {
		case *ast.Field:
			e.fields++
			if sel.Alias != "" && sel.Alias != sel.Name {
				e.aliases++
			}
			e = e.plus(c.selections(sel.SelectionSet))
		case *ast.InlineFragment:
			e = e.plus(c.selections(sel.SelectionSet))
		case *ast.FragmentSpread:
			e.spreads++
			e = e.plus(c.fragment(sel.Name))
		}
	}
	return e
}

func (c *expander) fragment(name string) expansion {
	if e, ok := c.memo[name]; ok {
		return e
	}
	f := c.fragments[name]
	if f == nil {
		return expansion{} // unknown: validation refuses it
	}
	if c.visiting[name] {
		c.cycle = name // refused by checkDocument; the counts no longer matter
		return expansion{}
	}
	c.visiting[name] = true
	e := c.selections(f.SelectionSet)
	delete(c.visiting, name)
	c.memo[name] = e
	return e
}
