package links

import (
	"crypto/rand"
	"strings"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// Slug rules: case-sensitive, 3 to 64 characters of [A-Za-z0-9_-]; words the service's own
// paths use are reserved (in any case), so a link can never shadow a page.
const (
	MinSlugLength       = 3
	MaxSlugLength       = 64
	GeneratedSlugLength = 7
	// slugAlphabet is base62 without the look-alikes 0 O o 1 l I, so a slug read aloud or
	// off paper is typed right.
	slugAlphabet = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnpqrstuvwxyz"
)

var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`api user users graphql l hooks channels healthz readyz metrics admin assets static
		login logout signin signup docs www app robots favicon`) {
		reserved[w] = true
	}
}

func checkSlug(param, slug string) error {
	if len(slug) < MinSlugLength || len(slug) > MaxSlugLength {
		return domain.Invalid(param, "slug is %d to %d characters", MinSlugLength, MaxSlugLength)
	}
	for _, r := range slug {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return domain.Invalid(param, "slug is made of letters, digits, _ and -")
		}
	}
	if reserved[strings.ToLower(slug)] {
		return &domain.Error{Code: domain.CodeInvalid, Param: param, Reason: "slug_reserved",
			Message: "the slug " + slug + " is reserved"}
	}
	return nil
}

// newSlug returns a random slug of GeneratedSlugLength characters.
func newSlug() string {
	b := make([]byte, GeneratedSlugLength)
	_, _ = rand.Read(b)
	for i := range b {
		// 256 is not a multiple of the alphabet's size: the first 32 letters come a little
		// more often, which costs a fraction of a bit of the ~40.
		b[i] = slugAlphabet[int(b[i])%len(slugAlphabet)]
	}
	return string(b)
}

func errSlugTaken(param string) error {
	return &domain.Error{Code: domain.CodeConflict, Param: param, Reason: "slug_taken",
		Message: "this slug is taken (the slug of a link deleted or renamed stays taken for 30 days)"}
}

func errExternalIDTaken(param string) error {
	return &domain.Error{Code: domain.CodeConflict, Param: param, Reason: "external_id_taken",
		Message: "another link of this workspace has this external_id"}
}
