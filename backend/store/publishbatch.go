package store

import (
	"context"

	"github.com/switchboard-dev/switchboard/backend/domain"
)

// This file holds the multi-row statements of the automation service's group commit of
// inbound calls: a batch of calls without a dedupe key costs a few statements.

// InsertCalls stores accepted calls that have no dedupe key (they cannot conflict).
func (t *Tx) InsertCalls(ctx context.Context, cs []domain.Published) error {
	if len(cs) == 0 {
		return nil
	}
	args := make([]any, 0, len(cs)*6)
	for _, c := range cs {
		args = append(args, c.ID, c.WorkspaceID, c.EndpointID, nil, string(c.Payload), c.ReceivedAt.UTC())
	}
	_, err := t.exec(ctx, `INSERT INTO automation_calls (`+callCols+`) VALUES `+values(len(cs), 6), args...)
	return err
}

// InsertRuns stores queued action runs.
func (t *Tx) InsertRuns(ctx context.Context, rs []domain.Run) error {
	if len(rs) == 0 {
		return nil
	}
	args := make([]any, 0, len(rs)*13)
	for _, r := range rs {
		args = append(args, runArgs(r)...)
	}
	_, err := t.exec(ctx, `INSERT INTO automation_runs (`+runCols+`) VALUES `+values(len(rs), 13), args...)
	return err
}
