package store

import "context"

// SealedSecret returns one secret sealed with the operator's secrets key (a value beginning
// "enc:v1:"), or "" when the database holds none, so that a replica can check at start that
// its key opens them. All are sealed with the one key, so one is enough. It looks at one
// column of each small table that holds sealed secrets: webhook signing secrets (endpoints
// and subscriptions; a sealed previous secret comes with a sealed current one), channel
// credentials, channel callback tokens and automation endpoints' tokens. Idempotency records
// are left out: there may be many of them, and they expire within a day.
func (s *Store) SealedSecret(ctx context.Context) (string, error) {
	var found []string
	err := s.sel(ctx, &found, `
SELECT v FROM (SELECT secret AS v FROM webhooks WHERE secret LIKE 'enc:v1:%' LIMIT 1) AS w
UNION ALL
SELECT v FROM (SELECT secrets AS v FROM instances WHERE secrets LIKE 'enc:v1:%' LIMIT 1) AS i
UNION ALL
SELECT v FROM (SELECT callback_token AS v FROM instances WHERE callback_token LIKE 'enc:v1:%' LIMIT 1) AS c
UNION ALL
SELECT v FROM (SELECT token AS v FROM automation_endpoints WHERE token LIKE 'enc:v1:%' LIMIT 1) AS a
LIMIT 1`)
	if err != nil || len(found) == 0 {
		return "", err
	}
	return found[0], nil
}
